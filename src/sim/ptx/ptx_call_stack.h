/*
 * Real calls to recursive functions (ptx_inline.h): each lane's call
 * stack in its .local memory, one activation per call (ptx_ir.h,
 * ptx_rfunc). ptx_exec.c moves the lanes; these push and pop their frames.
 */
#ifndef GG_PTX_CALL_STACK_H
#define GG_PTX_CALL_STACK_H

#include "ptx_block.h"

/* PTX_OP_RCALL for the `active` lanes of w: each pushes an activation of
 * the callee (its register window saved, the arguments copied from the
 * caller's .param slots, the return pc w->pc + 1), and its frame pointer
 * is set. On a stack overflow or a bad address the block faults
 * (ILLEGAL_ADDRESS) and false is returned; the caller then moves no lane. */
bool ptx_call_enter(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active);

/* PTX_OP_RRET for the `active` lanes of w: each copies its return value to
 * its caller's slot, restores the register window, pops the activation
 * and stores its return pc in ret_pc[lane]. False after a fault (a
 * corrupted activation: ILLEGAL_ADDRESS). */
bool ptx_call_return(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active,
                     uint32_t ret_pc[PTX_WARP_SIZE]);

#endif
