/* Warp-wide 32-bit integer instructions: see ptx_alu_warp.h. */
#include "ptx_alu_warp.h"
#include "ptx_alu_warp_rows.h"

#define A(lane) ((uint32_t)a.v[lane])
#define B(lane) ((uint32_t)b.v[lane])
#define C(lane) ((uint32_t)c.v[lane])

/* Runs `expr` (of lane, A, B, C) for every active lane into dst. */
#define FOR_LANES(expr)                                                     \
    do {                                                                    \
        if (active == 0xFFFFFFFFu) {                                        \
            PTX_LANES_INDEPENDENT /* see ptx_alu_warp_rows.h */             \
            for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)           \
                dst[lane] = (uint32_t)(expr);                               \
        } else {                                                            \
            for (uint32_t m_ = active; m_; m_ &= m_ - 1) {                  \
                unsigned lane = (unsigned)__builtin_ctz(m_);                \
                dst[lane] = (uint32_t)(expr);                               \
            }                                                               \
        }                                                                   \
    } while (0)

static uint32_t shl32(uint32_t x, uint32_t n) { return n >= 32 ? 0 : x << n; }
static uint32_t shr32u(uint32_t x, uint32_t n) { return n >= 32 ? 0 : x >> n; }
static uint32_t shr32s(uint32_t x, uint32_t n)
{
    int32_t s = (int32_t)x;
    return (uint32_t)(s >> (n >= 32 ? 31 : n)); /* arithmetic shift: gcc and clang */
}

/* The usual shift, by a constant: one shift count for all lanes (which
 * the vector units take; per-lane counts they do not before AVX2). */
static bool shift_by_constant(uint64_t *dst, const ptx_insn *in, bool sgn, lane_row a, uint32_t n,
                              uint32_t active)
{
    if (in->op == PTX_OP_SHL) {
        if (n >= 32)
            FOR_LANES(0u * A(lane));
        else
            FOR_LANES(A(lane) << n);
    } else if (sgn) {
        uint32_t k = n >= 32 ? 31 : n;
        FOR_LANES((uint32_t)((int32_t)A(lane) >> k)); /* arithmetic: gcc and clang */
    } else {
        if (n >= 32)
            FOR_LANES(0u * A(lane));
        else
            FOR_LANES(A(lane) >> n);
    }
    return true;
}

/* setp of 32-bit integers, b read as BX (of lane). */
#define SETP32(BX)                                                                                 \
    switch (cmp) {                                                                                 \
    case PTX_CMP_EQ: FOR_LANES(A(lane) == (BX)); return true;                                      \
    case PTX_CMP_NE: FOR_LANES(A(lane) != (BX)); return true;                                      \
    case PTX_CMP_LT:                                                                               \
        if (sgn) FOR_LANES((int32_t)A(lane) < (int32_t)(BX)); else FOR_LANES(A(lane) < (BX));      \
        return true;                                                                               \
    case PTX_CMP_LE:                                                                               \
        if (sgn) FOR_LANES((int32_t)A(lane) <= (int32_t)(BX)); else FOR_LANES(A(lane) <= (BX));    \
        return true;                                                                               \
    case PTX_CMP_GT:                                                                               \
        if (sgn) FOR_LANES((int32_t)A(lane) > (int32_t)(BX)); else FOR_LANES(A(lane) > (BX));      \
        return true;                                                                               \
    case PTX_CMP_GE:                                                                               \
        if (sgn) FOR_LANES((int32_t)A(lane) >= (int32_t)(BX)); else FOR_LANES(A(lane) >= (BX));    \
        return true;                                                                               \
    case PTX_CMP_LO: FOR_LANES(A(lane) < (BX)); return true;                                       \
    case PTX_CMP_LS: FOR_LANES(A(lane) <= (BX)); return true;                                      \
    case PTX_CMP_HI: FOR_LANES(A(lane) > (BX)); return true;                                       \
    case PTX_CMP_HS: FOR_LANES(A(lane) >= (BX)); return true;                                      \
    default: return false;                                                                         \
    }

static bool setp32(uint64_t *dst, ptx_cmp cmp, bool sgn, lane_row a, lane_row b, uint32_t active)
{
    SETP32(B(lane))
}

/* 32-bit instructions whose b is a constant kb (c: mad's addend, a row,
 * or the constant kc if c_is_const), without filling a row with kb: the
 * most common form (offsets, strides, masks, loop bounds). False for
 * the others, which take the general path. */
