#include "base/alloc.h"
#include "common/object.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fork.h"
#include "common/spin.h"

/* One free list per type: memory of a destroyed stream is only ever reused
 * for another stream, and only once no call can hold it (pin.c). */
static gg__spin pool_lock = GG__SPIN_INIT; /* short sections only (spin.h) */
static gg__object *pool_free[GG__T_COUNT];

/* Each allocation carries a hidden header linking all objects of a type, so
 * that gg_shutdown can free them all, live or pooled. Objects start and end
 * on cache-line boundaries: two threads that each work with their own
 * streams and events (launch logs, record marks) never write to one line. */
#define OBJECT_ALIGN 64
typedef union pool_header {
    union pool_header *all_next;
    char align[OBJECT_ALIGN];
} pool_header;
static pool_header *pool_chain[GG__T_COUNT];

void *gg__object_new(gg__type type)
{
    if (type <= GG__T_NONE || type >= GG__T_COUNT)
        return NULL;
    const gg__kind *kind = &gg__kinds[type];
    gg__spin_lock(&pool_lock);
    gg__object *obj = pool_free[type];
    if (obj != NULL) {
        pool_free[type] = obj->pool_next;
        gg__spin_unlock(&pool_lock);
        /* The id (first, 0 since the claim) and the kept tail (a context's
         * lock, initialised once) are left alone. */
        memset((char *)obj + sizeof(obj->id), 0, kind->kept_from - sizeof(obj->id));
        obj->type = type;
        return obj;
    }
    gg__spin_unlock(&pool_lock);
    /* A new record: allocated and cleared outside the lock (spin.h). */
    size_t bytes = (sizeof(pool_header) + kind->size + OBJECT_ALIGN - 1) / OBJECT_ALIGN * OBJECT_ALIGN;
    pool_header *header = gg__aligned_alloc(OBJECT_ALIGN, bytes);
    if (header == NULL)
        return NULL;
    memset(header, 0, bytes);
    gg__spin_lock(&pool_lock);
    header->all_next = pool_chain[type];
    pool_chain[type] = header;
    gg__spin_unlock(&pool_lock);
    obj = (gg__object *)(header + 1);
    obj->type = type;
    if (kind->init_once != NULL)
        kind->init_once(obj);
    return obj;
}

void gg__object_delete(void *object)
{
    gg__object *obj = object;
    if (obj == NULL)
        return;
    atomic_store_explicit(&obj->id, 0, memory_order_release);
    gg__spin_lock(&pool_lock);
    obj->pool_next = pool_free[obj->type];
    pool_free[obj->type] = obj;
    gg__spin_unlock(&pool_lock);
}

void gg__object_pools_release(void)
{
    gg__spin_lock(&pool_lock);
    for (int t = 1; t < GG__T_COUNT; t++) {
        pool_header *h = pool_chain[t];
        while (h != NULL) {
            pool_header *next = h->all_next;
            if (gg__kinds[t].fini != NULL)
                gg__kinds[t].fini((gg__object *)(h + 1));
            gg__free(h);
            h = next;
        }
        pool_chain[t] = NULL;
        pool_free[t] = NULL;
    }
    gg__spin_unlock(&pool_lock);
}

/* Interned names: an append-only list, freed at gg_shutdown. No count
 * bound: each distinct kernel name costs its length and 16 bytes until
 * gg_shutdown, and a look-up is linear in the distinct names (a program
 * has a few hundred kernels at most). */
typedef struct interned {
    struct interned *next;
    char name[];
} interned;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static interned *intern_head;

const char *gg__intern(const char *name)
{
    pthread_mutex_lock(&intern_lock);
    for (interned *i = intern_head; i != NULL; i = i->next) {
        if (strcmp(i->name, name) == 0) {
            pthread_mutex_unlock(&intern_lock);
            return i->name;
        }
    }
    size_t len = strlen(name);
    interned *i = gg__malloc(sizeof *i + len + 1);
    if (i == NULL) {
        pthread_mutex_unlock(&intern_lock);
        return NULL;
    }
    memcpy(i->name, name, len + 1);
    i->next = intern_head;
    intern_head = i;
    pthread_mutex_unlock(&intern_lock);
    return i->name;
}

/* The prefix, '~', 16 hex digits and the terminator fit a record. */
_Static_assert(GG_NAME_SHORT_PREFIX + 1 + 16 + 1 <= GG_NAME_MAX, "a shortened name fits GG_NAME_MAX");

void gg__record_name(const char *name, char *out)
{
    size_t len = strlen(name);
    if (len < GG_NAME_MAX) {
        memcpy(out, name, len + 1);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 0x100000001b3ull;
    }
    memcpy(out, name, GG_NAME_SHORT_PREFIX);
    snprintf(out + GG_NAME_SHORT_PREFIX, GG_NAME_MAX - GG_NAME_SHORT_PREFIX, "~%016llx", (unsigned long long)h);
}

bool gg__record_names(const char *record, const char *name)
{
    if (strcmp(record, name) == 0)
        return true;
    if (strlen(name) < GG_NAME_MAX)
        return false;
    char form[GG_NAME_MAX];
    gg__record_name(name, form);
    return strcmp(record, form) == 0;
}

const char *gg__intern_find_record(const char *name)
{
    char form[GG_NAME_MAX];
    const char *found = NULL;
    pthread_mutex_lock(&intern_lock);
    for (interned *i = intern_head; i != NULL && found == NULL; i = i->next) {
        gg__record_name(i->name, form);
        if (strcmp(form, name) == 0 || strcmp(i->name, name) == 0)
            found = i->name;
    }
    pthread_mutex_unlock(&intern_lock);
    return found;
}

void gg__intern_release(void)
{
    pthread_mutex_lock(&intern_lock);
    while (intern_head != NULL) {
        interned *next = intern_head->next;
        gg__free(intern_head);
        intern_head = next;
    }
    pthread_mutex_unlock(&intern_lock);
}

void gg__object_locks(bool take)
{
    if (take) {
        gg__spin_lock(&pool_lock);
        pthread_mutex_lock(&intern_lock);
    } else {
        pthread_mutex_unlock(&intern_lock);
        gg__spin_unlock(&pool_lock);
    }
}

/* The kinds table, generated from GG__KINDS (kinds.h): one entry per kind,
 * every column from the list, naming the per-kind functions each kind's
 * file defines (gg__stream_release, gg__stream_describe, ...; declared in
 * object.h from the same list). */
/* A prepared kind's init_once and fini (kinds.h's last column), or none. */
#define GG__KIND_INIT_ONCE_0(name) NULL
#define GG__KIND_INIT_ONCE_1(name) gg__##name##_init_once
#define GG__KIND_FINI_0(name) NULL
#define GG__KIND_FINI_1(name) gg__##name##_fini

const gg__kind gg__kinds[GG__T_COUNT] = {
    [GG__T_NONE] = { .name = "invalid", .plural = "object(s)" },
#define GG__KIND_ENTRY(KIND, name_, record, rank_, kept_from_, prepared)                          \
    [GG__T_##KIND] = { .name = "gg_" #name_, .plural = #name_ "(s)", .size = sizeof(record),       \
                       .kept_from = kept_from_, .rank = rank_, .release = gg__##name_##_release,   \
                       .describe = gg__##name_##_describe,                                          \
                       .init_once = GG__KIND_INIT_ONCE_##prepared(name_),                           \
                       .fini = GG__KIND_FINI_##prepared(name_) },
    GG__KINDS(GG__KIND_ENTRY)
#undef GG__KIND_ENTRY
};
