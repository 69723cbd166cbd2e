/*
 * Watchdog-safe chunked launches.
 *
 * A display-attached GPU kills any kernel that runs past its watchdog, and
 * the context with it. Its limit cannot be queried (only whether there is
 * one), so the budget is a setting: 2000 ms by default, Windows TDR's. A
 * chunked launch runs the grid as slices along one dimension, each timed
 * with events and waited for before the next: the wait hands the display
 * the GPU back and keeps batching drivers (WDDM) from merging slices into
 * one submission that would overrun the budget anyway.
 */
#include "common/abi_struct.h"
#include "common/chunk.h"
#include "common/fault.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/attribution.h"
#include "common/timeline.h"
#include "common/child.h"
#include "common/wait.h"
#include "common/context.h"

/* Smoothed history: recent slices count most, one odd slice does not. */
static void history_add(gg__kernel *k, double ms_per_block)
{
    if (!(ms_per_block >= 0.0))
        return;
    k->ms_per_block = k->timing_samples == 0 ? ms_per_block : 0.7 * k->ms_per_block + 0.3 * ms_per_block;
    k->timing_samples++;
}

/* The first slice: from the kernel's timing history when it has one (half
 * the target's worth of rows, for the history may be a lighter part of the
 * grid), else one row; slices then grow at most 2x each from measurement. */
static uint64_t first_rows(gg__kernel *k, gg__context *ctx, double target, uint64_t blocks_per_row)
{
    gg__rlock_take(&ctx->lock);
    double ms_per_block = k->timing_samples > 0 ? k->ms_per_block : 0.0;
    gg__rlock_release(&ctx->lock);
    if (!(ms_per_block > 0.0))
        return 1;
    double rows = 0.5 * target / (ms_per_block * (double)blocks_per_row);
    return rows >= 1.0 ? (rows < 1e9 ? (uint64_t)rows : (uint64_t)1e9) : 1;
}

static bool device_has_watchdog(const gg__context *ctx)
{
    return gg__lib.devices[ctx->device].watchdog;
}

/* ---- plain launches on watchdog devices ------------------------------- */

static void harvest(gg__call *c, gg__kernel *k)
{
    if (k->timing_blocks == 0)
        return;
    if (c->b->event_query(c->b->self, k->timing_end) != 0)
        return; /* still running (or failed: the failure surfaces elsewhere) */
    float ms = 0;
    if (c->b->event_elapsed(c->b->self, &ms, k->timing_start, k->timing_end) == 0)
        history_add(k, (double)ms / (double)k->timing_blocks);
    k->timing_blocks = 0;
}

void gg__timing_before(gg__call *c, gg__kernel *k, gg__nstream s)
{
    gg__context *ctx = k->h.context;
    gg__rlock_take(&ctx->lock);
    harvest(c, k);
    if (k->timing_blocks == 0) {
        if (k->timing_start == NULL && (c->b->event_create(c->b->self, &k->timing_start) != 0 ||
                                        c->b->event_create(c->b->self, &k->timing_end) != 0)) {
            gg__rlock_release(&ctx->lock);
            return; /* no timing this time; the launch itself is unaffected */
        }
        c->b->event_record(c->b->self, k->timing_start, s);
    }
    gg__rlock_release(&ctx->lock);
}

void gg__timing_after(gg__call *c, gg__kernel *k, gg__nstream s, uint64_t blocks)
{
    gg__context *ctx = k->h.context;
    gg__rlock_take(&ctx->lock);
    if (k->timing_blocks == 0 && k->timing_end != NULL && c->b->event_record(c->b->self, k->timing_end, s) == 0)
        k->timing_blocks = blocks;
    gg__rlock_release(&ctx->lock);
}

void gg__timing_release(gg__call *c, gg__kernel *k, bool call_driver)
{
    if (call_driver && k->timing_start != NULL) {
        c->b->event_destroy(c->b->self, k->timing_start);
        c->b->event_destroy(c->b->self, k->timing_end);
    }
    k->timing_start = k->timing_end = NULL;
    k->timing_blocks = 0;
}

