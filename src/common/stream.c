/* Streams: creation, queries and deadline waits. */
#include <stdio.h>

#include "common/abi_struct.h"
#include "common/attribution.h"
#include "common/fault.h"
#include "common/child.h"
#include "common/lifetime.h"
#include "common/timeline.h"
#include "common/wait.h"
#include "common/stream.h"

/* What gg_stream_create hands its `make` step. */
typedef struct stream_args {
    bool out_of_memory; /* the record array could not be allocated */
} stream_args;

/* Called with the context's lock held (gg__create). */
static int make_stream(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    *op = GG__OP_STREAM_CREATE;
    gg__stream *st = (gg__stream *)o;
    if (!gg__launch_log_open(&st->log)) {
        ((stream_args *)args)->out_of_memory = true;
        int n = c->b->native_for_status(GG_OUT_OF_MEMORY);
        return n != 0 ? n : -1;
    }
    int n = gg__drv(c, *op, c->b->stream_create(c->b->self, &st->native));
    if (n == 0)
        gg__timeline_attach(c->ctx, &st->log);
    return n;
}

gg_status gg_stream_create(gg_context ctx, const gg_stream_desc *desc, gg_stream *out)
{
    gg__call c = GG__CALL("gg_stream_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_stream_create: out is NULL");
    out->id = 0;
    gg_stream_desc d;
    gg_status read = GG__ABI_COPY_IN(&c, desc, &d, gg_stream_desc, GG_STREAM_DESC_INIT);
    if (read != GG_OK)
        return read;
    if (d.flags != 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_stream_create: unknown desc->flags 0x%x (none are defined)",
                        d.flags);
    stream_args a = { false };
    gg_status status = gg__create(&c, ctx.id, GG__T_CONTEXT, GG__T_STREAM, d.tag, make_stream, &a, &out->id);
    if (status != GG_OK && a.out_of_memory)
        return gg__fail(&c, GG_OUT_OF_MEMORY, "gg_stream_create: out of host memory for the stream's %u launch "
                        "records (GPUGUARD_LAUNCH_RECORDS)", gg__lib.config.launch_records);
    return status;
}

int gg__stream_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    *op = GG__OP_STREAM_DESTROY;
    gg__stream *st = (gg__stream *)o;
    /* Under the context's lock (the destroy path, or a failed create). The
     * stream's work still runs after its destroy, as in CUDA: its launches
     * stay suspects (and keep their timeline slot) until observed. */
    gg__context *ctx = o->context != NULL ? o->context : c->ctx;
    bool keep_native = false;
    if (ctx == NULL || !gg__launch_log_retire(ctx, st, call_driver ? c->b : NULL, &keep_native)) {
        if (ctx != NULL)
            gg__timeline_release_slot(ctx, &st->log);
        gg__launch_log_close(&st->log);
    }
    st->log.timeline_slot = NULL;
    /* An adopted stream its owner keeps is left to it; one the kept log
     * holds is destroyed once its work is done. */
    if (!call_driver || gg__object_borrowed(o) || keep_native)
        return 0;
    return gg__drv(c, *op, c->b->stream_destroy(c->b->self, st->native));
}

void gg__stream_describe(const gg__object *o, struct cJSON *json)
{
    (void)o;
    (void)json;
}

gg_status gg_stream_destroy(gg_stream stream)
{
    return gg__destroy("gg_stream_destroy", stream.id, GG__T_STREAM);
}

gg_status gg_stream_query(gg_stream s)
{
    gg__call c = GG__CALL("gg_stream_query");
    gg_status status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (st != NULL) {
        uint64_t mark = gg__launch_log_submitted(&st->log);
        int n = gg__drv(&c, GG__OP_STREAM_QUERY, GG__BACKEND->stream_query(GG__BACKEND->self, st->native));
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

gg_status gg_stream_wait_event(gg_stream s, gg_event e)
{
    gg__call c = GG__CALL("gg_stream_wait_event");
    gg_status status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (st != NULL) {
        gg__event *ev = gg__lookup(&c, e.id, GG__T_EVENT, "event");
        if (ev == NULL)
            status = gg__lookup_status();
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
        return gg__lookup_status();
    /* The context's id from its birth, not its live h.id: a destroy
     * revokes the context (with its children, in one step) while this pin
     * may still hold the stream, and h.id then reads 0. The pin keeps the
     * context record (pin.c), and its birth id never changes: the answer is
     * the stream's context, as it was before the destroy (which waits for
     * this call). */
    ctx->id = st->h.context->h.birth_id;
    gg__leave(&c);
    return GG_OK;
}
