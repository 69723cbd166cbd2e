/*
 * Warp-wide execution of the most common instructions (32-bit integer
 * arithmetic, logic, shifts and comparisons, 64-bit address arithmetic and
 * comparisons, mul.wide.s32/u32, selp, predicate logic, and float
 * arithmetic, comparisons and conversions, on registers and constants):
 * the operation is chosen once per instruction instead of once per lane.
 * Same results as ptx_alu(); anything else is left to it.
 */
#ifndef GG_PTX_ALU_WARP_H
#define GG_PTX_ALU_WARP_H

#include "ptx_block.h"

/* Executes `in` for the lanes of `active` if it has a warp-wide form;
 * false (nothing done) if not. */
bool ptx_alu_warp_b32(ptx_warp *w, const ptx_insn *in, uint32_t active);

/* The same for f32 and f64 mov add sub mul mad fma (.rn or no rounding)
 * neg abs setp, and the common cvt forms (integer widening/narrowing,
 * 32-bit integers to floats and f32<->f64, .rn): none with .ftz or .sat.
 * Bit-identical to ptx_alu() (canonical NaN, denormals kept); false
 * (nothing done) for any other form. */
bool ptx_alu_warp_float(ptx_warp *w, const ptx_insn *in, uint32_t active);

#endif
