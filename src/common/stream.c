/* Streams: creation, queries and deadline waits. */
#include <stdio.h>

#include "common/attribution.h"
#include "common/child.h"
#include "common/lifetime.h"
#include "common/wait.h"

gg_status gg_stream_create(gg_context ctx_handle, const char *tag, gg_stream *out)
{
    gg__call c = GG__CALL("gg_stream_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_stream_create: out is NULL");
    out->id = 0;
    gg_status status;
    gg__context *ctx = gg__create_begin(&c, ctx_handle, &status);
    if (ctx == NULL)
        return status;
    gg__nstream native = NULL;
    int n = gg__drv(&c, GG__OP_STREAM_CREATE, c.b->stream_create(c.b->self, &native));
    status = gg__check(&c, GG__OP_STREAM_CREATE, n);
    if (status == GG_OK) {
        gg__stream *st = gg__object_new(GG__T_STREAM);
        if (st)
            st->native = native;
        out->id = gg__create_record(&c, ctx, st ? &st->h : NULL, tag);
        if (out->id == 0) {
            c.b->stream_destroy(c.b->self, native);
            status = GG_OUT_OF_MEMORY;
        }
    }
    gg__create_end(&c, ctx);
    return status;
}

gg_status gg_stream_destroy(gg_stream stream)
{
    return gg__destroy_child("gg_stream_destroy", stream.id, GG__T_STREAM);
}

gg_status gg_stream_query(gg_stream s)
{
    gg__call c = GG__CALL("gg_stream_query");
    gg_status status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (status == GG_OK) {
        uint64_t mark = gg__launch_log_submitted(&st->log);
        int n = gg__drv(&c, GG__OP_STREAM_QUERY, c.b->stream_query(c.b->self, st->native));
        status = gg__check(&c, GG__OP_STREAM_QUERY, n);
        if (status == GG_OK)
            gg__launch_log_observe(&st->log, mark);
    }
    gg__leave(&c);
    return status;
}

static int poll_stream(gg__call *c, void *arg)
{
    return c->b->stream_query(c->b->self, ((gg__stream *)arg)->native);
}

gg_status gg__stream_wait(gg__call *c, gg__stream *st, uint32_t timeout_ms)
{
    /* The gate sees one synchronize, however many polls the wait takes, so
     * fault plans count calls the same on fast and slow machines. */
    int n = gg__drv(c, GG__OP_STREAM_SYNCHRONIZE, 0);
    if (n != 0)
        return gg__check(c, GG__OP_STREAM_SYNCHRONIZE, n);
    uint64_t mark = gg__launch_log_submitted(&st->log);
    gg_status status = gg__wait(c, GG__OP_STREAM_QUERY, poll_stream, st, timeout_ms, "stream", st->h.tag);
    if (status == GG_OK)
        gg__launch_log_observe(&st->log, mark);
    return status;
}

gg_status gg_stream_synchronize(gg_stream s, uint32_t timeout_ms)
{
    gg__call c = GG__CALL("gg_stream_synchronize");
    gg_status status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (status == GG_OK)
        status = gg__stream_wait(&c, st, timeout_ms);
    gg__leave(&c);
    return status;
}

gg_status gg_stream_wait_event(gg_stream s, gg_event e)
{
    gg__call c = GG__CALL("gg_stream_wait_event");
    gg_status status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (status == GG_OK) {
        gg__event *ev = gg__lookup(&c, e.id, GG__T_EVENT, "event");
        if (ev == NULL)
            status = GG_INVALID_HANDLE;
        else if ((status = gg__check_same_context(&c, &st->h, "stream", &ev->h, "event")) == GG_OK) {
            int n = gg__drv(&c, GG__OP_STREAM_WAIT_EVENT, c.b->stream_wait_event(c.b->self, st->native, ev->native));
            status = gg__check(&c, GG__OP_STREAM_WAIT_EVENT, n);
        }
    }
    gg__leave(&c);
    return status;
}

gg_status gg_stream_context(gg_stream s, gg_context *ctx)
{
    gg__call c = GG__CALL("gg_stream_context");
    if (ctx == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_stream_context: ctx is NULL");
    gg__stream *st = gg__lookup(&c, s.id, GG__T_STREAM, "stream");
    if (st == NULL)
        return GG_INVALID_HANDLE;
    ctx->id = atomic_load(&st->h.context->h.id);
    return GG_OK;
}