gg_status gg__watchdog_check(gg__call *c, gg__kernel *k, const unsigned grid[3], bool *chunk_instead)
{
    gg__context *ctx = k->h.context;
    *chunk_instead = false;
    if (ctx->watchdog == GG_WATCHDOG_ALLOW || !device_has_watchdog(ctx))
        return GG_OK;
    if (k->chunkable && ctx->watchdog == GG_WATCHDOG_AUTO_CHUNK) {
        *chunk_instead = true;
        return GG_OK;
    }
    gg__rlock_take(&ctx->lock);
    harvest(c, k);
    double predicted = k->ms_per_block * (double)grid[0] * grid[1] * grid[2];
    uint64_t samples = k->timing_samples;
    gg__rlock_release(&ctx->lock);
    /* The history is an estimate and run times vary with load: refuse above
     * half the budget, the same margin a chunked slice is held to. */
    double limit = ctx->watchdog_budget_ms / 2.0;
    if (samples > 0 && predicted > limit)
        return gg__fail(c, GG_WATCHDOG_RISK, "%s: kernel '%s' would run about %.0f ms (%.4f ms per block from %llu "
                        "earlier run(s), %u x %u x %u blocks), over half the watchdog budget of %u ms; launch it "
                        "with gg_launch_chunked, declare it with gg_kernel_set_chunking, or set the watchdog policy "
                        "to allow", c->api, k->name, predicted, k->ms_per_block, (unsigned long long)samples, grid[0],
                        grid[1], grid[2], ctx->watchdog_budget_ms);
    return GG_OK;
}

/* Watchdog devices only: refuse a launch that would overrun the budget, run
 * a chunkable kernel chunked, and time plain launches for the history. */
gg_status gg__launch_under_watchdog(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                    const gg_dim3 *grid_dim, const gg_dim3 *block_dim)
{
    const unsigned grid[3] = { grid_dim->x, grid_dim->y, grid_dim->z };
    bool chunk_instead = false;
    gg_status status = gg__watchdog_check(c, k, grid, &chunk_instead);
    if (status != GG_OK)
        return status;
    if (chunk_instead) {
        gg_chunk_desc chunk = { .offset_param = k->offset_param, .dimension = k->chunk_dimension };
        return gg__launch_chunked_entered(c, k, st, desc, &chunk, NULL);
    }
    gg__context *ctx = k->h.context;
    gg__nstream s = st ? st->native : NULL;
    gg__timing_before(c, k, s);
    int n = gg__drv(c, GG__OP_LAUNCH, c->b->launch(c->b->self, k->native, grid_dim, block_dim, desc->shared_bytes,
                                                   s, desc->params));
    status = gg__check(c, GG__OP_LAUNCH, n);
    if (status == GG_OK) {
        status = gg__launch_accepted(c, ctx, st, k->name);
        gg__timing_after(c, k, s, (uint64_t)grid[0] * grid[1] * grid[2]);
    }
    return status;
}

/* ---- chunked launches ------------------------------------------------- */

/* What run_slice indexes and copies: checked on every chunked path (the
 * automatic one of gg_launch included), against the kernel's parameters
 * where the driver reported them. */
static gg_status check_chunk_params(gg__call *c, const gg__kernel *k, const gg_launch_desc *desc,
                                    uint32_t offset_param, uint32_t dimension)
{
    if (desc->param_count > GG__CHUNK_PARAMS_MAX)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: param_count %u is more than %d", c->api, desc->param_count,
                        GG__CHUNK_PARAMS_MAX);
    if (desc->params == NULL || offset_param >= desc->param_count)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: the offset parameter %u is not one of the launch's %u "
                        "parameter(s)", c->api, offset_param, desc->params ? desc->param_count : 0);
    if (k != NULL && k->params_known && offset_param >= GG__KNOWN_PARAMS)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: the offset parameter %u of kernel '%s' is past the first %d, "
                        "whose sizes gpuguard keeps: its width cannot be checked against the 4-byte offset "
                        "written there", c->api, offset_param, k->name, GG__KNOWN_PARAMS);
    if (k != NULL && k->params_known && offset_param < GG__KNOWN_PARAMS && k->param_sizes[offset_param] != 4)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: the offset parameter %u of kernel '%s' is %u bytes wide; "
                        "chunking writes a 4-byte unsigned block offset there", c->api, offset_param, k->name,
                        k->param_sizes[offset_param]);
    if (dimension > 2)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: the chunked dimension %u is not 0 (x), 1 (y) or 2 (z)",
                        c->api, dimension);
    return GG_OK;
}

