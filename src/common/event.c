/* Events: record, query, deadline waits, elapsed time. */
#include <stdio.h>
#include "common/abi_struct.h"
#include "common/attribution.h"
#include "common/fault.h"
#include "common/child.h"
#include "common/lifetime.h"
#include "common/wait.h"
#include "common/event.h"

static int make_event(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    (void)args;
    *op = GG__OP_EVENT_CREATE;
    return gg__drv(c, *op, c->b->event_create(c->b->self, &((gg__event *)o)->native));
}

gg_status gg_event_create(gg_context ctx, const gg_event_desc *desc, gg_event *out)
{
    gg__call c = GG__CALL("gg_event_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_event_create: out is NULL");
    out->id = 0;
    gg_event_desc d;
    gg_status read = GG__ABI_COPY_IN(&c, desc, &d, gg_event_desc, GG_EVENT_DESC_INIT);
    if (read != GG_OK)
        return read;
    if (d.flags != 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_event_create: unknown desc->flags 0x%x (none are defined)",
                        d.flags);
    return gg__create(&c, ctx.id, GG__T_CONTEXT, GG__T_EVENT, d.tag, make_event, NULL, &out->id);
}

int gg__event_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    *op = GG__OP_EVENT_DESTROY;
    return call_driver ? gg__drv(c, *op, c->b->event_destroy(c->b->self, ((gg__event *)o)->native)) : 0;
}

void gg__event_describe(const gg__object *o, struct cJSON *json)
{
    (void)o;
    (void)json;
}

gg_status gg_event_destroy(gg_event event)
{
    return gg__destroy("gg_event_destroy", event.id, GG__T_EVENT);
}

gg_status gg_event_record(gg_event e, gg_stream s)
{
    gg__call c = GG__CALL("gg_event_record");
    gg_status status;
    gg__event *ev = gg__use_begin(&c, e.id, GG__T_EVENT, "event", &status);
    if (ev != NULL) {
        gg__context *ctx = ev->h.context;
        gg__stream *st = NULL;
        if (s.id != 0) {
            st = gg__lookup_second(&c, s.id, GG__T_STREAM, "stream");
            status = st == NULL ? gg__lookup_status() : gg__check_same_context(&c, &ev->h, "event", &st->h, "stream");
            c.stream = st;
        }
        if (status == GG_OK) {
            gg__launch_log *log = st ? &st->log : &ctx->default_log;
            uint64_t mark = gg__launch_log_submitted(log);
            int n = gg__drv(&c, GG__OP_EVENT_RECORD,
                            GG__BACKEND->event_record(GG__BACKEND->self, ev->native, st ? st->native : NULL));
            status = gg__check(&c, GG__OP_EVENT_RECORD, n);
            if (status == GG_OK) {
                atomic_store_explicit(&ev->recorded_stream_id, s.id, memory_order_relaxed);
                atomic_store_explicit(&ev->recorded_stream, st, memory_order_relaxed);
                atomic_store_explicit(&ev->submitted_at_record, mark, memory_order_relaxed);
                atomic_store_explicit(&ev->recorded, true, memory_order_release);
            }
        }
    }
    gg__leave(&c);
    return status;
}

/* A completed event proves every launch before its record is complete: on
 * the default stream, or on the stream it was recorded on if that stream is
 * still there (its record pinned while it still holds the id: it may have
 * been destroyed, and the record recycled, since). The record is pinned
 * directly, not looked up again: the event's pin keeps the pools. A record
 * racing this read may pair one record's stream with another's id: the id
 * check then fails and nothing is observed. */
GG__HOT void observe(gg__call *c, gg__event *ev)
{
    if (!atomic_load_explicit(&ev->recorded, memory_order_acquire))
        return;
    uint64_t stream_id = atomic_load_explicit(&ev->recorded_stream_id, memory_order_relaxed);
    uint64_t mark = atomic_load_explicit(&ev->submitted_at_record, memory_order_relaxed);
    if (stream_id == 0) {
        gg__launch_log_observe(&ev->h.context->default_log, mark);
        return;
    }
    gg__stream *st = atomic_load_explicit(&ev->recorded_stream, memory_order_relaxed);
    if (st != NULL && gg__pin_record_while(c, &st->h, stream_id))
        gg__launch_log_observe(&st->log, mark);
}

gg_status gg_event_query(gg_event e)
{
    gg__call c = GG__CALL("gg_event_query");
    gg_status status;
    gg__event *ev = gg__use_begin(&c, e.id, GG__T_EVENT, "event", &status);
    if (ev != NULL) {
        int n = gg__drv(&c, GG__OP_EVENT_QUERY, GG__BACKEND->event_query(GG__BACKEND->self, ev->native));
        status = gg__check(&c, GG__OP_EVENT_QUERY, n);
        if (status == GG_OK)
            observe(&c, ev);
    }
    gg__leave(&c);
    return status;
}

static int poll_event(gg__call *c, void *arg)
{
    return c->b->event_query(c->b->self, ((gg__event *)arg)->native);
}

gg_status gg__event_wait(gg__call *c, gg_event e, uint32_t timeout_ms)
{
    gg_status status;
    gg__event *ev = gg__use_begin(c, e.id, GG__T_EVENT, "event", &status);
    if (ev != NULL) {
        int n = gg__drv(c, GG__OP_EVENT_SYNCHRONIZE, 0);
        status = gg__check(c, GG__OP_EVENT_SYNCHRONIZE, n);
        if (status == GG_OK)
            status = gg__wait(c, GG__OP_EVENT_QUERY, poll_event, ev, timeout_ms, "event", ev->h.tag);
        if (status == GG_OK)
            observe(c, ev);
    }
    gg__leave(c);
    return status;
}

gg_status gg_event_elapsed_ms(gg_event start, gg_event end, float *ms)
{
    gg__call c = GG__CALL("gg_event_elapsed_ms");
    if (ms == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_event_elapsed_ms: ms is NULL");
    gg_status status;
    gg__event *a = gg__use_begin(&c, start.id, GG__T_EVENT, "start event", &status);
    if (a != NULL) {
        gg__event *b = gg__lookup(&c, end.id, GG__T_EVENT, "end event");
        status = b == NULL ? gg__lookup_status() : gg__check_same_context(&c, &a->h, "start event", &b->h, "end event");
        if (status == GG_OK) {
            int n = gg__drv(&c, GG__OP_EVENT_ELAPSED, c.b->event_elapsed(c.b->self, ms, a->native, b->native));
            status = gg__check(&c, GG__OP_EVENT_ELAPSED, n);
        }
    }
    gg__leave(&c);
    return status;
}
