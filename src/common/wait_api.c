/* Waits with a per-call choice of what a passed deadline does: the
 * gg_*_synchronize_with calls (the plain ones use the library's policy). */
#include "common/call.h"
#include "common/child.h"
#include "common/context.h"
#include "common/stream.h"
#include "common/event.h"

static gg_status check_wait_desc(gg__call *c, const gg_wait_desc *wait)
{
    if (wait == NULL)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: wait is NULL", c->api);
    if ((unsigned)wait->on_timeout > GG_TIMEOUT_RETURNS)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: wait->on_timeout %d is not a gg_timeout_policy", c->api,
                        (int)wait->on_timeout);
    if (wait->flags != 0)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: unknown wait->flags 0x%x (none are defined)", c->api,
                        wait->flags);
    c->timeout_policy = wait->on_timeout;
    return GG_OK;
}

gg_status gg_stream_synchronize_with(gg_stream s, const gg_wait_desc *wait)
{
    gg__call c = GG__CALL("gg_stream_synchronize_with");
    gg_status status = check_wait_desc(&c, wait);
    if (status != GG_OK)
        return status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (st != NULL)
        status = gg__stream_wait(&c, st, wait->timeout_ms);
    gg__leave(&c);
    return status;
}

gg_status gg_context_synchronize_with(gg_context handle, const gg_wait_desc *wait)
{
    gg__call c = GG__CALL("gg_context_synchronize_with");
    gg_status status = check_wait_desc(&c, wait);
    if (status != GG_OK)
        return status;
    if ((status = gg__require_library(&c)) != GG_OK)
        return status;
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    status = gg__enter(&c, ctx);
    if (status == GG_OK)
        status = gg__context_wait(&c, ctx, wait->timeout_ms);
    gg__leave(&c);
    return status;
}

gg_status gg_event_synchronize_with(gg_event e, const gg_wait_desc *wait)
{
    gg__call c = GG__CALL("gg_event_synchronize_with");
    gg_status status = check_wait_desc(&c, wait);
    if (status != GG_OK)
        return status;
    return gg__event_wait(&c, e, wait->timeout_ms);
}