static gg_status check_chunk_desc(gg__call *c, const gg_launch_desc *desc, const gg_chunk_desc *chunk)
{
    if (chunk == NULL)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: chunk is NULL", c->api);
    if (desc->params == NULL || chunk->offset_param >= desc->param_count)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: chunk->offset_param %u is not one of the launch's %u "
                        "parameter(s)", c->api, chunk->offset_param, desc->params ? desc->param_count : 0);
    gg_status status = check_chunk_params(c, NULL, desc, chunk->offset_param, chunk->dimension);
    if (status != GG_OK)
        return status;
    if (chunk->dimension > 2)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: chunk->dimension %u is not 0 (x), 1 (y) or 2 (z)", c->api,
                        chunk->dimension);
    if (!(chunk->target_ms >= 0.0f) || isinf(chunk->target_ms))
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: chunk->target_ms must be a finite number >= 0 (0 = default)",
                        c->api);
    if (!(chunk->max_ms >= 0.0f) || isinf(chunk->max_ms))
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: chunk->max_ms must be a finite number >= 0 (0 = default)",
                        c->api);
    if (chunk->max_ms > 0.0f && chunk->target_ms > chunk->max_ms)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: chunk->target_ms %.1f is above chunk->max_ms %.1f", c->api,
                        chunk->target_ms, chunk->max_ms);
    return GG_OK;
}

static int poll_event(gg__call *c, void *arg)
{
    return c->b->event_query(c->b->self, (gg__nevent)arg);
}

/* Rows for the next slice: aim at the target from this slice's rate, grow at
 * most 2x (a faster slice may be a fluke), shrink at once (a slower one may be
 * the start of a costly region). */
static uint64_t next_rows(uint64_t rows, float ms, double target, double max_ms)
{
    if (ms <= 0.0f)
        return rows * 2;
    double ideal = target * (double)rows / ms;
    if (ms > max_ms)
        ideal *= 0.5;
    double grown = (double)rows * 2.0;
    double next = ideal < grown ? ideal : grown;
    return next < 1.0 ? 1 : (uint64_t)next;
}

typedef struct slice_run {
    gg__nevent start, end;
} slice_run;

