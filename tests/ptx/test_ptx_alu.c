/* One lane's arithmetic (src/sim/ptx/ptx_alu.c) at the edges where PTX
 * defines what C leaves undefined: division and shifts out of range, float
 * to integer conversion of NaN and of values out of range, NaN and signed
 * zeros in min/max, saturation, flush to zero, fused multiply-add. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ptx_alu.h"

TestSuite(ptx_alu, .timeout = 30);

typedef struct form {
    ptx_opcode op;
    ptx_type type, type2;
    unsigned mods;
    ptx_round round;
    ptx_cmp cmp;
} form;

/* The instruction on operands of its types, result stored at its
 * destination's width, as the interpreter does. */
static uint64_t run(form f, uint64_t a, uint64_t b, uint64_t c)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)f.op;
    in.type = (uint8_t)f.type;
    in.type2 = (uint8_t)f.type2;
    in.mods = (uint16_t)f.mods;
    in.round = (uint8_t)f.round;
    in.cmp = (uint8_t)f.cmp;
    ptx_type ta = f.op == PTX_OP_CVT ? f.type2 : f.type;
    ptx_type tb = (f.op == PTX_OP_SHL || f.op == PTX_OP_SHR) ? PTX_T_U32 : f.type;
    ptx_type tdst = f.op == PTX_OP_SETP ? PTX_T_PRED : f.type;
    if ((f.op == PTX_OP_MUL) && (f.mods & PTX_MOD_WIDE))
        tdst = f.type == PTX_T_S32 ? PTX_T_S64 : PTX_T_U64;
    return ptx_value_store(ptx_alu(&in, ptx_value_as(a, ta), ptx_value_as(b, tb), ptx_value_as(c, f.type)),
                           tdst);
}

static uint64_t f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t f64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
#define S32(v) ((uint64_t)(uint32_t)(int32_t)(v))
#define OP(o, t) ((form){ .op = (o), .type = (t) })

Test(ptx_alu, integer_division_and_remainder)
{
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_S32), S32(INT32_MIN), S32(-1), 0), S32(INT32_MIN));
    cr_assert_eq(run(OP(PTX_OP_REM, PTX_T_S32), S32(INT32_MIN), S32(-1), 0), 0);
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_S32), S32(-7), S32(2), 0), S32(-3));
    cr_assert_eq(run(OP(PTX_OP_REM, PTX_T_S32), S32(-7), S32(2), 0), S32(-1));
    /* By zero: unspecified by PTX; all ones, the remainder the dividend. */
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_S32), 5, 0, 0), 0xFFFFFFFFu);
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_U32), 5, 0, 0), 0xFFFFFFFFu);
    cr_assert_eq(run(OP(PTX_OP_REM, PTX_T_U32), 5, 0, 0), 5);
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_S64), (uint64_t)INT64_MIN, (uint64_t)-1, 0), (uint64_t)INT64_MIN);
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_U16), 0xFFFF, 0x100, 0), 0xFF);
}

Test(ptx_alu, shifts_by_the_width_or_more)
{
    cr_assert_eq(run(OP(PTX_OP_SHL, PTX_T_B32), 1, 31, 0), 0x80000000u);
    cr_assert_eq(run(OP(PTX_OP_SHL, PTX_T_B32), 1, 32, 0), 0);
    cr_assert_eq(run(OP(PTX_OP_SHL, PTX_T_B32), 1, 0xFFFFFFFFu, 0), 0);
    cr_assert_eq(run(OP(PTX_OP_SHR, PTX_T_U32), 0x80000000u, 32, 0), 0);
    cr_assert_eq(run(OP(PTX_OP_SHR, PTX_T_S32), 0x80000000u, 40, 0), 0xFFFFFFFFu);
    cr_assert_eq(run(OP(PTX_OP_SHR, PTX_T_S32), 0x7FFFFFFFu, 40, 0), 0);
    cr_assert_eq(run(OP(PTX_OP_SHL, PTX_T_B64), 1, 64, 0), 0);
    cr_assert_eq(run(OP(PTX_OP_SHL, PTX_T_B64), 1, 63, 0), 1ull << 63);
    cr_assert_eq(run(OP(PTX_OP_SHR, PTX_T_S64), 1ull << 63, 1000, 0), ~0ull);
    cr_assert_eq(run(OP(PTX_OP_SHL, PTX_T_B16), 1, 16, 0), 0);
}

