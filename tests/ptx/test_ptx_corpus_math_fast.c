/* More of the math-library corpus (see test_ptx_corpus_math.c for the
 * bounds' source and the references' slack): powf and pow, the fast
 * intrinsics with the bounds of the CUDA C++ Programming Guide's table
 * "Single-Precision Floating-Point Intrinsic Functions", and the bit-level
 * forms users write (copysignf, uchar4, __popc/__clz/__brev/__ffs, a 64-bit
 * key from two halves). */
#include "ptx_test_support.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

TestSuite(ptx_corpus_math_fast, .timeout = 30);

/* Pairs (x, y) for pow: C99 Annex F's special cases first, then positive
 * bases with fractional exponents and negative bases with integer ones. */
static const float pow_edges[][2] = {
    { 0.0f, -1.0f }, { -0.0f, -1.0f }, { -0.0f, 3.0f }, { -0.0f, 2.0f }, { 0.0f, 0.5f }, { 1.0f, NAN },
    { NAN, 0.0f }, { -2.0f, 0.5f }, { -INFINITY, 3.0f }, { -INFINITY, 2.0f }, { INFINITY, -0.5f },
    { 2.0f, 128.0f }, { 2.0f, -150.0f }, { 0.5f, INFINITY }, { -1.0f, INFINITY }, { 1.5f, -INFINITY },
    { -1.0f, -INFINITY }, { 2.0f, 127.9f }, { 10.0f, -45.0f }, { -3.0f, 5.0f }, { 1.0000001f, 1e7f },
    { 0.9999999f, -3e7f }, { 1e-40f, 0.5f }, { -8.0f, 1.0f / 3.0f },
};

static void pow_inputs(float *x, float *y, int n, uint32_t seed)
{
    int n_edges = (int)(sizeof pow_edges / sizeof pow_edges[0]);
    for (int i = 0; i < n; i++) {
        if (i < n_edges) {
            x[i] = pow_edges[i][0];
            y[i] = pow_edges[i][1];
        } else if (i % 4) {
            x[i] = ptx_test_logscale_f32(&seed, -20, 20, 1);
            y[i] = ptx_test_uniform_f32(&seed, -8.0f, 8.0f);
        } else {
            x[i] = ptx_test_uniform_f32(&seed, -30.0f, 0.0f);
            y[i] = (float)((int)(ptx_test_random(&seed) % 21u) - 10);
        }
    }
}