static bool alu32_by_constant(uint64_t *dst, const ptx_insn *in, bool sgn, lane_row a, uint32_t kb,
                              lane_row c, bool c_is_const, uint32_t kc, uint32_t active)
{
    switch ((ptx_opcode)in->op) {
    case PTX_OP_ADD: FOR_LANES(A(lane) + kb); return true;
    case PTX_OP_SUB: FOR_LANES(A(lane) - kb); return true;
    case PTX_OP_MUL: FOR_LANES(A(lane) * kb); return true; /* .lo */
    case PTX_OP_MAD:
        if (c_is_const)
            FOR_LANES(A(lane) * kb + kc);
        else
            FOR_LANES(A(lane) * kb + C(lane));
        return true;
    case PTX_OP_AND: FOR_LANES(A(lane) & kb); return true;
    case PTX_OP_OR: FOR_LANES(A(lane) | kb); return true;
    case PTX_OP_XOR: FOR_LANES(A(lane) ^ kb); return true;
    case PTX_OP_SHL:
    case PTX_OP_SHR: return shift_by_constant(dst, in, sgn, a, kb, active);
    case PTX_OP_SETP: {
        ptx_cmp cmp = (ptx_cmp)in->cmp;
        SETP32(kb)
    }
    default: return false;
    }
}

#define A64(lane) (a.v[lane])
#define B64(lane) (b.v[lane])

/* setp on 64-bit integers (the .lo .ls .hi .hs forms and unsigned types
 * compare without sign). */
static bool setp64(uint64_t *dst, ptx_cmp cmp, bool sgn, lane_row a, lane_row b, uint32_t active)
{
#define SA(lane) ((int64_t)a.v[lane])
#define SB(lane) ((int64_t)b.v[lane])
    switch (cmp) {
    case PTX_CMP_EQ: FOR_LANES64(A64(lane) == B64(lane)); return true;
    case PTX_CMP_NE: FOR_LANES64(A64(lane) != B64(lane)); return true;
    case PTX_CMP_LT:
        if (sgn) FOR_LANES64(SA(lane) < SB(lane)); else FOR_LANES64(A64(lane) < B64(lane));
        return true;
    case PTX_CMP_LE:
        if (sgn) FOR_LANES64(SA(lane) <= SB(lane)); else FOR_LANES64(A64(lane) <= B64(lane));
        return true;
    case PTX_CMP_GT:
        if (sgn) FOR_LANES64(SA(lane) > SB(lane)); else FOR_LANES64(A64(lane) > B64(lane));
        return true;
    case PTX_CMP_GE:
        if (sgn) FOR_LANES64(SA(lane) >= SB(lane)); else FOR_LANES64(A64(lane) >= B64(lane));
        return true;
    case PTX_CMP_LO: FOR_LANES64(A64(lane) < B64(lane)); return true;
    case PTX_CMP_LS: FOR_LANES64(A64(lane) <= B64(lane)); return true;
    case PTX_CMP_HI: FOR_LANES64(A64(lane) > B64(lane)); return true;
    case PTX_CMP_HS: FOR_LANES64(A64(lane) >= B64(lane)); return true;
    default: return false;
    }
#undef SA
#undef SB
}

static uint64_t shl64(uint64_t x, uint64_t n) { n &= 0xFFFFFFFFu; return n >= 64 ? 0 : x << n; }

/* 64-bit add, sub, mul.lo, logic, shl and mov; mul.wide of 32-bit values. */
static bool alu_warp_b64(uint64_t *dst, const ptx_insn *in, lane_row a, lane_row b, uint32_t active)
{
    switch ((ptx_opcode)in->op) {
    case PTX_OP_SETP: return setp64(dst, (ptx_cmp)in->cmp, in->type == PTX_T_S64, a, b, active);
    case PTX_OP_NEG: FOR_LANES64(0 - A64(lane)); return true;
    case PTX_OP_ABS: FOR_LANES64((int64_t)A64(lane) < 0 ? 0 - A64(lane) : A64(lane)); return true;
    case PTX_OP_NOT: FOR_LANES64(~A64(lane)); return true;
    case PTX_OP_MOV: FOR_LANES64(A64(lane)); return true;
    case PTX_OP_ADD: FOR_LANES64(A64(lane) + B64(lane)); return true;
    case PTX_OP_SUB: FOR_LANES64(A64(lane) - B64(lane)); return true;
    case PTX_OP_MUL: FOR_LANES64(A64(lane) * B64(lane)); return true; /* .lo */
    case PTX_OP_AND: FOR_LANES64(A64(lane) & B64(lane)); return true;
    case PTX_OP_OR: FOR_LANES64(A64(lane) | B64(lane)); return true;
    case PTX_OP_XOR: FOR_LANES64(A64(lane) ^ B64(lane)); return true;
    case PTX_OP_SHL: FOR_LANES64(shl64(A64(lane), B64(lane))); return true;
    default: return false;
    }
}

