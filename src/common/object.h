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
#include "common/rlock.h"

typedef struct gg__context gg__context;

typedef struct gg__object {
    _Atomic uint64_t id;
    uint64_t birth_id;           /* the id it was created with: kept after a destroy revokes `id` */
    gg__type type;
    gg__context *context;        /* owner; NULL for a context itself */
    struct gg__object *prev, *next; /* in the owner's child list (owner's lock) */
    const char *created_by;      /* the gg call that created it */
    char tag[GG_NAME_MAX];       /* caller-supplied creation tag */
    /* Made outside gpuguard and adopted (gg_*_adopt, interop.c). Unless
     * `owned`, its release never destroys, frees or resets the native
     * object: the id goes, the native object stays its owner's. */
    bool adopted;
    bool owned;
    struct gg__object *pool_next; /* type-stable pool link while free */
} gg__object;

/* Launches not yet known complete, per stream, for culprit attribution.
 * Written on the launch path without locks: entries are atomics, and a
 * reader (only when an error surfaces) tolerates a torn view.
 *
 * Bounds (each crossed by tests/core/test_bounds.c at bound+1):
 *  - records kept per stream: gg__lib.config.launch_records, a power of two
 *    (GPUGUARD_LAUNCH_RECORDS, 1 to GG__LAUNCH_RECORDS_MAX, default
 *    GG__LAUNCH_RECORDS_DEFAULT; 16 bytes each, allocated with the stream).
 *    Past it the oldest unfinished launches lose their kernel name and
 *    number: attribution still locates them (by position on the stream)
 *    and says they were not kept, never names a newer launch instead;
 *  - timeline slots per context: GG__TIMELINE_SLOTS (one 4 KiB page); the
 *    default stream has one, and streams past the other 511 live ones (or
 *    with slots held by destroyed streams' unfinished work) have no
 *    timeline: their culprits come from what was observed complete;
 *  - destroyed streams' logs: no count bound; each is kept (record array,
 *    slot and an event) only while its work is unobserved, and freed once a
 *    poll sees its event complete. */
#define GG__LAUNCH_RECORDS_DEFAULT 1024u
#define GG__LAUNCH_RECORDS_MAX 65536u
/* Slots of a context's timeline page (8 bytes each: one 4 KiB page). */
#define GG__TIMELINE_SLOTS 512
typedef struct gg__launch_record {
    _Atomic uint64_t sequence;          /* 0 = empty */
    _Atomic(const char *) kernel_name;  /* interned: valid until gg_shutdown */
} gg__launch_record;

typedef struct gg__launch_log {
    _Atomic uint64_t submitted;         /* launches submitted on this stream */
    gg__launch_record *ring;            /* records_mask + 1 of them: launch i in ring[i & mask] */
    uint64_t records_mask;
    _Atomic uint64_t completed;         /* the first `completed` of them are known done */
    /* Completion timeline (timeline.c): after each launch on this stream the
     * device writes the number of launches of this stream then complete
     * (the launch's position on the stream, 1-based), in stream order. NULL:
     * no timeline for this stream. The slot is host memory the device
     * writes, readable after the context died (until its native teardown). */
    _Atomic uint64_t *timeline_slot;    /* host address (64-bit writes) */
    gg__dptr timeline_dev;              /* the device's address of the slot */
    uint32_t timeline_index;            /* slot number in the context's page */
    _Atomic bool timeline_broken;       /* a write failed: the slot is not trusted */
} gg__launch_log;

/* GG_TIMELINE_AUTO's measurement of a context (timeline.c): the host time
 * of a launch and of its completion mark, over the context's launches
 * GG__TIMELINE_WARMUP + 1 to GG__TIMELINE_WARMUP + GG__TIMELINE_SAMPLES
 * (the first ones load modules and warm the driver's caches). */
#define GG__TIMELINE_WARMUP 16u
#define GG__TIMELINE_SAMPLES 32u
typedef struct gg__timeline_sample {
    uint32_t launch_ns, mark_ns;
    bool valid;                         /* the launch reached the driver and was marked */
    bool device_idle;                   /* its stream's work was all complete when launched to */
} gg__timeline_sample;
typedef struct gg__timeline_measure {
    _Atomic uint32_t tickets;           /* launches that went through the sampled path */
    _Atomic uint32_t filled;            /* samples written (the last writer decides) */
    gg__timeline_sample samples[GG__TIMELINE_SAMPLES];
    /* The decision, written once by the deciding thread before it
     * publishes timeline_basis (release). */
    uint32_t valid, device_idle;
    uint64_t launch_ns, mark_ns;
    const char *why;
} gg__timeline_measure;

/* A destroyed stream's launch log, kept while its launches are unobserved:
 * the work of a destroyed stream still runs (as in CUDA), and may be what
 * kills the context. Owned by the context (its lock). */
