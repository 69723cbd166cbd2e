/* One lane's arithmetic with PTX semantics: see ptx_alu.h. */
#include "ptx_alu.h"
#include "ptx_alu_parts.h"
#include "ptx_f16.h"

#include <math.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

/* NVIDIA GPUs produce this one NaN for invalid operations; the host's
 * default NaN differs (sign bit set on x86), so results are canonicalised. */
#define CANONICAL_NAN_F32 0x7FFFFFFFu
#define CANONICAL_NAN_F64 0x7FFFFFFFFFFFFFFFull

static float as_f32(uint64_t b) { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
static double as_f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint64_t f32_out(float f) { uint32_t u; if (isnan(f)) return CANONICAL_NAN_F32; memcpy(&u, &f, 4); return u; }
static uint64_t f64_out(double d) { uint64_t u; if (isnan(d)) return CANONICAL_NAN_F64; memcpy(&u, &d, 8); return u; }

static unsigned width_bits(ptx_type t) { return ptx_type_bytes(t) * 8u; }

static uint64_t width_mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

uint64_t ptx_value_as(uint64_t raw, ptx_type t)
{
    unsigned bits = width_bits(t);
    if (t == PTX_T_PRED)
        return raw != 0;
    if (bits >= 64)
        return raw;
    raw &= width_mask(bits);
    if (ptx_type_is_signed(t) && (raw >> (bits - 1)) & 1)
        raw |= ~width_mask(bits);
    return raw;
}

uint64_t ptx_value_store(uint64_t v, ptx_type t)
{
    if (t == PTX_T_PRED)
        return v != 0;
    return v & width_mask(width_bits(t));
}

/* ---- floats ------------------------------------------------------------- */

static float flush_f32(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

static double flush_f64(double d)
{
    return fpclassify(d) == FP_SUBNORMAL ? copysign(0.0, d) : d;
}

static float sat_f32(float f)
{
    if (isnan(f))
        return 0.0f;
    return f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
}

static double sat_f64(double d)
{
    if (isnan(d))
        return 0.0;
    return d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d;
}

/* min/max: a NaN operand yields the other one; -0 is below +0. */
static double fminmax(double a, double b, bool is_max)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    if (a == 0 && b == 0)
        return (signbit(a) != 0) == !is_max ? a : b;
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

static bool fcompare(ptx_cmp cmp, double a, double b)
{
    bool unordered = isnan(a) || isnan(b);
    switch (cmp) {
    case PTX_CMP_EQ: return !unordered && a == b;
    case PTX_CMP_NE: return !unordered && a != b;
    case PTX_CMP_LT: return !unordered && a < b;
    case PTX_CMP_LE: return !unordered && a <= b;
    case PTX_CMP_GT: return !unordered && a > b;
    case PTX_CMP_GE: return !unordered && a >= b;
    case PTX_CMP_EQU: return unordered || a == b;
    case PTX_CMP_NEU: return unordered || a != b;
    case PTX_CMP_LTU: return unordered || a < b;
    case PTX_CMP_LEU: return unordered || a <= b;
    case PTX_CMP_GTU: return unordered || a > b;
    case PTX_CMP_GEU: return unordered || a >= b;
    case PTX_CMP_NUM: return !unordered;
    case PTX_CMP_NAN: return unordered;
    default: return false;
    }
}

/* .rz .rm .rp: computed in that IEEE rounding (ptx_alu_math.c); .rn and
 * no rounding: in the host's default, nearest even. */
static bool is_directed(const ptx_insn *in)
{
    if (in->round != PTX_RND_RZ && in->round != PTX_RND_RM && in->round != PTX_RND_RP)
        return false;
    switch ((ptx_opcode)in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_FMA:
    case PTX_OP_DIV: case PTX_OP_RCP:
        return true;
    default:
        return false;
    }
}

/* div.approx.f32 (CUDA's __fdividef): the PTX ISA gives 2 ulps for |b| in
 * [2^-126, 2^126], computed here correctly rounded; for 2^126 < |b| < 2^128
 * it gives 0, and NaN for an infinite a (a times the reciprocal of b, which
 * is flushed to a zero there). */
static float div_approx_f32(float a, float b)
{
    float mag = fabsf(b);
    if (mag > 0x1p126f && mag < INFINITY)
        return a * copysignf(0.0f, b);
    return a / b;
}

static uint64_t float_alu(const ptx_insn *in, uint64_t ra, uint64_t rb, uint64_t rc)
{
    bool f32 = in->type == PTX_T_F32;
    bool directed = is_directed(in);
    bool ftz = f32 && (in->mods & PTX_MOD_FTZ);
    double a, b, c;
    if (f32) {
        float fa = as_f32(ra), fb = as_f32(rb), fc = as_f32(rc);
        if (ftz) {
            fa = flush_f32(fa);
            fb = flush_f32(fb);
            fc = flush_f32(fc);
        }
        /* Single-precision operations are computed in float: each is one
         * correctly rounded IEEE operation, as on the GPU. */
        float r;
        if (directed)
            r = ptx_round_f32((ptx_opcode)in->op, (ptx_round)in->round, fa, fb, fc);
        else switch ((ptx_opcode)in->op) {
        case PTX_OP_ADD: r = fa + fb; break;
        case PTX_OP_SUB: r = fa - fb; break;
        case PTX_OP_MUL: r = fa * fb; break;
        case PTX_OP_MAD: /* mad.f32 with a rounding mode is fma */
        case PTX_OP_FMA: r = fmaf(fa, fb, fc); break;
        case PTX_OP_DIV: r = in->mods & PTX_MOD_APPROX ? div_approx_f32(fa, fb) : fa / fb; break;
        case PTX_OP_RCP: r = 1.0f / fa; break;
        case PTX_OP_MIN: case PTX_OP_MAX:
            if ((in->mods & PTX_MOD_NAN) && (isnan(fa) || isnan(fb)))
                return CANONICAL_NAN_F32;
            r = (float)fminmax(fa, fb, in->op == PTX_OP_MAX);
            break;
        case PTX_OP_ABS: { uint64_t u = (uint32_t)ra & 0x7FFFFFFFu; return ftz ? f32_out(flush_f32(as_f32(u))) : u; }
        case PTX_OP_NEG: { uint64_t u = ((uint32_t)ra ^ 0x80000000u); return ftz ? f32_out(flush_f32(as_f32(u))) : u; }
        case PTX_OP_SETP: return fcompare((ptx_cmp)in->cmp, fa, fb);
        default: return 0;
        }
        if (ftz)
            r = flush_f32(r);
        if (in->mods & PTX_MOD_SAT)
            r = sat_f32(r);
        return f32_out(r);
    }
    a = as_f64(ra);
    b = as_f64(rb);
    c = as_f64(rc);
    bool ftz64 = (in->mods & PTX_MOD_FTZ) != 0; /* rcp.approx.ftz.f64 */
    if (ftz64)
        a = flush_f64(a);
    double r;
    if (directed)
        r = ptx_round_f64((ptx_opcode)in->op, (ptx_round)in->round, a, b, c);
    else switch ((ptx_opcode)in->op) {
    case PTX_OP_ADD: r = a + b; break;
    case PTX_OP_SUB: r = a - b; break;
    case PTX_OP_MUL: r = a * b; break;
    case PTX_OP_MAD:
    case PTX_OP_FMA: r = fma(a, b, c); break;
    case PTX_OP_DIV: r = a / b; break;
    case PTX_OP_RCP: r = 1.0 / a; break;
    case PTX_OP_MIN: r = fminmax(a, b, false); break;
    case PTX_OP_MAX: r = fminmax(a, b, true); break;
    case PTX_OP_ABS: return ra & 0x7FFFFFFFFFFFFFFFull;
    case PTX_OP_NEG: return ra ^ 0x8000000000000000ull;
    case PTX_OP_SETP: return fcompare((ptx_cmp)in->cmp, a, b);
    default: return 0;
    }
    if (ftz64)
        r = flush_f64(r);
    if (in->mods & PTX_MOD_SAT)
        r = sat_f64(r);
    return f64_out(r);
}

/* ---- binary16 ----------------------------------------------------------- */

/* .ftz on .f16: subnormal inputs and results become zeros of their sign. */
static uint16_t flush_f16(uint16_t h)
{
    return ptx_f16_is_subnormal(h) ? (uint16_t)(h & 0x8000u) : h;
}

/* .sat on .f16: clamped to [0, 1], NaN to +0; -0 stays -0 (as sat_f32). */
static uint16_t sat_f16(uint16_t h)
{
    if (ptx_f16_is_nan(h) || (h > 0x8000u))
        return 0; /* NaN, and negatives below -0 */
    return h > 0x3C00u && h < 0x8000u ? 0x3C00u : h; /* positive halves order as their bits */
}

/* add sub mul fma min max abs neg setp on .f16 bits: the arithmetic
 * correctly rounded once (ptx_f16.c); compares and min/max on the exact
 * doubles. */
static uint64_t f16_alu(const ptx_insn *in, uint64_t ra, uint64_t rb, uint64_t rc)
{
    bool ftz = (in->mods & PTX_MOD_FTZ) != 0;
    uint16_t a = (uint16_t)ra, b = (uint16_t)rb, c = (uint16_t)rc;
    if (ftz) {
        a = flush_f16(a);
        b = flush_f16(b);
        c = flush_f16(c);
    }
    ptx_round round = (ptx_round)in->round;
    uint16_t r;
    switch ((ptx_opcode)in->op) {
    case PTX_OP_ADD: r = ptx_f16_add(a, b, round); break;
    case PTX_OP_SUB: r = ptx_f16_sub(a, b, round); break;
    case PTX_OP_MUL: r = ptx_f16_mul(a, b, round); break;
    case PTX_OP_FMA: r = ptx_f16_fma(a, b, c, round); break;
    case PTX_OP_MIN: case PTX_OP_MAX: {
        bool any_nan = ptx_f16_is_nan(a) || ptx_f16_is_nan(b);
        if ((ptx_f16_is_nan(a) && ptx_f16_is_nan(b)) || (any_nan && (in->mods & PTX_MOD_NAN)))
            return PTX_F16_CANONICAL_NAN;
        /* exact as doubles; fminmax picks one operand, whose bits are kept */
        double m = fminmax(ptx_f16_to_f64(a), ptx_f16_to_f64(b), in->op == PTX_OP_MAX);
        r = ptx_f16_from_f64(m, PTX_RND_RN);
        break;
    }
    case PTX_OP_ABS: r = (uint16_t)(a & 0x7FFFu); break;
    case PTX_OP_NEG: r = (uint16_t)(a ^ 0x8000u); break;
    case PTX_OP_SETP:
        return fcompare((ptx_cmp)in->cmp, ptx_f16_to_f64(a), ptx_f16_to_f64(b));
    default: return 0;
    }
    if (ftz)
        r = flush_f16(r);
    if (in->mods & PTX_MOD_SAT)
        r = sat_f16(r);
    return r;
}

/* ---- integers ----------------------------------------------------------- */

static bool icompare(ptx_cmp cmp, uint64_t a, uint64_t b, bool is_signed)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (cmp) {
    case PTX_CMP_EQ: return a == b;
    case PTX_CMP_NE: return a != b;
    case PTX_CMP_LT: return is_signed ? sa < sb : a < b;
    case PTX_CMP_LE: return is_signed ? sa <= sb : a <= b;
    case PTX_CMP_GT: return is_signed ? sa > sb : a > b;
    case PTX_CMP_GE: return is_signed ? sa >= sb : a >= b;
    case PTX_CMP_LO: return a < b;
    case PTX_CMP_LS: return a <= b;
    case PTX_CMP_HI: return a > b;
    case PTX_CMP_HS: return a >= b;
    default: return false;
    }
}

/* mul.hi / mul.wide / mul.lo of two values of width bits, as 128 bits. */
static u128 full_product(uint64_t a, uint64_t b, bool is_signed)
{
    if (is_signed)
        return (u128)((s128)(int64_t)a * (s128)(int64_t)b);
    return (u128)a * (u128)b;
}

static uint64_t int_alu(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    ptx_type t = (ptx_type)in->type;
    unsigned bits = width_bits(t);
    bool sgn = ptx_type_is_signed(t);
    uint64_t mask = width_mask(bits);
    switch ((ptx_opcode)in->op) {
    case PTX_OP_ADD:
    case PTX_OP_SUB: {
        if (in->mods & PTX_MOD_SAT) { /* s32 only */
            int64_t r = in->op == PTX_OP_ADD ? (int64_t)a + (int64_t)b : (int64_t)a - (int64_t)b;
            r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
            return (uint64_t)r;
        }
        return in->op == PTX_OP_ADD ? a + b : a - b;
    }
    case PTX_OP_MUL:
    case PTX_OP_MAD: {
        u128 p = full_product(a, b, sgn);
        uint64_t r;
        if (in->mods & PTX_MOD_WIDE)
            r = (uint64_t)p; /* 2 x bits <= 64 */
        else if (in->mods & PTX_MOD_HI)
            r = (uint64_t)(p >> bits);
        else
            r = (uint64_t)p;
        return in->op == PTX_OP_MAD ? r + c : r;
    }
    case PTX_OP_DIV:
        /* Division by zero: all ones (what NVIDIA GPUs return; PTX leaves
         * it unspecified); INT_MIN / -1 wraps to INT_MIN. */
        if ((b & mask) == 0)
            return ~0ull;
        if (sgn) {
            if ((int64_t)b == -1)
                return 0 - a;
            return (uint64_t)((int64_t)a / (int64_t)b);
        }
        return (a & mask) / (b & mask);
    case PTX_OP_REM:
        /* Remainder by zero: the dividend (unspecified by PTX). */
        if ((b & mask) == 0)
            return a;
        if (sgn) {
            if ((int64_t)b == -1)
                return 0;
            return (uint64_t)((int64_t)a % (int64_t)b);
        }
        return (a & mask) % (b & mask);
    case PTX_OP_MIN:
        return sgn ? ((int64_t)a < (int64_t)b ? a : b) : ((a & mask) < (b & mask) ? a : b);
    case PTX_OP_MAX:
        return sgn ? ((int64_t)a > (int64_t)b ? a : b) : ((a & mask) > (b & mask) ? a : b);
    case PTX_OP_ABS:
        return (int64_t)a < 0 ? 0 - a : a; /* INT_MIN stays INT_MIN once truncated */
    case PTX_OP_NEG:
        return 0 - a;
    case PTX_OP_AND: return a & b;
    case PTX_OP_OR: return a | b;
    case PTX_OP_XOR: return a ^ b;
    case PTX_OP_NOT: return ~a;
    case PTX_OP_SHL:
        b &= 0xFFFFFFFFu; /* the shift amount is u32 */
        return b >= bits ? 0 : a << b;
    case PTX_OP_SHR:
        b &= 0xFFFFFFFFu;
        if (sgn) /* a is sign-extended: shifting by bits-1 or more fills with the sign */
            return (uint64_t)((int64_t)a >> (b >= bits ? bits - 1 : b));
        return b >= bits ? 0 : (a & mask) >> b;
    case PTX_OP_SETP:
        return icompare((ptx_cmp)in->cmp, a, b, sgn);
    default:
        return 0;
    }
}

/* ---- conversions -------------------------------------------------------- */

static double round_integral(double v, ptx_round r)
{
    switch (r) {
    case PTX_RND_RNI: return nearbyint(v); /* the default mode: to nearest even */
    case PTX_RND_RZI: return trunc(v);
    case PTX_RND_RMI: return floor(v);
    case PTX_RND_RPI: return ceil(v);
    default: return v;
    }
}

/* A float to an integer type: rounded as asked, NaN to 0, out of range
 * clamped to the type's range (PTX saturates float-to-integer). */
static uint64_t float_to_int(double v, ptx_round r, ptx_type to)
{
    if (isnan(v))
        return 0;
    v = round_integral(v, r == PTX_RND_DEFAULT ? PTX_RND_RZI : r);
    unsigned bits = width_bits(to);
    if (ptx_type_is_signed(to)) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
        if (v < lo)
            return (uint64_t)(bits == 64 ? INT64_MIN : (int64_t)lo);
        if (v >= hi)
            return bits == 64 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)(hi - 1);
        return (uint64_t)(int64_t)v;
    }
    if (v <= 0)
        return 0;
    if (v >= ldexp(1.0, (int)bits))
        return width_mask(bits);
    return (uint64_t)v;
}

