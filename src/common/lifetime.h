/*
 * Object lifetimes: the one create path and the one destroy path that
 * every kind goes through (lifetime.c; the kinds table is object.h's). The
 * pin protocol that makes them safe against racing calls is argued in pin.c.
 *
 * Releasing decides whether a destroy reaches the driver: in a DEAD or
 * FORKED context it does not (the native context's teardown frees
 * everything, and after fork the driver must not be touched); the cleanup
 * policy decides whether that is silent, counted or warned.
 */
#ifndef GPUGUARD_LIFETIME_H
#define GPUGUARD_LIFETIME_H

#include "common/call.h"

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

/* Tests only: whether ctx keeps a spare record of `type` (lifetime.c: at
 * most one per kind, left by a destroy for the next create). */
bool gg__context_has_spare(const gg__context *ctx, gg__type type);

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
