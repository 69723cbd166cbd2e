/*
 * Culprit attribution. Launch failures are asynchronous: the error surfaces
 * at some later call. Every launch gets a per-context sequence number and is
 * remembered in its stream's launch log until its completion is observed (a
 * successful query or synchronize of its stream, of an event recorded after
 * it, or of the whole context). When a sticky error surfaces, the suspects
 * are the launches not yet observed complete, across the context's streams.
 */
#ifndef GPUGUARD_ATTRIBUTION_H
#define GPUGUARD_ATTRIBUTION_H

#include "common/object.h"

/* Records a launch just accepted by the driver (hot path: no lock, no allocation). */
static inline void gg__launch_log_record(gg__launch_log *log, uint64_t sequence, const char *kernel_name)
{
    uint64_t index = atomic_fetch_add_explicit(&log->submitted, 1, memory_order_relaxed);
    gg__launch_record *r = &log->ring[index % GG__LAUNCH_RING];
    atomic_store_explicit(&r->kernel_name, kernel_name, memory_order_relaxed);
    atomic_store_explicit(&r->sequence, sequence, memory_order_release);
}

/* Gives a launch the driver accepted on `st` (NULL: the default stream) its
 * sequence number in the context and records it for attribution. */
static inline void gg__launch_recorded(gg__context *ctx, gg__stream *st, const char *kernel_name)
{
    uint64_t seq = atomic_fetch_add_explicit(&ctx->launch_sequence, 1, memory_order_relaxed) + 1;
    gg__launch_log_record(st ? &st->log : &ctx->default_log, seq, kernel_name);
}

static inline uint64_t gg__launch_log_submitted(gg__launch_log *log)
{
    return atomic_load_explicit(&log->submitted, memory_order_acquire);
}

/* Everything submitted before `submitted_mark` is now known complete (a
 * query's success path: one load when nothing new was launched). */
static inline void gg__launch_log_observe(gg__launch_log *log, uint64_t submitted_mark)
{
    uint64_t seen = atomic_load_explicit(&log->completed, memory_order_relaxed);
    while (seen < submitted_mark &&
           !atomic_compare_exchange_weak_explicit(&log->completed, &seen, submitted_mark,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}
/* Everything submitted so far on every stream of the context is complete. */
void gg__context_observe_all(gg__context *ctx);

/* Fills *out with the suspects among the context's unobserved launches;
 * with `only` non-NULL, only that stream's. Caller holds ctx->lock. */
void gg__attribute(gg__context *ctx, gg__launch_log *only, gg_culprit *out);

/* The gg_stream id a launch log belongs to (0 for the default stream). */
uint64_t gg__launch_log_stream_id(gg__context *ctx, gg__launch_log *log);

#endif
