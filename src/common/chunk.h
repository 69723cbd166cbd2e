/* Watchdog-safe chunked launches and the enforcement on plain launches. */
#ifndef GPUGUARD_CHUNK_H
#define GPUGUARD_CHUNK_H

#include "common/call.h"

/* Decides what a plain launch on a watchdog device does: GG_OK to go ahead
 * (with *timed set when it should be timed for the history), GG_WATCHDOG_RISK
 * (refused, recorded), or *chunk_instead when it is to run chunked. */
gg_status gg__watchdog_check(gg__call *c, gg__kernel *k, const unsigned grid[3], bool *chunk_instead);

/* Times a plain launch on a watchdog device: events around it, harvested
 * into the kernel's history at its next launch. Caller has entered ctx. */
void gg__timing_before(gg__call *c, gg__kernel *k, gg__nstream s);
void gg__timing_after(gg__call *c, gg__kernel *k, gg__nstream s, uint64_t blocks);
/* Drops a kernel's timing events (kernel released). */
void gg__timing_release(gg__call *c, gg__kernel *k, bool call_driver);

/* The body of gg_launch_chunked, for an entered context. */
gg_status gg__launch_chunked_entered(gg__call *c, gg__kernel *k, gg__stream *st, const gg_launch_desc *desc,
                                     const gg_chunk_desc *chunk, gg_chunk_stats *stats);

/* Copies desc's grid and block, refusing zero components (launch.c). */
gg_status gg__launch_dims(gg__call *c, const gg_launch_desc *desc, unsigned grid[3], unsigned block[3]);

#endif
