/*
 * The arithmetic of one lane: PTX semantics for every value the interpreter
 * computes, never the host's undefined behaviour (division by zero, INT_MIN
 * / -1, shifts by the width or more, float-to-integer conversion of NaN or
 * of values out of range).
 */
#ifndef GG_PTX_ALU_H
#define GG_PTX_ALU_H

#include "ptx_ir.h"

/* A register's 64 bits read as a value of type t: sign- or zero-extended
 * from t's width (floats: their bits, zero-extended). */
uint64_t ptx_value_as(uint64_t raw, ptx_type t);
/* The bits of a value of type t as a register keeps them (truncated to the
 * width, zero-extended; pred: 0 or 1). */
uint64_t ptx_value_store(uint64_t v, ptx_type t);

/* Result of an arithmetic, logic, comparison or selection instruction
 * (add sub mul mad fma div rem min max abs neg and or xor not shl shr
 * setp selp cvt set) on operands already read with ptx_value_as. For setp,
 * the result is 0 or 1 before its boolean operation; set applies its
 * boolean operation with c (0 or 1) itself and returns its destination
 * type's true value (1.0 or all ones) or 0. */
uint64_t ptx_alu(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c);

/* ptx_alu with a fourth source d (bfi's length), and every opcode of
 * ptx_alu_parts.h: shf bfi bfe bfind popc clz brev prmt sad mul24 mad24 copysign
 * testp sqrt rsqrt ex2 lg2 sin cos tanh. testp's result is 0 or 1. */
uint64_t ptx_alu4(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c, uint64_t d);

#endif
