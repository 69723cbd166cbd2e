/*
 * The one create path and the one destroy path of every kind. The steps
 * W1..W4 and the waits are those of the pin protocol (pin.c).
 */
#include "common/lifetime.h"
#include "common/fault.h"

#include <stdio.h>
#include <string.h>

#include "common/attribution.h"
#include "common/context_table.h"
#include "common/stack.h"

void gg__cleanup_skipped(gg__context *ctx, gg__type type)
{
    atomic_fetch_add_explicit(&ctx->skipped_cleanups, 1, memory_order_relaxed);
    if (gg__lib.config.cleanup == GG_CLEANUP_COUNTED)
        gg__log(GG_LOG_DEBUG, ctx->h.birth_id, "skipped the driver call releasing a %s in a %s context",
                gg__type_name(type), gg__context_state(ctx) == GG_STATE_FORKED ? "forked" : "dead");
}

void gg__cleanup_summarise(gg__context *ctx, const char *why)
{
    uint64_t skipped = atomic_load_explicit(&ctx->skipped_cleanups, memory_order_relaxed);
    if (skipped == 0 || ctx->skipped_warned || gg__lib.config.cleanup != GG_CLEANUP_WARN_ONCE)
        return;
    ctx->skipped_warned = true;
    gg__log(GG_LOG_WARN, ctx->h.birth_id, /* claimed (id 0) by the teardown that calls this */
            "context %s: %llu object(s) released without driver calls because the context is %s",
            gg__object_label(&ctx->h).text, (unsigned long long)skipped, why);
}

/* ---- claiming (W1, W2): under the context's lock ---------------------- */

/* Objects claimed by one destroy, released together. Linked through
 * gg__object.next once detached from the context's list. */
typedef struct doomed {
    gg__object *head;
} doomed;

/* Inlined: every destroy claims. */
static inline __attribute__((always_inline)) void claim(gg__context *ctx, gg__object *o, gg__free_reason reason,
                                                         doomed *d)
{
    uint64_t id = atomic_load_explicit(&o->id, memory_order_relaxed);
    atomic_store_explicit(&o->id, 0, memory_order_seq_cst);
    gg__handle_free(id, reason);
    gg__child_detach(ctx, o);
    o->next = d->head;
    d->head = o;
}

static void claim_children(gg__context *ctx, gg__free_reason reason, doomed *d)
{
    gg__object *o = ctx->children.next;
    while (o != &ctx->children) {
        gg__object *next = o->next;
        claim(ctx, o, reason, d);
        o = next;
    }
}

/* W3: no lock held. */
static void wait_unpinned(const doomed *d)
{
    for (gg__object *o = d->head; o != NULL; o = o->next)
        gg__pins_wait(o);
}

/* W3 without waiting: true when some thread still pins a claimed object.
 * Safe with a lock held (it only looks); false means W3 is done: the
 * claims came first, so no pin can succeed on these objects any more. */
static bool any_pinned(const doomed *d)
{
    for (gg__object *o = d->head; o != NULL; o = o->next)
        if (gg__pins_held(o))
            return true;
    return false;
}

/* Releases one claimed object (W4 for it) with `drive` saying whether to
 * call the driver, and returns the failure. */
static inline __attribute__((always_inline)) gg_status release_driven(gg__call *c, gg__context *ctx, gg__object *o,
                                                                      bool drive, bool call_driver)
{
    gg_status status = GG_OK;
    gg__op op = GG__OP_COUNT;
    int n = gg__kinds[o->type].release(c, o, drive, &op);
    if (n != 0 && !c->b->classify(n).deinitialized) /* a driver shutting down released it already */
        status = gg__check(c, op, n);
    if (!drive && call_driver && o->type != GG__T_KERNEL && !gg__object_borrowed(o))
        gg__cleanup_skipped(ctx, o->type);
    return status;
}

/* Releases one claimed object (W4 for it), and returns the failure. The
 * state is read again per object: releasing an earlier one may have found
 * the context dead (a sticky error kills it under the same lock). */
static gg_status release_one(gg__call *c, gg__context *ctx, gg__object *o, bool entered, bool call_driver)
{
    bool drive = entered && call_driver && gg__context_state(ctx) == GG_STATE_ALIVE;
    return release_driven(c, ctx, o, drive, call_driver);
}

/* W4: releases the claimed objects in rank order and recycles them. With
 * `entered` the context is current and alive: driver calls are made (unless
 * `call_driver` is false); otherwise skipped ones are counted. Caller holds
 * ctx->lock. Returns the first failure. */
