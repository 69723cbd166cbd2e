/*
 * Events: markers recorded into a stream. An event is complete when its
 * latest record has been reached by its stream; a never-recorded event is
 * complete. Timestamps are device time (sim_timeline.c): where the record
 * stands in its stream's work, not when the host got round to it (in fast
 * mode the record is complete at once, at the stream's current time).
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>

static void event_free(sim_obj *o)
{
    sim_event *e = (sim_event *)o;
    if (e->last_stream)
        sim_obj_release(&e->last_stream->obj);
    pthread_mutex_destroy(&e->lock);
    sim_obj_release(&e->ctx->obj);
    free(e);
}

sim_status sim_event_create(sim_ctx *c, unsigned flags, sim_event **out)
{
    sim_event *e = sim_calloc(1, sizeof *e);
    if (!e)
        return SIM_ERR_OUT_OF_MEMORY;
    sim_obj_init(&e->obj, SIM_KIND_EVENT, c, event_free);
    sim_obj_retain(&c->obj);
    e->ctx = c;
    e->timing = !(flags & SIM_EVENT_DISABLE_TIMING);
    pthread_mutex_init(&e->lock, NULL);
    atomic_init(&e->records, 0);
    atomic_init(&e->done, 0);
    sim_obj_retain(&e->obj); /* the registry's reference */
    if (!sim_registry_add(&e->obj)) {
        sim_obj_release(&e->obj);
        sim_obj_release(&e->obj);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    *out = e;
    return SIM_OK;
}

/* Fast mode: the stream's earlier work is complete, so the record is too. */
static sim_status record_now(sim_event *e, sim_stream *s)
{
    pthread_mutex_lock(&e->lock);
    uint64_t seq = sim_stream_submit_done(s);
    if (seq) {
        uint64_t rec = atomic_load(&e->records) + 1;
        if (e->timing)
            e->when_ns = sim_timeline_now(s);
        atomic_store(&e->records, rec);
        atomic_store(&e->done, rec);
        if (e->last_stream != s) {
            sim_obj_retain(&s->obj);
            if (e->last_stream)
                sim_obj_release(&e->last_stream->obj);
            e->last_stream = s;
        }
        e->last_seq = seq;
    }
    pthread_mutex_unlock(&e->lock);
    if (seq)
        sim_progress_notify();
    return seq ? SIM_OK : SIM_ERR_INVALID_HANDLE;
}

sim_status sim_event_record(sim_event *e, sim_stream *s)
{
    if (sim_fast())
        return record_now(e, s);
    sim_op *op = sim_op_new(SIM_OP_RECORD);
    if (!op)
        return SIM_ERR_OUT_OF_MEMORY;
    sim_obj_retain(&e->obj);
    op->u.record.ev = e;
    pthread_mutex_lock(&e->lock);
    uint64_t rec = atomic_load(&e->records) + 1;
    op->u.record.rec = rec;
    uint64_t seq = sim_stream_submit(s, op);
    if (seq) {
        atomic_store(&e->records, rec);
        sim_obj_retain(&s->obj);
        if (e->last_stream)
            sim_obj_release(&e->last_stream->obj);
        e->last_stream = s;
        e->last_seq = seq;
    }
    pthread_mutex_unlock(&e->lock);
    return seq ? SIM_OK : SIM_ERR_INVALID_HANDLE;
}

void sim_event_complete(sim_event *e, uint64_t rec, uint64_t when_ns)
{
    pthread_mutex_lock(&e->lock);
    /* Records on different streams may complete out of order: the event
     * reflects its latest record only. */
    if (rec > atomic_load(&e->done)) {
        e->when_ns = when_ns;
        atomic_store(&e->done, rec);
    }
    pthread_mutex_unlock(&e->lock);
}

sim_status sim_event_query(sim_event *e)
{
    sim_status st = sim_ctx_health(e->ctx);
    if (st)
        return st;
    return atomic_load(&e->done) >= atomic_load(&e->records) ? SIM_OK : SIM_ERR_NOT_READY;
}

typedef struct ev_wait {
    sim_event *e;
    uint64_t rec;
} ev_wait;

static bool event_reached(void *p)
{
    ev_wait *w = p;
    return atomic_load(&w->e->done) >= w->rec || sim_ctx_health(w->e->ctx) != SIM_OK;
}

sim_status sim_event_sync(sim_event *e)
{
    ev_wait w = { e, atomic_load(&e->records) };
    sim_progress_wait(event_reached, &w, NULL);
    return sim_ctx_health(e->ctx);
}

sim_status sim_event_elapsed(sim_event *a, sim_event *b, float *ms)
{
    sim_status st = sim_ctx_health(a->ctx);
    if (!st)
        st = sim_ctx_health(b->ctx);
    if (st)
        return st;
    if (!a->timing || !b->timing) {
        sim_detail("an event was created with timing disabled");
        return SIM_ERR_INVALID_HANDLE;
    }
    if (!atomic_load(&a->records) || !atomic_load(&b->records)) {
        sim_detail("an event was never recorded");
        return SIM_ERR_INVALID_HANDLE;
    }
    if (sim_event_query(a) || sim_event_query(b))
        return SIM_ERR_NOT_READY;
    pthread_mutex_lock(&a->lock);
    uint64_t ta = a->when_ns;
    pthread_mutex_unlock(&a->lock);
    pthread_mutex_lock(&b->lock);
    uint64_t tb = b->when_ns;
    pthread_mutex_unlock(&b->lock);
    /* Device time (sim_timeline.c); negative when b came first, as CUDA's. */
    *ms = (float)(((double)tb - (double)ta) / 1e6);
    return SIM_OK;
}

sim_status sim_stream_wait_event(sim_stream *s, sim_event *e)
{
    pthread_mutex_lock(&e->lock);
    sim_stream *target = e->last_stream;
    uint64_t seq = e->last_seq;
    if (target)
        sim_obj_retain(&target->obj);
    pthread_mutex_unlock(&e->lock);
    if (!target)
        return SIM_OK; /* never recorded: nothing to wait for */
    sim_op *op = sim_op_new(SIM_OP_WAIT);
    if (!op) {
        sim_obj_release(&target->obj);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    op->u.wait.target = target;
    op->u.wait.seq = seq;
    return sim_stream_submit(s, op) ? SIM_OK : SIM_ERR_INVALID_HANDLE;
}
