/*
 * Call stacks of recursive functions: see ptx_call_stack.h and the layout
 * of an activation in ptx_ir.h (ptx_rfunc).
 */
#include "ptx_call_stack.h"

#include <string.h>

/* The lane's .local bytes and their size. */
static unsigned char *lane_local(const ptx_block *blk, const ptx_warp *w, unsigned lane, uint64_t *bytes)
{
    *bytes = blk->thread_local_bytes;
    return blk->local + (size_t)(w->index * PTX_WARP_SIZE + lane) * *bytes;
}

/* [off, off + n) lies in the lane's .local bytes. */
static bool in_local(uint64_t off, uint64_t n, uint64_t bytes)
{
    return off <= bytes && n <= bytes - off;
}

bool ptx_call_enter(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    const ptx_kernel *k = blk->k;
    const ptx_rcall *rc = &k->rcalls[in->target];
    const ptx_rfunc *rf = &k->rfuncs[rc->rfunc];
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uint64_t bytes;
        unsigned char *local = lane_local(blk, w, lane, &bytes);
        uint32_t sp = w->stack_used[lane];
        if (rf->activation_bytes > blk->stack_bytes - sp) {
            /* Stack overflow: see ptx_inline.h for the answer chosen. */
            ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
            return false;
        }
        /* The caller's frame pointer first: for a call of a function to
         * itself it is the register the callee's is about to replace. */
        uint64_t caller_fp = rc->caller_fp == PTX_NO_REG ? 0 : *ptx_lane_reg(w, rc->caller_fp, lane);
        uint64_t fp = (uint64_t)k->stack_base + sp;
        unsigned char *frame = local + fp;
        for (uint32_t r = 0; r < rf->nregs; r++)
            memcpy(frame + rf->save_offset + 8u * r, ptx_lane_reg(w, rf->reg_base + r, lane), 8);
        for (uint32_t a = 0; a < rc->nargs; a++) {
            uint32_t p = rf->nrets + a;
            uint64_t src = caller_fp + rc->arg_src[a];
            if (!in_local(src, rf->param_size[p], bytes)) {
                ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
                return false;
            }
            memmove(frame + rf->param_offset[p], local + src, rf->param_size[p]);
        }
        uint64_t trailer[2] = { (uint64_t)w->pc + 1u, caller_fp + rc->ret_dst };
        memcpy(frame + rf->trailer_offset, trailer, sizeof trailer);
        *ptx_lane_reg(w, rf->fp_reg, lane) = fp;
        w->stack_used[lane] = sp + rf->activation_bytes;
        w->call_depth[lane]++;
    }
    return true;
}

bool ptx_call_return(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active,
                     uint32_t ret_pc[PTX_WARP_SIZE])
{
    const ptx_kernel *k = blk->k;
    const ptx_rfunc *rf = &k->rfuncs[in->target];
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uint64_t bytes;
        unsigned char *local = lane_local(blk, w, lane, &bytes);
        uint64_t fp = *ptx_lane_reg(w, rf->fp_reg, lane);
        /* fp is the interpreter's own register; the trailer is .local the
         * program could overwrite: both are checked before use. */
        if (w->call_depth[lane] == 0 || fp < k->stack_base || !in_local(fp, rf->activation_bytes, bytes)) {
            ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
            return false;
        }
        unsigned char *frame = local + fp;
        uint64_t trailer[2];
        memcpy(trailer, frame + rf->trailer_offset, sizeof trailer);
        if (trailer[0] >= k->ncode ||
            (rf->nrets && !in_local(trailer[1], rf->param_size[0], bytes))) {
            ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
            return false;
        }
        if (rf->nrets)
            memmove(local + trailer[1], frame + rf->param_offset[0], rf->param_size[0]);
        for (uint32_t r = 0; r < rf->nregs; r++)
            memcpy(ptx_lane_reg(w, rf->reg_base + r, lane), frame + rf->save_offset + 8u * r, 8);
        w->stack_used[lane] = (uint32_t)(fp - k->stack_base);
        w->call_depth[lane]--;
        ret_pc[lane] = (uint32_t)trailer[0];
    }
    return true;
}
