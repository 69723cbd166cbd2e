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

#include <string.h>

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

/* A cleared record of `type` for a new child of ctx (ctx->lock held): the
 * spare its last destroy of that kind left (lifetime.c, child_record_delete;
 * cleared here as gg__object_new clears a pooled one: every byte before the
 * kind's kept tail, all but the id, which a recycled record holds 0), else
 * the pools'. NULL when out of memory. With `type` a constant (an inlined
 * gg__create_inline) the clear has a constant size the compiler expands in
 * place. */
static inline __attribute__((always_inline)) gg__object *gg__child_record_new(gg__context *ctx, gg__type type)
{
    gg__object *o = type > GG__T_NONE && type < GG__T_COUNT ? ctx->spare[type] : NULL;
    if (o == NULL)
        return gg__object_new(type);
    ctx->spare[type] = NULL;
    memset((char *)o + sizeof(o->id), 0, gg__kind_kept_from(type) - sizeof(o->id));
    o->type = type;
    return o;
}

/* gg__create itself, inline: the one implementation of the create protocol,
 * which gg__create calls for every kind and the buffer's create (the
 * hottest: an allocation per pair) inlines with its constant kind and
 * `make`, so that make, its arguments and the record's clear are expanded
 * in place (bench/README.md, "What a call costs"). Same contract as
 * gg__create. */
static inline __attribute__((always_inline)) gg_status gg__create_inline(gg__call *c, uint64_t parent_id,
                                                                         gg__type parent_type, gg__type type,
                                                                         const char *tag, gg__native_create_fn make,
                                                                         const void *args, uint64_t *out_id)
{
    *out_id = 0;
    gg_status status = gg__require_library(c);
    if (status != GG_OK)
        return status;
    gg__object *parent = gg__lookup(c, parent_id, parent_type, parent_type == GG__T_CONTEXT ? "context" : "module");
    if (parent == NULL)
        return gg__lookup_status();
    gg__context *ctx = parent_type == GG__T_CONTEXT ? (gg__context *)parent : parent->context;
    gg__rlock_take(&ctx->lock);
    /* Re-checked under the lock a claim takes: a child attached now is seen
     * by the teardown that claims the context later. */
    if (atomic_load_explicit(&parent->id, memory_order_relaxed) != parent_id ||
        atomic_load_explicit(&ctx->h.id, memory_order_relaxed) == 0) {
        gg__rlock_release(&ctx->lock);
        status = gg__fail(c, GG_INVALID_HANDLE, "%s: the %s was destroyed during the call", c->api,
                          gg__type_name(parent_type));
        gg__leave(c);
        return status;
    }
    status = gg__enter_required(c, ctx); /* gg__require_library passed above */
    gg__object *o = status == GG_OK ? gg__child_record_new(ctx, type) : NULL;
    if (status == GG_OK && o == NULL)
        status = gg__fail(c, GG_OUT_OF_MEMORY, "%s: out of host memory for the object record", c->api);
    if (status == GG_OK) {
        o->type = type;
        gg__op op = GG__OP_COUNT;
        int n = make(c, o, args, &op);
        if (n != 0) {
            gg__op ignored;
            gg__kinds[type].release(c, o, false, &ignored); /* host-side state only: nothing native was made */
            gg__object_delete(o);
            o = NULL;
            status = gg__check(c, op, n);
        }
    }
    if (status == GG_OK) {
        uint64_t id = gg__handle_alloc(type, o);
        if (id == 0) {
            gg__op op = GG__OP_COUNT;
            o->owned = false; /* an adoption that failed leaves the native object its owner's */
            gg__kinds[type].release(c, o, true, &op);
            gg__object_delete(o);
            status = gg__fail(c, GG_OUT_OF_MEMORY, "%s: no id for the object: %s", c->api,
                              gg__handle_alloc_failure());
        } else {
            o->created_by = c->api;
            gg__copy_tag(o->tag, sizeof o->tag, tag);
            gg__child_attach(ctx, o);
            o->birth_id = id;
            atomic_store_explicit(&o->id, id, memory_order_release);
            *out_id = id;
        }
    }
    gg__rlock_release(&ctx->lock);
    gg__leave(c);
    return status;
}

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
