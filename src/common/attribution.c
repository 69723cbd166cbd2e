#include "common/attribution.h"

#include <stddef.h>
#include <string.h>

static gg__stream *stream_of(gg__object *o)
{
    return (gg__stream *)o;
}

void gg__context_observe_all(gg__context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    gg__launch_log_observe(&ctx->default_log, gg__launch_log_submitted(&ctx->default_log));
    for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
        if (o->type == GG__T_STREAM)
            gg__launch_log_observe(&stream_of(o)->log, gg__launch_log_submitted(&stream_of(o)->log));
    pthread_mutex_unlock(&ctx->lock);
}

uint64_t gg__launch_log_stream_id(gg__context *ctx, gg__launch_log *log)
{
    if (log == &ctx->default_log || log == NULL)
        return 0;
    gg__stream *s = (gg__stream *)((char *)log - offsetof(gg__stream, log));
    return atomic_load_explicit(&s->h.id, memory_order_relaxed);
}

/* Adds one log's unobserved launches to the suspects. */
static void collect(gg__context *ctx, gg__launch_log *log, gg_culprit *out, uint64_t *oldest)
{
    uint64_t submitted = atomic_load_explicit(&log->submitted, memory_order_acquire);
    uint64_t completed = atomic_load_explicit(&log->completed, memory_order_relaxed);
    if (completed >= submitted)
        return;
    out->window_count += (uint32_t)(submitted - completed);
    /* Only the newest GG__LAUNCH_RING launches are remembered by name. */
    uint64_t first = submitted - completed > GG__LAUNCH_RING ? submitted - GG__LAUNCH_RING : completed;
    for (uint64_t i = first; i < submitted; i++) {
        gg__launch_record *r = &log->ring[i % GG__LAUNCH_RING];
        uint64_t seq = atomic_load_explicit(&r->sequence, memory_order_acquire);
        if (seq == 0)
            continue;
        if (out->window_first == 0 || seq < out->window_first)
            out->window_first = seq;
        if (seq > out->window_last)
            out->window_last = seq;
        if (*oldest == 0 || seq < *oldest) {
            *oldest = seq;
            const char *name = atomic_load_explicit(&r->kernel_name, memory_order_relaxed);
            strncpy(out->kernel_name, name ? name : "?", sizeof out->kernel_name - 1);
            out->kernel_name[sizeof out->kernel_name - 1] = '\0';
            out->sequence = seq;
            out->stream.id = gg__launch_log_stream_id(ctx, log);
        }
    }
}

void gg__attribute(gg__context *ctx, gg__launch_log *only, gg_culprit *out)
{
    memset(out, 0, sizeof *out);
    uint64_t oldest = 0;
    if (only != NULL) {
        collect(ctx, only, out, &oldest);
    } else {
        collect(ctx, &ctx->default_log, out, &oldest);
        for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
            if (o->type == GG__T_STREAM)
                collect(ctx, &stream_of(o)->log, out, &oldest);
    }
    if (out->window_count == 0)
        out->certainty = GG_ATTRIBUTION_NONE;
    else if (out->window_count == 1)
        out->certainty = GG_ATTRIBUTION_EXACT;
    else
        out->certainty = GG_ATTRIBUTION_WINDOW;
}
