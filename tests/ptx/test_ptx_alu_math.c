/* One lane's bit manipulation (ptx_alu_bits.c), float functions and
 * directed rounding (ptx_alu_math.c), at their edges: shifts, positions and
 * lengths at and past the width, INT_MIN, NaN, signed zeros, infinities,
 * subnormals with and without .ftz, and roundings that differ by one ulp. */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ptx_alu.h"
#include "ptx_opcode.h"

TestSuite(ptx_alu_math, .timeout = 30);

/* The instruction as PTX text decodes it, on raw operand bits read at its
 * types as the interpreter reads them; the result at its destination width. */
static uint64_t run(const char *mnemonic, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    char why[200];
    cr_assert(ptx_decode_mnemonic(mnemonic, strlen(mnemonic), &in, why, sizeof why), "%s: %s", mnemonic, why);
    ptx_type t = (ptx_type)in.type;
    ptx_type ta = in.op == PTX_OP_CVT ? (ptx_type)in.type2 : t;
    uint64_t r = ptx_alu4(&in, ptx_value_as(a, ta), ptx_value_as(b, t), ptx_value_as(c, t), ptx_value_as(d, t));
    return ptx_value_store(r, in.op == PTX_OP_TESTP ? PTX_T_PRED : t);
}

static bool refused(const char *mnemonic)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    char why[200];
    return !ptx_decode_mnemonic(mnemonic, strlen(mnemonic), &in, why, sizeof why);
}

static uint64_t f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t f64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static float as_f32(uint64_t b) { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
static double as_f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }

#define NAN32 0x7FFFFFFFull
#define NAN64 0x7FFFFFFFFFFFFFFFull

typedef struct row { const char *m; uint64_t a, b, c, d, want; } row;

static void check(const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        uint64_t got = run(r->m, r->a, r->b, r->c, r->d);
        cr_assert_eq(got, r->want, "row %zu: %s %#llx %#llx %#llx %#llx = %#llx, want %#llx", i, r->m,
                     (unsigned long long)r->a, (unsigned long long)r->b, (unsigned long long)r->c,
                     (unsigned long long)r->d, (unsigned long long)got, (unsigned long long)r->want);
    }
}
#define CHECK(rows) check(rows, sizeof rows / sizeof rows[0])

Test(ptx_alu_math, funnel_shifts_wrap_and_clamp)
{
    static const row rows[] = {
        /* shf d, a (low), b (high), n */
        { "shf.l.wrap.b32", 0x89ABCDEF, 0x01234567, 0, 0, 0x01234567 },
        { "shf.l.wrap.b32", 0x89ABCDEF, 0x01234567, 4, 0, 0x12345678 },
        { "shf.l.wrap.b32", 0x89ABCDEF, 0x01234567, 31, 0, 0xC4D5E6F7 },
        { "shf.l.wrap.b32", 0x89ABCDEF, 0x01234567, 32, 0, 0x01234567 }, /* 32 mod 32 = 0 */
        { "shf.l.wrap.b32", 0x89ABCDEF, 0x01234567, 36, 0, 0x12345678 },
        { "shf.l.clamp.b32", 0x89ABCDEF, 0x01234567, 32, 0, 0x89ABCDEF }, /* all of a */
        { "shf.l.clamp.b32", 0x89ABCDEF, 0x01234567, 33, 0, 0x89ABCDEF },
        { "shf.l.clamp.b32", 0x89ABCDEF, 0x01234567, 0xFFFFFFFF, 0, 0x89ABCDEF },
        { "shf.l.clamp.b32", 0x89ABCDEF, 0x01234567, 31, 0, 0xC4D5E6F7 },
        { "shf.r.wrap.b32", 0x89ABCDEF, 0x01234567, 0, 0, 0x89ABCDEF },
        { "shf.r.wrap.b32", 0x89ABCDEF, 0x01234567, 4, 0, 0x789ABCDE },
        { "shf.r.wrap.b32", 0x89ABCDEF, 0x01234567, 32, 0, 0x89ABCDEF },
        { "shf.r.wrap.b32", 0x89ABCDEF, 0x01234567, 63, 0, 0x02468ACF },
        { "shf.r.clamp.b32", 0x89ABCDEF, 0x01234567, 32, 0, 0x01234567 }, /* all of b */
        { "shf.r.clamp.b32", 0x89ABCDEF, 0x01234567, 0x80000000, 0, 0x01234567 },
        { "shf.r.clamp.b32", 0x89ABCDEF, 0x01234567, 31, 0, 0x02468ACF },
    };
    CHECK(rows);
}