static gg_status release_doomed(gg__call *c, gg__context *ctx, doomed *d, bool entered, bool call_driver)
{
    gg_status status = GG_OK;
    /* One object (a buffer freed, a stream or event destroyed): no order
     * to keep, no pass per rank. */
    if (d->head != NULL && d->head->next == NULL)
        status = release_one(c, ctx, d->head, entered, call_driver);
    else
        for (unsigned rank = 0; rank <= gg__kinds[GG__T_CONTEXT].rank; rank++) {
            for (gg__object *o = d->head; o != NULL; o = o->next) {
                if (gg__kinds[o->type].rank != rank)
                    continue;
                gg_status s = release_one(c, ctx, o, entered, call_driver);
                if (status == GG_OK)
                    status = s;
            }
        }
    while (d->head != NULL) {
        gg__object *next = d->head->next;
        gg__object_delete(d->head);
        d->head = next;
    }
    return status;
}

/* ---- the context's spare records (under its lock) ----------------------- */

/* Recycles a released child of ctx: kept as the kind's spare when there is
 * none (one at most: a bound, so that a context holds no more than one
 * free record of each kind), else back to the pools. Type-stable as the
 * pools are: the spare is only ever reused for a child of the same kind. */
static inline void child_record_delete(gg__context *ctx, gg__object *o)
{
    if (ctx->spare[o->type] == NULL) {
        atomic_store_explicit(&o->id, 0, memory_order_release);
        ctx->spare[o->type] = o;
        return;
    }
    gg__object_delete(o);
}

/* Hands the spares back to the pools (the teardown, under the lock, before
 * the context's record goes: gg_shutdown frees the pools after it). */
static void spares_release(gg__context *ctx)
{
    for (int t = 0; t < GG__T_COUNT; t++) {
        gg__object_delete(ctx->spare[t]); /* NULL: no effect */
        ctx->spare[t] = NULL;
    }
}

/* Tests only (lifetime.h): whether ctx holds a spare record of `type`. */
bool gg__context_has_spare(const gg__context *ctx, gg__type type)
{
    return ctx->spare[type] != NULL;
}

/* ---- create ------------------------------------------------------------ */

gg_status gg__create(gg__call *c, uint64_t parent_id, gg__type parent_type, gg__type type, const char *tag,
                     gg__native_create_fn make, const void *args, uint64_t *out_id)
{
    return gg__create_inline(c, parent_id, parent_type, type, tag, make, args, out_id);
}

/* ---- destroy ----------------------------------------------------------- */

/* A forked child: the driver must not be touched and a parent thread may
 * have held any record lock at the fork, so the release takes none: the id
 * is revoked (the handle table's lock is held across fork by the atfork
 * handlers, so it is free here) and the record is left to the process's
 * exit. Pins are not waited for: the child's own threads never pin in a
 * forked child (every call fails with FORKED before it looks anything up). */
static gg_status destroy_in_forked_child(const char *api, uint64_t id)
{
    gg__handle_free(id, GG__FREED_DESTROYED);
    gg__log(GG_LOG_DEBUG, id, "%s: forked child: the id is released, the object is left to the process's exit", api);
    return GG_OK;
}

static gg_status gone(gg__call *c, uint64_t id, gg__type type)
{
    if (gg__backend_get() == NULL && !c->internal)
        return gg__fail_shut_down(c, NULL);
    if (gg__id_type(id) != type)
        return gg__lookup_failed(c, id, type, gg__type_name(type)), gg__lookup_status();
    /* Destroying an id that is already gone is harmless (as free(NULL)). */
    if (gg__log_enabled(GG_LOG_DEBUG)) {
        char why[200];
        gg__handle_explain(id, type, why, sizeof why);
        gg__log(GG_LOG_DEBUG, id, "%s: %s; nothing to do", c->api, why);
    }
    return GG_OK;
}

/* Waits for the claimed objects, then releases them inside their context. */
static gg_status finish_children(gg__call *c, gg__context *ctx, doomed *d)
{
    wait_unpinned(d);
    gg__rlock_take(&ctx->lock);
    bool entered = gg__context_state(ctx) == GG_STATE_ALIVE && gg__enter(c, ctx) == GG_OK;
    gg_status status = release_doomed(c, ctx, d, entered, true);
    gg__rlock_release(&ctx->lock);
    return status;
}

