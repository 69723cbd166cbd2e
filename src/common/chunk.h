/* Watchdog-safe chunked launches and the enforcement on plain launches.
 * A chunked launch is a launch: this file depends on launch.h's checks,
 * never the reverse (gg_launch reaches the watchdog path below through the
 * pointer launch.h keeps, set by gg_init). */
#ifndef GPUGUARD_CHUNK_H
#define GPUGUARD_CHUNK_H

#include "common/launch.h"

/* The most parameters a chunked launch takes (its slices copy them: 2 KiB
 * of stack). Past it GG_INVALID_ARGUMENT naming the bound (crossed by
 * tests/core/test_bounds.c). */
#define GG__CHUNK_PARAMS_MAX 256

/* Decides what a plain launch on a watchdog device does: GG_OK to go ahead
 * (the caller then times it for the history), GG_WATCHDOG_RISK (refused,
 * recorded), or GG_OK with *chunk_instead set when it is to run chunked. */
gg_status gg__watchdog_check(gg__call *c, gg__kernel *k, const unsigned grid[3], bool *chunk_instead);

/* Times a plain launch on a watchdog device: events around it, harvested
 * into the kernel's history at its next launch. Caller has entered the
 * kernel's context. */
void gg__timing_before(gg__call *c, gg__kernel *k, gg__nstream s);
void gg__timing_after(gg__call *c, gg__kernel *k, gg__nstream s, uint64_t blocks);
/* Drops a kernel's timing events (kernel released). */
void gg__timing_release(gg__call *c, gg__kernel *k, bool call_driver);

/* A plain launch on a watchdog device whose policy is not ALLOW (the
 * gg__launch_watchdog_path that gg_init hands launch.c): refused when its
 * predicted run time is over half the budget (GG_WATCHDOG_RISK), run
 * chunked when the kernel is chunkable and the policy AUTO_CHUNK, else
 * launched and timed for the kernel's history. Caller has entered the
 * kernel's context. */
gg_status gg__launch_under_watchdog(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                    const gg_dim3 *grid_dim, const gg_dim3 *block_dim);

/* The body of gg_launch_chunked, for an entered context. */
gg_status gg__launch_chunked_entered(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                     const gg_chunk_desc *chunk, gg_chunk_stats *stats);

#endif
