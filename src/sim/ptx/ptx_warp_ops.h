/*
 * Warp-level instructions (ptx_warp_ops.c) and atomics (ptx_atomic.c):
 * the instructions whose lanes see each other's values or share memory
 * words, run for a warp's active lanes at once.
 */
#ifndef GG_PTX_WARP_OPS_H
#define GG_PTX_WARP_OPS_H

#include "ptx_block.h"

/* Executes shfl.sync, vote.sync, activemask, match.sync or redux.sync
 * for the lanes of `active` (the group's lanes whose guard holds). A lane
 * of membermask that is not in `active` (exited, predicated off, or
 * elsewhere in divergent code) is inactive: it gives nothing, and a
 * shuffle reading it gives the reader's own value with p false. */
void ptx_exec_warp_op(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active);

/* Executes atom or red for the lanes of `active`, lowest lane first, each
 * as one host C11 atomic (other blocks and host threads may use the same
 * words at the same time). Stops at the first fault, which it raises. */
void ptx_exec_atomic(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active);

#endif
