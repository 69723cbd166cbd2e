/* Warp-wide float arithmetic, comparisons and conversions: see
 * ptx_alu_warp.h. Each form gives the bits ptx_alu.c gives (IEEE
 * nearest-even in the host's default mode, denormals kept, NaN results
 * canonical); tests/ptx/test_ptx_alu_warp.c compares them bit for bit. */
#include "ptx_alu_warp.h"
#include "ptx_alu_warp_rows.h"

#include <math.h>

/* NVIDIA's canonical NaN, as ptx_alu.c writes it. */
#define CANONICAL_NAN_F32 0x7FFFFFFFu
#define CANONICAL_NAN_F64 0x7FFFFFFFFFFFFFFFull

static inline float f32_in(uint64_t bits) { uint32_t u = (uint32_t)bits; float f; memcpy(&f, &u, 4); return f; }
static inline double f64_in(uint64_t bits) { double d; memcpy(&d, &bits, 8); return d; }
static inline uint64_t f32_out(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return f != f ? CANONICAL_NAN_F32 : u;
}
static inline uint64_t f64_out(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return d != d ? CANONICAL_NAN_F64 : u;
}

#define FA(lane) f32_in(a.v[lane])
#define FB(lane) f32_in(b.v[lane])
#define FC(lane) f32_in(c.v[lane])
#define DA(lane) f64_in(a.v[lane])
#define DB(lane) f64_in(b.v[lane])
#define DC(lane) f64_in(c.v[lane])

/* setp on floats: ordered comparisons are false and unordered ones true
 * when an operand is NaN (x != x); as ptx_alu's fcompare. */
#define SETP_FLOAT(X, Y)                                                                \
    switch (cmp) {                                                                       \
    case PTX_CMP_EQ: FOR_LANES64(X(lane) == Y(lane)); return true;                       \
    case PTX_CMP_NE: FOR_LANES64(X(lane) == X(lane) && Y(lane) == Y(lane) && X(lane) != Y(lane)); return true; \
    case PTX_CMP_LT: FOR_LANES64(X(lane) < Y(lane)); return true;                        \
    case PTX_CMP_LE: FOR_LANES64(X(lane) <= Y(lane)); return true;                       \
    case PTX_CMP_GT: FOR_LANES64(X(lane) > Y(lane)); return true;                        \
    case PTX_CMP_GE: FOR_LANES64(X(lane) >= Y(lane)); return true;                       \
    case PTX_CMP_EQU: FOR_LANES64(!(X(lane) < Y(lane) || X(lane) > Y(lane))); return true; \
    case PTX_CMP_NEU: FOR_LANES64(X(lane) != Y(lane)); return true;                      \
    case PTX_CMP_LTU: FOR_LANES64(!(X(lane) >= Y(lane))); return true;                   \
    case PTX_CMP_LEU: FOR_LANES64(!(X(lane) > Y(lane))); return true;                    \
    case PTX_CMP_GTU: FOR_LANES64(!(X(lane) <= Y(lane))); return true;                   \
    case PTX_CMP_GEU: FOR_LANES64(!(X(lane) < Y(lane))); return true;                    \
    case PTX_CMP_NUM: FOR_LANES64(X(lane) == X(lane) && Y(lane) == Y(lane)); return true; \
    case PTX_CMP_NAN: FOR_LANES64(X(lane) != X(lane) || Y(lane) != Y(lane)); return true; \
    default: return false;                                                               \
    }

static bool setp_float(uint64_t *dst, bool f32, ptx_cmp cmp, lane_row a, lane_row b, uint32_t active)
{
    if (f32)
        SETP_FLOAT(FA, FB)
    else
        SETP_FLOAT(DA, DB)
}

static bool float_f32(uint64_t *dst, ptx_opcode op, lane_row a, lane_row b, lane_row c, uint32_t active)
{
    switch (op) {
    case PTX_OP_MOV: FOR_LANES64((uint32_t)a.v[lane]); return true;
    case PTX_OP_ADD: FOR_LANES64(f32_out(FA(lane) + FB(lane))); return true;
    case PTX_OP_SUB: FOR_LANES64(f32_out(FA(lane) - FB(lane))); return true;
    case PTX_OP_MUL: FOR_LANES64(f32_out(FA(lane) * FB(lane))); return true;
    case PTX_OP_MAD: /* mad.f32: fma, as ptx_alu.c */
    case PTX_OP_FMA: FOR_LANES64(f32_out(fmaf(FA(lane), FB(lane), FC(lane)))); return true;
    case PTX_OP_NEG: FOR_LANES64((uint32_t)a.v[lane] ^ 0x80000000u); return true;
    case PTX_OP_ABS: FOR_LANES64((uint32_t)a.v[lane] & 0x7FFFFFFFu); return true;
    default: return false;
    }
}

