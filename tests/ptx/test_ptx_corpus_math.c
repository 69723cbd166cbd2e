/* The math-library kernels of the corpus (kernels/corpus_math_*.cu): CUDA's
 * math functions as users call them (expf, logf, sqrtf, rsqrtf, tanhf, erff,
 * sinf, cosf, sincosf, tanf, powf, their double twins, the fast intrinsics)
 * inside realistic kernels, run by the PTX interpreter through the
 * simulator's CUDA face.
 *
 * Bounds. Each function's result must lie within the maximum ulp error that
 * the CUDA C++ Programming Guide states for it (appendix "Mathematical
 * Functions", Table "Single-Precision Mathematical Standard Library Functions
 * with Maximum ULP Error": "the absolute value of the difference in ulps
 * between a correctly rounded single-precision result and the result
 * returned by the CUDA library function"; the double table likewise; the
 * intrinsics' table "Single-Precision Floating-Point Intrinsic Functions"):
 *   sqrtf 0 (IEEE), rsqrtf 2, expf 2, logf 1, sinf/cosf/sincosf 2, tanf 4,
 *   powf 4, tanhf 2, erff 2; sqrt 0, exp 1, log 1, sin/cos 2, pow 2;
 *   __expf 2 + floor(|1.173 x|) ulps; __logf 2^-21.41 absolute in [0.5, 2],
 *   else 3 ulps; __sinf/__cosf 2^-21.41 absolute in [-pi, pi];
 *   __fdividef 2 ulps for |y| in [2^-126, 2^126]; __saturatef exact.
 * Special values (zeros, infinities, NaN) are exact: C99 Annex F's values,
 * NaN as PTX's canonical 0x7fffffff.
 *
 * References. Float functions: the host's libm in double; glibc's double
 * functions are within 2 ulps of double (its manual's table of known
 * errors), so PTX_TEST_REF_ERR_F32 = 2^-50 relative, about 2^-27 of a float
 * ulp: ptx_test_ulps_from_ref_f32 forgives an ulp only where the correctly
 * rounded float is uncertain by that much. Double functions: the host's
 * long double libm (x87, 64-bit significand), taken as within 8 ulps of long
 * double: PTX_TEST_REF_ERR_F64 = 2^-60, about 2^-8 of a double ulp,
 * forgiven the same way. sqrtf and sqrt need no slack: sqrt of a float in
 * double rounds to the correctly rounded float, and the host's sqrt is
 * IEEE's.
 * Composite kernels (softmax, log-sum-exp, norms, n-body, GELU) are compared
 * with a long double evaluation of the same formula on the kernel's own
 * float intermediates before the library call, within an error budget built
 * from the table's bounds and one half-ulp per float rounding after it,
 * stated at each test. */
#include "ptx_test_support.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_corpus_math, .timeout = 30);

#define PI_F 3.14159265f

Test(ptx_corpus_math, ulps_from_a_reference_forgive_only_the_reference_error)
{
    float one_up = nextafterf(1.0f, 2.0f);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(one_up, 1.0, 0.0), 1u);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(nextafterf(one_up, 2.0f), 1.0, 0.0), 2u);
    /* Exactly halfway between 1 and one_up, known to 2^-50: either is the
     * correctly rounded value; 1 + 2^-21 (four ulps above 1) is then 3 or 4
     * away: 3. */
    double half = 1.0 + 0x1p-24;
    cr_assert_eq(ptx_test_ulps_from_ref_f32(one_up, half, PTX_TEST_REF_ERR_F32), 0u);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(1.0f, half, PTX_TEST_REF_ERR_F32), 0u);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(1.0f + 0x1p-21f, half, PTX_TEST_REF_ERR_F32), 3u);
    /* A quarter of an ulp above 1 with an exact reference: only 1 is right. */
    cr_assert_eq(ptx_test_ulps_from_ref_f32(one_up, 1.0 + 0x1p-25, 0x1p-50), 1u);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(-0.0f, 0x1p-151, 0.0), 1u);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(INFINITY, 0x1p129, 0.0), 0u);
    cr_assert_eq(ptx_test_ulps_from_ref_f32(FLT_MAX, 0x1p129, 0.0), 1u);
    cr_assert_eq(ptx_test_ulp_distance_f64(1.0, nextafter(1.0, 2.0)), 1u);
    cr_assert_eq(ptx_test_ulp_distance_f64(-0.0, 0.0), 1u);
    cr_assert_eq(ptx_test_ulp_distance_f64(-DBL_MIN, DBL_MIN), 2ull * 0x10000000000000ull + 1);
    cr_assert_eq(ptx_test_ulps_from_ref_f64(nextafter(1.0, 2.0), 1.0L + 0x1p-54L, PTX_TEST_REF_ERR_F64), 1u);
    cr_assert_eq(ptx_test_ulps_from_ref_f64(nextafter(1.0, 2.0), 1.0L + 0x1p-53L, PTX_TEST_REF_ERR_F64), 0u);
    /* The bound is enforced at bound + 1: a 3-ulp result against expf's 2. */
    struct ptx_test_max_error m = { "expf", 2, 0, 0 };
    ptx_test_check_f32(&m, 0.0f, 1.0f + 0x1p-22f, 1.0);
    cr_assert_eq(m.ulps, 2u);
}