Test(ptx_corpus_math_fast, powf_within_4_ulps_with_c99_specials)
{
    enum { N = 500 };
    static float x[N], y[N], out[N];
    pow_inputs(x, y, N, 19);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_load_or_skip("corpus_math_pow.ptx", "corpus_math_powf", ".func", &ctx, &mod);
    ptx_test_run_elementwise(f, 3, (void *[]){ x, y, out }, (size_t[]){ sizeof x, sizeof y, sizeof out }, N);
    struct ptx_test_max_error m = { "powf", 4, 0, 0 };
    for (int i = 0; i < N; i++) {
        double ref = pow((double)x[i], (double)y[i]);
        if (ref == 1.0) /* pow(x, 0), pow(1, y), pow(-1, +-inf): exactly 1 */
            cr_assert_eq(ptx_test_f32_bits(out[i]), 0x3F800000u, "powf(%a, %a) = %a", (double)x[i], (double)y[i],
                         (double)out[i]);
        ptx_test_check_f32(&m, x[i], out[i], ref);
    }
    cr_assert_eq(ptx_test_f32_bits(out[1]), 0xFF800000u, "powf(-0, -1) = -inf");
    cr_assert_eq(ptx_test_f32_bits(out[2]), 0x80000000u, "powf(-0, 3) = -0");
    cr_assert_eq(ptx_test_f32_bits(out[7]), PTX_TEST_NAN_F32, "powf(-2, 0.5) = NaN");
    cr_assert_eq(ptx_test_f32_bits(out[8]), 0xFF800000u, "powf(-inf, 3) = -inf");
    ptx_test_report(&m);
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_math_fast, pow_double_within_2_ulps)
{
    enum { N = 300 };
    static float xf[N], yf[N];
    static double x[N], y[N], out[N];
    pow_inputs(xf, yf, N, 37);
    uint32_t seed = 5;
    for (int i = 0; i < N; i++) { /* the float pairs, with low bits set beyond the edges */
        x[i] = xf[i];
        y[i] = yf[i];
        if (i >= (int)(sizeof pow_edges / sizeof pow_edges[0]) && i % 4)
            x[i] *= 1.0 + (double)ptx_test_random(&seed) * 0x1p-40;
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_load_or_skip("corpus_math_pow_f64.ptx", "corpus_math_pow_f64", ".func", &ctx, &mod);
    ptx_test_run_elementwise(f, 3, (void *[]){ x, y, out }, (size_t[]){ sizeof x, sizeof y, sizeof out }, N);
    struct ptx_test_max_error m = { "pow", 2, 0, 0 };
    for (int i = 0; i < N; i++)
        ptx_test_check_f64(&m, x[i], out[i], powl((long double)x[i], (long double)y[i]));
    ptx_test_report(&m);
    ptx_test_end(ctx, mod);
}

/* The intrinsics' bounds (the guide's intrinsic table):
 *   __expf(x): 2 + floor(|1.173 x|) ulps;
 *   __logf(x): 2^-21.41 absolute for x in [0.5, 2], else 3 ulps;
 *   __sinf(x), __cosf(x): 2^-21.41 absolute for x in [-pi, pi];
 *   __fdividef(x, y): 2 ulps for |y| in [2^-126, 2^126]; for 2^126 < |y| <
 *     2^128 it delivers 0, and NaN when x is infinite;
 *   __saturatef(x): x clamped to [0, 1], NaN to +0 (exact). */
Test(ptx_corpus_math_fast, fast_intrinsics_within_their_documented_bounds)
{
    enum { N = 512, EDGES = 13 };
    static float x[N], y[N], e[N], l[N], s[N], c[N], q[N], sat[N];
    static const float edges[EDGES][2] = {
        { 0.0f, 1.0f }, { -0.0f, -1.0f }, { INFINITY, 0x1p127f }, { -INFINITY, -0x1.8p126f }, { NAN, 2.0f },
        { 1e-40f, 3.0f }, { 1.0f, 0x1p-126f }, { 0.5f, 0x1p126f }, { 2.0f, -0x1p126f }, { 89.0f, 0x1.fffffep127f },
        { -1.0f, 7.0f }, { 1.5f, -0.75f }, { 3.0f, 0x1.000002p126f }, /* |y| just past 2^126: 0 */
    };
    uint32_t seed = 71;
    for (int i = 0; i < N; i++) {
        if (i < EDGES) {
            x[i] = edges[i][0];
            y[i] = edges[i][1];
            continue;
        }
        uint32_t kind = i % 4;
        x[i] = kind == 0   ? ptx_test_uniform_f32(&seed, -80.0f, 80.0f)
               : kind == 1 ? ptx_test_uniform_f32(&seed, -3.14159265f, 3.14159265f)
               : kind == 2 ? ptx_test_uniform_f32(&seed, 0.5f, 2.0f)
                           : ptx_test_logscale_f32(&seed, -125, 125, 1);
        y[i] = ptx_test_logscale_f32(&seed, -126, 126, 0);
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_load_or_skip("corpus_math_fast.ptx", "corpus_math_fast", ".func", &ctx, &mod);
    ptx_test_run_elementwise(f, 8, (void *[]){ x, y, e, l, s, c, q, sat },
                             (size_t[]){ sizeof x, sizeof y, sizeof e, sizeof l, sizeof s, sizeof c, sizeof q,
                                         sizeof sat },
                             N);
    const long double abs_bound = exp2l(-21.41L);
    struct ptx_test_max_error me = { "__expf", 0, 0, 0 },
                              ml = { "__logf outside [0.5, 2]", 3, 0, 0 }, mq = { "__fdividef", 2, 0, 0 };
    long double worst_l = 0, worst_s = 0, worst_c = 0;
    float worst_e_x = 0.0f;
    unsigned worst_e_bound = 2;
    for (int i = 0; i < N; i++) {
        float v = x[i];
        uint64_t before = me.ulps;
        /* 2 + floor(1.173 |x|) ulps. Past |x| = 104 the result is 0 or
         * inf, checked bit for bit; converting a huge or infinite growth
         * to unsigned would be undefined, so it is capped. */
        double growth = fabs(1.173 * (double)v);
        me.bound = growth < 1e6 ? 2u + (unsigned)floor(growth) : 2u + 1000000u;
        ptx_test_check_f32(&me, v, e[i], exp((double)v));
        if (me.ulps > before) {
            worst_e_x = v;
            worst_e_bound = me.bound;
        }
        if (v >= 0.5f && v <= 2.0f) {
            long double err = fabsl((long double)l[i] - logl((long double)v));
            cr_assert(err <= abs_bound, "__logf(%a) = %a, error %Lg", (double)v, (double)l[i], err);
            worst_l = err > worst_l ? err : worst_l;
        } else {
            ptx_test_check_f32(&ml, v, l[i], log((double)v));
        }
        if (fabsf(v) <= 3.14159265f) {
            long double es = fabsl((long double)s[i] - sinl((long double)v));
            long double ec = fabsl((long double)c[i] - cosl((long double)v));
            cr_assert(es <= abs_bound, "__sinf(%a) = %a, error %Lg", (double)v, (double)s[i], es);
            cr_assert(ec <= abs_bound, "__cosf(%a) = %a, error %Lg", (double)v, (double)c[i], ec);
            worst_s = es > worst_s ? es : worst_s;
            worst_c = ec > worst_c ? ec : worst_c;
        }
        float ay = fabsf(y[i]);
        if (ay >= 0x1p-126f && ay <= 0x1p126f)
            ptx_test_check_f32(&mq, v, q[i], (double)v / (double)y[i]);
        else if (ay > 0x1p126f && ay < INFINITY) {
            uint32_t want = isinf(v) || isnan(v) ? PTX_TEST_NAN_F32 : ptx_test_f32_bits(v * 0.0f * y[i]);
            cr_assert_eq(ptx_test_f32_bits(q[i]), want, "__fdividef(%a, %a) = %a", (double)v, (double)y[i],
                         (double)q[i]);
        }
        float want_sat = isnan(v) ? 0.0f : v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
        if (v == 0.0f) /* the guide and PTX's .sat leave the sign of a saturated -0 open: either zero */
            cr_assert_eq(ptx_test_f32_bits(sat[i]) & 0x7FFFFFFFu, 0u, "__saturatef(%a) = %a", (double)v,
                         (double)sat[i]);
        else
            cr_assert_eq(ptx_test_f32_bits(sat[i]), ptx_test_f32_bits(want_sat), "__saturatef(%a) = %a", (double)v,
                         (double)sat[i]);
    }
    cr_assert_eq(ptx_test_f32_bits(e[3]), 0u, "__expf(-inf) = +0");
    cr_assert_eq(ptx_test_f32_bits(e[2]), 0x7F800000u, "__expf(inf) = inf");
    cr_assert_eq(ptx_test_f32_bits(l[0]), 0xFF800000u, "__logf(0) = -inf");
    cr_assert_eq(ptx_test_f32_bits(s[2]), PTX_TEST_NAN_F32, "__sinf(inf) = NaN");
    cr_assert_eq(ptx_test_f32_bits(sat[4]), 0u, "__saturatef(NaN) = +0");
    cr_log_info("__expf: max %llu ulp at x = %a (bound there %u) over %d inputs", (unsigned long long)me.ulps,
                (double)worst_e_x, worst_e_bound, me.count);
    ptx_test_report(&ml);
    ptx_test_report(&mq);
    cr_log_info("__logf in [0.5, 2]: max error 2^%.2f; __sinf 2^%.2f, __cosf 2^%.2f in [-pi, pi] (bound 2^-21.41)",
                worst_l > 0 ? (double)log2l(worst_l) : -INFINITY, worst_s > 0 ? (double)log2l(worst_s) : -INFINITY,
                worst_c > 0 ? (double)log2l(worst_c) : -INFINITY);
    ptx_test_end(ctx, mod);
}

static int ffs_reference(uint32_t v)
{
    for (int b = 0; b < 32; b++)
        if (v >> b & 1u)
            return b + 1;
    return 0;
}

static uint32_t brev_reference(uint32_t v)
{
    uint32_t r = 0;
    for (int b = 0; b < 32; b++)
        r |= (v >> b & 1u) << (31 - b);
    return r;
}

Test(ptx_corpus_math_fast, bit_forms_users_write)
{
    enum { N = 300 };
    static float mag[N], sgn[N], cs[N];
    static uint8_t px[N * 4];
    static uint32_t packed[N], w[N], brev[N];
    static int32_t pop[N], clz[N], ffs[N];
    static uint64_t key[N];
    static const float edge_mag[] = { 0.0f, -0.0f, INFINITY, 1.0f, 1e-45f, -FLT_MAX, 2.5f };
    static const float edge_sgn[] = { -1.0f, 0.0f, -0.0f, -INFINITY, -1e-45f, 1.0f, NAN };
    static const uint32_t edge_w[] = { 0u, 1u, 0x80000000u, 0xFFFFFFFFu, 0x00010000u, 0x7FFFFFFFu };
    uint32_t seed = 3;
    for (int i = 0; i < N; i++) {
        int ne = (int)(sizeof edge_mag / sizeof edge_mag[0]);
        mag[i] = i < ne ? edge_mag[i] : ptx_test_logscale_f32(&seed, -140, 127, 0);
        sgn[i] = i < ne ? edge_sgn[i] : ptx_test_logscale_f32(&seed, -140, 127, 0);
        w[i] = i < (int)(sizeof edge_w / sizeof edge_w[0]) ? edge_w[i] : ptx_test_random(&seed) >> (i % 32);
        uint32_t r = ptx_test_random(&seed);
        memcpy(&px[i * 4], &r, 4);
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_load_or_skip("corpus_math_bits.ptx", "corpus_math_bits", ".func", &ctx, &mod);
    ptx_test_run_elementwise(f, 11, (void *[]){ mag, sgn, cs, px, packed, w, pop, clz, brev, ffs, key },
                             (size_t[]){ sizeof mag, sizeof sgn, sizeof cs, sizeof px, sizeof packed, sizeof w,
                                         sizeof pop, sizeof clz, sizeof brev, sizeof ffs, sizeof key },
                             N);
    for (int i = 0; i < N; i++) {
        /* copysign moves bits: the magnitude's bits with the sign's sign bit,
         * also for a NaN sign operand. */
        uint32_t want = (ptx_test_f32_bits(mag[i]) & 0x7FFFFFFFu) | (ptx_test_f32_bits(sgn[i]) & 0x80000000u);
        cr_assert_eq(ptx_test_f32_bits(cs[i]), want, "copysignf(%a, %a) = %a", (double)mag[i], (double)sgn[i],
                     (double)cs[i]);
        const uint8_t *p = &px[i * 4];
        uint8_t a = p[0] > p[1] ? p[0] : p[1];
        a = a > p[2] ? a : p[2];
        uint32_t want_packed = (uint32_t)p[2] | (uint32_t)p[1] << 8 | (uint32_t)p[0] << 16 | (uint32_t)a << 24;
        cr_assert_eq(packed[i], want_packed, "packed[%d] = 0x%08x, want 0x%08x", i, packed[i], want_packed);
        uint32_t v = w[i];
        cr_assert_eq(pop[i], __builtin_popcount(v), "__popc(0x%08x) = %d", v, pop[i]);
        cr_assert_eq(clz[i], v ? __builtin_clz(v) : 32, "__clz(0x%08x) = %d", v, clz[i]);
        cr_assert_eq(brev[i], brev_reference(v), "__brev(0x%08x) = 0x%08x", v, brev[i]);
        cr_assert_eq(ffs[i], ffs_reference(v), "__ffs(0x%08x) = %d", v, ffs[i]);
        cr_assert_eq(key[i], (uint64_t)(uint32_t)i << 32 | v, "key[%d] = 0x%016llx", i, (unsigned long long)key[i]);
    }
    ptx_test_end(ctx, mod);
}
