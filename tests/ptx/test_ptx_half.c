/* Half precision end to end: fixtures/half.ptx (nvcc's PTX of
 * kernels/half.cu, cuda_fp16.h) run through the simulator's CUDA face:
 * cvt.rn.f16.f32, cvt.rz.f16.f32, cvt.rn.f16.f64, cvt.rn.f16.s32,
 * cvt.rzi.s32.f16, cvt.f32.f16, setp.{lt,geu,eq}.f16, add/sub/mul.f16 and
 * fma.rn.f16, each lane compared with a host reference: the exact value in
 * __float128 (every sum and product of halves is exact there) rounded by a
 * search of the table of all binary16 values. */
#include "ptx_test_support.h"
#include "sim_test.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

TestSuite(ptx_half, .timeout = 60);

__extension__ typedef __float128 quad;

#define NAN16 0x7FFFu /* the canonical NaN */

/* The value of a binary16 (not NaN), exactly. */
static double half_value(uint16_t h)
{
    unsigned biased = (h >> 10) & 0x1Fu, frac = h & 0x3FFu;
    double v = biased == 0x1F ? INFINITY
             : biased ? ldexp((double)(frac | 0x400u), (int)biased - 25) : ldexp((double)frac, -24);
    return (h & 0x8000u) ? -v : v;
}

static bool half_is_nan(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu); }

/* x rounded to binary16, to nearest even (toward zero if rz), by binary
 * search of the non-negative finite halves (0x7C00 read as 2^16). */
static uint16_t round_half(quad x, bool rz)
{
    if (x != x)
        return NAN16;
    uint16_t sign = x < 0 || (x == 0 && signbit((double)x)) ? 0x8000u : 0;
    quad mag = x < 0 ? -x : x;
    if (mag == (quad)INFINITY)
        return (uint16_t)(sign | 0x7C00u);
    if (mag >= 65536)
        return (uint16_t)(sign | (rz ? 0x7BFFu : 0x7C00u));
    unsigned lo = 0, hi = 0x7C00u;
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if ((quad)(mid == 0x7C00u ? 65536.0 : half_value((uint16_t)mid)) <= mag)
            lo = mid;
        else
            hi = mid;
    }
    quad vlo = half_value((uint16_t)lo), vhi = hi == 0x7C00u ? 65536.0 : half_value((uint16_t)hi);
    unsigned pick;
    if (mag == vlo || rz)
        pick = lo;
    else if (2 * mag < vlo + vhi)
        pick = lo;
    else if (2 * mag > vlo + vhi)
        pick = hi;
    else
        pick = (lo & 1u) ? hi : lo;
    if (pick == 0x7C00u && rz)
        pick = 0x7BFFu;
    return (uint16_t)(sign | pick);
}

/* The IEEE result of a op b (op c) of halves, rounded to nearest even:
 * NaN for NaN operands, inf - inf and 0 * inf; zero signs as IEEE says. */
static uint16_t half_arith(char op, uint16_t a, uint16_t b, uint16_t c)
{
    if (half_is_nan(a) || half_is_nan(b) || (op == 'f' && half_is_nan(c)))
        return NAN16;
    quad x = half_value(a), y = half_value(b), z = half_value(c);
    quad r = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x * y + z;
    if (r != r)
        return NAN16;
    return round_half(r, false); /* quad's own signs of zero: IEEE's, exact here */
}

static uint16_t host_f32_to_half(float f, bool rz) { return round_half((quad)f, rz); }