/* 64-bit address arithmetic by a constant kb (mul.wide.u32/s32 by an
 * element size, add of an offset, shl by a scale): as alu_warp_b64 and
 * mul_wide32 without filling a row; false for the other forms. */
static bool alu64_by_constant(uint64_t *dst, const ptx_insn *in, bool wide, bool sgn, lane_row a, uint64_t kb,
                              uint32_t active)
{
    if (wide) {
        if (sgn)
            FOR_LANES64((uint64_t)((int64_t)(int32_t)A(lane) * (int64_t)(int32_t)kb));
        else
            FOR_LANES64((uint64_t)A(lane) * (uint32_t)kb);
        return true;
    }
    switch ((ptx_opcode)in->op) {
    case PTX_OP_ADD: FOR_LANES64(A64(lane) + kb); return true;
    case PTX_OP_SUB: FOR_LANES64(A64(lane) - kb); return true;
    case PTX_OP_MUL: FOR_LANES64(A64(lane) * kb); return true; /* .lo */
    case PTX_OP_AND: FOR_LANES64(A64(lane) & kb); return true;
    case PTX_OP_SHL: {
        uint64_t n = kb & 0xFFFFFFFFu; /* the count is a .u32 */
        if (n >= 64)
            FOR_LANES64(0 * A64(lane));
        else
            FOR_LANES64(A64(lane) << n);
        return true;
    }
    default: return false;
    }
}

static bool mul_wide32(uint64_t *dst, bool sgn, lane_row a, lane_row b, uint32_t active)
{
    if (sgn)
        FOR_LANES64((uint64_t)((int64_t)(int32_t)A(lane) * (int64_t)(int32_t)B(lane)));
    else
        FOR_LANES64((uint64_t)A(lane) * (uint64_t)B(lane));
    return true;
}

/* Predicate logic: registers hold 0 or 1, but any non-zero reads as true. */
static bool pred_logic(uint64_t *dst, ptx_opcode op, lane_row a, lane_row b, uint32_t active)
{
    switch (op) {
    case PTX_OP_MOV: FOR_LANES64(A64(lane) != 0); return true;
    case PTX_OP_AND: FOR_LANES64((A64(lane) != 0) & (B64(lane) != 0)); return true;
    case PTX_OP_OR: FOR_LANES64((A64(lane) != 0) | (B64(lane) != 0)); return true;
    case PTX_OP_XOR: FOR_LANES64((A64(lane) != 0) ^ (B64(lane) != 0)); return true;
    case PTX_OP_NOT: FOR_LANES64(A64(lane) == 0); return true;
    default: return false;
    }
}

/* selp d, a, b, c of a 32- or 64-bit type (floats included): a where the
 * predicate c holds, else b, kept at the type's width. */
static bool select_warp(uint64_t *dst, unsigned bytes, lane_row a, lane_row b, lane_row c, uint32_t active)
{
    if (bytes == 4)
        FOR_LANES64((uint32_t)(c.v[lane] != 0 ? A64(lane) : B64(lane)));
    else
        FOR_LANES64(c.v[lane] != 0 ? A64(lane) : B64(lane));
    return true;
}

/* Operands 1..nops-1 of `in` as rows; false if one has none. */
static bool operand_rows(const ptx_warp *w, const ptx_insn *in, uint64_t spill[3][PTX_WARP_SIZE],
                         lane_row rows[3])
{
    rows[1].v = spill[1];
    rows[2].v = spill[2];
    return in->nops >= 2 && as_row(w, &in->ops[1], spill[0], &rows[0]) &&
           (in->nops <= 2 || as_row(w, &in->ops[2], spill[1], &rows[1])) &&
           (in->nops <= 3 || as_row(w, &in->ops[3], spill[2], &rows[2]));
}