/* Input sets shared by the element-wise tests: the edges first, then random
 * values, n in all. */
static int fill_f32(float *x, int n, const float *edges, int n_edges, uint32_t seed, float (*gen)(uint32_t *))
{
    for (int i = 0; i < n; i++)
        x[i] = i < n_edges ? edges[i] : gen(&seed);
    return n;
}

static float gen_exp_arg(uint32_t *s)
{
    return ptx_test_random(s) & 1 ? ptx_test_uniform_f32(s, -104.0f, 89.0f) : ptx_test_logscale_f32(s, -30, 4, 0);
}

Test(ptx_corpus_math, expf_alone_within_2_ulps_with_exact_specials)
{
    enum { N = 700 };
    static float x[N], y[N];
    static const float edges[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-40f, 88.0f, 88.7f, 88.72f,
                                   88.73f, 100.0f, -87.3f, -100.0f, -103.9f, -104.0f, -200.0f, 1.0f, -1.0f };
    fill_f32(x, N, edges, (int)(sizeof edges / sizeof edges[0]), 3, gen_exp_arg);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_softmax.ptx", "corpus_math_expf", &ctx, &mod);
    ptx_test_run_elementwise(f, 2, (void *[]){ x, y }, (size_t[]){ sizeof x, sizeof y }, N);
    struct ptx_test_max_error m = { "expf", 2, 0, 0 };
    for (int i = 0; i < N; i++)
        ptx_test_check_f32(&m, x[i], y[i], exp((double)x[i]));
    ptx_test_report(&m);
    ptx_test_end(ctx, mod);
}

/* Softmax of each row. Budget: the kernel's exponent arguments x - max are
 * float subtractions the reference repeats, so only expf's error (2 ulps
 * from the correctly rounded value, so 2.5 ulps or 5 * 2^-24 relative from
 * the exact one), the sum's roundings (one per addition along the longest
 * chain: cols/128 strided adds and 7 tree levels, 2^-24 each) and the
 * division (2^-24) remain: relative 5 * 2^-24 (numerator) + 5 * 2^-24 (the
 * sum's terms) + (depth + 1) 2^-24, plus an absolute 2^-126 where results
 * fall below the normal range. */
