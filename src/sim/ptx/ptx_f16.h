/*
 * IEEE 754 binary16 (PTX .f16), on its 16 bits: exact widening to f32 and
 * f64, and correctly rounded narrowing and arithmetic in the four IEEE
 * roundings. Every result is rounded once from the exact value (no double
 * rounding through f32); subnormals are kept (flushing is the caller's
 * .ftz); a NaN result is the canonical NaN PTX_F16_CANONICAL_NAN.
 */
#ifndef GG_PTX_F16_H
#define GG_PTX_F16_H

#include <stdbool.h>
#include <stdint.h>

#include "ptx_ir.h"

#define PTX_F16_CANONICAL_NAN 0x7FFFu /* what NVIDIA GPUs produce for a NaN f16 */

/* True if h (low 16 bits) is a NaN / a subnormal (nonzero, exponent 0). */
bool ptx_f16_is_nan(uint16_t h);
bool ptx_f16_is_subnormal(uint16_t h);

/* h as a float / double: exact (every binary16 is one); a NaN stays a NaN
 * with its sign and payload moved to the top of the wider mantissa. */
float ptx_f16_to_f32(uint16_t h);
double ptx_f16_to_f64(uint16_t h);

/* d rounded once to binary16 in `round` (PTX_RND_DEFAULT and RN: nearest
 * even; RZ, RM, RP; the integral roundings are not taken here: RN). An
 * overflow gives infinity or the largest finite value (65504) as the
 * rounding says; NaN gives the canonical NaN. f32 inputs are exact as
 * doubles, so this also rounds f32 once. */
uint16_t ptx_f16_from_f64(double d, ptx_round round);

/* An integer (its 64 bits read as signed if is_signed) rounded once to
 * binary16 in `round`, as ptx_f16_from_f64. */
uint16_t ptx_f16_from_int(uint64_t v, bool is_signed, ptx_round round);

/* a + b, a - b, a * b and fma(a, b, c) = a * b + c, each computed exactly
 * and rounded once to binary16 in `round` (as ptx_f16_from_f64), with IEEE
 * signs of zero (an exact zero sum is +0, -0 in RM; -0 + -0 is -0) and
 * NaN for inf - inf and 0 * inf. */
uint16_t ptx_f16_add(uint16_t a, uint16_t b, ptx_round round);
uint16_t ptx_f16_sub(uint16_t a, uint16_t b, ptx_round round);
uint16_t ptx_f16_mul(uint16_t a, uint16_t b, ptx_round round);
uint16_t ptx_f16_fma(uint16_t a, uint16_t b, uint16_t c, ptx_round round);

#endif