/* Launches rows [offset, offset+rows) of the grid between two events. */
static gg_status run_slice(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                           const gg_chunk_desc *chunk, const unsigned grid[3], const unsigned block[3],
                           uint32_t offset, uint32_t rows, slice_run *run)
{
    gg__nstream s = st ? st->native : NULL;
    /* A fixed array (the count is checked against it in
     * gg__launch_chunked_entered, on every path), and the offset in 8 bytes:
     * a kernel whose offset parameter is wider than the 4 bytes written
     * (unknown sizes are not checked) still reads inside this value. */
    void *params[GG__CHUNK_PARAMS_MAX];
    memcpy(params, desc->params, desc->param_count * sizeof params[0]);
    uint64_t offset_storage = offset;
    params[chunk->offset_param] = &offset_storage;
    gg_dim3 slice_grid = { grid[0], grid[1], grid[2] };
    uint32_t *row_dimension[3] = { &slice_grid.x, &slice_grid.y, &slice_grid.z };
    *row_dimension[chunk->dimension] = rows;
    gg_dim3 slice_block = { block[0], block[1], block[2] };
    int n = gg__drv(c, GG__OP_EVENT_RECORD, c->b->event_record(c->b->self, run->start, s));
    gg_status status = gg__check(c, GG__OP_EVENT_RECORD, n);
    if (status != GG_OK)
        return status;
    n = gg__drv(c, GG__OP_LAUNCH, c->b->launch(c->b->self, k->native, &slice_grid, &slice_block, desc->shared_bytes, s, params));
    status = gg__check(c, GG__OP_LAUNCH, n);
    if (status != GG_OK)
        return status;
    gg__context *ctx = k->h.context;
    status = gg__launch_accepted(c, ctx, st, k->name);
    if (status != GG_OK)
        return status;
    gg__launch_log *log = st ? &st->log : &ctx->default_log;
    n = gg__drv(c, GG__OP_EVENT_RECORD, c->b->event_record(c->b->self, run->end, s));
    status = gg__check(c, GG__OP_EVENT_RECORD, n);
    if (status != GG_OK)
        return status;
    uint64_t mark = gg__launch_log_submitted(log);
    n = gg__drv(c, GG__OP_EVENT_SYNCHRONIZE, 0);
    status = gg__check(c, GG__OP_EVENT_SYNCHRONIZE, n);
    if (status == GG_OK) {
        status = gg__wait(c, GG__OP_EVENT_QUERY, poll_event, run->end, chunk->slice_timeout_ms, "a slice of kernel",
                          k->name);
    }
    if (status == GG_OK)
        gg__launch_log_observe(log, mark);
    return status;
}

gg_status gg__launch_chunked_entered(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                     const gg_chunk_desc *chunk, gg_chunk_stats *stats)
{
    gg__context *ctx = k->h.context;
    unsigned grid[3], block[3];
    gg_status status = gg__launch_dims(c, desc, grid, block);
    if (status == GG_OK)
        status = check_chunk_params(c, k, desc, chunk->offset_param, chunk->dimension);
    if (status == GG_OK && gg__launch_breaks_limits(k, ctx, desc, &(gg_dim3){ grid[0], grid[1], grid[2] },
                                                    &(gg_dim3){ block[0], block[1], block[2] }))
        status = gg__launch_refuse(c, k, ctx, desc, grid, block);
    if (status != GG_OK)
        return status;
    uint64_t total_rows = grid[chunk->dimension];
    uint64_t blocks_per_row = (uint64_t)grid[0] * grid[1] * grid[2] / total_rows;
    bool watchdog = device_has_watchdog(ctx);
    double budget = ctx->watchdog_budget_ms;
    double target = chunk->target_ms > 0 ? chunk->target_ms : watchdog ? budget / 4.0 : INFINITY;
    double max_ms = chunk->max_ms > 0 ? chunk->max_ms : budget / 2.0;
    uint64_t rows = isinf(target) ? total_rows : chunk->first_slice ? chunk->first_slice
                                                                      : first_rows(k, ctx, target, blocks_per_row);

    slice_run run = { NULL, NULL };
    int n = gg__drv(c, GG__OP_EVENT_CREATE, c->b->event_create(c->b->self, &run.start));
    status = gg__check(c, GG__OP_EVENT_CREATE, n);
    if (status == GG_OK) {
        n = gg__drv(c, GG__OP_EVENT_CREATE, c->b->event_create(c->b->self, &run.end));
        status = gg__check(c, GG__OP_EVENT_CREATE, n);
    }
    gg_chunk_stats st_out = GG_CHUNK_STATS_INIT;
    uint64_t wall_start = gg__now_ns();
    for (uint64_t done = 0; status == GG_OK && done < total_rows;) {
        if (rows > total_rows - done)
            rows = total_rows - done;
        status = run_slice(c, k, st, desc, chunk, grid, block, (uint32_t)done, (uint32_t)rows, &run);
        if (status != GG_OK)
            break;
        float ms = 0;
        n = gg__drv(c, GG__OP_EVENT_ELAPSED, c->b->event_elapsed(c->b->self, &ms, run.start, run.end));
        status = gg__check(c, GG__OP_EVENT_ELAPSED, n);
        if (status != GG_OK)
            break;
        done += rows;
        st_out.slices++;
        st_out.blocks += rows * blocks_per_row;
        st_out.device_ms += ms;
        if (ms > st_out.largest_slice_ms)
            st_out.largest_slice_ms = ms;
        gg__rlock_take(&ctx->lock);
        history_add(k, (double)ms / (double)(rows * blocks_per_row));
        gg__rlock_release(&ctx->lock);
        if (chunk->progress != NULL) {
            gg_chunk_progress p = { .struct_size = sizeof p, .blocks_done = done * blocks_per_row, .blocks_total = total_rows * blocks_per_row,
                                    .slices = st_out.slices, .last_slice_ms = ms };
            if (!chunk->progress(chunk->progress_user, &p)) {
                status = gg__fail(c, GG_CANCELLED, "%s: cancelled by the progress callback after %llu of %llu "
                                  "blocks", c->api, (unsigned long long)p.blocks_done,
                                  (unsigned long long)p.blocks_total);
                break;
            }
        }
        rows = next_rows(rows, ms, target, max_ms);
    }
    st_out.total_ms = (float)((double)(gg__now_ns() - wall_start) / 1e6);
    /* One figure, one definition: the kernel's timing history, as
     * gg_kernel_timing reports it and the watchdog check predicts with. */
    gg__rlock_take(&ctx->lock);
    st_out.ms_per_block = k->ms_per_block;
    gg__rlock_release(&ctx->lock);
    if (stats != NULL)
        *stats = st_out;
    /* In a context that died on the way, the events go with its teardown. */
    if (gg__context_state(ctx) == GG_STATE_ALIVE) {
        if (run.start)
            c->b->event_destroy(c->b->self, run.start);
        if (run.end)
            c->b->event_destroy(c->b->self, run.end);
    }
    return status;
}

