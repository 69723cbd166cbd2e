/* The simulator's counted host allocator (see sim_alloc.h). */
#include "sim_alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static uint64_t fail_at; /* 0: never */
static _Atomic uint64_t made;
static atomic_bool failed;

/* Plain decimal digits, >= 1; anything else leaves the countdown off. */
static void read_env(void)
{
    const char *v = getenv("GPUGUARD_SIM_FAIL_HOST_ALLOC");
    uint64_t n = 0;
    if (v == NULL || *v == '\0')
        return;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9' || n > (UINT64_MAX - 9) / 10)
            return;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    fail_at = n;
}

bool sim_alloc_fault_point(void)
{
    pthread_once(&env_once, read_env);
    uint64_t n = atomic_fetch_add_explicit(&made, 1, memory_order_relaxed) + 1;
    if (fail_at != 0 && n == fail_at) {
        atomic_store(&failed, true);
        return true;
    }
    return false;
}

void *sim_malloc(size_t size)
{
    return sim_alloc_fault_point() ? NULL : malloc(size);
}

void *sim_calloc(size_t count, size_t size)
{
    return sim_alloc_fault_point() ? NULL : calloc(count, size);
}

void *sim_realloc(void *p, size_t size)
{
    return sim_alloc_fault_point() ? NULL : realloc(p, size);
}

void *sim_aligned_alloc(size_t alignment, size_t size)
{
    return sim_alloc_fault_point() ? NULL : aligned_alloc(alignment, size);
}

int sim_posix_memalign(void **out, size_t alignment, size_t size)
{
    return sim_alloc_fault_point() ? ENOMEM : posix_memalign(out, alignment, size);
}

char *sim_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = sim_malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

/* At unload or exit: the counts, for a sweep. */
__attribute__((destructor)) static void write_report(void)
{
    const char *path = getenv("GPUGUARD_SIM_HOST_ALLOC_REPORT");
    if (path == NULL || *path == '\0')
        return;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return;
    fprintf(f, "{\"made\": %llu, \"fail_at\": %llu, \"failed\": %s}\n", (unsigned long long)atomic_load(&made),
            (unsigned long long)fail_at, atomic_load(&failed) ? "true" : "false");
    fclose(f);
}