Test(ptx_corpus_math, softmax_rows_within_the_budget_of_expf)
{
    enum { THREADS = 128, ROWS = 6, COLS = 300 };
    static float in[ROWS * COLS], out[ROWS * COLS];
    uint32_t seed = 17;
    for (int i = 0; i < ROWS * COLS; i++)
        in[i] = ptx_test_uniform_f32(&seed, -10.0f, 10.0f);
    for (int c = 0; c < COLS; c++) {
        in[1 * COLS + c] = 88.5f;              /* all equal near exp's overflow: 1/cols each */
        in[2 * COLS + c] = c % 7 ? -INFINITY : in[2 * COLS + c]; /* exp(-inf) = 0 exactly */
        in[3 * COLS + c] = c % 5 ? -200.0f + (float)c : 1e30f;   /* underflowing terms */
    }
    in[4 * COLS + 17] = NAN; /* a NaN spreads through the max and the sum */
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_softmax.ptx", "corpus_math_softmax", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    int cols = COLS;
    void *args[] = { &din, &dout, &cols };
    ptx_test_run(f, (unsigned[3]){ ROWS, 1, 1 }, (unsigned[3]){ THREADS, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    long double worst = 0;
    int depth = (COLS + THREADS - 1) / THREADS + 7;
    long double rel = (5 + 5 + depth + 1) * 0x1p-24L;
    for (int r = 0; r < ROWS; r++) {
        const float *row = in + r * COLS;
        float mx = -INFINITY;
        for (int c = 0; c < COLS; c++)
            mx = fmaxf(mx, row[c]);
        long double sum = 0;
        int has_nan = 0;
        for (int c = 0; c < COLS; c++) {
            has_nan |= isnan(row[c]);
            sum += expl((long double)(row[c] - mx));
        }
        for (int c = 0; c < COLS; c++) {
            float got = out[r * COLS + c];
            if (r == 4) { /* fmaxf drops the NaN; its own element's expf(NaN) poisons the sum */
                cr_assert(has_nan && ptx_test_f32_bits(got) == PTX_TEST_NAN_F32, "softmax[%d][%d] = %a", r, c,
                          (double)got);
                continue;
            }
            long double exact = expl((long double)(row[c] - mx)) / sum;
            if (exact == 0.0L) {
                cr_assert_eq(ptx_test_f32_bits(got), 0u, "softmax[%d][%d] = %a, want +0", r, c, (double)got);
                continue;
            }
            long double u = ptx_test_check_budget("softmax", r * COLS + c, got, exact, rel * exact + 0x1p-126L);
            if (u > worst)
                worst = u;
        }
    }
    cr_log_info("softmax: max %.2Lf ulp (budget %.1Lf ulp relative)", worst, rel * 0x1p23L);
    ptx_test_end(ctx, mod);
}

/* A positive double with a random 32-bit significand and exponent in
 * [-1000, 1000). */
static double random_wide_f64(uint32_t *seed)
{
    double m = 1.0 + (double)ptx_test_random(seed) * 0x1p-32;
    return ldexp(m, (int)(ptx_test_random(seed) % 2000u) - 1000);
}

static float gen_positive_wide(uint32_t *s)
{
    return ptx_test_logscale_f32(s, -140, 127, 1);
}

Test(ptx_corpus_math, sqrtf_exact_rsqrtf_2_ulps_sqrt_exact)
{
    enum { N = 600 };
    static float x[N], s[N], r[N];
    static double d[N], ds[N];
    static const float edges[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -1.0f, 1e-45f, 1e-40f, FLT_MIN,
                                   FLT_MAX, 1.0f, 4.0f, 2.0f, 0.25f, -1e-45f };
    int n_edges = (int)(sizeof edges / sizeof edges[0]);
    fill_f32(x, N, edges, n_edges, 11, gen_positive_wide);
    static const double dedges[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, -1.0, 4.9e-324, DBL_MIN, DBL_MAX, 2.0 };
    uint32_t seed = 23;
    for (int i = 0; i < N; i++)
        d[i] = i < (int)(sizeof dedges / sizeof dedges[0]) ? dedges[i] : random_wide_f64(&seed);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_norm.ptx", "corpus_math_roots", &ctx, &mod);
    ptx_test_run_elementwise(f, 5, (void *[]){ x, s, r, d, ds },
                             (size_t[]){ sizeof x, sizeof s, sizeof r, sizeof d, sizeof ds }, N);
    struct ptx_test_max_error ms = { "sqrtf", 0, 0, 0 }, mr = { "rsqrtf", 2, 0, 0 }, md = { "sqrt", 0, 0, 0 };
    for (int i = 0; i < N; i++) {
        /* sqrt of a float in double is exact to 2^-53 relative: its float
         * rounding is the correctly rounded sqrtf (53 >= 2 * 24 + 2). */
        ptx_test_check_f32(&ms, x[i], s[i], sqrt((double)x[i]));
        ptx_test_check_f32(&mr, x[i], r[i], x[i] == 0.0f ? copysign(INFINITY, (double)x[i]) : 1.0 / sqrt((double)x[i]));
        /* The host's sqrt is IEEE's correctly rounded one (SSE2 sqrtsd). */
        ptx_test_check_f64(&md, d[i], ds[i], (long double)sqrt(d[i]));
    }
    cr_assert_eq(ptx_test_f32_bits(s[1]), 0x80000000u, "sqrtf(-0) = -0");
    cr_assert_eq(ptx_test_f32_bits(s[5]), PTX_TEST_NAN_F32, "sqrtf(-1) is the canonical NaN");
    cr_assert_eq(ptx_test_f32_bits(r[1]), 0xFF800000u, "rsqrtf(-0) = -inf");
    ptx_test_report(&ms);
    ptx_test_report(&mr);
    ptx_test_report(&md);
    ptx_test_end(ctx, mod);
}

/* Lengths and unit vectors of 3-vectors. The squared length is the kernel's
 * contracted a*a + b*b + c*c (b*b, then fma a, then fma c), repeated here in
 * float; len = sqrtf of it is then exact, and each unit component a *
 * rsqrtf(sq) is within rsqrtf's 2 ulps of the correctly rounded value (2.5
 * ulps, 5 * 2^-24 relative, of the exact one) and the product's half ulp:
 * 6 * 2^-24 relative, plus 2^-149 where it is denormal. */
Test(ptx_corpus_math, vector_norms_and_unit_vectors)
{
    enum { N = 300 };
    static float x[N], y[N], z[N], len[N], ux[N], uy[N], uz[N];
    static double dx[N], dlen[N];
    uint32_t seed = 8;
    for (int i = 0; i < N; i++) {
        x[i] = ptx_test_uniform_f32(&seed, -100.0f, 100.0f);
        y[i] = ptx_test_logscale_f32(&seed, -20, 20, 0);
        z[i] = ptx_test_uniform_f32(&seed, -1.0f, 1.0f);
        dx[i] = (double)x[i] * x[i];
    }
    static const float edges[][3] = { { 0, 0, 0 }, { -0.0f, 0, 0 }, { INFINITY, 1, 1 }, { 1e20f, 1e20f, 1e20f },
                                      { 1e-40f, 0, 0 }, { NAN, 1, 1 }, { 3, 4, 0 }, { 1e-20f, 1e-20f, 1e-20f } };
    for (int e = 0; e < (int)(sizeof edges / sizeof edges[0]); e++) {
        x[e] = edges[e][0];
        y[e] = edges[e][1];
        z[e] = edges[e][2];
    }
    dx[0] = -1.0;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_norm.ptx", "corpus_math_norm", &ctx, &mod);
    ptx_test_run_elementwise(f, 9, (void *[]){ x, y, z, len, ux, uy, uz, dx, dlen },
                    (size_t[]){ sizeof x, sizeof y, sizeof z, sizeof len, sizeof ux, sizeof uy, sizeof uz, sizeof dx,
                                sizeof dlen },
                    N);
    long double worst = 0;
    for (int i = 0; i < N; i++) {
        float sq = fmaf(z[i], z[i], fmaf(x[i], x[i], y[i] * y[i]));
        cr_assert_eq(ptx_test_f32_bits(len[i]), ptx_test_gpu_f32_bits(sqrtf(sq)), "len[%d] = %a", i,
                     (double)len[i]);
        cr_assert_eq(ptx_test_f64_bits(dlen[i]), ptx_test_gpu_f64_bits(sqrt(dx[i])), "dlen[%d]", i);
        const float comp[3] = { x[i], y[i], z[i] }, got[3] = { ux[i], uy[i], uz[i] };
        for (int k = 0; k < 3; k++) {
            if (sq == 0.0f || isinf(sq) || isnan(sq)) { /* rsqrtf's exact values: inf, 0, NaN */
                float inv = sq == 0.0f ? INFINITY : isinf(sq) ? 0.0f : NAN;
                cr_assert_eq(ptx_test_f32_bits(got[k]), ptx_test_gpu_f32_bits(comp[k] * inv), "unit[%d][%d] = %a",
                             i, k, (double)got[k]);
                continue;
            }
            long double exact = (long double)comp[k] / sqrtl((long double)sq);
            long double u = ptx_test_check_budget("unit", i, got[k], exact, 6 * 0x1p-24L * fabsl(exact) + 0x1p-149L);
            if (u > worst)
                worst = u;
        }
    }
    cr_assert_eq(ptx_test_f64_bits(dlen[0]), PTX_TEST_NAN_F64, "sqrt(-1.0) is the canonical NaN");
    cr_log_info("unit vectors: max %.2Lf ulp (budget 3 ulp)", worst);
    ptx_test_end(ctx, mod);
}

/* All-pairs gravity. The kernel's float differences and softened squared
 * distance d2 are repeated here exactly; from there, rsqrtf's 2.5 ulps from
 * the exact value (5 * 2^-24) enter the scale s = m inv^3 three times with
 * three products' roundings (18 * 2^-24 relative), the fma's product one
 * more, and each fma into the running sum adds at most 2^-24 of the sum of
 * magnitudes: a component is within (19 + n) 2^-24 * sum |term|. */
Test(ptx_corpus_math, nbody_accelerations_within_the_budget_of_rsqrtf)
{
    enum { TILE = 64, N = 150 };
    static float pos[N * 4], acc[N * 3];
    uint32_t seed = 77;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++)
            pos[i * 4 + k] = ptx_test_uniform_f32(&seed, -50.0f, 50.0f);
        pos[i * 4 + 3] = ptx_test_uniform_f32(&seed, 0.1f, 10.0f);
    }
    pos[5 * 4 + 0] = pos[6 * 4 + 0]; /* two bodies at one place: only eps2 keeps d2 > 0 */
    pos[5 * 4 + 1] = pos[6 * 4 + 1];
    pos[5 * 4 + 2] = pos[6 * 4 + 2];
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_nbody.ptx", "corpus_math_nbody", &ctx, &mod);
    CUdeviceptr dp = ptx_test_upload(pos, sizeof pos), da = ptx_test_upload(NULL, sizeof acc);
    int n = N;
    float eps2 = 0.01f;
    void *args[] = { &dp, &da, &n, &eps2 };
    ptx_test_run(f, (unsigned[3]){ (N + TILE - 1) / TILE, 1, 1 }, (unsigned[3]){ TILE, 1, 1 }, 0, args);
    ptx_test_download(acc, da, sizeof acc);
    long double worst = 0;
    for (int i = 0; i < N; i++) {
        long double exact[3] = { 0, 0, 0 }, mag[3] = { 0, 0, 0 };
        for (int j = 0; j < N; j++) {
            float r[3];
            for (int k = 0; k < 3; k++)
                r[k] = pos[j * 4 + k] - pos[i * 4 + k];
            float d2 = fmaf(r[2], r[2], fmaf(r[0], r[0], r[1] * r[1])) + eps2;
            long double inv = 1.0L / sqrtl((long double)d2);
            long double s = (long double)pos[j * 4 + 3] * inv * inv * inv;
            for (int k = 0; k < 3; k++) {
                exact[k] += r[k] * s;
                mag[k] += fabsl(r[k] * s);
            }
        }
        for (int k = 0; k < 3; k++) {
            long double budget = (19 + N) * 0x1p-24L * mag[k];
            ptx_test_check_budget("acc", i * 3 + k, acc[i * 3 + k], exact[k], budget);
            long double in_units = fabsl((long double)acc[i * 3 + k] - exact[k]) / (0x1p-24L * mag[k]);
            if (in_units > worst)
                worst = in_units;
        }
    }
    cr_log_info("nbody: max error %.2Lf * 2^-24 sum|term| (budget %d)", worst, 19 + N);
    ptx_test_end(ctx, mod);
}

