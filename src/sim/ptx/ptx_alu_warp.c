/* Warp-wide 32-bit integer instructions: see ptx_alu_warp.h. */
#include "ptx_alu_warp.h"

#include <string.h>

/* An operand as a row of 32 lanes: a register's row, or a constant copied
 * into all 32 entries of `spill`, so that every operand is indexed the same
 * way and the loops below vectorise. */
typedef struct lane_row { const uint64_t *v; } lane_row;

static bool as_row(const ptx_warp *w, const ptx_operand *o, uint64_t *spill, lane_row *r)
{
    if (o->negate)
        return false;
    if (o->kind == PTX_OPND_REG) {
        r->v = w->regs + (size_t)o->reg * PTX_WARP_SIZE;
        return true;
    }
    if (o->kind == PTX_OPND_IMM) {
        for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)
            spill[lane] = o->imm;
        r->v = spill;
        return true;
    }
    return false;
}

#define A(lane) ((uint32_t)a.v[lane])
#define B(lane) ((uint32_t)b.v[lane])
#define C(lane) ((uint32_t)c.v[lane])

/* Runs `expr` (of lane, A, B, C) for every active lane into dst. */
#define FOR_LANES(expr)                                                     \
    do {                                                                    \
        if (active == 0xFFFFFFFFu) {                                        \
            uint64_t r_[PTX_WARP_SIZE]; /* no alias of a, b or c: vectorises */\
            for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)           \
                r_[lane] = (uint32_t)(expr);                                      \
            memcpy(dst, r_, sizeof r_);                               \
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

static bool setp32(uint64_t *dst, ptx_cmp cmp, bool sgn, lane_row a, lane_row b, uint32_t active)
{
    switch (cmp) {
    case PTX_CMP_EQ: FOR_LANES(A(lane) == B(lane)); return true;
    case PTX_CMP_NE: FOR_LANES(A(lane) != B(lane)); return true;
    case PTX_CMP_LT:
        if (sgn) FOR_LANES((int32_t)A(lane) < (int32_t)B(lane)); else FOR_LANES(A(lane) < B(lane));
        return true;
    case PTX_CMP_LE:
        if (sgn) FOR_LANES((int32_t)A(lane) <= (int32_t)B(lane)); else FOR_LANES(A(lane) <= B(lane));
        return true;
    case PTX_CMP_GT:
        if (sgn) FOR_LANES((int32_t)A(lane) > (int32_t)B(lane)); else FOR_LANES(A(lane) > B(lane));
        return true;
    case PTX_CMP_GE:
        if (sgn) FOR_LANES((int32_t)A(lane) >= (int32_t)B(lane)); else FOR_LANES(A(lane) >= B(lane));
        return true;
    case PTX_CMP_LO: FOR_LANES(A(lane) < B(lane)); return true;
    case PTX_CMP_LS: FOR_LANES(A(lane) <= B(lane)); return true;
    case PTX_CMP_HI: FOR_LANES(A(lane) > B(lane)); return true;
    case PTX_CMP_HS: FOR_LANES(A(lane) >= B(lane)); return true;
    default: return false;
    }
}

#define A64(lane) (a.v[lane])
#define B64(lane) (b.v[lane])

/* Runs `expr` (64 bits) for every active lane into dst. */
#define FOR_LANES64(expr)                                                   \
    do {                                                                    \
        if (active == 0xFFFFFFFFu) {                                        \
            uint64_t r_[PTX_WARP_SIZE]; /* no alias of a, b or c: vectorises */\
            for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)           \
                r_[lane] = (expr);                                      \
            memcpy(dst, r_, sizeof r_);                                         \
        } else {                                                            \
            for (uint32_t m_ = active; m_; m_ &= m_ - 1) {                  \
                unsigned lane = (unsigned)__builtin_ctz(m_);                \
                dst[lane] = (expr);                                         \
            }                                                               \
        }                                                                   \
    } while (0)

static uint64_t shl64(uint64_t x, uint64_t n) { n &= 0xFFFFFFFFu; return n >= 64 ? 0 : x << n; }

/* 64-bit add, sub, mul.lo, logic, shl and mov; mul.wide of 32-bit values. */
static bool alu_warp_b64(uint64_t *dst, const ptx_insn *in, lane_row a, lane_row b, uint32_t active)
{
    switch ((ptx_opcode)in->op) {
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

static bool mul_wide32(uint64_t *dst, bool sgn, lane_row a, lane_row b, uint32_t active)
{
    if (sgn)
        FOR_LANES64((uint64_t)((int64_t)(int32_t)A(lane) * (int64_t)(int32_t)B(lane)));
    else
        FOR_LANES64((uint64_t)A(lane) * (uint64_t)B(lane));
    return true;
}

bool ptx_alu_warp_b32(ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    bool is32 = t == PTX_T_B32 || t == PTX_T_U32 || t == PTX_T_S32;
    bool is64 = t == PTX_T_B64 || t == PTX_T_U64 || t == PTX_T_S64;
    bool wide = in->op == PTX_OP_MUL && in->mods == PTX_MOD_WIDE && is32;
    if (!(is32 || is64) || (in->mods && !wide) || in->boolop)
        return false;
    uint64_t spill[3][PTX_WARP_SIZE];
    lane_row a, b = { spill[1] }, c = { spill[2] };
    if (in->nops < 2 || !as_row(w, &in->ops[1], spill[0], &a) ||
        (in->nops > 2 && !as_row(w, &in->ops[2], spill[1], &b)) ||
        (in->nops > 3 && !as_row(w, &in->ops[3], spill[2], &c)))
        return false;
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * PTX_WARP_SIZE;
    bool sgn = t == PTX_T_S32;
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
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        if (in->ops[2].kind == PTX_OPND_IMM)
            return shift_by_constant(dst, in, sgn, a, (uint32_t)in->ops[2].imm, active);
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
