/* The counted host allocator and its countdown (see alloc.h). */
#include "base/alloc.h"
#include "base/env.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static uint64_t fail_at;     /* written once under env_once */
static bool env_valid = true;
static _Atomic uint64_t made;
static atomic_bool failed;
static _Thread_local int suspended;
/* Set once at load by a binary that serves other programs (alloc.h). */
static atomic_bool plain;

/* A plain decimal number >= 1, nothing else (no sign, no spaces). */
static bool parse_count(const char *text, uint64_t *out)
{
    uint64_t v = 0;
    if (*text == '\0')
        return false;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return v >= 1;
}

static void read_env(void)
{
    const char *v = gg__env(GG__ENV_FAIL_HOST_ALLOC);
    if (v != NULL && !parse_count(v, &fail_at)) {
        env_valid = false;
        fail_at = 0;
    }
}

bool gg__alloc_fault_point(void)
{
    if (atomic_load_explicit(&plain, memory_order_relaxed))
        return false;
    pthread_once(&env_once, read_env);
    if (suspended > 0)
        return false;
    uint64_t n = atomic_fetch_add_explicit(&made, 1, memory_order_relaxed) + 1;
    if (fail_at != 0 && n == fail_at) {
        atomic_store(&failed, true);
        return true;
    }
    return false;
}

void *gg__malloc(size_t size)
{
    return gg__alloc_fault_point() ? NULL : malloc(size);
}

void *gg__calloc(size_t count, size_t size)
{
    return gg__alloc_fault_point() ? NULL : calloc(count, size);
}

void *gg__realloc(void *p, size_t size)
{
    return gg__alloc_fault_point() ? NULL : realloc(p, size);
}

void *gg__aligned_alloc(size_t alignment, size_t size)
{
    return gg__alloc_fault_point() ? NULL : aligned_alloc(alignment, size);
}

char *gg__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = gg__malloc(n);
    if (copy != NULL)
        memcpy(copy, s, n);
    return copy;
}

void gg__free(void *p)
{
    free(p);
}

bool gg__alloc_env_valid(void)
{
    pthread_once(&env_once, read_env);
    return env_valid;
}

gg__alloc_counts gg__alloc_counts_now(void)
{
    pthread_once(&env_once, read_env);
    return (gg__alloc_counts){ atomic_load(&made), fail_at, atomic_load(&failed) };
}

void gg__alloc_serve_others(void)
{
    atomic_store_explicit(&plain, true, memory_order_relaxed);
}

void gg__alloc_suspend(bool suspend)
{
    suspended += suspend ? 1 : -1;
}
