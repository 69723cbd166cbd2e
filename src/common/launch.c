/* Launches: validation, the driver call, and the record that attribution
 * reads when an asynchronous error surfaces later. Hot path: no lock, no
 * allocation. */
#include "common/attribution.h"
#include "common/fault.h"
#include "common/timeline.h"
#include "common/child.h"
#include "common/launch.h"
#include "common/context.h"
#include "common/stream.h"
#include "common/abi_struct.h"
#include "common/wait.h"

/* Grid and block sizes: a zero is refused, not rounded up. (The common
 * case is inlined in gg_launch; this names the zero.) */
gg_status gg__launch_dims(gg__call *c, const gg_launch_desc *desc, unsigned grid[3], unsigned block[3])
{
    const gg_dim3 *d[2] = { &desc->grid, &desc->block };
    unsigned *out[2] = { grid, block };
    for (int i = 0; i < 2; i++) {
        out[i][0] = d[i]->x;
        out[i][1] = d[i]->y;
        out[i][2] = d[i]->z;
        for (int j = 0; j < 3; j++)
            if (GG__UNLIKELY(out[i][j] == 0))
                return gg__fail(c, GG_INVALID_ARGUMENT, "%s: %s.%c is 0 (every dimension must be at least 1)",
                                c->api, i ? "block" : "grid", "xyz"[j]);
    }
    return GG_OK;
}

gg_status gg__launch_refuse(gg__call *c, const gg__kernel *k, const gg__context *ctx, const gg_launch_desc *desc,
                            const unsigned grid[3], const unsigned block[3])
{
    const gg__launch_limits *l = &ctx->limits;
    if (k->params_known && desc->param_count != k->param_count)
        return gg__fail(c, GG_INVALID_ARGUMENT,
                        "%s: kernel '%s' takes %u parameter(s) but param_count is %u", c->api, k->name,
                        k->param_count, desc->param_count);
    for (int i = 0; i < 3; i++)
        if (block[i] > l->block[i])
            return gg__fail(c, GG_INVALID_ARGUMENT, "%s: block.%c is %u, above device %d's limit of %u", c->api,
                            "xyz"[i], block[i], ctx->device, l->block[i]);
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (threads > l->threads_per_block)
        return gg__fail(c, GG_INVALID_ARGUMENT,
                        "%s: a block of %u x %u x %u is %llu threads, above device %d's limit of %u per block",
                        c->api, block[0], block[1], block[2], (unsigned long long)threads, ctx->device,
                        l->threads_per_block);
    for (int i = 0; i < 3; i++)
        if (grid[i] > l->grid[i])
            return gg__fail(c, GG_INVALID_ARGUMENT, "%s: grid.%c is %u, above device %d's limit of %u", c->api,
                            "xyz"[i], grid[i], ctx->device, l->grid[i]);
    if (desc->shared_bytes > l->shared_bytes)
        return gg__fail(c, GG_INVALID_ARGUMENT,
                        "%s: shared_bytes is %u, above device %d's limit of %u bytes of shared memory per block",
                        c->api, desc->shared_bytes, ctx->device, l->shared_bytes);
    return GG_OK;
}

/* Watchdog devices only (chunk.c's gg__launch_under_watchdog, reached
 * through the pointer gg_init sets: chunking depends on launching, not the
 * reverse): refuse a launch that would overrun the budget, run a chunkable
 * kernel chunked, and time plain launches for the history. */
static _Atomic(gg__launch_watchdog_path *) watchdog_path;

void gg__launch_set_watchdog_path(gg__launch_watchdog_path *path)
{
    atomic_store_explicit(&watchdog_path, path, memory_order_relaxed);
}

static gg_status launch_under_watchdog(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                       const gg_dim3 *grid_dim, const gg_dim3 *block_dim)
{
    return atomic_load_explicit(&watchdog_path, memory_order_relaxed)(c, k, st, desc, grid_dim, block_dim);
}

/* A launch while auto measures the timeline's cost (timeline.c): the same
 * launch, with the launch call and its mark timed for the context's
 * samples. Out of line: only the context's first GG__TIMELINE_WARMUP +
 * GG__TIMELINE_SAMPLES launches (or a few more, racing) come here. */