static float gen_gelu_arg(uint32_t *s)
{
    return ptx_test_random(s) & 1 ? ptx_test_uniform_f32(s, -12.0f, 12.0f) : ptx_test_logscale_f32(s, -40, 4, 0);
}

/* v/2 (1 + f(arg)) where f is tanhf or erff, 2 ulps from the correctly
 * rounded value (2.5 from the exact one): the budget is |v/2| times f's
 * error and the half ulp of 1 + f, plus the product's half ulp and 2^-149
 * for v/2 of a denormal. */
static long double gelu_budget(float v, long double f_exact, long double exact)
{
    long double f_err = 2.5L * ptx_test_ulp_size_f32(f_exact) + 0.5L * ptx_test_ulp_size_f32(1.0L + f_exact);
    return fabsl(0.5L * v) * f_err * (1 + 0x1p-20L) + 0.5L * ptx_test_ulp_size_f32(exact) + 0x1p-149L;
}

Test(ptx_corpus_math, gelu_with_tanhf_and_erff)
{
    enum { N = 640 };
    static float x[N], gt[N], ge[N], t[N], e[N];
    static const float edges[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-40f, 9.0f, -9.0f, 0.55f,
                                   -0.6f, 1e-3f, 4.0f, -3.9f, 88.0f, 1e30f, -FLT_MAX };
    fill_f32(x, N, edges, (int)(sizeof edges / sizeof edges[0]), 31, gen_gelu_arg);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_gelu.ptx", "corpus_math_gelu", &ctx, &mod);
    ptx_test_run_elementwise(f, 5, (void *[]){ x, gt, ge, t, e },
                             (size_t[]){ sizeof x, sizeof gt, sizeof ge, sizeof t, sizeof e }, N);
    struct ptx_test_max_error mt = { "tanhf", 2, 0, 0 }, me = { "erff", 2, 0, 0 };
    long double worst_t = 0, worst_e = 0;
    for (int i = 0; i < N; i++) {
        float v = x[i];
        ptx_test_check_f32(&mt, v, t[i], tanh((double)v));
        ptx_test_check_f32(&me, v, e[i], erf((double)v));
        float inner = fmaf(v, v * (v * 0.044715f), v) * 0.7978845608f; /* the kernel's float steps */
        float arg = v * 0.70710678f;
        long double th = tanhl((long double)inner), er = erfl((long double)arg);
        long double want_t = 0.5L * v * (1.0L + th), want_e = 0.5L * v * (1.0L + er);
        if (!isfinite(v) || !isfinite(inner)) { /* inf * 0 and NaN: the kernel's exact specials */
            float ref_t = 0.5f * v * (1.0f + (float)th), ref_e = 0.5f * v * (1.0f + (float)er);
            cr_assert_eq(ptx_test_f32_bits(gt[i]), ptx_test_gpu_f32_bits(ref_t), "gelu_tanh(%a) = %a", (double)v,
                         (double)gt[i]);
            cr_assert_eq(ptx_test_f32_bits(ge[i]), ptx_test_gpu_f32_bits(ref_e), "gelu_erf(%a) = %a", (double)v,
                         (double)ge[i]);
            continue;
        }
        long double ut = ptx_test_check_budget("gelu_tanh", i, gt[i], want_t, gelu_budget(v, th, want_t));
        long double ue = ptx_test_check_budget("gelu_erf", i, ge[i], want_e, gelu_budget(v, er, want_e));
        if (ut > worst_t && 1.0L + th >= 0.5L) /* ulps mean something where 1 + f does not cancel */
            worst_t = ut;
        if (ue > worst_e && 1.0L + er >= 0.5L)
            worst_e = ue;
    }
    cr_assert_eq(ptx_test_f32_bits(t[1]), 0x80000000u, "tanhf(-0) = -0");
    cr_assert_eq(ptx_test_f32_bits(e[3]), 0xBF800000u, "erff(-inf) = -1");
    ptx_test_report(&mt);
    ptx_test_report(&me);
    cr_log_info("gelu where 1 + f >= 0.5: max %.2Lf ulp (tanh form), %.2Lf ulp (erf form)", worst_t, worst_e);
    ptx_test_end(ctx, mod);
}

