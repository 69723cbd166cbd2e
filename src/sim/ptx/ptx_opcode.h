/*
 * Decoding of one PTX mnemonic with its modifiers ("ld.global.v2.u32",
 * "setp.lt.s32", "cvt.rzi.s32.f32") into the fields of a ptx_insn. Forms
 * the interpreter does not implement are refused here, at load time, with a
 * reason.
 */
#ifndef GG_PTX_OPCODE_H
#define GG_PTX_OPCODE_H

#include "ptx_ir.h"

/* Fills in->op, type, type2, space, cmp, boolop, round, vec and mods.
 * Returns false with a reason in why when the form is unknown or not
 * implemented. "call" and the operands are the parser's business. */
bool ptx_decode_mnemonic(const char *text, size_t len, ptx_insn *in, char *why, size_t whylen);

/* A type name without its dot ("u32"), or PTX_T_NONE. */
ptx_type ptx_type_from_name(const char *name, size_t len);

#endif