Test(ptx_alu_math, bit_field_extract_at_and_past_the_width)
{
    static const row rows[] = {
        /* bfe d, a, pos, len */
        { "bfe.u32", 0xF0F0F0F0, 4, 8, 0, 0x0F },
        { "bfe.s32", 0xF0F0F0F0, 4, 8, 0, 0x0000000F },
        { "bfe.s32", 0xF0F0F0F0, 0, 8, 0, 0xFFFFFFF0 },   /* field's top bit set: sign */
        { "bfe.u32", 0xF0F0F0F0, 0, 0, 0, 0 },            /* len 0 */
        { "bfe.s32", 0xF0F0F0F0, 4, 0, 0, 0 },            /* len 0: 0, not the sign */
        { "bfe.u32", 0x80000000, 31, 1, 0, 1 },
        { "bfe.s32", 0x80000000, 31, 1, 0, 0xFFFFFFFF },
        { "bfe.u32", 0x80000000, 28, 8, 0, 0x8 },         /* len past the top: cut */
        { "bfe.s32", 0x80000000, 28, 8, 0, 0xFFFFFFF8 },  /* ... and the sign of bit 31 */
        { "bfe.u32", 0xFFFFFFFF, 32, 8, 0, 0 },           /* pos = width */
        { "bfe.s32", 0xFFFFFFFF, 32, 8, 0, 0xFFFFFFFF },  /* the sign of bit 31 */
        { "bfe.s32", 0x7FFFFFFF, 200, 8, 0, 0 },
        { "bfe.u32", 0xFFFFFFFF, 0x104, 0x108, 0, 0xFF }, /* only 8 bits of pos and len */
        { "bfe.u32", 0xFFFFFFFF, 0, 255, 0, 0xFFFFFFFF },
        { "bfe.u64", 0x8000000000000000ull, 60, 8, 0, 0x8 },
        { "bfe.s64", 0x8000000000000000ull, 60, 8, 0, 0xFFFFFFFFFFFFFFF8ull },
        { "bfe.u64", 0x123456789ABCDEF0ull, 32, 32, 0, 0x12345678 },
        { "bfe.s64", 0x123456789ABCDEF0ull, 64, 1, 0, 0 },
        { "bfe.u64", 0xFFFFFFFFFFFFFFFFull, 0, 64, 0, 0xFFFFFFFFFFFFFFFFull },
    };
    CHECK(rows);
}

Test(ptx_alu_math, bit_field_insert_at_and_past_the_width)
{
    static const row rows[] = {
        /* bfi d, f, b, pos, len */
        { "bfi.b32", 0xAB, 0x00000000, 8, 8, 0x0000AB00 },
        { "bfi.b32", 0xFFFF, 0x12345678, 4, 4, 0x123456F8 },
        { "bfi.b32", 0xFF, 0x12345678, 0, 0, 0x12345678 },   /* len 0 */
        { "bfi.b32", 0xFF, 0x12345678, 32, 8, 0x12345678 },  /* pos = width */
        { "bfi.b32", 0xFF, 0x12345678, 28, 8, 0xF2345678 },  /* cut at the top */
        { "bfi.b32", 0xFFFFFFFF, 0, 0, 40, 0xFFFFFFFF },
        { "bfi.b32", 0xFF, 0, 0x108, 0x104, 0x00000F00 },    /* only 8 bits of pos and len */
        { "bfi.b64", 0xFF, 0, 60, 8, 0xF000000000000000ull },
        { "bfi.b64", 0xFFFFFFFF, 0, 16, 32, 0x0000FFFFFFFF0000ull },
        { "bfi.b64", 0xFF, 1, 64, 8, 1 },
    };
    CHECK(rows);
}

Test(ptx_alu_math, bfind_popc_clz_brev)
{
    static const row rows[] = {
        { "bfind.u32", 0, 0, 0, 0, 0xFFFFFFFF },
        { "bfind.u32", 1, 0, 0, 0, 0 },
        { "bfind.u32", 0x80000000, 0, 0, 0, 31 },
        { "bfind.shiftamt.u32", 0x80000000, 0, 0, 0, 0 },
        { "bfind.shiftamt.u32", 1, 0, 0, 0, 31 },
        { "bfind.shiftamt.u32", 0, 0, 0, 0, 0xFFFFFFFF },
        { "bfind.s32", 0xFFFFFFFF, 0, 0, 0, 0xFFFFFFFF },   /* -1: no bit differs from the sign */
        { "bfind.s32", 0x80000000, 0, 0, 0, 30 },           /* INT_MIN */
        { "bfind.s32", 0x7FFFFFFF, 0, 0, 0, 30 },
        { "bfind.u64", 0x8000000000000000ull, 0, 0, 0, 63 },
        { "bfind.s64", 0x8000000000000000ull, 0, 0, 0, 62 },
        { "popc.b32", 0, 0, 0, 0, 0 },
        { "popc.b32", 0xFFFFFFFF, 0, 0, 0, 32 },
        { "popc.b32", 0x80000001, 0, 0, 0, 2 },
        { "popc.b64", 0xFFFFFFFFFFFFFFFFull, 0, 0, 0, 64 },
        { "clz.b32", 0, 0, 0, 0, 32 },
        { "clz.b32", 0x80000000, 0, 0, 0, 0 },
        { "clz.b32", 1, 0, 0, 0, 31 },
        { "clz.b64", 0, 0, 0, 0, 64 },
        { "clz.b64", 1, 0, 0, 0, 63 },
        { "clz.b64", 0x100000000ull, 0, 0, 0, 31 },
        { "brev.b32", 1, 0, 0, 0, 0x80000000 },
        { "brev.b32", 0x12345678, 0, 0, 0, 0x1E6A2C48 },
        { "brev.b64", 1, 0, 0, 0, 0x8000000000000000ull },
        { "brev.b64", 0x8000000000000000ull, 0, 0, 0, 1 },
    };
    CHECK(rows);
}