/* Rows for log-sum-exp: random ones and edge rows (row 1: values whose raw
 * exp overflows; 2: all -inf, so -inf - -inf is NaN; 3: one finite value,
 * the result is itself; 4: all near 0; 5: an inf among finite values). */
enum { LSE_ROWS = 10, LSE_COLS = 200 };

static void lse_rows(float *in)
{
    uint32_t seed = 55;
    for (int i = 0; i < LSE_ROWS * LSE_COLS; i++)
        in[i] = ptx_test_uniform_f32(&seed, -30.0f, 30.0f);
    for (int c = 0; c < LSE_COLS; c++) {
        in[1 * LSE_COLS + c] = 1e30f;
        in[2 * LSE_COLS + c] = -INFINITY;
        in[3 * LSE_COLS + c] = c ? -INFINITY : 2.5f;
        in[4 * LSE_COLS + c] = ptx_test_uniform_f32(&seed, -1e-3f, 1e-3f);
    }
    in[5 * LSE_COLS + 3] = INFINITY;
}

/* The reference takes the row's maximum m and the kernel's float
 * differences x - m, then m + log(sum exp(x - m)) in long double. Budget:
 * the sum is off by at most rel_s = 5 * 2^-24 (expf's 2.5 ulps from exact)
 * + depth * 2^-24 (its additions along the longest chain), which moves the
 * log by at most rel_s (1 + 2^-20); logf adds 1.5 ulps of the log and the
 * final addition half an ulp of the result. */