/* selp and predicate logic, which ptx_alu_warp_b32 also takes. */
static bool select_or_pred(ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned bytes = ptx_type_bytes(t);
    bool selp = in->op == PTX_OP_SELP && (bytes == 4 || bytes == 8) && t != PTX_T_PRED;
    uint64_t spill[3][PTX_WARP_SIZE];
    lane_row rows[3];
    if (in->mods || !operand_rows(w, in, spill, rows))
        return false;
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * PTX_WARP_SIZE;
    if (selp)
        return select_warp(dst, bytes, rows[0], rows[1], rows[2], active);
    return pred_logic(dst, (ptx_opcode)in->op, rows[0], rows[1], active);
}

bool ptx_alu_warp_b32(ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    if (in->op == PTX_OP_SELP || (t == PTX_T_PRED && in->op != PTX_OP_SETP))
        return select_or_pred(w, in, active);
    bool is32 = t == PTX_T_B32 || t == PTX_T_U32 || t == PTX_T_S32;
    bool is64 = t == PTX_T_B64 || t == PTX_T_U64 || t == PTX_T_S64;
    bool wide = in->op == PTX_OP_MUL && in->mods == PTX_MOD_WIDE && is32;
    if (!(is32 || is64) || (in->mods && !wide) || in->boolop)
        return false;
    uint64_t spill[3][PTX_WARP_SIZE];
    lane_row a, b = { spill[1] }, c = { spill[2] };
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * PTX_WARP_SIZE;
    bool sgn = t == PTX_T_S32;
    if (in->nops >= 3 && in->ops[1].kind == PTX_OPND_REG && !in->ops[1].negate &&
        in->ops[2].kind == PTX_OPND_IMM) {
        /* A register and a constant: no row for the constant. */
        a.v = w->regs + (size_t)in->ops[1].reg * PTX_WARP_SIZE;
        uint64_t kb = in->ops[2].imm;
        bool c_is_const = in->nops > 3 && in->ops[3].kind == PTX_OPND_IMM;
        if (in->nops <= 3 || c_is_const || as_row(w, &in->ops[3], spill[2], &c)) {
            if (is64 || wide ? alu64_by_constant(dst, in, wide, t == PTX_T_S32 || t == PTX_T_S64, a, kb, active)
                             : alu32_by_constant(dst, in, sgn, a, (uint32_t)kb, c, c_is_const,
                                                 c_is_const ? (uint32_t)in->ops[3].imm : 0, active))
                return true;
        }
    }
    if (in->nops < 2 || !as_row(w, &in->ops[1], spill[0], &a) ||
        (in->nops > 2 && !as_row(w, &in->ops[2], spill[1], &b)) ||
        (in->nops > 3 && !as_row(w, &in->ops[3], spill[2], &c)))
        return false;
    if (wide)
        return mul_wide32(dst, sgn, a, b, active);
    if (is64)
        return alu_warp_b64(dst, in, a, b, active);
    switch ((ptx_opcode)in->op) {
    case PTX_OP_MOV: FOR_LANES(A(lane)); return true;
    case PTX_OP_ADD: FOR_LANES(A(lane) + B(lane)); return true;
    case PTX_OP_SUB: FOR_LANES(A(lane) - B(lane)); return true;
    case PTX_OP_MUL: FOR_LANES(A(lane) * B(lane)); return true;       /* .lo */
    case PTX_OP_MAD: FOR_LANES(A(lane) * B(lane) + C(lane)); return true;
    case PTX_OP_AND: FOR_LANES(A(lane) & B(lane)); return true;
    case PTX_OP_OR: FOR_LANES(A(lane) | B(lane)); return true;
    case PTX_OP_XOR: FOR_LANES(A(lane) ^ B(lane)); return true;
    case PTX_OP_NOT: FOR_LANES(~A(lane)); return true;
    case PTX_OP_NEG: FOR_LANES(0u - A(lane)); return true;
    case PTX_OP_ABS: /* of a signed value: an unsigned one reads as its own magnitude */
        if (sgn) FOR_LANES((int32_t)A(lane) < 0 ? 0u - A(lane) : A(lane)); else FOR_LANES(A(lane));
        return true;
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        if (in->op == PTX_OP_SHL)
            FOR_LANES(shl32(A(lane), B(lane)));
        else if (sgn)
            FOR_LANES(shr32s(A(lane), B(lane)));
        else
            FOR_LANES(shr32u(A(lane), B(lane)));
        return true;
    case PTX_OP_SETP: return setp32(dst, (ptx_cmp)in->cmp, sgn, a, b, active);
    default: return false;
    }
}
