/* Events: record, query, deadline waits, elapsed time. */
#include <stdio.h>
#include "common/attribution.h"
#include "common/child.h"
#include "common/lifetime.h"
#include "common/wait.h"

gg_status gg_event_create(gg_context ctx_handle, const char *tag, gg_event *out)
{
    gg__call c = GG__CALL("gg_event_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_event_create: out is NULL");
    out->id = 0;
    gg_status status;
    gg__context *ctx = gg__create_begin(&c, ctx_handle, &status);
    if (ctx == NULL)
        return status;
    gg__nevent native = NULL;
    int n = gg__drv(&c, GG__OP_EVENT_CREATE, c.b->event_create(c.b->self, &native));
    status = gg__check(&c, GG__OP_EVENT_CREATE, n);
    if (status == GG_OK) {
        gg__event *ev = gg__object_new(GG__T_EVENT);
        if (ev)
            ev->native = native;
        out->id = gg__create_record(&c, ctx, ev ? &ev->h : NULL, tag);
        if (out->id == 0) {
            c.b->event_destroy(c.b->self, native);
            status = GG_OUT_OF_MEMORY;
        }
    }
    gg__create_end(&c, ctx);
    return status;
}

gg_status gg_event_destroy(gg_event event)
{
    return gg__destroy_child("gg_event_destroy", event.id, GG__T_EVENT);
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
            st = gg__lookup(&c, s.id, GG__T_STREAM, "stream");
            status = st == NULL ? GG_INVALID_HANDLE : gg__check_same_context(&c, &ev->h, "event", &st->h, "stream");
            c.stream = st;
        }
        if (status == GG_OK) {
            gg__launch_log *log = st ? &st->log : &ctx->default_log;
            uint64_t mark = gg__launch_log_submitted(log);
            int n = gg__drv(&c, GG__OP_EVENT_RECORD,
                            c.b->event_record(c.b->self, ev->native, st ? st->native : NULL));
            status = gg__check(&c, GG__OP_EVENT_RECORD, n);
            if (status == GG_OK) {
                ev->recorded_on = log;
                ev->submitted_at_record = mark;
            }
        }
    }
    gg__leave(&c);
    return status;
}

/* A completed event proves every launch before its record is complete. */
static void observe(gg__event *ev)
{
    if (ev->recorded_on != NULL)
        gg__launch_log_observe(ev->recorded_on, ev->submitted_at_record);
}

gg_status gg_event_query(gg_event e)
{
    gg__call c = GG__CALL("gg_event_query");
    gg_status status;
    gg__event *ev = gg__use_begin(&c, e.id, GG__T_EVENT, "event", &status);
    if (ev != NULL) {
        int n = gg__drv(&c, GG__OP_EVENT_QUERY, c.b->event_query(c.b->self, ev->native));
        status = gg__check(&c, GG__OP_EVENT_QUERY, n);
        if (status == GG_OK)
            observe(ev);
    }
    gg__leave(&c);
    return status;
}

static int poll_event(gg__call *c, void *arg)
{
    return c->b->event_query(c->b->self, ((gg__event *)arg)->native);
}

gg_status gg_event_synchronize(gg_event e, uint32_t timeout_ms)
{
    gg__call c = GG__CALL("gg_event_synchronize");
    gg_status status;
    gg__event *ev = gg__use_begin(&c, e.id, GG__T_EVENT, "event", &status);
    if (ev != NULL) {
        int n = gg__drv(&c, GG__OP_EVENT_SYNCHRONIZE, 0);
        status = gg__check(&c, GG__OP_EVENT_SYNCHRONIZE, n);
        if (status == GG_OK)
            status = gg__wait(&c, GG__OP_EVENT_QUERY, poll_event, ev, timeout_ms, "event", ev->h.tag);
        if (status == GG_OK)
            observe(ev);
    }
    gg__leave(&c);
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
        status = b == NULL ? GG_INVALID_HANDLE : gg__check_same_context(&c, &a->h, "start event", &b->h, "end event");
        if (status == GG_OK) {
            int n = gg__drv(&c, GG__OP_EVENT_ELAPSED, c.b->event_elapsed(c.b->self, ms, a->native, b->native));
            status = gg__check(&c, GG__OP_EVENT_ELAPSED, n);
        }
    }
    gg__leave(&c);
    return status;
}