static void check_lse(const float *in, const float *out, int depth, const char *what)
{
    long double rel_s = (5 + depth) * 0x1p-24L, worst = 0;
    for (int r = 0; r < LSE_ROWS; r++) {
        const float *row = in + r * LSE_COLS;
        float m = -INFINITY;
        for (int c = 0; c < LSE_COLS; c++)
            m = fmaxf(m, row[c]);
        long double sum = 0;
        for (int c = 0; c < LSE_COLS; c++)
            sum += expl((long double)(row[c] - m));
        long double log_sum = logl(sum), exact = (long double)m + log_sum;
        if (isnan(exact) || isinf(exact)) {
            cr_assert_eq(ptx_test_f32_bits(out[r]), ptx_test_gpu_f32_bits((float)exact), "%s[%d] = %a", what, r,
                         (double)out[r]);
            continue;
        }
        long double budget =
            rel_s * (1 + 0x1p-20L) + 1.5L * ptx_test_ulp_size_f32(log_sum) + 0.5L * ptx_test_ulp_size_f32(exact);
        long double u = ptx_test_check_budget(what, r, out[r], exact, budget);
        if (u > worst)
            worst = u;
    }
    cr_assert_eq(ptx_test_f32_bits(out[3]), ptx_test_f32_bits(2.5f), "one finite value: itself");
    cr_assert_eq(ptx_test_f32_bits(out[5]), PTX_TEST_NAN_F32, "inf - inf in a row");
    cr_log_info("%s: max %.2Lf ulp", what, worst);
}

/* One block of 64 per row, shared-memory trees: the longest addition chain
 * is cols/64 strided adds and 6 tree levels. */
