/* Float functions, classification and directed rounding of one lane: see
 * ptx_alu_parts.h.
 *
 * Directed rounding runs the host's own IEEE operation with the host's
 * rounding mode set to the one asked (fesetround; per thread in glibc) and
 * put back at once. The operands pass through volatile objects after the
 * mode is set and the result through one before it is put back, so the
 * compiler can neither fold nor move the operation outside the window; the
 * file is also built with -frounding-math (src/sim and tests/ptx
 * CMakeLists.txt) for the same reason. */
#include "ptx_alu_parts.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

#define CANONICAL_NAN_F32 0x7FFFFFFFu
#define CANONICAL_NAN_F64 0x7FFFFFFFFFFFFFFFull

static int host_mode(ptx_round r)
{
    switch (r) {
    case PTX_RND_RZ: return FE_TOWARDZERO;
    case PTX_RND_RM: return FE_DOWNWARD;
    case PTX_RND_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

static double f64_op(ptx_opcode op, double a, double b, double c)
{
    switch (op) {
    case PTX_OP_ADD: return a + b;
    case PTX_OP_SUB: return a - b;
    case PTX_OP_MUL: return a * b;
    case PTX_OP_MAD: case PTX_OP_FMA: return fma(a, b, c);
    case PTX_OP_DIV: return a / b;
    case PTX_OP_RCP: return 1.0 / a;
    case PTX_OP_SQRT: return sqrt(a);
    default: return 0.0;
    }
}

static float f32_op(ptx_opcode op, float a, float b, float c)
{
    switch (op) {
    case PTX_OP_ADD: return a + b;
    case PTX_OP_SUB: return a - b;
    case PTX_OP_MUL: return a * b;
    case PTX_OP_MAD: case PTX_OP_FMA: return fmaf(a, b, c);
    case PTX_OP_DIV: return a / b;
    case PTX_OP_RCP: return 1.0f / a;
    case PTX_OP_SQRT: return sqrtf(a);
    default: return 0.0f;
    }
}

float ptx_round_f32(ptx_opcode op, ptx_round round, float a, float b, float c)
{
    int saved = fegetround();
    fesetround(host_mode(round));
    volatile float va = a, vb = b, vc = c;
    volatile float r = f32_op(op, va, vb, vc);
    fesetround(saved);
    return r;
}

double ptx_round_f64(ptx_opcode op, ptx_round round, double a, double b, double c)
{
    int saved = fegetround();
    fesetround(host_mode(round));
    volatile double va = a, vb = b, vc = c;
    volatile double r = f64_op(op, va, vb, vc);
    fesetround(saved);
    return r;
}

float ptx_round_to_f32(double v, ptx_round round)
{
    int saved = fegetround();
    fesetround(host_mode(round));
    volatile double vv = v;
    volatile float r = (float)vv;
    fesetround(saved);
    return r;
}

float ptx_round_int_to_f32(uint64_t v, bool is_signed, ptx_round round)
{
    int saved = fegetround();
    fesetround(host_mode(round));
    volatile uint64_t vv = v;
    volatile float r = is_signed ? (float)(int64_t)vv : (float)vv;
    fesetround(saved);
    return r;
}

double ptx_round_int_to_f64(uint64_t v, bool is_signed, ptx_round round)
{
    int saved = fegetround();
    fesetround(host_mode(round));
    volatile uint64_t vv = v;
    volatile double r = is_signed ? (double)(int64_t)vv : (double)vv;
    fesetround(saved);
    return r;
}

/* ---- functions ---------------------------------------------------------- */

static bool is_f32(const ptx_insn *in) { return in->type == PTX_T_F32; }

static double read_float(const ptx_insn *in, uint64_t bits)
{
    if (is_f32(in)) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        if ((in->mods & PTX_MOD_FTZ) && fpclassify(f) == FP_SUBNORMAL)
            f = copysignf(0.0f, f);
        return f;
    }
    double d;
    memcpy(&d, &bits, 8);
    if ((in->mods & PTX_MOD_FTZ) && fpclassify(d) == FP_SUBNORMAL)
        d = copysign(0.0, d);
    return d;
}

/* The result at the instruction's type: rounded to nearest, flushed under
 * .ftz, NaN canonical. */
static uint64_t write_float(const ptx_insn *in, double v)
{
    if (is_f32(in)) {
        float f = (float)v;
        if (isnan(f))
            return CANONICAL_NAN_F32;
        if ((in->mods & PTX_MOD_FTZ) && fpclassify(f) == FP_SUBNORMAL)
            f = copysignf(0.0f, f);
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    if (isnan(v))
        return CANONICAL_NAN_F64;
    if ((in->mods & PTX_MOD_FTZ) && fpclassify(v) == FP_SUBNORMAL)
        v = copysign(0.0, v);
    uint64_t u;
    memcpy(&u, &v, 8);
    return u;
}

static bool test_property(ptx_testp p, double v)
{
    switch (p) {
    case PTX_TESTP_FINITE: return isfinite(v);
    case PTX_TESTP_INFINITE: return isinf(v);
    case PTX_TESTP_NUMBER: return !isnan(v);
    case PTX_TESTP_NOTANUMBER: return isnan(v);
    case PTX_TESTP_NORMAL: return isnormal(v);
    case PTX_TESTP_SUBNORMAL: return fpclassify(v) == FP_SUBNORMAL;
    default: return false;
    }
}

/* rsqrt: 1/sqrt in double, rounded once more to the type (f64: within
 * 1 ulp; -0 gives -inf, +0 +inf, negatives NaN, +inf +0). */
static double reciprocal_sqrt(double v)
{
    if (v == 0.0)
        return copysign(INFINITY, v);
    return 1.0 / sqrt(v);
}

uint64_t ptx_alu_math(const ptx_insn *in, uint64_t a, uint64_t b)
{
    switch ((ptx_opcode)in->op) {
    case PTX_OP_COPYSIGN: {
        /* copysign d, a, b: b's magnitude with a's sign, bit for bit (a
         * NaN b keeps its payload, as the GPU's bit operation does). */
        uint64_t sign = is_f32(in) ? 0x80000000u : 0x8000000000000000ull;
        return (b & ~sign) | (a & sign);
    }
    case PTX_OP_TESTP: {
        /* Classification of the operand as it is: testp takes no .ftz. */
        double v;
        if (is_f32(in)) {
            uint32_t u = (uint32_t)a;
            float f;
            memcpy(&f, &u, 4);
            v = f;
            if (fpclassify(f) == FP_SUBNORMAL) /* a float subnormal is a normal double */
                return in->cmp == PTX_TESTP_SUBNORMAL || in->cmp == PTX_TESTP_FINITE ||
                       in->cmp == PTX_TESTP_NUMBER;
        } else {
            memcpy(&v, &a, 8);
        }
        return test_property((ptx_testp)in->cmp, v);
    }
    case PTX_OP_SQRT: {
        double v = read_float(in, a);
        if (is_f32(in))
            return write_float(in, ptx_round_f32(PTX_OP_SQRT, (ptx_round)in->round, (float)v, 0, 0));
        return write_float(in, ptx_round_f64(PTX_OP_SQRT, (ptx_round)in->round, v, 0, 0));
    }
    case PTX_OP_RSQRT: return write_float(in, reciprocal_sqrt(read_float(in, a)));
    case PTX_OP_EX2: return write_float(in, exp2(read_float(in, a)));
    case PTX_OP_LG2: {
        double v = read_float(in, a);
        return write_float(in, v == 0.0 ? -INFINITY : log2(v)); /* log2(-0) is -inf too */
    }
    case PTX_OP_SIN: return write_float(in, sin(read_float(in, a)));
    case PTX_OP_COS: return write_float(in, cos(read_float(in, a)));
    case PTX_OP_TANH: return write_float(in, tanh(read_float(in, a)));
    default: return 0;
    }
}