static gg_status destroy_child(gg__call *c, uint64_t id, gg__type type)
{
    /* gg__lookup, with the kind's name looked up only when the pin failed. */
    gg__object *obj = gg__try_pin(c, id, type);
    if (obj == NULL) {
        gg__lookup_failed(c, id, type, gg__type_name(type));
        return gone(c, id, type);
    }
    /* The child's pin keeps the context record (pin.c). The context's
     * teardown cannot start while this destroy holds the context's lock;
     * if it started already, it claimed this child in the same step
     * (context_teardown): the id is gone (W1 below finds it so), and the
     * teardown releases the record. */
    gg__context *ctx = obj->context;
    gg__rlock_take(&ctx->lock);
    if (atomic_load_explicit(&obj->id, memory_order_relaxed) != id) { /* W1: another destroy claimed it */
        gg__rlock_release(&ctx->lock);
        gg__leave(c);
        return GG_OK;
    }
    if (type == GG__T_STREAM)
        c->stream = NULL; /* the record is going: error records must not read it */
    doomed d = { NULL };
    if (type == GG__T_MODULE) {
        /* The module's kernels go with it. */
        gg__object *o = ctx->children.next;
        while (o != &ctx->children) {
            gg__object *next = o->next;
            if (o->type == GG__T_KERNEL && ((gg__kernel *)o)->module == (gg__module *)obj)
                claim(ctx, o, GG__FREED_MODULE_UNLOADED, &d);
            o = next;
        }
    }
    claim(ctx, obj, GG__FREED_DESTROYED, &d);
    gg__pin_clear(c->pins, 0); /* our own pin on obj: W3 must not wait for it */
    gg_status status;
    if (!any_pinned(&d)) {
        /* W3 holds already (the common case: no call uses the object):
         * released without dropping the lock, so the teardown still
         * cannot start, and without pinning the context. This call holds
         * no pin from here on; gg_shutdown (and the exit handler) may stop
         * waiting for it, but they release this context through its
         * teardown, which takes this lock first, and free the pools only
         * after every teardown: the release below finishes before. */
        /* gg__destroy tested the fork generation: entering need not. */
        bool entered = gg__context_state(ctx) == GG_STATE_ALIVE && gg__enter_required(c, ctx) == GG_OK;
        if (d.head == obj && obj->next == NULL) {
            /* One object (not a module with kernels): release_doomed's
             * single-object case, without its call and loop, and without
             * reading the state again: `entered` found it ALIVE under this
             * lock just now, a context dies only under its lock (context.c,
             * context_table.c) and is FORKED only in a child, where this
             * call does not run (gg__destroy). */
            status = release_driven(c, ctx, obj, entered, true);
            child_record_delete(ctx, obj);
        } else {
            status = release_doomed(c, ctx, &d, entered, true);
        }
        gg__rlock_release(&ctx->lock);
        gg__leave(c);
        return status;
    }
    /* Calls still pin it: wait for them with no lock held. Pinning the
     * context keeps its teardown from starting until this release is
     * done; under its lock, after W1 saw this child live, the context is
     * not claimed (its teardown claims the children first, in one step
     * under this lock), so the pin holds. */
    bool context_pinned = gg__pin_record_of(c, &ctx->h);
    gg__rlock_release(&ctx->lock);
    if (!context_pinned) {
        /* Not reached (the call holds one pin of four, and the context is
         * live under its lock); if it were, the claimed object is left
         * unreleased rather than released beside a teardown. */
        status = gg__fail(c, GG_INTERNAL, "%s: internal error: could not pin the context of %s", c->api,
                          gg__object_label(obj).text);
        gg__leave(c);
        return status;
    }
    status = finish_children(c, ctx, &d);
    gg__leave(c);
    return status;
}

/* Tears down a pinned context: claims it, waits for calls on it, claims and
 * waits for its children, releases them and the native context, recycles
 * the record. `driver_alive` false: no driver call at all (exit). */
