/*
 * Contexts, their stickiness, and each thread's stack of current contexts.
 *
 * A device fault poisons the context: sticky holds the first error, every
 * call that uses the context returns it, and the stream workers drop all
 * pending work. Destroying a context never waits for its work: hung launches
 * are cancelled through their stream's discard flag and finish on their own
 * worker thread, which holds the references it needs.
 *
 * Under sticky_scope "process" (sim_process_poison.c) a device fault that
 * poisons its context poisons every other context too, and no context can
 * be created once the process is poisoned.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>

_Thread_local sim_thread sim_t;

static void top_changed(void)
{
    sim_t.top = sim_t.depth ? sim_t.stack[sim_t.depth - 1] : 0;
}

static void ctx_free(sim_obj *o)
{
    sim_ctx *c = (sim_ctx *)o;
    sim_truth_detach(c); /* its records stay readable: the log outlives it */
    pthread_mutex_destroy(&c->lock);
    free(c->streams);
    free(c->allocs);
    free(c);
}

/* Stops the null stream and releases the context's reference to it. */
static void drop_null_stream(sim_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    sim_stream *ns = c->null_stream;
    c->null_stream = NULL;
    pthread_mutex_unlock(&c->lock);
    if (ns) {
        sim_stream_abandon(ns);
        sim_obj_release(&ns->obj);
    }
}

/* A poisoned process creates no context (CUDA: cuCtxCreate and
 * cuDevicePrimaryCtxRetain answer the process's sticky error). */
static sim_status process_refuses(void)
{
    sim_status st = sim_process_claimed();
    if (st)
        sim_detail("a device fault poisoned the process: no context can be made in it any more "
                   "(sticky_scope \"process\"; only a new process computes)");
    return st;
}

sim_status sim_ctx_create(sim_device *d, bool primary, sim_ctx **out)
{
    sim_status refused = process_refuses();
    if (refused)
        return refused;
    sim_ctx *c = sim_calloc(1, sizeof *c);
    if (!c)
        return SIM_ERR_OUT_OF_MEMORY;
    sim_obj_init(&c->obj, SIM_KIND_CONTEXT, NULL, ctx_free);
    c->dev = d;
    c->primary = primary;
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->sticky, SIM_OK);
    atomic_init(&c->dying, false);
    atomic_init(&c->epoch, 0);
    atomic_init(&c->clock, 1);
    atomic_init(&c->stack_limit, SIM_DEFAULT_STACK_LIMIT);
    sim_status st = sim_truth_attach(c);
    if (st) {
        sim_obj_release(&c->obj);
        return st;
    }
    sim_stream *ns;
    st = sim_stream_create(c, 0, true, &ns);
    if (st) {
        sim_obj_release(&c->obj);
        return st;
    }
    c->null_stream = ns;
    sim_obj_retain(&c->obj); /* the registry's reference */
    if (!sim_registry_add(&c->obj)) {
        sim_obj_release(&c->obj);
        atomic_store(&c->dying, true);
        drop_null_stream(c);
        sim_obj_release(&c->obj);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    /* Claimed since the check above: the scan may have passed this
     * context's slot before it was registered, so it refuses itself. */
    if ((refused = process_refuses()) != SIM_OK) {
        sim_ctx_destroy(c, false);
        sim_obj_release(&c->obj);
        return refused;
    }
    sim_truth_publish(c); /* keyed by the handle, which it has only now */
    *out = c;
    return SIM_OK;
}

static bool owned_by(sim_obj *o, void *c)
{
    return o->owner == c;
}

static void on_child_removed(sim_obj *o)
{
    if (o->kind == SIM_KIND_STREAM)
        sim_stream_abandon((sim_stream *)o);
}

/* Frees every resource of the context and drops its pending work. */
static void teardown(sim_ctx *c)
{
    sim_registry_remove_if(owned_by, c, on_child_removed);
    drop_null_stream(c);
    /* Streams the user destroyed may still be draining work: drop it too. */
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->nstreams; i++)
        sim_stream_abandon(c->streams[i]);
    pthread_mutex_unlock(&c->lock);
    sim_mem_free_all(c);
    sim_host_free_all(c);
    sim_progress_notify();
}

sim_status sim_ctx_destroy(sim_ctx *c, bool pop_current)
{
    if (!sim_registry_remove(&c->obj))
        return SIM_ERR_INVALID_CONTEXT;
    atomic_store(&c->dying, true);
    sim_progress_notify();
    teardown(c);
    if (pop_current && sim_t.depth && sim_t.stack[sim_t.depth - 1] == c->obj.handle) {
        sim_t.depth--;
        top_changed();
    }
    return SIM_OK;
}

void sim_ctx_reset(sim_ctx *c)
{
    /* Work of the old epoch may still report faults: they are ignored. */
    pthread_mutex_lock(&c->lock);
    atomic_fetch_add(&c->epoch, 1);
    pthread_mutex_unlock(&c->lock);
    teardown(c);
    sim_stream *ns;
    sim_status st = sim_stream_create(c, 0, true, &ns);
    pthread_mutex_lock(&c->lock);
    atomic_store(&c->sticky, SIM_OK);
    if (st == SIM_OK)
        c->null_stream = ns;
    else /* no null stream: calls on it fail with OUT_OF_MEMORY */
        atomic_store(&c->sticky, SIM_ERR_OUT_OF_MEMORY);
    pthread_mutex_unlock(&c->lock);
    sim_progress_notify();
}