Test(ptx_alu, multiplication_forms_and_saturation)
{
    form hi = OP(PTX_OP_MUL, PTX_T_S32);
    hi.mods = PTX_MOD_HI;
    cr_assert_eq(run(hi, S32(-1), 1, 0), 0xFFFFFFFFu);
    hi.type = PTX_T_U32;
    cr_assert_eq(run(hi, 0xFFFFFFFFu, 0xFFFFFFFFu, 0), 0xFFFFFFFEu);
    hi.type = PTX_T_U64;
    cr_assert_eq(run(hi, ~0ull, ~0ull, 0), ~0ull - 1);
    form wide = OP(PTX_OP_MUL, PTX_T_S32);
    wide.mods = PTX_MOD_WIDE;
    cr_assert_eq(run(wide, S32(-2), 3, 0), (uint64_t)-6);
    form sat = OP(PTX_OP_ADD, PTX_T_S32);
    sat.mods = PTX_MOD_SAT;
    cr_assert_eq(run(sat, S32(INT32_MAX), 1, 0), S32(INT32_MAX));
    cr_assert_eq(run(sat, S32(INT32_MIN), S32(-1), 0), S32(INT32_MIN));
    cr_assert_eq(run(OP(PTX_OP_ADD, PTX_T_S32), S32(INT32_MAX), 1, 0), S32(INT32_MIN));
    cr_assert_eq(run(OP(PTX_OP_ABS, PTX_T_S32), S32(INT32_MIN), 0, 0), S32(INT32_MIN));
    cr_assert_eq(run(OP(PTX_OP_NEG, PTX_T_S32), S32(INT32_MIN), 0, 0), S32(INT32_MIN));
    cr_assert_eq(run(OP(PTX_OP_MIN, PTX_T_U32), 0xFFFFFFFFu, 1, 0), 1);
    cr_assert_eq(run(OP(PTX_OP_MIN, PTX_T_S32), 0xFFFFFFFFu, 1, 0), 0xFFFFFFFFu);
}

static form cvt(ptx_type to, ptx_type from, ptx_round r)
{
    return (form){ .op = PTX_OP_CVT, .type = to, .type2 = from, .round = r };
}