Test(ptx_alu_math, byte_permute_default_and_modes)
{
    const uint64_t a = 0x83221100, b = 0x77665544; /* bytes 0..7: 00 11 22 83 44 55 66 77 */
    const row rows[] = {
        { "prmt.b32", a, b, 0x3210, 0, a },
        { "prmt.b32", a, b, 0x7654, 0, b },
        { "prmt.b32", a, b, 0x0123, 0, 0x00112283 },
        { "prmt.b32", a, b, 0xB000, 0, 0xFF000000 },  /* 8 + 3: byte 3 (0x83) sign-replicated */
        { "prmt.b32", a, b, 0x9990, 0, 0x00000000 },  /* 8 + 1: byte 1 (0x11) sign: 0 */
        { "prmt.b32", a, b, 0xFFFF3210, 0, a },       /* only the low 16 bits select */
        { "prmt.b32.f4e", a, b, 0, 0, 0x83221100 },
        { "prmt.b32.f4e", a, b, 1, 0, 0x44832211 },
        { "prmt.b32.f4e", a, b, 3, 0, 0x66554483 },
        { "prmt.b32.f4e", a, b, 7, 0, 0x66554483 },   /* only c's 2 low bits */
        { "prmt.b32.b4e", a, b, 0, 0, 0x55667700 },
        { "prmt.b32.b4e", a, b, 3, 0, 0x00112283 },
        { "prmt.b32.rc8", a, b, 2, 0, 0x22222222 },
        { "prmt.b32.ecl", a, b, 1, 0, 0x83221111 },
        { "prmt.b32.ecl", a, b, 3, 0, 0x83838383 },
        { "prmt.b32.ecr", a, b, 0, 0, 0x00000000 },
        { "prmt.b32.ecr", a, b, 2, 0, 0x22221100 },
        { "prmt.b32.rc16", a, b, 0, 0, 0x11001100 },
        { "prmt.b32.rc16", a, b, 1, 0, 0x83228322 },
    };
    CHECK(rows);
}

Test(ptx_alu_math, sum_of_absolute_differences)
{
    static const row rows[] = {
        { "sad.u32", 5, 9, 100, 0, 104 },
        { "sad.u32", 0xFFFFFFFF, 0, 1, 0, 0 },            /* wraps at 32 bits */
        { "sad.s32", 0xFFFFFFFF, 1, 0, 0, 2 },             /* -1 and 1 */
        { "sad.s32", 0x80000000, 0x7FFFFFFF, 0, 0, 0xFFFFFFFF }, /* INT_MIN, INT_MAX */
        { "sad.s32", 0x80000000, 0x7FFFFFFF, 1, 0, 0 },
        { "sad.u64", 0, 0xFFFFFFFFFFFFFFFFull, 0, 0, 0xFFFFFFFFFFFFFFFFull },
    };
    CHECK(rows);
}

Test(ptx_alu_math, multiplies_of_24_bits)
{
    static const row rows[] = {
        { "mul24.lo.u32", 0xFF000003, 0x00000005, 0, 0, 15 },          /* the top 8 bits ignored */
        { "mul24.lo.u32", 0x00FFFFFF, 0x00FFFFFF, 0, 0, 0xFE000001 },  /* low 32 of 0xFFFFFE000001 */
        { "mul24.hi.u32", 0x00FFFFFF, 0x00FFFFFF, 0, 0, 0xFFFFFE00 },  /* bits 16-47 */
        { "mul24.lo.s32", 0x00FFFFFF, 0x00000003, 0, 0, 0xFFFFFFFD },  /* -1 * 3 */
        { "mul24.hi.s32", 0x00800000, 0x00800000, 0, 0, 0x40000000 },  /* -2^23 squared: 2^46 */
        { "mul24.lo.s32", 0x80000000, 0x7FFFFFFF, 0, 0, 0 },           /* INT_MIN's low 24 bits: 0 */
        { "mad24.lo.u32", 0x00000002, 0x00000003, 0xFFFFFFFF, 0, 5 },  /* wraps at 32 bits */
        { "mad24.hi.s32", 0x00FFFFFF, 0x00FFFFFF, 1, 0, 1 },           /* (-1)(-1) >> 16 = 0, + 1 */
    };
    CHECK(rows);
    cr_assert(refused("mul24.wide.u32") && refused("mul24.lo.u64") && refused("mul24.lo.b32"));
}

