/*
 * The parts of one lane's arithmetic (ptx_alu.h) kept in their own files:
 * bit manipulation (ptx_alu_bits.c) and float functions, classification
 * and IEEE directed rounding (ptx_alu_math.c). Only ptx_alu.c calls these.
 */
#ifndef GG_PTX_ALU_PARTS_H
#define GG_PTX_ALU_PARTS_H

#include "ptx_ir.h"

/* shf bfi bfe bfind popc clz brev prmt sad mul24 mad24, on operands read with
 * ptx_value_as at the instruction's type (d: bfi's length, else unused).
 * PTX semantics for every shift, position and length, including those
 * at or past the width. */
uint64_t ptx_alu_bits(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/* copysign testp sqrt rsqrt ex2 lg2 sin cos tanh on float bits (.f32 in
 * the low 32 bits), honouring .ftz; NaN results are the canonical NaN.
 * The .approx functions are a correctly rounded double result rounded to
 * the type: within 1 ulp of the exact value (sin/cos: 2^-21 absolute on
 * [-pi, pi], better than PTX's bound). */
uint64_t ptx_alu_math(const ptx_insn *in, uint64_t a, uint64_t b);

/* a op b (op c) of add sub mul mad fma div rcp sqrt computed in the IEEE
 * rounding `round` (PTX_RND_DEFAULT or RN: nearest even; RZ, RM, RP),
 * on host floats; no flush, no saturation, no NaN canonicalisation. */
float ptx_round_f32(ptx_opcode op, ptx_round round, float a, float b, float c);
double ptx_round_f64(ptx_opcode op, ptx_round round, double a, double b, double c);

/* A double, or an integer (signed or not), converted to f32 or to f64 in
 * the IEEE rounding `round` (as above). */
float ptx_round_to_f32(double v, ptx_round round);
float ptx_round_int_to_f32(uint64_t v, bool is_signed, ptx_round round);
double ptx_round_int_to_f64(uint64_t v, bool is_signed, ptx_round round);

#endif