/* Whether a poison of epoch would win c now (a peek: the decision is
 * sim_ctx_poison's, under the lock). */
static bool would_win(sim_ctx *c, unsigned epoch)
{
    pthread_mutex_lock(&c->lock);
    bool wins = atomic_load(&c->epoch) == epoch && !atomic_load(&c->dying) &&
                atomic_load(&c->sticky) == SIM_OK;
    pthread_mutex_unlock(&c->lock);
    return wins;
}

bool sim_ctx_poison(sim_ctx *c, sim_status st, unsigned epoch, const sim_truth_slot *culprit)
{
    /* Process scope: every other context is poisoned (its truth written)
     * before this one's error shows, so that whoever sees the culprit's
     * error finds the whole process's truth written. No lock is held
     * across it: a bystander's lock is never taken under this one. */
    bool claimed = sim_status_is_sticky(st) && sim_process_scope() && would_win(c, epoch) &&
                   sim_process_claim(st);
    if (claimed)
        sim_process_poison_others(c, st);
    pthread_mutex_lock(&c->lock);
    /* Every writer of sticky holds the context lock, so this decides who
     * wins: the truth is written for the winner only, and before the store
     * that makes the error visible (a caller that sees the error and reads
     * the truth finds the culprit, and the launches it doomed, marked). */
    bool wins = atomic_load(&c->epoch) == epoch && !atomic_load(&c->dying) &&
                atomic_load(&c->sticky) == SIM_OK;
    if (wins) {
        if (c->truth) {
            if (culprit)
                sim_truth_ended(culprit,
                                st == SIM_ERR_LAUNCH_TIMEOUT ? GG_SIM_LAUNCH_TIMED_OUT
                                                             : GG_SIM_LAUNCH_FAULTED,
                                st, true);
            for (size_t i = 0; i < c->nstreams; i++)
                sim_stream_truth_discard_queued(c->streams[i]);
        }
        atomic_store(&c->sticky, (int)st);
    }
    pthread_mutex_unlock(&c->lock);
    if (claimed) /* also when this context was reset or destroyed meanwhile: the fault happened */
        sim_process_publish(st);
    sim_progress_notify();
    return wins;
}

void sim_ctx_poison_bystander(sim_ctx *c, sim_status st)
{
    pthread_mutex_lock(&c->lock);
    if (!atomic_load(&c->dying) && atomic_load(&c->sticky) == SIM_OK) {
        if (c->truth)
            for (size_t i = 0; i < c->nstreams; i++)
                sim_stream_truth_discard_queued(c->streams[i]);
        atomic_store(&c->sticky, (int)st);
    }
    pthread_mutex_unlock(&c->lock);
    sim_progress_notify();
}

sim_status sim_ctx_health(const sim_ctx *c)
{
    if (atomic_load(&c->dying))
        return SIM_ERR_CONTEXT_DESTROYED;
    sim_status own = (sim_status)atomic_load(&c->sticky);
    return own ? own : sim_process_sticky();
}

sim_ctx *sim_ctx_from_handle(uint64_t h)
{
    return (sim_ctx *)sim_registry_get(h, SIM_KIND_CONTEXT);
}

sim_stream *sim_ctx_null_stream(sim_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    sim_stream *s = c->null_stream;
    if (s)
        sim_obj_retain(&s->obj);
    pthread_mutex_unlock(&c->lock);
    return s;
}

sim_status sim_stack_push(uint64_t h)
{
    if (sim_t.depth == SIM_STACK_MAX) {
        sim_detail("context stack deeper than %d", SIM_STACK_MAX);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    sim_t.stack[sim_t.depth++] = h;
    top_changed();
    return SIM_OK;
}

sim_status sim_stack_pop(uint64_t *h)
{
    if (!sim_t.depth)
        return SIM_ERR_INVALID_CONTEXT;
    *h = sim_t.stack[--sim_t.depth];
    top_changed();
    return SIM_OK;
}

void sim_stack_set_top(uint64_t h)
{
    if (!h) {
        if (sim_t.depth)
            sim_t.depth--;
    } else if (sim_t.depth) {
        sim_t.stack[sim_t.depth - 1] = h;
    } else {
        sim_t.stack[sim_t.depth++] = h;
    }
    top_changed();
}

sim_status sim_ctx_current(sim_ctx **out)
{
    uint64_t h = sim_stack_top();
    if (!h) {
        sim_detail("no context is current on this thread");
        return SIM_ERR_INVALID_CONTEXT;
    }
    sim_ctx *c = sim_ctx_from_handle(h);
    if (!c) {
        sim_detail("the current context was destroyed");
        return SIM_ERR_CONTEXT_DESTROYED;
    }
    *out = c;
    return SIM_OK;
}

sim_status sim_ctx_enter(sim_ctx **out)
{
    sim_ctx *c;
    sim_status st = sim_ctx_current(&c);
    if (st)
        return st;
    st = sim_ctx_health(c);
    if (st) {
        sim_obj_release(&c->obj);
        return st;
    }
    *out = c;
    return SIM_OK;
}