gg_status gg_launch_chunked(const gg_launch_desc *desc, const gg_chunk_desc *chunk, gg_chunk_stats *stats)
{
    gg__call c = GG__CALL("gg_launch_chunked");
    gg_chunk_stats stats_out = GG_CHUNK_STATS_INIT;
    if (stats != NULL) {
        gg_status refused = GG__ABI_OUT_CHECK(&c, stats, gg_chunk_stats, GG_CHUNK_STATS_INIT);
        if (refused != GG_OK)
            return refused;
        gg__abi_out(stats, &stats_out, sizeof stats_out);
    }
    if (desc == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_launch_chunked: desc is NULL");
    if (chunk == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_launch_chunked: chunk is NULL");
    gg_launch_desc desc_local;
    gg_chunk_desc chunk_local;
    gg_status status = GG_OK;
    desc = GG__ABI_IN(&c, desc, &desc_local, gg_launch_desc, GG_LAUNCH_DESC_INIT, &status);
    if (desc != NULL)
        chunk = GG__ABI_IN(&c, chunk, &chunk_local, gg_chunk_desc, GG_CHUNK_DESC_INIT, &status);
    if (desc != NULL && chunk != NULL)
        status = gg__require_library(&c);
    if (status == GG_OK)
        status = check_chunk_desc(&c, desc, chunk);
    if (status != GG_OK)
        return status;
    gg__kernel *k;
    gg__stream *st;
    status = gg__launch_resolve(&c, desc, &k, &st);
    if (status == GG_OK)
        status = gg__enter(&c, k->h.context);
    if (status == GG_OK)
        status = gg__launch_chunked_entered(&c, k, st, desc, chunk, stats ? &stats_out : NULL);
    gg__leave(&c);
    if (stats != NULL)
        gg__abi_out(stats, &stats_out, sizeof stats_out);
    return status;
}

static gg__kernel *kernel_for_setting(gg__call *c, gg_kernel kernel)
{
    if (gg__require_library(c) != GG_OK)
        return NULL;
    return gg__lookup(c, kernel.id, GG__T_KERNEL, "kernel");
}

/* Pins the kernel and takes its context's lock, re-checking there that the
 * kernel was not claimed meanwhile; on GG_OK the caller unlocks. */
static gg_status with_kernel_locked(gg__call *c, gg_kernel kernel, gg__kernel **out)
{
    gg__kernel *k = kernel_for_setting(c, kernel);
    if (k == NULL)
        return gg__last_error_slot()->status;
    gg__rlock_take(&k->h.context->lock);
    if (atomic_load_explicit(&k->h.id, memory_order_relaxed) != kernel.id) {
        gg__rlock_release(&k->h.context->lock);
        return gg__fail(c, GG_INVALID_HANDLE, "%s: the kernel was released during the call (its module was unloaded)",
                        c->api);
    }
    *out = k;
    return GG_OK;
}

gg_status gg_kernel_set_chunking(gg_kernel kernel, uint32_t offset_param, uint32_t dimension)
{
    gg__call c = GG__CALL("gg_kernel_set_chunking");
    if (dimension > 2)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_set_chunking: dimension %u is not 0, 1 or 2", dimension);
    gg__kernel *k;
    gg_status status = with_kernel_locked(&c, kernel, &k);
    if (status == GG_OK) {
        /* Checked against what the driver says of the kernel; unknown
         * parameters are checked at each chunked launch instead. */
        if (k->params_known && offset_param >= k->param_count)
            status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_set_chunking: offset_param %u is not one of "
                              "kernel '%s''s %u parameter(s)", offset_param, k->name, k->param_count);
        else if (k->params_known && offset_param >= GG__KNOWN_PARAMS)
            status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_set_chunking: offset_param %u of kernel '%s' is "
                              "past the first %d parameters, whose sizes gpuguard keeps: its width cannot be "
                              "checked against the 4-byte offset chunking writes there", offset_param, k->name,
                              GG__KNOWN_PARAMS);
        else if (k->params_known && offset_param < GG__KNOWN_PARAMS && k->param_sizes[offset_param] != 4)
            status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_set_chunking: parameter %u of kernel '%s' is "
                              "%u bytes wide; chunking writes a 4-byte unsigned block offset there", offset_param,
                              k->name, k->param_sizes[offset_param]);
        if (status == GG_OK) {
            k->chunkable = true;
            k->offset_param = offset_param;
            k->chunk_dimension = dimension;
        }
        gg__rlock_release(&k->h.context->lock);
    }
    gg__leave(&c);
    return status;
}