Test(ptx_corpus_math, logsumexp_rows_within_the_budget_of_logf_and_expf)
{
    static float in[LSE_ROWS * LSE_COLS], out[LSE_ROWS];
    lse_rows(in);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_logsumexp.ptx", "corpus_math_logsumexp", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    int cols = LSE_COLS;
    void *args[] = { &din, &dout, &cols };
    ptx_test_run(f, (unsigned[3]){ LSE_ROWS, 1, 1 }, (unsigned[3]){ 64, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    check_lse(in, out, (LSE_COLS + 63) / 64 + 6, "logsumexp");
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_math, logf_expf_log_exp_alone)
{
    enum { N = 600 };
    static float x[N], lf[N], ef[N];
    static double d[N], ld[N], ed[N];
    static const float edges[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -1.0f, 1.0f, 1e-45f, 1e-40f, FLT_MIN,
                                   FLT_MAX, 88.72f, 88.73f, -103.0f, -104.0f, 0.5f, 2.0f, 0.99999994f, 1.0000001f };
    static const double dedges[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, -1.0, 1.0, 4.9e-324, DBL_MIN, DBL_MAX,
                                     709.78, 709.79, -745.0, -746.0, 0.5, 1e-300, 0.9999999999999999, 700.5 };
    int nfe = (int)(sizeof edges / sizeof edges[0]), nde = (int)(sizeof dedges / sizeof dedges[0]);
    uint32_t seed = 13;
    for (int i = 0; i < N; i++) {
        x[i] = i < nfe    ? edges[i]
               : i % 2 ? ptx_test_logscale_f32(&seed, -140, 127, 1)
                       : ptx_test_uniform_f32(&seed, -100.0f, 89.0f);
        d[i] = i < nde    ? dedges[i]
               : i % 2 ? random_wide_f64(&seed)
                       : -745.0 + 1454.0 * (double)ptx_test_random(&seed) * 0x1p-32;
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_logsumexp.ptx", "corpus_math_explog", &ctx, &mod);
    ptx_test_run_elementwise(f, 6, (void *[]){ x, lf, ef, d, ld, ed },
                    (size_t[]){ sizeof x, sizeof lf, sizeof ef, sizeof d, sizeof ld, sizeof ed }, N);
    struct ptx_test_max_error ml = { "logf", 1, 0, 0 }, me = { "expf", 2, 0, 0 }, mld = { "log", 1, 0, 0 },
                     med = { "exp", 1, 0, 0 };
    for (int i = 0; i < N; i++) {
        ptx_test_check_f32(&ml, x[i], lf[i], log((double)x[i]));
        ptx_test_check_f32(&me, x[i], ef[i], exp((double)x[i]));
        ptx_test_check_f64(&mld, d[i], ld[i], logl((long double)d[i]));
        ptx_test_check_f64(&med, d[i], ed[i], expl((long double)d[i]));
    }
    cr_assert_eq(ptx_test_f32_bits(lf[0]), 0xFF800000u, "logf(0) = -inf");
    cr_assert_eq(ptx_test_f32_bits(lf[1]), 0xFF800000u, "logf(-0) = -inf");
    cr_assert_eq(ptx_test_f32_bits(lf[5]), PTX_TEST_NAN_F32, "logf(-1) = NaN");
    cr_assert_eq(ptx_test_f32_bits(lf[6]), 0u, "logf(1) = +0");
    cr_assert_eq(ptx_test_f32_bits(ef[3]), 0u, "expf(-inf) = +0");
    cr_assert_eq(ptx_test_f64_bits(ed[3]), 0u, "exp(-inf) = +0");
    cr_assert_eq(ptx_test_f64_bits(ld[5]), PTX_TEST_NAN_F64, "log(-1) = NaN");
    ptx_test_report(&ml);
    ptx_test_report(&me);
    ptx_test_report(&mld);
    ptx_test_report(&med);
    ptx_test_end(ctx, mod);
}

static float gen_trig_arg(uint32_t *s)
{
    uint32_t r = ptx_test_random(s) % 4;
    return r == 0   ? ptx_test_uniform_f32(s, -PI_F, PI_F)
           : r == 3 ? ptx_test_logscale_f32(s, 14, 127, 0)
                    : ptx_test_uniform_f32(s, -1e4f, 1e4f);
}

/* sinf, cosf and sincosf within 2 ulps, tanf within 4, over [-pi, pi],
 * [-1e4, 1e4] and huge arguments (2^14 to 2^127: beyond about 105615 the
 * library's slow Payne-Hanek reduction runs). */
Test(ptx_corpus_math, sinf_cosf_sincosf_tanf_over_small_and_huge_arguments)
{
    enum { N = 512 };
    static float x[N], s[N], c[N], ss[N], cc[N], t[N];
    static const float edges[] = { 0.0f,      -0.0f,     INFINITY,   -INFINITY, NAN,      1e-45f,
                                   -1e-40f,   1e4f,      -1e4f,      105615.0f, 105616.0f, 1e30f,
                                   FLT_MAX,   -FLT_MAX,  1.5707964f, 3.1415927f, 0x1p24f, 0x1.921fb6p14f };
    fill_f32(x, N, edges, (int)(sizeof edges / sizeof edges[0]), 29, gen_trig_arg);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_math_trig.ptx", "corpus_math_trig", &ctx, &mod);
    ptx_test_run_elementwise(f, 6, (void *[]){ x, s, c, ss, cc, t },
                    (size_t[]){ sizeof x, sizeof s, sizeof c, sizeof ss, sizeof cc, sizeof t }, N);
    struct ptx_test_max_error ms = { "sinf", 2, 0, 0 }, mc = { "cosf", 2, 0, 0 }, mss = { "sincosf.sin", 2, 0, 0 },
                     mcc = { "sincosf.cos", 2, 0, 0 }, mt = { "tanf", 4, 0, 0 };
    for (int i = 0; i < N; i++) {
        double v = x[i];
        ptx_test_check_f32(&ms, x[i], s[i], sin(v));
        ptx_test_check_f32(&mc, x[i], c[i], cos(v));
        ptx_test_check_f32(&mss, x[i], ss[i], sin(v));
        ptx_test_check_f32(&mcc, x[i], cc[i], cos(v));
        ptx_test_check_f32(&mt, x[i], t[i], tan(v));
    }
    cr_assert_eq(ptx_test_f32_bits(s[1]), 0x80000000u, "sinf(-0) = -0");
    cr_assert_eq(ptx_test_f32_bits(c[2]), PTX_TEST_NAN_F32, "cosf(inf) = NaN");
    ptx_test_report(&ms);
    ptx_test_report(&mc);
    ptx_test_report(&mss);
    ptx_test_report(&mcc);
    ptx_test_report(&mt);
    ptx_test_end(ctx, mod);
}

static double gen_trig_arg_f64(uint32_t *s)
{
    uint32_t r = ptx_test_random(s) % 3;
    double u = (double)ptx_test_random(s) * 0x1p-32;
    return r == 0   ? (2 * u - 1) * 3.141592653589793
           : r == 1 ? (2 * u - 1) * 1e4
                    : ldexp(1 + u, (int)(ptx_test_random(s) % 1000u));
}

Test(ptx_corpus_math, sin_cos_double_within_2_ulps)
{
    enum { N = 256 };
    static double x[N], s[N], c[N];
    static const double edges[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, 4.9e-324,
                                    1e4, -1e4, 1e22,     DBL_MAX,   1.5707963267948966 };
    uint32_t seed = 61;
    for (int i = 0; i < N; i++)
        x[i] = i < (int)(sizeof edges / sizeof edges[0]) ? edges[i] : gen_trig_arg_f64(&seed);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_load_or_skip("corpus_math_trig_f64.ptx", "corpus_math_trig_f64", ".func", &ctx, &mod);
    ptx_test_run_elementwise(f, 3, (void *[]){ x, s, c }, (size_t[]){ sizeof x, sizeof s, sizeof c }, N);
    struct ptx_test_max_error ms = { "sin", 2, 0, 0 }, mc = { "cos", 2, 0, 0 };
    for (int i = 0; i < N; i++) {
        ptx_test_check_f64(&ms, x[i], s[i], sinl((long double)x[i]));
        ptx_test_check_f64(&mc, x[i], c[i], cosl((long double)x[i]));
    }
    ptx_test_report(&ms);
    ptx_test_report(&mc);
    ptx_test_end(ctx, mod);
}

/* The warp-shuffle form (one warp per row, __shfl_xor_sync butterflies:
 * cols/32 strided adds and 5 levels). The interpreter does not know
 * shfl.sync yet: the test is skipped with the refusal's text only while
 * the refusal names shfl; any other failure fails it. */
Test(ptx_corpus_math, logsumexp_by_warp_shuffles)
{
    static float in[LSE_ROWS * LSE_COLS], out[LSE_ROWS];
    lse_rows(in);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_load_or_skip("corpus_math_lse_warp.ptx", "corpus_math_lse_warp", "shfl", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    int rows = LSE_ROWS, cols = LSE_COLS;
    void *args[] = { &din, &dout, &rows, &cols };
    ptx_test_run(f, (unsigned[3]){ (LSE_ROWS + 3) / 4, 1, 1 }, (unsigned[3]){ 128, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    check_lse(in, out, (LSE_COLS + 31) / 32 + 5, "logsumexp (warp)");
    ptx_test_end(ctx, mod);
}
