/*
 * Completion timelines (timeline.c): exact culprits on real GPUs. After
 * each launch gpuguard appends a stream memory operation that writes the
 * launch's position on its stream (1-based) into a slot of host-mapped
 * memory, one slot per stream. The device executes it in stream order,
 * after the launch completes; after a fault nothing later on that stream
 * runs. So when the context dies, each stream's slot holds how many of its
 * launches completed, and the culprit is the next one (attribution.c),
 * found by position even when its record was overwritten.
 *
 * With a stride N above 1 only every Nth launch of a stream is marked (set,
 * or chosen by auto from what a mark costs against a launch: gpuguard.h's
 * gg_timeline_info): the culprit is then one of the launches from the slot's
 * count up to the next mark, a WINDOW of at most N.
 */
#ifndef GPUGUARD_TIMELINE_H
#define GPUGUARD_TIMELINE_H

#include "common/fault.h"
#include "common/launch_log.h"
#include "common/call.h"

/* Opens the context's page of slots when the settings (GPUGUARD_TIMELINE)
 * and the device allow, and gives the default stream slot 0. The context
 * is entered (current). Never fails the caller: without a page, attribution
 * uses what was observed complete. Caller holds ctx->lock or owns ctx alone. */
void gg__timeline_open(gg__call *c, gg__context *ctx);

/* Forgets the page. With `free_memory` (the context alive, its native
 * context still there) the memory is freed through the driver first;
 * otherwise the native context's teardown frees it. Caller holds ctx->lock. */
void gg__timeline_close(gg__call *c, gg__context *ctx, bool free_memory);

/* Gives a new stream's log a slot, if the context has a page and a slot is
 * free (else the stream has no timeline). Caller holds ctx->lock. */
void gg__timeline_attach(gg__context *ctx, gg__launch_log *log);

/* Returns a log's timeline slot to the context. Caller holds ctx->lock. */
void gg__timeline_release_slot(gg__context *ctx, gg__launch_log *log);

/* A timeline write the driver refused: a sticky code kills the context as
 * any call's would; otherwise the log's timeline is no longer trusted and
 * the launch stands. */
gg_status gg__timeline_mark_failed(gg__call *c, gg__launch_log *log, int native);

/* One of auto's samples (gg__timeline_measure): `index` below
 * GG__TIMELINE_SAMPLES. The thread that writes the last one decides the
 * stride (and ends the sampling); any thread may, the others never wait. */
void gg__timeline_sample_add(gg__context *ctx, uint32_t index, uint64_t launch_ns, uint64_t mark_ns, bool valid,
                         bool device_idle);

/* Whether a stream's launch at `position` (0-based) is followed by a mark. */
static inline bool gg__timeline_marks(const gg__context *ctx, uint64_t position)
{
    uint32_t stride = atomic_load_explicit(&ctx->timeline_stride, memory_order_relaxed);
    return stride <= 1 || (position + 1) % stride == 0;
}

/* A launch the driver accepted on `st` (NULL: the default stream): its
 * sequence number, its record for attribution, and its mark on the stream's
 * timeline. Hot path: one more driver call when the stream has a timeline. */
GG__HOT gg_status gg__launch_accepted(gg__call *c, gg__context *ctx, gg__stream *st, const char *kernel_name)
{
    gg__launch_log *log = st ? &st->log : &ctx->default_log;
    /* Release: a context-wide wait that reads this number afterwards also
     * sees the launch made before it (gg__context_wait's mark). */
    uint64_t seq = atomic_fetch_add_explicit(&ctx->launch_sequence, 1, memory_order_release) + 1;
    uint64_t position = gg__launch_log_record(log, seq, kernel_name);
    if (GG__LIKELY(log->timeline_slot == NULL))
        return GG_OK;
    /* An injected asynchronous fault latched on the context stands for a
     * launch that failed on the device: its mark must not land (the driver
     * ran the launch for real), so this stream's timeline stops counting. */
    if (GG__UNLIKELY(atomic_load_explicit(&ctx->latched_fault, memory_order_relaxed) != 0)) {
        atomic_store_explicit(&log->timeline_broken, true, memory_order_relaxed);
        return GG_OK;
    }
    if (!gg__timeline_marks(ctx, position))
        return GG_OK;
    int n = gg__drv(c, GG__OP_STREAM_WRITE_VALUE,
                    GG__BACKEND->stream_write_value(GG__BACKEND->self, st ? st->native : NULL, log->timeline_dev,
                                                    position + 1, ctx->timeline_wide));
    return GG__LIKELY(n == 0) ? GG_OK : gg__timeline_mark_failed(c, log, n);
}

#endif /* GPUGUARD_TIMELINE_H */