typedef struct gg__retired_log {
    struct gg__retired_log *next;
    uint64_t stream_id;                 /* the destroyed stream's id, for the culprit */
    char tag[GG_NAME_MAX];
    gg__nevent done;                    /* recorded on the stream at its destroy: a
                                           context synchronize waits for it */
    gg__nstream kept_stream;            /* when no event could be made: the native
                                           stream itself, destroyed once its work is
                                           observed done (a synchronize polls it) */
    gg__launch_log log;                 /* owns the stream's record array */
} gg__retired_log;

typedef struct gg__stream {
    gg__object h;
    gg__nstream native;
    gg__launch_log log;
} gg__stream;

typedef struct gg__event {
    gg__object h;
    gg__nevent native;
    /* The last record: on which stream (its id, and its record, pinned
     * again while it still holds that id to observe it: the stream may be
     * gone since), and that log's `submitted` then. Atomics: a query in
     * another thread may read them while a record writes them. */
    _Atomic bool recorded;
    _Atomic uint64_t recorded_stream_id; /* 0: the default stream */
    struct gg__stream *_Atomic recorded_stream; /* its record; type-stable (object.c) */
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

/* Parameters whose sizes a kernel record keeps (128 bytes a kernel; the
 * count is kept whole, and checked whole). Past it a parameter's width is
 * unknown: it cannot be a chunk offset (GG_INVALID_ARGUMENT naming the
 * bound; crossed by tests/core/test_bounds.c). */
#define GG__KNOWN_PARAMS 64

typedef struct gg__kernel {
    gg__object h;
    gg__module *module;
    uint64_t module_id;
    gg__nfunc native;
    const char *name;                   /* interned */
    /* The kernel's parameters as the driver reports them (cuFuncGetParamInfo,
     * the simulator's declarations), read once at gg_kernel_create. Unknown
     * (params_known false): launches are not checked against them. */
    bool params_known;
    uint32_t param_count;
    uint16_t param_sizes[GG__KNOWN_PARAMS]; /* bytes; the first GG__KNOWN_PARAMS */
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

/* A device's launch limits, 0 ("not reported") turned into "no limit". */
typedef struct gg__launch_limits {
    uint32_t block[3];
    uint32_t threads_per_block;
    uint32_t grid[3];
    uint32_t shared_bytes;
} gg__launch_limits;

struct gg__context {
    gg__object h;
    gg__launch_limits limits;           /* of its device, for the launch checks */
    _Atomic int state;                  /* gg__ctx_state (FORKED is derived: see fork.c) */
    unsigned fork_generation;           /* fork generation at creation */
    int device;
    bool device_watchdog;               /* the device kills long kernels (fixed at creation) */
    bool use_primary;
    bool allow_reset;                   /* adopted: recovery may destroy or reset the native context */
    gg__nctx native;
    uint32_t watchdog_budget_ms;
    gg_watchdog_policy watchdog;
    gg__object children;                /* list head (sentinel) */
    uint32_t child_count[GG__T_COUNT];
    /* One free record per child kind, left by this context's last destroy
     * of that kind for its next create (lifetime.c: both under the lock,
     * without the pools' lock); handed back to the pools by the teardown. */
    gg__object *spare[GG__T_COUNT];
    gg_error_info death;                /* first cause; valid once state is DEAD */
    _Atomic uint64_t launch_sequence;
    gg__launch_log default_log;         /* launches on the default stream */
    gg__retired_log *retired;           /* destroyed streams' unobserved launches */
    uint32_t retired_count;
    /* Completion timeline: one page of host-mapped slots (timeline.c). NULL
     * when the device or the settings give none. Under the lock. */
    _Atomic uint64_t *timeline_page;
    gg__dptr timeline_page_dev;
    bool timeline_wide;                 /* 64-bit writes (else 32-bit) */
    uint32_t timeline_free_count;       /* free slot numbers, a stack */
    uint16_t timeline_free[GG__TIMELINE_SLOTS];
    /* How often launches are marked (timeline.c): after a stream's launch at
     * position p (0-based) when (p + 1) % stride == 0. 1 while auto
     * measures, then set once; marks made before a change are a superset
     * of those after (1 divides everything), which attribution relies on. */
    _Atomic uint32_t timeline_stride;
    _Atomic int timeline_basis;         /* gg_timeline_basis; MEASURED published with release */
    _Atomic bool timeline_sampling;     /* auto measures: launches take gg__launch_sampled */
    gg__timeline_measure timeline_measure;
    _Atomic uint64_t skipped_cleanups;
    _Atomic int latched_fault;          /* injected async error waiting for a sync (fault.c) */
    bool skipped_warned;
    /* Children list, death record, kernel timing. Last: the part of the
     * record that survives recycling (initialised once, when the memory is
     * first allocated; destroyed only when gg_shutdown frees the pools), so
     * no thread ever waits on a re-initialised lock. */
    gg__rlock lock;
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
 * (0x0001000000000003) when it has no tag, never an empty ''. The id is the
 * birth id: a record being destroyed (its live id already 0) is still named
 * by the id its users knew. Use the text within the expression that calls
 * this (a temporary). */
typedef struct gg__label { char text[GG_NAME_MAX + 24]; } gg__label;
static inline gg__label gg__object_label(const gg__object *o)
{
    gg__label l;
    if (o->tag[0] != '\0')
        snprintf(l.text, sizeof l.text, "'%s'", o->tag);
    else
        snprintf(l.text, sizeof l.text, "0x%016llx", (unsigned long long)o->birth_id);
    return l;
}

struct gg__call; /* call.h: the per-kind functions take the call that releases */
struct cJSON;

/* What differs per kind, generated from GG__KINDS (kinds.h; the table is object.c's). */
typedef struct gg__kind {
    const char *name;       /* "gg_stream" */
    const char *plural;     /* "stream(s)", for leak counts */
    size_t size;            /* record size */
    size_t kept_from;       /* bytes from here on survive recycling (a context's lock) */
    unsigned rank;          /* release order within a context (kinds.h) */
    /* Releases the native object. With `call_driver` (context entered and
     * alive) makes the driver call and returns its native code, setting *op;
     * without, drops host-side state only and returns 0. */
    int (*release)(struct gg__call *c, gg__object *o, bool call_driver, gg__op *op);
    /* Adds the kind's own fields to the object's JSON (gg_objects_json). */
    void (*describe)(const gg__object *o, struct cJSON *json);
    /* Prepares freshly allocated memory (once per record's life), and undoes
     * that when gg_shutdown frees the pools; NULL when nothing to do. */
    void (*init_once)(gg__object *o);
    void (*fini)(gg__object *o);
} gg__kind;

extern const gg__kind gg__kinds[GG__T_COUNT];

/* The per-kind functions each kind's file defines: release and describe
 * for every kind, init_once and fini for a prepared one (kinds.h). */
#define GG__KIND_PREPARED_0(name)
#define GG__KIND_PREPARED_1(name)                    \
    void gg__##name##_init_once(gg__object *o);      \
    void gg__##name##_fini(gg__object *o);
#define GG__KIND_FUNCTIONS(KIND, name, record, rank, kept_from, prepared)                     \
    int gg__##name##_release(struct gg__call *c, gg__object *o, bool call_driver, gg__op *op);       \
    void gg__##name##_describe(const gg__object *o, struct cJSON *json);                      \
    GG__KIND_PREPARED_##prepared(name)
GG__KINDS(GG__KIND_FUNCTIONS)
#undef GG__KIND_FUNCTIONS
#undef GG__KIND_PREPARED_1
#undef GG__KIND_PREPARED_0

/* gg__kinds[type].kept_from as a constant expression where `type` is one:
 * the same GG__KINDS entries, so that a clear of a record whose kind the
 * compiler knows has a constant size (an inlined create: lifetime.h),
 * instead of a load from the table and a call to memset. */
static inline size_t gg__kind_kept_from(gg__type type)
{
    switch (type) {
#define GG__KIND_KEPT_FROM(KIND, name, record, rank, kept_from, prepared) \
    case GG__T_##KIND:                                                   \
        return kept_from;
        GG__KINDS(GG__KIND_KEPT_FROM)
#undef GG__KIND_KEPT_FROM
    default:
        return 0;
    }
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
/* name as a GG_NAME_MAX record keeps it: whole when it fits, else its
 * shortened form (gpuguard.h, GG_NAME_MAX); out has GG_NAME_MAX bytes. */
void gg__record_name(const char *name, char *out);
/* The interned name that is name, or whose record form (gg__record_name)
 * is name; NULL if none. */
const char *gg__intern_find_record(const char *name);
/* Whether record (a GG_NAME_MAX string: a fault-plan filter, a culprit's
 * name) names the kernel called name: its whole name or its shortened
 * form. */
bool gg__record_names(const char *record, const char *name);
void gg__intern_release(void);

/* True when releasing `o` must leave its native object alone: adopted
 * from another owner without taking ownership. */
static inline bool gg__object_borrowed(const gg__object *o)
{
    return o->adopted && !o->owned;
}

/* Child list of a context (caller holds ctx->lock). Inline: every create
 * attaches and every destroy detaches (bench/README.md, "What a call
 * costs"). */
static inline void gg__child_attach(gg__context *ctx, gg__object *child)
{
    gg__object *head = &ctx->children;
    child->context = ctx;
    child->next = head->next;
    child->prev = head;
    head->next->prev = child;
    head->next = child;
    ctx->child_count[child->type]++;
}

/* No effect on a child not attached (prev NULL). */
static inline void gg__child_detach(gg__context *ctx, gg__object *child)
{
    if (child->prev == NULL)
        return;
    child->prev->next = child->next;
    child->next->prev = child->prev;
    child->prev = child->next = NULL;
    ctx->child_count[child->type]--;
}

/* Takes (true) or releases (false) this file's global locks (fork
 * handlers: library.c's gg__global_locks). */
void gg__object_locks(bool take);

#endif /* GPUGUARD_OBJECT_H */
