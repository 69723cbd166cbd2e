/* The waits, gg_context_synchronize, gg_stream_synchronize and
 * gg_event_synchronize: each with the wait's own deadline and choice of
 * what a passed deadline does, or the library's (wait NULL). */
#include "common/abi_struct.h"
#include "common/call.h"
#include "common/child.h"
#include "common/context.h"
#include "common/stream.h"
#include "common/event.h"

/* Reads the caller's wait (NULL: all defaults) into *wait. */
static gg_status check_wait_desc(gg__call *c, const gg_wait_desc *user, gg_wait_desc *wait)
{
    gg_status status = GG__ABI_COPY_IN(c, user, wait, gg_wait_desc, GG_WAIT_DESC_INIT);
    if (status != GG_OK)
        return status;
    if ((unsigned)wait->on_timeout > GG_TIMEOUT_RETURNS)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: wait->on_timeout %d is not a gg_timeout_policy", c->api,
                        (int)wait->on_timeout);
    if (wait->flags != 0)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: unknown wait->flags 0x%x (none are defined)", c->api,
                        wait->flags);
    c->timeout_policy = wait->on_timeout;
    return GG_OK;
}

gg_status gg_stream_synchronize(gg_stream s, const gg_wait_desc *wait)
{
    gg__call c = GG__CALL("gg_stream_synchronize");
    gg_wait_desc w;
    gg_status status = check_wait_desc(&c, wait, &w);
    if (status != GG_OK)
        return status;
    gg__stream *st = gg__use_begin(&c, s.id, GG__T_STREAM, "stream", &status);
    if (st != NULL)
        status = gg__stream_wait(&c, st, w.timeout_ms);
    gg__leave(&c);
    return status;
}

gg_status gg_context_synchronize(gg_context handle, const gg_wait_desc *wait)
{
    gg__call c = GG__CALL("gg_context_synchronize");
    gg_wait_desc w;
    gg_status status = check_wait_desc(&c, wait, &w);
    if (status != GG_OK)
        return status;
    if ((status = gg__require_library(&c)) != GG_OK)
        return status;
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    status = gg__enter(&c, ctx);
    if (status == GG_OK)
        status = gg__context_wait(&c, ctx, w.timeout_ms);
    gg__leave(&c);
    return status;
}

gg_status gg_event_synchronize(gg_event e, const gg_wait_desc *wait)
{
    gg__call c = GG__CALL("gg_event_synchronize");
    gg_wait_desc w;
    gg_status status = check_wait_desc(&c, wait, &w);
    if (status != GG_OK)
        return status;
    return gg__event_wait(&c, e, w.timeout_ms);
}