Test(ptx_alu, float_to_integer_conversions_saturate)
{
    form s = cvt(PTX_T_S32, PTX_T_F32, PTX_RND_RZI);
    cr_assert_eq(run(s, f32(NAN), 0, 0), 0);
    cr_assert_eq(run(s, f32(INFINITY), 0, 0), S32(INT32_MAX));
    cr_assert_eq(run(s, f32(-INFINITY), 0, 0), S32(INT32_MIN));
    cr_assert_eq(run(s, f32(2147483648.0f), 0, 0), S32(INT32_MAX));
    cr_assert_eq(run(s, f32(-2147483904.0f), 0, 0), S32(INT32_MIN));
    cr_assert_eq(run(s, f32(-1.9f), 0, 0), S32(-1));
    form u = cvt(PTX_T_U32, PTX_T_F32, PTX_RND_RZI);
    cr_assert_eq(run(u, f32(-1.5f), 0, 0), 0);
    cr_assert_eq(run(u, f32(4294967296.0f), 0, 0), 0xFFFFFFFFu);
    form rni = cvt(PTX_T_S32, PTX_T_F32, PTX_RND_RNI);
    cr_assert_eq(run(rni, f32(2.5f), 0, 0), 2);
    cr_assert_eq(run(rni, f32(3.5f), 0, 0), 4);
    cr_assert_eq(run(rni, f32(-2.5f), 0, 0), S32(-2));
    cr_assert_eq(run(cvt(PTX_T_S32, PTX_T_F64, PTX_RND_RMI), f64(-1.5), 0, 0), S32(-2));
    cr_assert_eq(run(cvt(PTX_T_S32, PTX_T_F64, PTX_RND_RPI), f64(1.2), 0, 0), 2);
    cr_assert_eq(run(cvt(PTX_T_S64, PTX_T_F64, PTX_RND_RZI), f64(NAN), 0, 0), 0);
    cr_assert_eq(run(cvt(PTX_T_S64, PTX_T_F64, PTX_RND_RZI), f64(1e300), 0, 0), (uint64_t)INT64_MAX);
    cr_assert_eq(run(cvt(PTX_T_U64, PTX_T_F64, PTX_RND_RZI), f64(1e300), 0, 0), ~0ull);
    cr_assert_eq(run(cvt(PTX_T_U8, PTX_T_F32, PTX_RND_RZI), f32(300.0f), 0, 0), 255);
}

Test(ptx_alu, integer_conversions)
{
    cr_assert_eq(run(cvt(PTX_T_S32, PTX_T_S8, PTX_RND_DEFAULT), 0x80, 0, 0), S32(-128));
    cr_assert_eq(run(cvt(PTX_T_S32, PTX_T_U8, PTX_RND_DEFAULT), 0x80, 0, 0), 128);
    cr_assert_eq(run(cvt(PTX_T_U32, PTX_T_U64, PTX_RND_DEFAULT), 0x123456789ull, 0, 0), 0x23456789u);
    cr_assert_eq(run(cvt(PTX_T_S64, PTX_T_S32, PTX_RND_DEFAULT), S32(-5), 0, 0), (uint64_t)-5);
    form sat = cvt(PTX_T_U8, PTX_T_S32, PTX_RND_DEFAULT);
    sat.mods = PTX_MOD_SAT;
    cr_assert_eq(run(sat, S32(-5), 0, 0), 0);
    cr_assert_eq(run(sat, 300, 0, 0), 255);
    sat = cvt(PTX_T_S8, PTX_T_U32, PTX_RND_DEFAULT);
    sat.mods = PTX_MOD_SAT;
    cr_assert_eq(run(sat, 0xFFFFFFFFu, 0, 0), 127);
    cr_assert_eq(run(cvt(PTX_T_F32, PTX_T_S32, PTX_RND_RN), 16777217, 0, 0), f32(16777216.0f));
    cr_assert_eq(run(cvt(PTX_T_F32, PTX_T_U64, PTX_RND_RN), ~0ull, 0, 0), f32(18446744073709551616.0f));
}

Test(ptx_alu, float_min_max_nan_and_signed_zero)
{
    cr_assert_eq(run(OP(PTX_OP_MIN, PTX_T_F32), f32(NAN), f32(1.0f), 0), f32(1.0f));
    cr_assert_eq(run(OP(PTX_OP_MAX, PTX_T_F32), f32(2.0f), f32(NAN), 0), f32(2.0f));
    cr_assert_eq(run(OP(PTX_OP_MIN, PTX_T_F32), f32(NAN), f32(NAN), 0), 0x7FFFFFFFu);
    cr_assert_eq(run(OP(PTX_OP_MIN, PTX_T_F32), f32(0.0f), f32(-0.0f), 0), f32(-0.0f));
    cr_assert_eq(run(OP(PTX_OP_MAX, PTX_T_F32), f32(-0.0f), f32(0.0f), 0), f32(0.0f));
    cr_assert_eq(run(OP(PTX_OP_MIN, PTX_T_F64), f64(NAN), f64(-3.0), 0), f64(-3.0));
    /* An invalid operation gives the GPU's canonical NaN. */
    cr_assert_eq(run(OP(PTX_OP_ADD, PTX_T_F32), f32(INFINITY), f32(-INFINITY), 0), 0x7FFFFFFFu);
    cr_assert_eq(run(OP(PTX_OP_MUL, PTX_T_F64), f64(0.0), f64(INFINITY), 0), 0x7FFFFFFFFFFFFFFFull);
    cr_assert_eq(run(OP(PTX_OP_ABS, PTX_T_F32), f32(-0.0f), 0, 0), f32(0.0f));
    cr_assert_eq(run(OP(PTX_OP_NEG, PTX_T_F64), f64(2.0), 0, 0), f64(-2.0));
}

