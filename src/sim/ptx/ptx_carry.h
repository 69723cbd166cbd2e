/*
 * Extended-precision integer arithmetic: add.cc, addc, sub.cc, subc,
 * mad.cc and madc, which chain through each lane's carry flag (CC.CF).
 * CUDA's math library uses them (mad.lo.cc / madc.hi in the slow path of
 * double sin and cos), as does code adding 128-bit or wider integers.
 */
#ifndef GG_PTX_CARRY_H
#define GG_PTX_CARRY_H

#include "ptx_block.h"

/* Executes `in` (ADDC SUBC MADC, or ADD SUB MAD with PTX_MOD_CC) for the
 * lanes of `active`, on .u32 .s32 .u64 .s64: the carry in (addc, madc) or
 * borrow in (subc) is the lane's CC.CF; with .cc the carry out (add, mad)
 * or borrow out (sub) becomes its CC.CF (PTX ISA, "Extended-Precision
 * Integer Arithmetic Instructions"). */
void ptx_exec_carry(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active);

#endif