static uint64_t int_saturate(uint64_t v, bool from_signed, ptx_type to)
{
    unsigned bits = width_bits(to);
    if (ptx_type_is_signed(to)) {
        int64_t lo = bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1));
        int64_t hi = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
        if (from_signed)
            return (uint64_t)((int64_t)v < lo ? lo : (int64_t)v > hi ? hi : (int64_t)v);
        return v > (uint64_t)hi ? (uint64_t)hi : v;
    }
    if (from_signed && (int64_t)v < 0)
        return 0;
    return v > width_mask(bits) ? width_mask(bits) : v;
}

/* The rounding of a conversion to .f16: an integral rounding (.rni ...) has
 * already made the value integral, which then rounds to nearest. */
static ptx_round f16_rounding(ptx_round r)
{
    return r >= PTX_RND_RNI ? PTX_RND_RN : r;
}

static uint64_t convert(const ptx_insn *in, uint64_t a)
{
    ptx_type to = (ptx_type)in->type, from = (ptx_type)in->type2;
    bool ftz = (in->mods & PTX_MOD_FTZ) != 0;
    if (ptx_type_is_ieee(from)) {
        double v;
        if (from == PTX_T_F32) {
            float f = as_f32(a);
            v = ftz ? flush_f32(f) : f;
        } else if (from == PTX_T_F16) {
            /* cvt's .ftz flushes single-precision values only (PTX ISA) */
            v = ptx_f16_to_f64((uint16_t)a); /* exact */
        } else {
            v = as_f64(a);
        }
        if (!ptx_type_is_ieee(to))
            return float_to_int(v, (ptx_round)in->round, to);
        if (in->round >= PTX_RND_RNI)
            v = round_integral(v, (ptx_round)in->round);
        if (in->mods & PTX_MOD_SAT)
            v = sat_f64(v);
        if (to == PTX_T_F16) /* rounded once from the exact value, f64 too; not flushed */
            return ptx_f16_from_f64(v, f16_rounding((ptx_round)in->round));
        if (to == PTX_T_F32) {
            float f = ptx_round_to_f32(v, (ptx_round)in->round); /* .rni ...: v is integral */
            return f32_out(ftz ? flush_f32(f) : f);
        }
        return f64_out(v);
    }
    bool from_signed = ptx_type_is_signed(from);
    if (to == PTX_T_F16) {
        uint16_t h = ptx_f16_from_int(a, from_signed, f16_rounding((ptx_round)in->round));
        return (in->mods & PTX_MOD_SAT) ? sat_f16(h) : h;
    }
    if (ptx_type_is_float(to)) {
        if (to == PTX_T_F32)
            return f32_out(ptx_round_int_to_f32(a, from_signed, (ptx_round)in->round));
        return f64_out(ptx_round_int_to_f64(a, from_signed, (ptx_round)in->round));
    }
    return (in->mods & PTX_MOD_SAT) ? int_saturate(a, from_signed, to) : a;
}