Test(ptx_half, conversions_compares_and_arithmetic_match_the_exact_reference)
{
    enum { N = 2000, OUTS = 10 };
    static float a[N], b[N], c[N];
    static double d[N];
    static uint16_t out[OUTS * N];
    static const float edge_a[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 65504.0f, 65520.0f, 65519.0f,
                                    0x1p-24f, 0x1p-25f, 3 * 0x1p-25f, 1e-8f, 70000.0f, 1.0f, 1.0f, 1.0f };
    static const float edge_b[] = { 1.0f, -INFINITY, -INFINITY, -0.0f, -0.0f, 16.0f, 1.0f, -65519.0f,
                                    0x1p-24f, -0x1p-25f, 0.5f, 2.0f, 0.0f, -1.0f, 0x1p-11f, 1.0009765625f };
    static const double edge_d[] = { 1.0 + 0x1p-11 + 0x1p-40, 1.0 + 3 * 0x1p-11 - 0x1p-40, 0x1p-25 + 0x1p-60,
                                     65520.0, -65519.999, 2049.0, 2051.0, -0.0 };
    uint32_t seed = 2024;
    for (int i = 0; i < N; i++) {
        size_t ne = sizeof edge_a / sizeof edge_a[0];
        if ((size_t)i < ne) {
            a[i] = edge_a[i];
            b[i] = edge_b[i];
            c[i] = i == 15 ? 0x1p-24f : -a[i];
        } else if (i % 3 == 0) { /* values already halves: the arithmetic on exact inputs */
            a[i] = (float)half_value((uint16_t)(ptx_test_random(&seed) % 0x7C00u | (ptx_test_random(&seed) & 0x8000u)));
            b[i] = (float)half_value((uint16_t)(ptx_test_random(&seed) % 0x7C00u | (ptx_test_random(&seed) & 0x8000u)));
            c[i] = (float)half_value((uint16_t)(ptx_test_random(&seed) % 0x7C00u | (ptx_test_random(&seed) & 0x8000u)));
        } else {
            a[i] = ptx_test_logscale_f32(&seed, -26, 17, 0);
            b[i] = ptx_test_uniform_f32(&seed, 0.5f, 2.0f) * a[i] * ((i & 1) ? -1.0f : 1.0f);
            c[i] = ptx_test_logscale_f32(&seed, -20, 10, 0);
        }
        size_t nd = sizeof edge_d / sizeof edge_d[0];
        d[i] = (size_t)i < nd ? edge_d[i]
                              : (double)ptx_test_uniform_f32(&seed, -80000.0f, 80000.0f) +
                                    ldexp((double)ptx_test_random(&seed), -40);
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("half.ptx", "half_ops", &ctx, &mod);
    ptx_test_run_elementwise(f, 5, (void *[]){ a, b, c, d, out },
                             (size_t[]){ sizeof a, sizeof b, sizeof c, sizeof d, sizeof out }, N);
    for (int i = 0; i < N; i++) {
        const uint16_t *o = out + OUTS * i;
        uint16_t ha = host_f32_to_half(a[i], false), hb = host_f32_to_half(b[i], false);
        uint16_t hc = host_f32_to_half(c[i], false);
        cr_assert_eq(o[0], ha, "%d: cvt.rn.f16.f32(%a) = %04x, not %04x", i, (double)a[i], o[0], ha);
        cr_assert_eq(o[1], round_half((quad)d[i], false), "%d: cvt.rn.f16.f64(%a) = %04x", i, d[i], o[1]);
        cr_assert_eq(o[2], half_arith('+', ha, hb, 0), "%d: %04x + %04x = %04x", i, ha, hb, o[2]);
        cr_assert_eq(o[3], half_arith('-', ha, hb, 0), "%d: %04x - %04x = %04x", i, ha, hb, o[3]);
        cr_assert_eq(o[4], half_arith('*', ha, hb, 0), "%d: %04x * %04x = %04x", i, ha, hb, o[4]);
        cr_assert_eq(o[5], half_arith('f', ha, hb, hc), "%d: fma(%04x, %04x, %04x) = %04x", i, ha, hb, hc,
                     o[5]);
        double x = half_is_nan(ha) ? NAN : half_value(ha), y = half_is_nan(hb) ? NAN : half_value(hb);
        bool unordered = isnan(x) || isnan(y);
        unsigned flags = (!unordered && x < y ? 1u : 0) | (unordered || x >= y ? 2u : 0) |
                         (!unordered && x == y ? 4u : 0);
        cr_assert_eq(o[6], flags, "%d: setp of %04x, %04x: %x", i, ha, hb, o[6]);
        cr_assert_eq(o[7], round_half((quad)(int)d[i], false), "%d: cvt.rn.f16.s32(%d)", i, (int)d[i]);
        int want_int = isnan(x) ? 0 : isinf(x) ? (x > 0 ? INT32_MAX : INT32_MIN) : (int)x;
        cr_assert_eq(o[8], (uint16_t)want_int, "%d: cvt.rzi.s32.f16(%04x) = %04x", i, ha, o[8]);
        cr_assert_eq(o[9], host_f32_to_half(a[i], true), "%d: cvt.rz.f16.f32(%a) = %04x", i, (double)a[i], o[9]);
    }
    /* the cases picked for their trap, as literal bits */
    cr_assert_eq(out[OUTS * 0 + 1], 0x3C01u, "f64 rounded once, not through f32");
    cr_assert_eq(out[OUTS * 1 + 1], 0x3C01u);
    cr_assert_eq(out[OUTS * 6 + 0], 0x7C00u, "65520 overflows");
    cr_assert_eq(out[OUTS * 6 + 9], 0x7BFFu, "65520 toward zero: 65504");
    cr_assert_eq(out[OUTS * 9 + 0], 0x0000u, "2^-25 ties to 0");
    cr_assert_eq(out[OUTS * 1 + 2], NAN16, "inf - inf");
    cr_assert_eq(out[OUTS * 4 + 2], 0x8000u, "-0 + -0");
    ptx_test_end(ctx, mod);
}

Test(ptx_half, every_half_widens_to_f32_and_f64)
{
    enum { N = 0x10000 };
    static uint16_t h[N];
    static float fl[N];
    static double db[N];
    for (int i = 0; i < N; i++)
        h[i] = (uint16_t)i;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("half.ptx", "half_widen", &ctx, &mod);
    ptx_test_run_elementwise(f, 3, (void *[]){ h, fl, db }, (size_t[]){ sizeof h, sizeof fl, sizeof db }, N);
    for (int i = 0; i < N; i++) {
        if (half_is_nan((uint16_t)i)) {
            cr_assert_eq(ptx_test_f32_bits(fl[i]), PTX_TEST_NAN_F32, "%04x: the canonical NaN", i);
            cr_assert(isnan(db[i]), "%04x", i);
            continue;
        }
        double want = half_value((uint16_t)i);
        cr_assert_eq(ptx_test_f32_bits(fl[i]), ptx_test_f32_bits((float)want), "%04x -> %a", i, (double)fl[i]);
        cr_assert_eq(ptx_test_f64_bits(db[i]), ptx_test_f64_bits(want), "%04x -> %a", i, db[i]);
    }
    ptx_test_end(ctx, mod);
}

/* .sat as the interpreter's f32 .sat: NaN to +0, below zero to +0 (-0
 * stays), above one to one. */
static uint16_t sat_half(uint16_t h)
{
    if (half_is_nan(h))
        return 0;
    double v = half_value(h);
    return v < 0 ? 0 : v > 1 ? 0x3C00u : h;
}

/* A half's value rounded to an integral value by f (rint floor ceil trunc):
 * exact, and a half again. */
static uint16_t integral_half(uint16_t h, double (*f)(double))
{
    return half_is_nan(h) ? NAN16 : round_half((quad)f(half_value(h)), false);
}

Test(ptx_half, abs_neg_integral_roundings_sat_and_integer_conversions)
{
    enum { N = 1500, OUTS = 11 };
    static float a[N], b[N];
    static long long s[N], wide[2 * N];
    static uint16_t out[OUTS * N];
    static const float edge[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 2.5f, 3.5f, -2.5f, -0.3f, 0.5f,
                                  65504.0f, -65504.0f, 0x1p-24f, -0x1p-24f, 1.0f, -1.0f };
    static const long long edge_s[] = { 0, -1, 32767, -32768, 2049, 2051, 65519, 65520, LLONG_MIN, LLONG_MAX,
                                        -2049, 0x7FF0000000000000ll, 65504, -65505, 4097, 1 };
    uint32_t seed = 99;
    for (int i = 0; i < N; i++) {
        size_t ne = sizeof edge / sizeof edge[0];
        a[i] = (size_t)i < ne ? edge[i] : ptx_test_logscale_f32(&seed, -26, 17, 0);
        b[i] = (size_t)i < ne ? edge[ne - 1 - i] : ptx_test_uniform_f32(&seed, -1.5f, 1.5f);
        s[i] = (size_t)i < ne ? edge_s[i]
                              : (long long)((uint64_t)ptx_test_random(&seed) << 32 | ptx_test_random(&seed)) >>
                                    (ptx_test_random(&seed) % 64);
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("half.ptx", "half_more", &ctx, &mod);
    ptx_test_run_elementwise(f, 5, (void *[]){ a, b, s, out, wide },
                             (size_t[]){ sizeof a, sizeof b, sizeof s, sizeof out, sizeof wide }, N);
    for (int i = 0; i < N; i++) {
        const uint16_t *o = out + OUTS * i;
        uint16_t ha = round_half((quad)a[i], false), hb = round_half((quad)b[i], false);
        if (half_is_nan(ha)) { /* abs and neg of a NaN: a NaN (PTX leaves which unspecified) */
            cr_assert(half_is_nan(o[0]) && half_is_nan(o[1]), "%d: %04x %04x", i, o[0], o[1]);
        } else {
            cr_assert_eq(o[0], ha & 0x7FFFu, "%d: abs.f16(%04x) = %04x", i, ha, o[0]);
            cr_assert_eq(o[1], ha ^ 0x8000u, "%d: neg.f16(%04x) = %04x", i, ha, o[1]);
        }
        cr_assert_eq(o[2], integral_half(ha, rint), "%d: cvt.rni.f16.f16(%04x) = %04x", i, ha, o[2]);
        cr_assert_eq(o[3], integral_half(ha, floor), "%d: cvt.rmi.f16.f16(%04x) = %04x", i, ha, o[3]);
        cr_assert_eq(o[4], integral_half(ha, ceil), "%d: cvt.rpi.f16.f16(%04x) = %04x", i, ha, o[4]);
        cr_assert_eq(o[5], integral_half(ha, trunc), "%d: cvt.rzi.f16.f16(%04x) = %04x", i, ha, o[5]);
        cr_assert_eq(o[6], sat_half(half_arith('+', ha, hb, 0)), "%d: add.sat(%04x, %04x) = %04x", i, ha, hb,
                     o[6]);
        cr_assert_eq(o[7], sat_half(half_arith('f', ha, hb, ha)), "%d: fma.rn.sat(%04x, %04x) = %04x", i, ha,
                     hb, o[7]);
        cr_assert_eq(o[8], round_half((quad)(short)s[i], false), "%d: cvt.rn.f16.s16(%d) = %04x", i,
                     (int)(short)s[i], o[8]);
        cr_assert_eq(o[9], round_half((quad)(unsigned long long)s[i], false), "%d: cvt.rn.f16.u64(%llu) = %04x",
                     i, (unsigned long long)s[i], o[9]);
        unsigned kind = (half_is_nan(ha) ? 1u : 0) | ((ha & 0x7FFFu) == 0x7C00u ? 2u : 0);
        cr_assert_eq(o[10], kind, "%d: isnan/isinf(%04x) = %x", i, ha, o[10]);
        /* to 64-bit integers: NaN to 0, saturated at the type's range */
        double x = half_is_nan(ha) ? NAN : half_value(ha);
        long long want_s = isnan(x) ? 0 : x == INFINITY ? LLONG_MAX : x == -INFINITY ? LLONG_MIN : (long long)rint(x);
        unsigned long long want_u = isnan(x) || x < 0 ? 0 : x == INFINITY ? ULLONG_MAX : (unsigned long long)floor(x);
        cr_assert_eq(wide[2 * i], want_s, "%d: cvt.rni.s64.f16(%04x) = %lld", i, ha, wide[2 * i]);
        cr_assert_eq((unsigned long long)wide[2 * i + 1], want_u, "%d: cvt.rmi.u64.f16(%04x)", i, ha);
    }
    cr_assert_eq(out[OUTS * 5 + 2], 0x4000u, "rint(2.5) = 2");
    cr_assert_eq(out[OUTS * 8 + 2], 0x8000u, "rint(-0.3) = -0");
    cr_assert_eq(out[OUTS * 7 + 9], 0x7C00u, "65520 as u64: inf");
    ptx_test_end(ctx, mod);
}

/* numba's float16 shape (fixtures/half_numba_like.ptx, written by hand):
 * cvt.f64.f16, cvt.rni.s8.f16 into a .b16 register, cvt.rn.f16.s8,
 * neg/abs.f16, setp.ge.f16 in a brace scope, fma.rn.f16 with a mov.b16
 * constant, add.f16, cvt.rni.u16.f16. */
Test(ptx_half, numba_shaped_float16_code)
{
    enum { N = 1200 };
    struct out {
        double wide;
        int16_t s8;
        uint16_t from_s8, neg, abs, ge, fma, add, u16;
    };
    _Static_assert(sizeof(struct out) == 24, "the kernel's 24-byte record");
    static float x[N];
    static struct out o[N];
    static const float edge[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 127.5f, 126.5f, -128.5f, -129.0f,
                                  200.0f, 65504.0f, 70000.0f, 0x1p-24f, -0.5f, 0.5f, 1.5f, 65535.0f };
    uint32_t seed = 7;
    for (int i = 0; i < N; i++)
        x[i] = (size_t)i < sizeof edge / sizeof edge[0] ? edge[i] : ptx_test_logscale_f32(&seed, -26, 17, 0);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("half_numba_like.ptx", "numba_like", &ctx, &mod);
    ptx_test_run_elementwise(f, 2, (void *[]){ x, o }, (size_t[]){ sizeof x, sizeof o }, N);
    for (int i = 0; i < N; i++) {
        uint16_t h = round_half((quad)x[i], false);
        if (half_is_nan(h)) {
            cr_assert(isnan(o[i].wide) && half_is_nan(o[i].neg) && half_is_nan(o[i].abs), "%d", i);
            cr_assert_eq(o[i].s8, 0, "%d: NaN to s8", i);
            cr_assert_eq(o[i].u16, 0, "%d: NaN to u16", i);
            cr_assert_eq(o[i].ge, 0, "%d: NaN >= is false", i);
            cr_assert_eq(o[i].fma, NAN16);
            cr_assert_eq(o[i].add, NAN16);
            continue;
        }
        double v = half_value(h), r = rint(v);
        cr_assert_eq(ptx_test_f64_bits(o[i].wide), ptx_test_f64_bits(v), "%d: cvt.f64.f16(%04x) = %a", i, h,
                     o[i].wide);
        int s8 = r < -128 ? -128 : r > 127 ? 127 : (int)r;
        cr_assert_eq(o[i].s8, s8, "%d: cvt.rni.s8.f16(%04x) = %d", i, h, o[i].s8);
        cr_assert_eq(o[i].from_s8, round_half((quad)s8, false), "%d: cvt.rn.f16.s8(%d) = %04x", i, s8,
                     o[i].from_s8);
        cr_assert_eq(o[i].neg, h ^ 0x8000u, "%d: neg.f16(%04x) = %04x", i, h, o[i].neg);
        cr_assert_eq(o[i].abs, h & 0x7FFFu, "%d: abs.f16(neg %04x) = %04x", i, h, o[i].abs);
        cr_assert_eq(o[i].ge, v >= fabs(v) ? 1 : 0, "%d: setp.ge.f16(%04x, |x|)", i, h);
        uint16_t fma = half_arith('f', h, h, 0x3C00u);
        cr_assert_eq(o[i].fma, fma, "%d: fma.rn.f16(%04x, %04x, 1) = %04x", i, h, h, o[i].fma);
        cr_assert_eq(o[i].add, half_arith('+', fma, (uint16_t)(h ^ 0x8000u), 0), "%d: add.f16 = %04x", i,
                     o[i].add);
        unsigned u16 = r < 0 ? 0 : r > 65535 ? 65535 : (unsigned)r;
        cr_assert_eq(o[i].u16, u16, "%d: cvt.rni.u16.f16(%04x) = %u", i, h, o[i].u16);
    }
    cr_assert_eq(o[5].s8, 127, "127.5 rounds to even 128, saturated to 127");
    cr_assert_eq(o[6].s8, 126, "126.5 rounds to even 126");
    cr_assert_eq(o[7].s8, -128);
    ptx_test_end(ctx, mod);
}