Test(ptx_alu, comparisons_ordered_and_unordered)
{
    form f = OP(PTX_OP_SETP, PTX_T_F32);
    f.cmp = PTX_CMP_LT;
    cr_assert_eq(run(f, f32(NAN), f32(1.0f), 0), 0);
    f.cmp = PTX_CMP_LTU;
    cr_assert_eq(run(f, f32(NAN), f32(1.0f), 0), 1);
    f.cmp = PTX_CMP_NE;
    cr_assert_eq(run(f, f32(NAN), f32(NAN), 0), 0);
    f.cmp = PTX_CMP_NAN;
    cr_assert_eq(run(f, f32(1.0f), f32(NAN), 0), 1);
    f.cmp = PTX_CMP_NUM;
    cr_assert_eq(run(f, f32(1.0f), f32(2.0f), 0), 1);
    form i = OP(PTX_OP_SETP, PTX_T_S32);
    i.cmp = PTX_CMP_LT;
    cr_assert_eq(run(i, S32(-1), 0, 0), 1);
    i.type = PTX_T_U32;
    cr_assert_eq(run(i, S32(-1), 0, 0), 0);
    i.cmp = PTX_CMP_HI;
    cr_assert_eq(run(i, S32(-1), 0, 0), 1);
}

Test(ptx_alu, fused_multiply_add_ftz_and_sat)
{
    /* (1 + 2^-12)(1 - 2^-12) - 1 = -2^-24 exactly when fused; 0 if not. */
    form fma_f = OP(PTX_OP_FMA, PTX_T_F32);
    fma_f.round = PTX_RND_RN;
    cr_assert_eq(run(fma_f, f32(1.0f + 0x1p-12f), f32(1.0f - 0x1p-12f), f32(-1.0f)), f32(-0x1p-24f));
    form ftz = OP(PTX_OP_ADD, PTX_T_F32);
    ftz.mods = PTX_MOD_FTZ;
    cr_assert_eq(run(ftz, f32(1e-40f), f32(0.0f), 0), f32(0.0f));
    cr_assert_eq(run(ftz, f32(-1e-40f), f32(-0.0f), 0), f32(-0.0f));
    cr_assert_eq(run(OP(PTX_OP_ADD, PTX_T_F32), f32(1e-40f), f32(0.0f), 0), f32(1e-40f));
    form sat = OP(PTX_OP_ADD, PTX_T_F32);
    sat.mods = PTX_MOD_SAT;
    cr_assert_eq(run(sat, f32(2.0f), f32(0.0f), 0), f32(1.0f));
    cr_assert_eq(run(sat, f32(-2.0f), f32(0.0f), 0), f32(0.0f));
    cr_assert_eq(run(sat, f32(NAN), f32(0.0f), 0), f32(0.0f));
    cr_assert_eq(run(OP(PTX_OP_RCP, PTX_T_F64), f64(0.0), 0, 0), f64(INFINITY));
    cr_assert_eq(run(OP(PTX_OP_DIV, PTX_T_F32), f32(1.0f), f32(3.0f), 0), f32(1.0f / 3.0f));
}
