/* Launch checks: resolving a launch's kernel and stream, its dimensions and
 * the device's limits (launch.c), shared by gg_launch and the chunked path
 * (chunk.c, which depends on this file and not the reverse). */
#ifndef GPUGUARD_LAUNCH_H
#define GPUGUARD_LAUNCH_H

#include "common/call.h"

/* Looks up desc's kernel and (unless GG_NO_STREAM) stream, and checks they
 * share a context; fills the call's kernel name and stream for errors.
 * The call has pinned nothing before (the kernel is its first pin). */
GG__HOT gg_status gg__launch_resolve(gg__call *c, const gg_launch_desc *desc, gg__kernel **k, gg__stream **st)
{
    *st = NULL;
    *k = gg__lookup_first(c, desc->kernel.id, GG__T_KERNEL, "kernel");
    if (GG__UNLIKELY(*k == NULL))
        return gg__lookup_status();
    c->kernel_name = (*k)->name;
    if (desc->stream.id == 0)
        return GG_OK;
    *st = gg__lookup_second(c, desc->stream.id, GG__T_STREAM, "stream");
    if (GG__UNLIKELY(*st == NULL))
        return gg__lookup_status();
    c->stream = *st;
    return gg__check_same_context(c, &(*k)->h, "kernel", &(*st)->h, "stream");
}

/* Copies desc's grid and block, refusing zero components (launch.c). */
gg_status gg__launch_dims(gg__call *c, const gg_launch_desc *desc, unsigned grid[3], unsigned block[3]);

/* Names what a launch breaks: the kernel's parameter count, the device's
 * block, thread, grid or shared-memory limit (launch.c). GG_OK when nothing. */
gg_status gg__launch_refuse(gg__call *c, const gg__kernel *k, const gg__context *ctx, const gg_launch_desc *desc,
                            const unsigned grid[3], const unsigned block[3]);

/* Whether a launch of grid `g` and block `b` (desc's, copied once by the
 * caller) has a zero dimension (gg__launch_dims names it) or breaks a limit
 * gg__launch_refuse names (hot path). A dimension d is refused when
 * d - 1 >= limit in unsigned arithmetic: above the limit, or 0 (d - 1 wraps
 * to UINT_MAX), one comparison for both. A branch per test, each never
 * taken in a correct program: fewer instructions than combining the
 * results without branches (measured: bench/README.md). */
GG__HOT bool gg__launch_breaks_limits(const gg__kernel *k, const gg__context *ctx, const gg_launch_desc *desc,
                                      const gg_dim3 *g, const gg_dim3 *b)
{
    const gg__launch_limits *l = &ctx->limits;
    if (GG__UNLIKELY(b->x - 1u >= l->block[0]) || GG__UNLIKELY(b->y - 1u >= l->block[1]) ||
        GG__UNLIKELY(b->z - 1u >= l->block[2]) || GG__UNLIKELY(g->x - 1u >= l->grid[0]) ||
        GG__UNLIKELY(g->y - 1u >= l->grid[1]) || GG__UNLIKELY(g->z - 1u >= l->grid[2]) ||
        GG__UNLIKELY(desc->shared_bytes > l->shared_bytes) ||
        GG__UNLIKELY((uint64_t)b->x * b->y * b->z > l->threads_per_block))
        return true;
    return k->params_known && desc->param_count != k->param_count;
}

/* A plain launch on a watchdog device (the policy is not ALLOW), for an
 * entered context: chunk.c's gg__launch_under_watchdog. */
typedef gg_status gg__launch_watchdog_path(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                           const gg_dim3 *grid_dim, const gg_dim3 *block_dim);

/* Sets the path gg_launch takes on a watchdog device. gg_init sets it before
 * it publishes the backend, so every launch (which needs the backend) sees
 * it; the same value each time, and a relaxed atomic, so a concurrent
 * launch reads either. Until then gg_launch cannot pass gg__require_library. */
void gg__launch_set_watchdog_path(gg__launch_watchdog_path *path);

#endif /* GPUGUARD_LAUNCH_H */