/* set: the comparison of a and b at the source type (and its boolean
 * operation with the predicate c), written as the destination type's true
 * value (1.0, or all ones for an integer type) or 0. */
static uint64_t set_value(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    ptx_insn cmp = *in;
    cmp.op = PTX_OP_SETP;
    cmp.type = in->type2;
    cmp.mods = in->mods & PTX_MOD_FTZ;
    uint64_t r = ptx_alu4(&cmp, a, b, 0, 0);
    if (in->boolop == PTX_BOOL_AND)
        r &= c;
    else if (in->boolop == PTX_BOOL_OR)
        r |= c;
    else if (in->boolop == PTX_BOOL_XOR)
        r ^= c;
    if (!r)
        return 0;
    switch ((ptx_type)in->type) {
    case PTX_T_F32: return 0x3F800000u;
    case PTX_T_F16: return 0x3C00u;
    default: return ~0ull; /* stored at the destination's width */
    }
}

uint64_t ptx_alu(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    return ptx_alu4(in, a, b, c, 0);
}

uint64_t ptx_alu4(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    switch ((ptx_opcode)in->op) {
    case PTX_OP_SHF: case PTX_OP_BFI: case PTX_OP_BFE: case PTX_OP_BFIND: case PTX_OP_POPC:
    case PTX_OP_CLZ: case PTX_OP_BREV: case PTX_OP_PRMT: case PTX_OP_SAD: case PTX_OP_MUL24:
    case PTX_OP_MAD24:
        return ptx_alu_bits(in, a, b, c, d);
    case PTX_OP_COPYSIGN: case PTX_OP_TESTP: case PTX_OP_SQRT: case PTX_OP_RSQRT: case PTX_OP_EX2:
    case PTX_OP_LG2: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_TANH:
        return ptx_alu_math(in, a, b);
    case PTX_OP_MOV: return a;
    case PTX_OP_SELP: return c ? a : b;
    case PTX_OP_NOT:
        if (in->type == PTX_T_PRED)
            return a ^ 1u; /* a predicate reads as 0 or 1 */
        return ~a;
    case PTX_OP_CVT: return convert(in, a);
    case PTX_OP_SET: return set_value(in, a, b, c);
    case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR:
    case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_REM:
        return int_alu(in, a, b, c);
    default:
        if (in->type == PTX_T_F16)
            return f16_alu(in, a, b, c);
        return ptx_type_is_float((ptx_type)in->type) ? float_alu(in, a, b, c) : int_alu(in, a, b, c);
    }
}