gg_status gg_kernel_timing(gg_kernel kernel, double *ms_per_block, uint64_t *samples)
{
    gg__call c = GG__CALL("gg_kernel_timing");
    if (ms_per_block == NULL || samples == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_timing: %s is NULL", ms_per_block ? "samples" : "ms_per_block");
    gg__kernel *k;
    gg_status status = with_kernel_locked(&c, kernel, &k);
    if (status == GG_OK) {
        /* A plain launch timed but not yet harvested counts now, so this
         * figure is the one the next launch's watchdog check uses. */
        if (gg__context_state(k->h.context) == GG_STATE_ALIVE)
            harvest(&c, k);
        *ms_per_block = k->ms_per_block;
        *samples = k->timing_samples;
        gg__rlock_release(&k->h.context->lock);
    }
    gg__leave(&c);
    return status;
}

gg_status gg_context_set_watchdog(gg_context handle, gg_watchdog_policy policy, uint32_t budget_ms)
{
    gg__call c = GG__CALL("gg_context_set_watchdog");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    if ((unsigned)policy > GG_WATCHDOG_ALLOW)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_set_watchdog: policy %d is not a gg_watchdog_policy",
                        (int)policy);
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    gg__rlock_take(&ctx->lock);
    if (atomic_load_explicit(&ctx->h.id, memory_order_relaxed) == handle.id) {
        ctx->watchdog = policy ? policy : gg__lib.config.watchdog;
        ctx->watchdog_budget_ms = budget_ms ? budget_ms : gg__lib.config.watchdog_budget_ms;
    } else {
        status = gg__fail(&c, GG_INVALID_HANDLE, "gg_context_set_watchdog: the context was destroyed during the call");
    }
    gg__rlock_release(&ctx->lock);
    gg__leave(&c);
    return status;
}