static bool float_f64(uint64_t *dst, ptx_opcode op, lane_row a, lane_row b, lane_row c, uint32_t active)
{
    switch (op) {
    case PTX_OP_MOV: FOR_LANES64(a.v[lane]); return true;
    case PTX_OP_ADD: FOR_LANES64(f64_out(DA(lane) + DB(lane))); return true;
    case PTX_OP_SUB: FOR_LANES64(f64_out(DA(lane) - DB(lane))); return true;
    case PTX_OP_MUL: FOR_LANES64(f64_out(DA(lane) * DB(lane))); return true;
    case PTX_OP_MAD:
    case PTX_OP_FMA: FOR_LANES64(f64_out(fma(DA(lane), DB(lane), DC(lane)))); return true;
    case PTX_OP_NEG: FOR_LANES64(a.v[lane] ^ 0x8000000000000000ull); return true;
    case PTX_OP_ABS: FOR_LANES64(a.v[lane] & 0x7FFFFFFFFFFFFFFFull); return true;
    default: return false;
    }
}

/* cvt without .sat or .ftz: integer widening and narrowing, integers of 32
 * bits to floats (.rn), f32 to f64 and f64 to f32 (.rn). Others: false. */
static bool convert(uint64_t *dst, const ptx_insn *in, lane_row a, uint32_t active)
{
    ptx_type to = (ptx_type)in->type, from = (ptx_type)in->type2;
    unsigned to_bytes = ptx_type_bytes(to), from_bytes = ptx_type_bytes(from);
    bool to_float = ptx_type_is_float(to), from_float = ptx_type_is_float(from);
    bool rn = in->round == PTX_RND_DEFAULT || in->round == PTX_RND_RN;
    bool from_signed = ptx_type_is_signed(from);
    if (!to_float && !from_float) {
        if (in->round != PTX_RND_DEFAULT || (to_bytes != 4 && to_bytes != 8) ||
            (from_bytes != 4 && from_bytes != 8))
            return false;
        if (to_bytes == 4) /* the low half, whatever the source */
            FOR_LANES64((uint32_t)a.v[lane]);
        else if (from_bytes == 8)
            FOR_LANES64(a.v[lane]);
        else if (from_signed)
            FOR_LANES64((uint64_t)(int64_t)(int32_t)a.v[lane]);
        else
            FOR_LANES64((uint32_t)a.v[lane]);
        return true;
    }
    if (!rn)
        return false;
    if (to_float && !from_float) {
        if (from_bytes != 4)
            return false;
        if (to == PTX_T_F64) {
            if (from_signed)
                FOR_LANES64(f64_out((double)(int32_t)a.v[lane])); /* exact */
            else
                FOR_LANES64(f64_out((double)(uint32_t)a.v[lane]));
        } else {
            if (from_signed)
                FOR_LANES64(f32_out((float)(int32_t)a.v[lane])); /* nearest even */
            else
                FOR_LANES64(f32_out((float)(uint32_t)a.v[lane]));
        }
        return true;
    }
    if (to == PTX_T_F64 && from == PTX_T_F32 && in->round == PTX_RND_DEFAULT) {
        FOR_LANES64(f64_out((double)FA(lane))); /* exact */
        return true;
    }
    if (to == PTX_T_F32 && from == PTX_T_F64) {
        FOR_LANES64(f32_out((float)DA(lane))); /* nearest even */
        return true;
    }
    return false;
}

bool ptx_alu_warp_float(ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_opcode op = (ptx_opcode)in->op;
    ptx_type t = (ptx_type)in->type;
    if (in->mods || in->boolop || in->nops < 2)
        return false; /* .ftz .sat: ptx_alu */
    if (t == PTX_T_F16 || (op == PTX_OP_CVT && in->type2 == PTX_T_F16))
        return false; /* binary16: ptx_alu */
    if (op != PTX_OP_CVT && (!ptx_type_is_float(t) ||
                             (in->round != PTX_RND_DEFAULT && in->round != PTX_RND_RN)))
        return false; /* integers: ptx_alu_warp_b32; directed rounding: ptx_alu */
    uint64_t spill[3][PTX_WARP_SIZE];
    lane_row a, b = { spill[1] }, c = { spill[2] };
    if (!as_row(w, &in->ops[1], spill[0], &a) ||
        (in->nops > 2 && !as_row(w, &in->ops[2], spill[1], &b)) ||
        (in->nops > 3 && !as_row(w, &in->ops[3], spill[2], &c)))
        return false;
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * PTX_WARP_SIZE;
    bool f32 = t == PTX_T_F32;
    switch (op) {
    case PTX_OP_CVT: return convert(dst, in, a, active);
    case PTX_OP_SETP: return setp_float(dst, f32, (ptx_cmp)in->cmp, a, b, active);
    default: return f32 ? float_f32(dst, op, a, b, c, active) : float_f64(dst, op, a, b, c, active);
    }
}
