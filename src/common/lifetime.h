/*
 * Object lifetimes: the kinds table, and the one create path and the one
 * destroy path that every kind goes through (lifetime.c). The pin protocol
 * that makes them safe against racing calls is argued in pin.c.
 *
 * Releasing decides whether a destroy reaches the driver: in a DEAD or
 * FORKED context it does not (the native context's teardown frees
 * everything, and after fork the driver must not be touched); the cleanup
 * policy decides whether that is silent, counted or warned.
 */
#ifndef GPUGUARD_LIFETIME_H
#define GPUGUARD_LIFETIME_H

#include "common/call.h"

struct cJSON;

/* What differs per kind, generated from GG__KINDS (kinds.h, kinds.c). */
typedef struct gg__kind {
    const char *name;       /* "gg_stream" */
    const char *plural;     /* "stream(s)", for leak counts */
    size_t size;            /* record size */
    size_t kept_from;       /* bytes from here on survive recycling (a context's lock) */
    unsigned rank;          /* release order within a context (kinds.h) */
    /* Releases the native object. With `call_driver` (context entered and
     * alive) makes the driver call and returns its native code, setting *op;
     * without, drops host-side state only and returns 0. */
    int (*release)(gg__call *c, gg__object *o, bool call_driver, gg__op *op);
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
    int gg__##name##_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op);       \
    void gg__##name##_describe(const gg__object *o, struct cJSON *json);                      \
    GG__KIND_PREPARED_##prepared(name)
GG__KINDS(GG__KIND_FUNCTIONS)
#undef GG__KIND_FUNCTIONS
#undef GG__KIND_PREPARED_1
#undef GG__KIND_PREPARED_0

/* Makes the native object of a new record `o` (context entered, its lock
 * held); returns the driver's native code and sets *op to the driver
 * operation it made. */
typedef int (*gg__native_create_fn)(gg__call *c, gg__object *o, const void *args, gg__op *op);

/* The create path of every child kind: pins the parent (`parent_id` of
 * `parent_type`: the context, or the module for kernels), locks its context
 * and re-checks both ids, enters the context, makes a record of `type` and
 * its native object with `make`, and registers it (id, tag, child list).
 * Undoes the native object if the record cannot be registered. On success
 * *out_id is the new id; otherwise 0 and the error is recorded. */
gg_status gg__create(gg__call *c, uint64_t parent_id, gg__type parent_type, gg__type type, const char *tag,
                     gg__native_create_fn make, const void *args, uint64_t *out_id);

/* The destroy path of every kind (gg_context_destroy, gg_stream_destroy...):
 * 0 or an id already gone is GG_OK; an id of another kind INVALID_HANDLE.
 * Waits for calls that use the object (or makes them fail) before the
 * driver release. In a forked child: a silent release without any lock a
 * parent thread could have held. */
gg_status gg__destroy(const char *api, uint64_t id, gg__type type);

/* Claims and releases every child of a pinned context (gg_context_recover):
 * waits for their pins with no lock held, then releases them in rank order
 * without driver calls. */
void gg__children_forget(gg__call *c, gg__context *ctx, gg__free_reason reason);

/* Releases every context, and so every object (gg_shutdown, process exit).
 * Every other call has left (pins drained) or fails. */
void gg__contexts_release_all(bool driver_alive);

/* Counts a skipped driver cleanup per the policy. */
void gg__cleanup_skipped(gg__context *ctx, gg__type type);
/* Emits the once-per-context summary (WARN_ONCE policy). Caller holds ctx->lock. */
void gg__cleanup_summarise(gg__context *ctx, const char *why);

#endif