Test(ptx_alu_math, copysign_takes_the_sign_of_the_first_operand)
{
    const row rows[] = {
        /* copysign d, a, b: |b| with a's sign */
        { "copysign.f32", f32(-1.0f), f32(2.5f), 0, 0, f32(-2.5f) },
        { "copysign.f32", f32(1.0f), f32(-2.5f), 0, 0, f32(2.5f) },
        { "copysign.f32", f32(-0.0f), f32(INFINITY), 0, 0, f32(-INFINITY) },
        { "copysign.f32", NAN32 | 0x80000000u, f32(3.0f), 0, 0, f32(-3.0f) },
        { "copysign.f32", f32(-1.0f), 0x7FC00001, 0, 0, 0xFFC00001 }, /* b's NaN bits kept */
        { "copysign.f32", f32(1.0f), f32(-0.0f), 0, 0, f32(0.0f) },
        { "copysign.f64", f64(-1.0), f64(2.5), 0, 0, f64(-2.5) },
        { "copysign.f64", f64(0.0), f64(-0x1p-1074), 0, 0, f64(0x1p-1074) },
    };
    CHECK(rows);
}

Test(ptx_alu_math, testp_classifies_every_kind_of_value)
{
    const uint64_t sub32 = 0x00000001, sub64 = 1;
    /* finite infinite number notanumber normal subnormal */
    static const char *const f32_forms[] = { "testp.finite.f32", "testp.infinite.f32", "testp.number.f32",
                                             "testp.notanumber.f32", "testp.normal.f32",
                                             "testp.subnormal.f32" };
    static const char *const f64_forms[] = { "testp.finite.f64", "testp.infinite.f64", "testp.number.f64",
                                             "testp.notanumber.f64", "testp.normal.f64",
                                             "testp.subnormal.f64" };
    const struct { uint64_t v32, v64; uint64_t want[6]; } cases[] = {
        { f32(1.5f), f64(1.5), { 1, 0, 1, 0, 1, 0 } },
        { f32(-0.0f), f64(-0.0), { 1, 0, 1, 0, 0, 0 } },
        { sub32, sub64, { 1, 0, 1, 0, 0, 1 } },
        { f32(-INFINITY), f64(-INFINITY), { 0, 1, 1, 0, 0, 0 } },
        { NAN32, NAN64, { 0, 0, 0, 1, 0, 0 } },
        { f32(FLT_MAX), f64(DBL_MAX), { 1, 0, 1, 0, 1, 0 } },
        { f32(FLT_MIN), f64(DBL_MIN), { 1, 0, 1, 0, 1, 0 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int k = 0; k < 6; k++) {
            cr_assert_eq(run(f32_forms[k], cases[i].v32, 0, 0, 0), cases[i].want[k], "case %zu %s", i, f32_forms[k]);
            cr_assert_eq(run(f64_forms[k], cases[i].v64, 0, 0, 0), cases[i].want[k], "case %zu %s", i, f64_forms[k]);
        }
}

Test(ptx_alu_math, square_roots_in_every_rounding)
{
    const float s2 = sqrtf(2.0f); /* rounded down to nearest: RZ and RM agree with RN */
    const row rows[] = {
        { "sqrt.rn.f32", f32(2.0f), 0, 0, 0, f32(s2) },
        { "sqrt.rz.f32", f32(2.0f), 0, 0, 0, f32(s2) },
        { "sqrt.rm.f32", f32(2.0f), 0, 0, 0, f32(s2) },
        { "sqrt.rp.f32", f32(2.0f), 0, 0, 0, f32(nextafterf(s2, 3.0f)) },
        { "sqrt.rp.f32", f32(4.0f), 0, 0, 0, f32(2.0f) },       /* exact: no step */
        { "sqrt.rz.f32", f32(-0.0f), 0, 0, 0, f32(-0.0f) },
        { "sqrt.rn.f32", f32(-1.0f), 0, 0, 0, NAN32 },
        { "sqrt.rm.f32", f32(INFINITY), 0, 0, 0, f32(INFINITY) },
        { "sqrt.rn.f32", 0x00000008, 0, 0, 0, f32(0x1p-73f) },  /* 2^-146: subnormal in */
        { "sqrt.rn.ftz.f32", 0x00000008, 0, 0, 0, 0 },           /* flushed to +0 */
        { "sqrt.approx.f32", f32(2.0f), 0, 0, 0, f32(s2) },
        { "sqrt.approx.ftz.f32", 0x80000004, 0, 0, 0, 0x80000000 },
        { "sqrt.rn.f64", f64(2.0), 0, 0, 0, f64(sqrt(2.0)) },
        { "sqrt.rp.f64", f64(2.0), 0, 0, 0, f64(sqrt(2.0)) }, /* sqrt(2) in f64 rounds up */
        { "sqrt.rz.f64", f64(2.0), 0, 0, 0, f64(nextafter(sqrt(2.0), 0.0)) },
        { "sqrt.rm.f64", f64(2.0), 0, 0, 0, f64(nextafter(sqrt(2.0), 0.0)) },
        { "sqrt.rz.f64", f64(-2.0), 0, 0, 0, NAN64 },
        { "sqrt.rn.f64", f64(0x1p-1074), 0, 0, 0, f64(0x1p-537) },
    };
    CHECK(rows);
    cr_assert(as_f32(run("sqrt.rn.f32", f32(2.0f), 0, 0, 0)) * as_f32(run("sqrt.rn.f32", f32(2.0f), 0, 0, 0)) < 2.0f,
              "the table's premise: sqrt(2) in f32 rounds down");
    cr_assert(fma(sqrt(2.0), sqrt(2.0), -2.0) > 0, "the table's premise: sqrt(2) in f64 rounds up");
    cr_assert(refused("sqrt.rni.f32") && refused("sqrt.rn.ftz.f64") && refused("sqrt.rn.s32"));
}

Test(ptx_alu_math, directed_rounding_of_arithmetic)
{
    const float one_up = nextafterf(1.0f, 2.0f), one_down = nextafterf(1.0f, 0.0f);
    const double one_up64 = nextafter(1.0, 2.0), one_down64 = nextafter(1.0, 0.0);
    const row rows[] = {
        /* 1 + 2^-30 in f32: the exact sum lies between 1 and 1 + 2^-23 */
        { "add.rn.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(1.0f) },
        { "add.rz.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(1.0f) },
        { "add.rm.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(1.0f) },
        { "add.rp.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(one_up) },
        { "add.rz.f32", f32(-1.0f), f32(-0x1p-30f), 0, 0, f32(-1.0f) },
        { "add.rm.f32", f32(-1.0f), f32(-0x1p-30f), 0, 0, f32(-one_up) },
        { "sub.rz.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(one_down) },
        { "sub.rp.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(1.0f) },
        /* An exact zero sum is -0 rounding down, +0 otherwise */
        { "add.rm.f32", f32(1.0f), f32(-1.0f), 0, 0, f32(-0.0f) },
        { "add.rz.f32", f32(1.0f), f32(-1.0f), 0, 0, f32(0.0f) },
        { "add.rp.f64", f64(1.0), f64(-1.0), 0, 0, f64(0.0) },
        { "add.rm.f64", f64(1.0), f64(-1.0), 0, 0, f64(-0.0) },
        /* Overflow: to infinity only in the direction of the rounding */
        { "mul.rz.f32", f32(FLT_MAX), f32(2.0f), 0, 0, f32(FLT_MAX) },
        { "mul.rm.f32", f32(FLT_MAX), f32(2.0f), 0, 0, f32(FLT_MAX) },
        { "mul.rp.f32", f32(FLT_MAX), f32(2.0f), 0, 0, f32(INFINITY) },
        { "mul.rp.f32", f32(-FLT_MAX), f32(2.0f), 0, 0, f32(-FLT_MAX) },
        { "mul.rm.f32", f32(-FLT_MAX), f32(2.0f), 0, 0, f32(-INFINITY) },
        { "mul.rn.f32", f32(FLT_MAX), f32(2.0f), 0, 0, f32(INFINITY) },
        /* Underflow: the smallest subnormal, or zero, by direction; .ftz flushes it */
        { "mul.rp.f32", f32(0x1p-149f), f32(0.5f), 0, 0, 0x00000001 },
        { "mul.rz.f32", f32(0x1p-149f), f32(0.5f), 0, 0, 0 },
        { "mul.rp.ftz.f32", f32(0x1p-126f), f32(0.5f), 0, 0, 0 },
        { "mul.rm.f32", f32(-0x1p-149f), f32(0.25f), 0, 0, 0x80000001 },
        /* fma: one rounding of the exact a * b + c */
        { "fma.rn.f32", f32(one_up), f32(one_up), f32(-1.0f), 0, f32(0x1p-22f) },
        { "fma.rm.f32", f32(1.0f), f32(1.0f), f32(0x1p-40f), 0, f32(1.0f) },
        { "fma.rp.f32", f32(1.0f), f32(1.0f), f32(0x1p-40f), 0, f32(one_up) },
        { "fma.rz.f32", f32(-1.0f), f32(1.0f), f32(-0x1p-40f), 0, f32(-1.0f) },
        { "fma.rm.f32", f32(-1.0f), f32(1.0f), f32(-0x1p-40f), 0, f32(-one_up) },
        { "fma.rm.f32", f32(2.0f), f32(3.0f), f32(-6.0f), 0, f32(-0.0f) },
        { "mad.rp.f32", f32(1.0f), f32(1.0f), f32(0x1p-40f), 0, f32(one_up) },
        { "fma.rm.f64", f64(1.0), f64(1.0), f64(-0x1p-80), 0, f64(one_down64) },
        { "fma.rp.f64", f64(1.0), f64(1.0), f64(0x1p-80), 0, f64(one_up64) },
        { "fma.rz.f64", f64(1.0), f64(1.0), f64(0x1p-80), 0, f64(1.0) },
        { "mad.rz.f64", f64(1.0), f64(1.0), f64(-0x1p-80), 0, f64(one_down64) },
        /* division and reciprocal: 1/3 lies between two floats */
        { "div.rz.f32", f32(1.0f), f32(3.0f), 0, 0, f32(0x1.555554p-2f) },
        { "div.rp.f32", f32(1.0f), f32(3.0f), 0, 0, f32(0x1.555556p-2f) },
        { "div.rm.f32", f32(-1.0f), f32(3.0f), 0, 0, f32(-0x1.555556p-2f) },
        { "rcp.rz.f32", f32(3.0f), 0, 0, 0, f32(0x1.555554p-2f) },
        { "rcp.rp.f32", f32(3.0f), 0, 0, 0, f32(0x1.555556p-2f) },
        { "div.rp.f32", f32(1.0f), f32(0.0f), 0, 0, f32(INFINITY) },
        { "div.rz.f32", f32(0.0f), f32(0.0f), 0, 0, NAN32 },
        { "div.rz.f64", f64(1.0), f64(3.0), 0, 0, f64(0x1.5555555555555p-2) },
        { "div.rp.f64", f64(1.0), f64(3.0), 0, 0, f64(0x1.5555555555556p-2) },
        { "rcp.rm.f64", f64(-3.0), 0, 0, 0, f64(-0x1.5555555555556p-2) },
        { "add.rz.f64", f64(1.0), f64(0x1p-60), 0, 0, f64(1.0) },
        { "add.rp.f64", f64(1.0), f64(0x1p-60), 0, 0, f64(one_up64) },
        { "sub.rm.f64", f64(1.0), f64(0x1p-60), 0, 0, f64(one_down64) },
        { "mul.rp.f64", f64(DBL_MAX), f64(2.0), 0, 0, f64(INFINITY) },
        { "mul.rz.f64", f64(DBL_MAX), f64(2.0), 0, 0, f64(DBL_MAX) },
        /* .sat after the rounding */
        { "add.rp.sat.f32", f32(1.0f), f32(0x1p-30f), 0, 0, f32(1.0f) },
        { "add.rz.sat.f32", f32(-1.0f), f32(0x1p-30f), 0, 0, f32(0.0f) },
    };
    CHECK(rows);
}

Test(ptx_alu_math, directed_rounding_of_conversions)
{
    const double just_over_one = 1.0 + 0x1p-40;
    const row rows[] = {
        { "cvt.rn.f32.f64", f64(just_over_one), 0, 0, 0, f32(1.0f) },
        { "cvt.rz.f32.f64", f64(just_over_one), 0, 0, 0, f32(1.0f) },
        { "cvt.rm.f32.f64", f64(just_over_one), 0, 0, 0, f32(1.0f) },
        { "cvt.rp.f32.f64", f64(just_over_one), 0, 0, 0, f32(nextafterf(1.0f, 2.0f)) },
        { "cvt.rm.f32.f64", f64(-just_over_one), 0, 0, 0, f32(-nextafterf(1.0f, 2.0f)) },
        { "cvt.rz.f32.f64", f64(1e300), 0, 0, 0, f32(FLT_MAX) },
        { "cvt.rp.f32.f64", f64(1e300), 0, 0, 0, f32(INFINITY) },
        { "cvt.rp.f32.f64", f64(0x1p-160), 0, 0, 0, 0x00000001 },
        { "cvt.rp.ftz.f32.f64", f64(0x1p-160), 0, 0, 0, 0 },
        { "cvt.rz.f32.f64", NAN64, 0, 0, 0, NAN32 },
        /* 2^24 + 1 is not a float */
        { "cvt.rn.f32.s32", 16777217, 0, 0, 0, f32(16777216.0f) },
        { "cvt.rz.f32.s32", 16777217, 0, 0, 0, f32(16777216.0f) },
        { "cvt.rp.f32.s32", 16777217, 0, 0, 0, f32(16777218.0f) },
        { "cvt.rm.f32.s32", (uint64_t)(uint32_t)-16777217, 0, 0, 0, f32(-16777218.0f) },
        { "cvt.rz.f32.s32", (uint64_t)(uint32_t)-16777217, 0, 0, 0, f32(-16777216.0f) },
        { "cvt.rz.f32.u32", 0xFFFFFFFF, 0, 0, 0, f32(0x1.fffffep31f) },
        { "cvt.rp.f32.u32", 0xFFFFFFFF, 0, 0, 0, f32(0x1p32f) },
        { "cvt.rz.f32.u64", 0xFFFFFFFFFFFFFFFFull, 0, 0, 0, f32(0x1.fffffep63f) },
        { "cvt.rm.f32.s64", 0x8000000000000001ull, 0, 0, 0, f32(-0x1p63f) },  /* INT64_MIN + 1 */
        { "cvt.rp.f32.s64", 0x8000000000000001ull, 0, 0, 0, f32(-0x1.fffffep62f) },
        { "cvt.rp.f64.u64", (1ull << 53) + 1, 0, 0, 0, f64(0x1p53 + 2) },
        { "cvt.rz.f64.u64", (1ull << 53) + 1, 0, 0, 0, f64(0x1p53) },
        { "cvt.rm.f64.s64", (uint64_t)-(int64_t)((1ull << 53) + 1), 0, 0, 0, f64(-0x1p53 - 2) },
        { "cvt.rz.f64.s32", (uint64_t)(uint32_t)INT32_MIN, 0, 0, 0, f64(-0x1p31) },
    };
    CHECK(rows);
    cr_assert(refused("cvt.rz.s32.f32"), "float to integer takes .rzi, not .rz");
    cr_assert(refused("add.rz.s32") && refused("fma.rni.f32"));
}

/* Distance in ulps (the same sign; NaN only with NaN). */
static int64_t ulps32(uint64_t x, float y)
{
    float f = as_f32(x);
    if (isnan(f) || isnan(y))
        return isnan(f) && isnan(y) ? 0 : INT64_MAX;
    int32_t a, b;
    memcpy(&a, &f, 4);
    memcpy(&b, &y, 4);
    int64_t oa = a < 0 ? (int64_t)INT32_MIN - a : a, ob = b < 0 ? (int64_t)INT32_MIN - b : b;
    return oa > ob ? oa - ob : ob - oa;
}

Test(ptx_alu_math, approx_functions_at_their_special_values)
{
    const row rows[] = {
        { "rsqrt.approx.f32", f32(0.0f), 0, 0, 0, f32(INFINITY) },
        { "rsqrt.approx.f32", f32(-0.0f), 0, 0, 0, f32(-INFINITY) },
        { "rsqrt.approx.f32", f32(INFINITY), 0, 0, 0, f32(0.0f) },
        { "rsqrt.approx.f32", f32(-1.0f), 0, 0, 0, NAN32 },
        { "rsqrt.approx.f32", f32(4.0f), 0, 0, 0, f32(0.5f) },
        { "rsqrt.approx.f32", f32(0x1p-148f), 0, 0, 0, f32(0x1p74f) },    /* subnormal in */
        { "rsqrt.approx.ftz.f32", f32(0x1p-148f), 0, 0, 0, f32(INFINITY) },
        { "rsqrt.approx.f64", f64(-0.0), 0, 0, 0, f64(-INFINITY) },
        { "rsqrt.approx.f64", f64(0.25), 0, 0, 0, f64(2.0) },
        { "rsqrt.approx.ftz.f64", f64(0x1p-1070), 0, 0, 0, f64(INFINITY) },
        { "ex2.approx.f32", f32(-INFINITY), 0, 0, 0, f32(0.0f) },
        { "ex2.approx.f32", f32(INFINITY), 0, 0, 0, f32(INFINITY) },
        { "ex2.approx.f32", NAN32, 0, 0, 0, NAN32 },
        { "ex2.approx.f32", f32(-0.0f), 0, 0, 0, f32(1.0f) },
        { "ex2.approx.f32", f32(10.0f), 0, 0, 0, f32(1024.0f) },
        { "ex2.approx.f32", f32(-140.0f), 0, 0, 0, f32(0x1p-140f) },   /* subnormal out */
        { "ex2.approx.ftz.f32", f32(-140.0f), 0, 0, 0, f32(0.0f) },
        { "ex2.approx.f32", f32(128.0f), 0, 0, 0, f32(INFINITY) },
        { "lg2.approx.f32", f32(0.0f), 0, 0, 0, f32(-INFINITY) },
        { "lg2.approx.f32", f32(-0.0f), 0, 0, 0, f32(-INFINITY) },
        { "lg2.approx.f32", f32(-1.0f), 0, 0, 0, NAN32 },
        { "lg2.approx.f32", f32(INFINITY), 0, 0, 0, f32(INFINITY) },
        { "lg2.approx.f32", f32(1.0f), 0, 0, 0, f32(0.0f) },
        { "lg2.approx.f32", 0x00000001, 0, 0, 0, f32(-149.0f) },
        { "lg2.approx.ftz.f32", 0x00000001, 0, 0, 0, f32(-INFINITY) },
        { "sin.approx.f32", f32(-0.0f), 0, 0, 0, f32(-0.0f) },
        { "sin.approx.f32", f32(INFINITY), 0, 0, 0, NAN32 },
        { "cos.approx.f32", f32(-INFINITY), 0, 0, 0, NAN32 },
        { "cos.approx.f32", f32(0.0f), 0, 0, 0, f32(1.0f) },
        { "sin.approx.ftz.f32", 0x80000001, 0, 0, 0, 0x80000000 },
        { "sin.approx.f32", 0x80000001, 0, 0, 0, 0x80000001 },
        { "tanh.approx.f32", f32(-INFINITY), 0, 0, 0, f32(-1.0f) },
        { "tanh.approx.f32", f32(-0.0f), 0, 0, 0, f32(-0.0f) },
        { "tanh.approx.f32", NAN32, 0, 0, 0, NAN32 },
        { "rcp.approx.ftz.f64", f64(0x1p-1070), 0, 0, 0, f64(INFINITY) },
    };
    CHECK(rows);
    cr_assert(refused("lg2.approx.f64") && refused("sin.approx.f64") && refused("testp.finite.b32"));
}

/* div.approx.f32 (__fdividef): the quotient for |b| up to 2^126, then 0
 * (NaN for an infinite a) for 2^126 < |b| < 2^128, the PTX ISA's rule;
 * div.full.f32 and div.rn.f32 keep the quotient there. */
Test(ptx_alu_math, div_approx_gives_zero_past_2_to_the_126)
{
    const float past = 0x1.000002p126f; /* the bound plus one ulp */
    const row rows[] = {
        { "div.approx.f32", f32(0x1p127f), f32(0x1p126f), 0, 0, f32(2.0f) },
        { "div.approx.f32", f32(-0x1p127f), f32(-0x1p126f), 0, 0, f32(2.0f) },
        { "div.approx.f32", f32(0x1p127f), f32(past), 0, 0, f32(0.0f) },
        { "div.approx.f32", f32(-3.0f), f32(past), 0, 0, f32(-0.0f) },
        { "div.approx.f32", f32(3.0f), f32(-FLT_MAX), 0, 0, f32(-0.0f) },
        { "div.approx.f32", f32(INFINITY), f32(past), 0, 0, NAN32 },
        { "div.approx.f32", f32(INFINITY), f32(0x1p126f), 0, 0, f32(INFINITY) },
        { "div.approx.f32", f32(1.0f), f32(INFINITY), 0, 0, f32(0.0f) },
        { "div.approx.ftz.f32", f32(0x1p127f), f32(past), 0, 0, f32(0.0f) },
        { "div.full.f32", f32(0x1p127f), f32(past), 0, 0, f32(0x1p127f / past) },
        { "div.rn.f32", f32(0x1p127f), f32(past), 0, 0, f32(0x1p127f / past) },
    };
    CHECK(rows);
}

/* The stated bound: within 1 ulp of a long double reference, across the
 * ranges the PTX ISA states its own bounds for. */
Test(ptx_alu_math, approx_functions_within_one_ulp)
{
    for (int i = -2000; i <= 2000; i++) {
        float t = (float)i / 637.0f;          /* about [-pi, pi] */
        float e = (float)i / 16.3f;           /* about [-122, 122] */
        float l = ldexpf(1.0f + (float)(i + 2000) / 4001.0f, i / 16); /* positives, wide exponents */
        cr_assert_leq(ulps32(run("sin.approx.f32", f32(t), 0, 0, 0), (float)sinl(t)), 1, "sin(%a)", (double)t);
        cr_assert_leq(ulps32(run("cos.approx.f32", f32(t), 0, 0, 0), (float)cosl(t)), 1, "cos(%a)", (double)t);
        cr_assert_leq(ulps32(run("tanh.approx.f32", f32(t), 0, 0, 0), (float)tanhl(t)), 1, "tanh(%a)", (double)t);
        cr_assert_leq(ulps32(run("ex2.approx.f32", f32(e), 0, 0, 0), (float)exp2l(e)), 1, "ex2(%a)", (double)e);
        cr_assert_leq(ulps32(run("lg2.approx.f32", f32(l), 0, 0, 0), (float)log2l(l)), 1, "lg2(%a)", (double)l);
        cr_assert_leq(ulps32(run("rsqrt.approx.f32", f32(l), 0, 0, 0), (float)(1.0L / sqrtl(l))), 1,
                      "rsqrt(%a)", (double)l);
    }
    /* and a result off by 2 ulps fails the measure */
    cr_assert_eq(ulps32(f32(nextafterf(nextafterf(1.0f, 2.0f), 2.0f)), 1.0f), 2);
    cr_assert_eq(as_f64(run("rsqrt.approx.f64", f64(2.0), 0, 0, 0)), 1.0 / sqrt(2.0));
}
