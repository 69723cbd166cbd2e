/*
 * The objects behind the handles, and their ownership.
 *
 * Every object starts with gg__object. A child (stream, event, buffer,
 * module, kernel) records its owning context and sits in that context's
 * child list, so destroying or recovering the context can release every
 * child. Object memory is type-stable (object.c): it is recycled only for
 * objects of the same type, only once no call can still hold it (pin.c),
 * and returned to the system at gg_shutdown once no call is inside.
 */
#ifndef GPUGUARD_OBJECT_H
#define GPUGUARD_OBJECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "common/backend.h"
#include "common/handle.h"

typedef struct gg__context gg__context;

typedef struct gg__object {
    _Atomic uint64_t id;
    gg__type type;
    gg__context *context;        /* owner; NULL for a context itself */
    struct gg__object *prev, *next; /* in the owner's child list (owner's lock) */
    const char *created_by;      /* the gg call that created it */
    char tag[GG_NAME_MAX];       /* caller-supplied creation tag */
    struct gg__object *pool_next; /* type-stable pool link while free */
} gg__object;

/* Launches not yet known complete, per stream, for culprit attribution.
 * Written on the launch path without locks: entries are atomics, and a
 * reader (only when an error surfaces) tolerates a torn view. */
#define GG__LAUNCH_RING 32
typedef struct gg__launch_record {
    _Atomic uint64_t sequence;          /* 0 = empty */
    _Atomic(const char *) kernel_name;  /* interned: valid until gg_shutdown */
} gg__launch_record;

typedef struct gg__launch_log {
    _Atomic uint64_t submitted;         /* launches submitted on this stream */
    _Atomic uint64_t completed;         /* the first `completed` of them are known done */
    gg__launch_record ring[GG__LAUNCH_RING];
} gg__launch_log;

typedef struct gg__stream {
    gg__object h;
    gg__nstream native;
    gg__launch_log log;
} gg__stream;

typedef struct gg__event {
    gg__object h;
    gg__nevent native;
    /* The last record: on which stream (its id, pinned again to observe it:
     * the stream may be gone since), and that log's `submitted` then. Atomics:
     * a query in another thread may read them while a record writes them. */
    _Atomic bool recorded;
    _Atomic uint64_t recorded_stream_id; /* 0: the default stream */
    _Atomic uint64_t submitted_at_record;
} gg__event;

typedef struct gg__buffer {
    gg__object h;
    size_t bytes;
    unsigned flags;
    gg__dptr device_ptr;                /* device buffers */
    void *host_ptr;                     /* pinned host buffers */
} gg__buffer;

typedef struct gg__module {
    gg__object h;
    gg__nmodule native;
} gg__module;

typedef struct gg__kernel {
    gg__object h;
    gg__module *module;
    uint64_t module_id;
    gg__nfunc native;
    const char *name;                   /* interned */
    /* Watchdog enforcement (chunk.c), under the context's lock. */
    bool chunkable;
    uint32_t offset_param, chunk_dimension;
    double ms_per_block;                /* timing history: smoothed device ms per block */
    uint64_t timing_samples;
    gg__nevent timing_start, timing_end; /* a plain launch being timed (watchdog devices) */
    uint64_t timing_blocks;             /* blocks of that launch; 0 = none pending */
} gg__kernel;

typedef enum gg__ctx_state {
    GG__CTX_ALIVE = 1, GG__CTX_DEAD = 2
} gg__ctx_state;

struct gg__context {
    gg__object h;
    _Atomic int state;                  /* gg__ctx_state (FORKED is derived: see fork.c) */
    unsigned fork_generation;           /* fork generation at creation */
    int device;
    bool device_watchdog;               /* the device kills long kernels (fixed at creation) */
    bool use_primary;
    gg__nctx native;
    uint32_t watchdog_budget_ms;
    gg_watchdog_policy watchdog;
    gg__object children;                /* list head (sentinel) */
    uint32_t child_count[GG__T_COUNT];
    gg_error_info death;                /* first cause; valid once state is DEAD */
    _Atomic uint64_t launch_sequence;
    gg__launch_log default_log;         /* launches on the default stream */
    _Atomic uint64_t skipped_cleanups;
    _Atomic int latched_fault;          /* injected async error waiting for a sync (fault.c) */
    bool skipped_warned;
    /* Children list, death record, kernel timing. Last: the part of the
     * record that survives recycling (initialised once, when the memory is
     * first allocated; destroyed only when gg_shutdown frees the pools), so
     * no thread ever waits on a destroyed or re-initialised mutex. */
    pthread_mutex_t lock;
};

/* Copies a creation tag (NULL: empty), truncated to fit, always terminated:
 * snprintf("%s") without its cost on every creation. */
static inline void gg__copy_tag(char *dst, size_t size, const char *tag)
{
    size_t i = 0;
    for (; tag != NULL && i + 1 < size && tag[i] != '\0'; i++)
        dst[i] = tag[i];
    dst[i] = '\0';
}

/* How messages name an object: its tag quoted ('input'), or its id
 * (0x0001000000000003) when it has no tag, never an empty ''. Use the
 * text within the expression that calls this (a temporary). */
typedef struct gg__label { char text[GG_NAME_MAX + 24]; } gg__label;
static inline gg__label gg__object_label(const gg__object *o)
{
    gg__label l;
    if (o->tag[0] != '\0')
        snprintf(l.text, sizeof l.text, "'%s'", o->tag);
    else
        snprintf(l.text, sizeof l.text, "0x%016llx",
                 (unsigned long long)atomic_load_explicit(&o->id, memory_order_relaxed));
    return l;
}

/* Type-stable allocation, zeroed up to the kind's kept tail. NULL when out
 * of memory. */
void *gg__object_new(gg__type type);
/* Recycles a record. Only once its id is revoked and no pin holds it. */
void gg__object_delete(void *object);
/* Returns every pooled object's memory to the system (gg_shutdown only). */
void gg__object_pools_release(void);

/* Interns a kernel name: the pointer stays valid until gg_shutdown. */
const char *gg__intern(const char *name);
void gg__intern_release(void);

/* Child list of a context (caller holds ctx->lock). */
void gg__child_attach(gg__context *ctx, gg__object *child);
void gg__child_detach(gg__context *ctx, gg__object *child);

#endif /* GPUGUARD_OBJECT_H */