static gg_status context_teardown(gg__call *c, gg__context *ctx, uint64_t id, gg__free_reason reason,
                                  bool driver_alive)
{
    doomed d = { NULL };
    gg__rlock_take(&ctx->lock);
    if (atomic_load_explicit(&ctx->h.id, memory_order_relaxed) != id) { /* W1 */
        gg__rlock_release(&ctx->lock);
        gg__leave(c);
        return GG_OK;
    }
    /* The children and the context are claimed in one step, the children
     * first: no call ever finds the context claimed and a child of it
     * still live (a destroy of that child, seeing the context claimed,
     * returns knowing the child's id is gone already). A creator attaches
     * under this lock after re-checking the context's id, so it either
     * attached before (its child is claimed here) or fails. */
    claim_children(ctx, reason, &d);
    atomic_store_explicit(&ctx->h.id, 0, memory_order_seq_cst);
    gg__handle_free(id, reason);
    gg__rlock_release(&ctx->lock);
    gg__context_list_remove(ctx);
    gg__leave(c); /* our pin, and nothing else: the context must not be current-switched yet */
    gg__pins_wait(ctx); /* context calls and creators finish */
    wait_unpinned(&d);

    gg_status status = GG_OK;
    gg__rlock_take(&ctx->lock);
    gg_state state = gg__context_state(ctx);
    bool call_driver = driver_alive && state != GG_STATE_FORKED;
    bool entered = call_driver && state == GG_STATE_ALIVE && gg__enter(c, ctx) == GG_OK;
    status = release_doomed(c, ctx, &d, entered, driver_alive);
    gg__leave(c);
    gg__cleanup_summarise(ctx, state == GG_STATE_FORKED ? "forked" : "dead");
    gg__op op = GG__OP_CTX_DESTROY;
    int n = gg__context_release(c, &ctx->h, call_driver, &op);
    if (n != 0 && !c->b->classify(n).deinitialized) {
        gg__log(GG_LOG_WARN, id, "%s: destroying the native context returned %s", c->api, c->b->code_name(n));
        if (state == GG_STATE_ALIVE && status == GG_OK)
            status = gg__fail_native(c, c->b->classify(n).status, op, n, "%s: %s returned %s", c->api,
                                     c->b->op_names[op], c->b->code_name(n));
    }
    gg__fault_context_released(ctx);
    spares_release(ctx);
    gg__rlock_release(&ctx->lock);
    gg__object_delete(ctx);
    return status;
}

static gg_status destroy_context(gg__call *c, uint64_t id)
{
    gg__context *ctx = gg__lookup(c, id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gone(c, id, GG__T_CONTEXT);
    /* A context destroyed while on this thread's stack leaves it, ours and
     * the driver's, wherever it is in it. */
    if (gg__context_state(ctx) != GG_STATE_FORKED)
        gg__context_unwind_stacks(c, ctx);
    return context_teardown(c, ctx, id, GG__FREED_WITH_CONTEXT, true);
}

gg_status gg__destroy(const char *api, uint64_t id, gg__type type)
{
    gg__call c = GG__CALL(api);
    if (GG__UNLIKELY(c.b == NULL)) /* gg__require_initialized's test, inline: it fails then only */
        return gg__require_initialized(&c);
    if (id == 0) {
        gg__log(GG_LOG_DEBUG, 0, "%s: id 0, nothing to destroy", api);
        return GG_OK;
    }
    if (gg__id_type(id) != type)
        return gone(&c, id, type);
    gg__fork_check_pid();
    if (GG__UNLIKELY(gg__fork_generation_now() != gg__lib.fork_generation))
        return destroy_in_forked_child(api, id);
    return type == GG__T_CONTEXT ? destroy_context(&c, id) : destroy_child(&c, id, type);
}

void gg__children_forget(gg__call *c, gg__context *ctx, gg__free_reason reason)
{
    doomed d = { NULL };
    gg__rlock_take(&ctx->lock);
    claim_children(ctx, reason, &d);
    gg__rlock_release(&ctx->lock);
    wait_unpinned(&d);
    gg__rlock_take(&ctx->lock);
    release_doomed(c, ctx, &d, false, true);
    gg__rlock_release(&ctx->lock);
}

void gg__contexts_release_all(bool driver_alive)
{
    uint64_t ids[GG__CONTEXTS_MAX]; /* every live context (32 KiB of stack) */
    size_t n = gg__contexts_snapshot(ids, sizeof ids / sizeof ids[0]);
    for (size_t i = 0; i < n; i++) {
        gg__call c = GG__CALL("gg_shutdown");
        c.internal = true;
        c.b = &gg__lib.backend_storage;
        gg__context *ctx = gg__lookup(&c, ids[i], GG__T_CONTEXT, "context");
        if (ctx != NULL)
            context_teardown(&c, ctx, ids[i], GG__FREED_SHUTDOWN, driver_alive);
    }
}