static __attribute__((noinline)) gg_status launch_sampled(gg__call *c, gg__context *ctx, gg__kernel *k,
                                                          gg__stream *st, const gg_launch_desc *desc,
                                                          const gg_dim3 *grid, const gg_dim3 *block)
{
    gg__timeline_measure *m = &ctx->timeline_measure;
    uint32_t ticket = atomic_fetch_add_explicit(&m->tickets, 1, memory_order_relaxed);
    bool timed = ticket >= GG__TIMELINE_WARMUP && ticket < GG__TIMELINE_WARMUP + GG__TIMELINE_SAMPLES;
    gg__launch_log *log = st ? &st->log : &ctx->default_log;
    /* Every earlier launch was marked (the stride is 1 until decided), so
     * the slot says whether the device had finished them all. */
    bool idle = timed && gg__launch_log_all_done(log, ctx->timeline_wide);
    uint64_t t0 = timed ? gg__now_ns() : 0;
    int n = gg__drv(c, GG__OP_LAUNCH, GG__BACKEND->launch(GG__BACKEND->self, k->native, grid, block,
                                                         desc->shared_bytes, st ? st->native : NULL,
                                                         desc->params));
    uint64_t t1 = timed ? gg__now_ns() : 0;
    gg_status status = gg__check(c, GG__OP_LAUNCH, n);
    if (status == GG_OK)
        status = gg__launch_accepted(c, ctx, st, k->name);
    uint64_t t2 = timed ? gg__now_ns() : 0;
    if (timed) {
        bool marked = status == GG_OK && log->timeline_slot != NULL &&
                      !atomic_load_explicit(&log->timeline_broken, memory_order_relaxed);
        gg__timeline_sample_add(ctx, ticket - GG__TIMELINE_WARMUP, t1 - t0, t2 - t1, marked, idle);
    }
    /* Past the samples (threads racing the last ones): an untimed launch;
     * the stride stays 1 until the last sample's writer decides. */
    return status;
}

/* A launch gg__launch_breaks_limits flagged: names its zero dimension or
 * the limit it breaks (GG_OK if, after all, neither). */
static gg_status refuse(gg__call *c, const gg__kernel *k, const gg__context *ctx, const gg_launch_desc *desc)
{
    unsigned grid[3], block[3];
    gg_status status = gg__launch_dims(c, desc, grid, block);
    return status != GG_OK ? status : gg__launch_refuse(c, k, ctx, desc, grid, block);
}

gg_status gg_launch(const gg_launch_desc *desc)
{
    gg__call c = GG__CALL("gg_launch");
    if (GG__UNLIKELY(desc == NULL))
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_launch: desc is NULL");
    gg_launch_desc desc_local;
    gg_status read;
    desc = GG__ABI_IN(&c, desc, &desc_local, gg_launch_desc, GG_LAUNCH_DESC_INIT, &read);
    if (GG__UNLIKELY(desc == NULL))
        return read;
    if (GG__UNLIKELY(desc->params == NULL && desc->param_count != 0))
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_launch: params is NULL but param_count is %u",
                        desc->param_count);
    gg_status status = gg__require_library(&c);
    if (GG__UNLIKELY(status != GG_OK))
        return status;
    gg__kernel *k;
    gg__stream *st;
    status = gg__launch_resolve(&c, desc, &k, &st);
    if (GG__UNLIKELY(status != GG_OK)) {
        gg__leave(&c);
        return status;
    }
    gg__context *ctx = k->h.context;
    /* Copied once: what is checked is what the driver gets, whatever the
     * caller's memory does meanwhile. */
    gg_dim3 grid = desc->grid, block = desc->block;
    /* Refused before the driver sees it: a zero dimension, the kernel's
     * parameter count and the device's limits, named (the driver would only
     * say INVALID_VALUE). One test for all on the hot path. */
    if (GG__UNLIKELY(gg__launch_breaks_limits(k, ctx, desc, &grid, &block))) {
        gg_launch_desc copied = *desc;
        copied.grid = grid;
        copied.block = block;
        status = refuse(&c, k, ctx, &copied);
        if (status != GG_OK) {
            gg__leave(&c);
            return status;
        }
    }
    status = gg__enter_required(&c, ctx);
    if (GG__UNLIKELY(status == GG_OK && ctx->device_watchdog && ctx->watchdog != GG_WATCHDOG_ALLOW)) {
        status = launch_under_watchdog(&c, k, st, desc, &grid, &block);
    } else if (GG__UNLIKELY(status == GG_OK && atomic_load_explicit(&ctx->timeline_sampling, memory_order_relaxed))) {
        status = launch_sampled(&c, ctx, k, st, desc, &grid, &block);
    } else if (GG__LIKELY(status == GG_OK)) {
        int n = gg__drv(&c, GG__OP_LAUNCH, GG__BACKEND->launch(GG__BACKEND->self, k->native, &grid, &block,
                                                              desc->shared_bytes,
                                                       st ? st->native : NULL, desc->params));
        status = gg__check(&c, GG__OP_LAUNCH, n);
        if (GG__LIKELY(status == GG_OK))
            status = gg__launch_accepted(&c, ctx, st, k->name);
    }
    /* Exact attribution on request: the launch's own errors surface here. */
    if (GG__UNLIKELY(gg__lib.config.sync_launches) && status == GG_OK)
        status = st ? gg__stream_wait(&c, st, 0) : gg__context_wait(&c, ctx, 0);
    gg__leave(&c);
    return status;
}
