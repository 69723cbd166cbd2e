/* A corpus of realistic nvcc-compiled kernels (kernels/corpus_*.cu, compiled
 * to fixtures/corpus_*.ptx by scripts/gen-ptx-fixtures.sh) run by the PTX
 * interpreter through the simulator's CUDA face, each compared with a host C
 * reference written independently of the simulator. Floats compare bit for
 * bit: nvcc contracts a*b + c into fma.rn, so the references call fmaf/fma in
 * the kernel's order of operations; NaN results are PTX's canonical NaN.
 * Sizes cross block bounds (a partial last block, N+1 past a multiple).
 * This file: the floating-point kernels; test_ptx_corpus_int.c: the integer
 * ones. */
#include "ptx_test_support.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_corpus, .timeout = 30);

/* A float with random sign, exponent in [2^-6, 2^6) and all 24 mantissa bits
 * random, so that products and sums round. */
static float random_float(uint32_t *seed)
{
    uint32_t r = ptx_test_random(seed);
    uint32_t exponent = 127u - 6u + (r >> 28) % 12u;
    return ptx_test_f32_from_bits((r & 0x80000000u) | exponent << 23 | (ptx_test_random(seed) & 0x7FFFFFu));
}

static double random_double(uint32_t *seed)
{
    uint64_t r = (uint64_t)ptx_test_random(seed) << 32 | ptx_test_random(seed);
    uint64_t exponent = 1023u - 10u + (r >> 59) % 20u;
    return ptx_test_f64_from_bits((r & 0x8000000000000000ull) | exponent << 52 | (r & 0xFFFFFFFFFFFFFull));
}

static void assert_same_f32(float got, float want, const char *what, int i)
{
    cr_assert_eq(ptx_test_f32_bits(got), ptx_test_gpu_f32_bits(want), "%s[%d] = %a (0x%08x), want %a (0x%08x)",
                 what, i, (double)got, ptx_test_f32_bits(got), (double)want, ptx_test_gpu_f32_bits(want));
}

Test(ptx_corpus, saxpy_contracts_to_fma_with_edge_values)
{
    enum { BLOCK = 256, N = 3 * BLOCK + 1 };
    static float x[N], y[N], out[N];
    static const float edges[][2] = {
        { 0.0f, 0.0f }, { -0.0f, -0.0f }, { 0.0f, -0.0f }, { NAN, 1.0f }, { 1.0f, NAN }, { INFINITY, 1.0f },
        { INFINITY, -INFINITY }, { FLT_MAX, FLT_MAX }, { -FLT_MAX, -FLT_MAX }, { 1e-40f, 1e-40f },
        { FLT_MIN, -FLT_MIN }, { 1.0f / 3.0f, 0.9166666f }, { 16777217.0f, 1.0f }, { -1e-45f, 0.0f },
    };
    uint32_t seed = 41;
    for (int i = 0; i < N; i++) {
        x[i] = random_float(&seed);
        y[i] = random_float(&seed);
    }
    int n_edges = (int)(sizeof edges / sizeof edges[0]);
    for (int e = 0; e < n_edges; e++) { /* at the start and in the partial last block */
        x[e] = x[N - 1 - e] = edges[e][0];
        y[e] = y[N - 1 - e] = edges[e][1];
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_saxpy.ptx", "corpus_saxpy", &ctx, &mod);
    CUdeviceptr dx = ptx_test_upload(x, sizeof x), dy = ptx_test_upload(y, sizeof y);
    int n = N - 1; /* the last element stays untouched */
    float a = -2.75f;
    void *args[] = { &n, &a, &dx, &dy };
    ptx_test_run(f, (unsigned[3]){ (N + BLOCK - 1) / BLOCK, 1, 1 }, (unsigned[3]){ BLOCK, 1, 1 }, 0, args);
    ptx_test_download(out, dy, sizeof out);
    for (int i = 0; i < n; i++)
        assert_same_f32(out[i], fmaf(a, x[i], y[i]), "y", i);
    cr_assert_eq(ptx_test_f32_bits(out[N - 1]), ptx_test_f32_bits(y[N - 1]), "y[n] was written");
    ptx_test_end(ctx, mod);
}

/* C = A*B with the kernel's zero padding of partial tiles: the sum runs over
 * whole tiles, fma by fma, in the kernel's order. */
static float matmul_reference(const float *A, const float *B, int k, int n, int row, int col, int tile)
{
    float sum = 0.0f;
    for (int t = 0; t < (k + tile - 1) / tile; t++)
        for (int i = 0; i < tile; i++) {
            int kk = t * tile + i;
            sum = fmaf(kk < k ? A[row * k + kk] : 0.0f, kk < k ? B[kk * n + col] : 0.0f, sum);
        }
    return sum;
}

Test(ptx_corpus, tiled_matrix_multiply_with_partial_tiles)
{
    enum { TILE = 16, M = 37, K = 41, NC = 29 };
    static float A[M * K], B[K * NC], C[M * NC];
    uint32_t seed = 5;
    for (int i = 0; i < M * K; i++)
        A[i] = random_float(&seed);
    for (int i = 0; i < K * NC; i++)
        B[i] = random_float(&seed);
    A[3] = NAN;        /* row 0 of C is all NaN */
    B[7 * NC + 2] = INFINITY; /* column 2 of C is +-inf or NaN */
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_matmul.ptx", "corpus_matmul", &ctx, &mod);
    CUdeviceptr dA = ptx_test_upload(A, sizeof A), dB = ptx_test_upload(B, sizeof B);
    CUdeviceptr dC = ptx_test_upload(NULL, sizeof C);
    int m = M, n = NC, k = K;
    void *args[] = { &dA, &dB, &dC, &m, &n, &k };
    ptx_test_run(f, (unsigned[3]){ (NC + TILE - 1) / TILE, (M + TILE - 1) / TILE, 1 },
                 (unsigned[3]){ TILE, TILE, 1 }, 0, args);
    ptx_test_download(C, dC, sizeof C);
    for (int r = 0; r < M; r++)
        for (int c = 0; c < NC; c++)
            assert_same_f32(C[r * NC + c], matmul_reference(A, B, K, NC, r, c, TILE), "C", r * NC + c);
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus, transpose_through_a_padded_shared_tile_moves_bits)
{
    enum { W = 70, H = 45 }; /* 3x2 tiles of 32x32, the last ones partial */
    static uint32_t in[W * H], out[W * H];
    uint32_t seed = 99;
    for (int i = 0; i < W * H; i++)
        in[i] = ptx_test_random(&seed); /* any bits: NaNs with payloads, -0, denormals */
    in[0] = 0x7FC01234u;
    in[1] = 0xFFFFFFFFu;
    in[2] = 0x80000000u;
    in[W * H - 1] = 0x00000001u;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_transpose.ptx", "corpus_transpose", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    int width = W, height = H;
    void *args[] = { &dout, &din, &width, &height };
    ptx_test_run(f, (unsigned[3]){ (W + 31) / 32, (H + 31) / 32, 1 }, (unsigned[3]){ 32, 8, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            cr_assert_eq(out[x * H + y], in[y * W + x], "out[%d][%d] = 0x%08x, want 0x%08x", x, y,
                         out[x * H + y], in[y * W + x]);
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus, csr_sparse_matrix_vector_product_in_double)
{
    enum { ROWS = 200, COLS = 150, BLOCK = 64, MAX_NNZ = ROWS * 12 };
    static int row_ptr[ROWS + 1], cols[MAX_NNZ];
    static double vals[MAX_NNZ], x[COLS], y[ROWS];
    uint32_t seed = 12345;
    for (int c = 0; c < COLS; c++)
        x[c] = random_double(&seed);
    x[5] = -0.0;
    x[6] = 1e300;
    x[7] = NAN;
    int nnz = 0;
    for (int r = 0; r < ROWS; r++) {
        row_ptr[r] = nnz;
        int count = r % 17 == 0 ? 0 : (int)(ptx_test_random(&seed) % 12u); /* empty rows too */
        if (r >= 33 && r <= 35)
            count = 3 + r % 3; /* the rows of the edge values below */
        for (int j = 0; j < count; j++) {
            cols[nnz] = (int)(ptx_test_random(&seed) % COLS);
            vals[nnz] = random_double(&seed);
            if (r == 33 && j == 0)
                cols[nnz] = 6, vals[nnz] = 1e300; /* overflows to inf */
            if (r == 34 && j == 0)
                cols[nnz] = 7; /* NaN */
            if (r == 35)
                cols[nnz] = 5; /* only -0 * v: a sum of +0 */
            nnz++;
        }
    }
    row_ptr[ROWS] = nnz;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_spmv.ptx", "corpus_spmv", &ctx, &mod);
    CUdeviceptr drp = ptx_test_upload(row_ptr, sizeof row_ptr), dcols = ptx_test_upload(cols, sizeof cols);
    CUdeviceptr dvals = ptx_test_upload(vals, sizeof vals), dx = ptx_test_upload(x, sizeof x);
    CUdeviceptr dy = ptx_test_upload(NULL, sizeof y);
    int rows = ROWS;
    void *args[] = { &rows, &drp, &dcols, &dvals, &dx, &dy };
    ptx_test_run(f, (unsigned[3]){ (ROWS + BLOCK - 1) / BLOCK, 1, 1 }, (unsigned[3]){ BLOCK, 1, 1 }, 0, args);
    ptx_test_download(y, dy, sizeof y);
    for (int r = 0; r < ROWS; r++) {
        double dot = 0.0;
        for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++)
            dot = fma(vals[j], x[cols[j]], dot);
        cr_assert_eq(ptx_test_f64_bits(y[r]), ptx_test_gpu_f64_bits(dot), "y[%d] = %a, want %a", r, y[r], dot);
    }
    cr_assert(isinf(y[33]) || isnan(y[33]));
    cr_assert(isnan(y[34]));
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus, convolution_3x3_clamps_at_the_edges)
{
    enum { W = 37, H = 23, B = 16 };
    static float img[W * H], out[W * H];
    float w[9];
    uint32_t seed = 777;
    for (int i = 0; i < W * H; i++)
        img[i] = random_float(&seed);
    for (int i = 0; i < 9; i++)
        w[i] = random_float(&seed);
    img[0] = -0.0f;
    img[W * H - 1] = 1e-40f;
    img[W + 5] = INFINITY;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_conv2d.ptx", "corpus_conv2d", &ctx, &mod);
    CUdeviceptr dimg = ptx_test_upload(img, sizeof img), dout = ptx_test_upload(NULL, sizeof out);
    CUdeviceptr dw = ptx_test_upload(w, sizeof w);
    int width = W, height = H;
    void *args[] = { &dimg, &dout, &dw, &width, &height };
    ptx_test_run(f, (unsigned[3]){ (W + B - 1) / B, (H + B - 1) / B, 1 }, (unsigned[3]){ B, B, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float sum = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = y + dy < 0 ? 0 : y + dy >= H ? H - 1 : y + dy;
                    int xx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
                    sum = fmaf(w[(dy + 1) * 3 + dx + 1], img[yy * W + xx], sum);
                }
            assert_same_f32(out[y * W + x], sum, "out", y * W + x);
        }
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus, row_normalisation_by_a_tree_reduced_sum_and_ieee_division)
{
    enum { ROWS = 5, COLS = 300, THREADS = 256 }; /* 300 columns: threads 0-43 add two */
    static float in[ROWS * COLS], out[ROWS * COLS], sums[ROWS];
    uint32_t seed = 606;
    for (int i = 0; i < ROWS * COLS; i++)
        in[i] = random_float(&seed);
    for (int c = 0; c < COLS; c++) {
        in[1 * COLS + c] = c % 2 ? 0.0f : -0.0f; /* a sum of +0: every quotient is NaN */
        in[3 * COLS + c] = c % 3 ? fabsf(in[3 * COLS + c]) : -0.0f;
        in[4 * COLS + c] = ptx_test_f32_from_bits((uint32_t)c * 977u % 0x7FFFFFu + 1u); /* denormals */
    }
    in[2 * COLS + 7] = INFINITY; /* the sum is inf: quotients are +-0, inf/inf is NaN */
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_normalize.ptx", "corpus_normalize", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    CUdeviceptr dsums = ptx_test_upload(NULL, sizeof sums);
    int cols = COLS;
    float cap = 0.0625f;
    void *args[] = { &din, &dout, &dsums, &cols, &cap };
    ptx_test_run(f, (unsigned[3]){ ROWS, 1, 1 }, (unsigned[3]){ THREADS, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    ptx_test_download(sums, dsums, sizeof sums);
    for (int r = 0; r < ROWS; r++) {
        const float *row = in + r * COLS;
        float part[THREADS]; /* the kernel's order: strided sums, then the tree */
        for (int t = 0; t < THREADS; t++) {
            part[t] = 0.0f;
            for (int i = t; i < COLS; i += THREADS)
                part[t] += row[i];
        }
        for (int stride = THREADS / 2; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; t++)
                part[t] += part[t + stride];
        assert_same_f32(sums[r], part[0], "sums", r);
        for (int i = 0; i < COLS; i++) {
            float v = row[i] / part[0];
            assert_same_f32(out[r * COLS + i], v < 0.0f ? -fminf(-v, cap) : fminf(v, cap), "out", r * COLS + i);
        }
    }
    cr_assert_eq(ptx_test_f32_bits(out[1 * COLS]), ptx_test_f32_bits(cap), "0/0 is NaN, which min turns into cap");
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus, ulp_distance_counts_the_floats_between)
{
    cr_assert_eq(ptx_test_ulp_distance_f32(1.0f, 1.0f), 0u);
    cr_assert_eq(ptx_test_ulp_distance_f32(1.0f, nextafterf(1.0f, 2.0f)), 1u);
    cr_assert_eq(ptx_test_ulp_distance_f32(0.0f, -0.0f), 1u);
    cr_assert_eq(ptx_test_ulp_distance_f32(-1e-45f, 1e-45f), 3u); /* -min, -0, +0, +min */
    cr_assert_eq(ptx_test_ulp_distance_f32(-FLT_MAX, INFINITY), 0xFF000000u); /* 0x7F7FFFFF below -0, 1, 0x7F800000 above +0 */
}

/* The blocks' sums reach the result in the atomics' order, so the result is
 * compared within a bound: all terms are positive, so each of the BLOCKS-1
 * additions rounds by at most half an ulp of the final sum, and two orders
 * differ by at most BLOCKS-1 ulps. The 64-bit count is exact. */
Test(ptx_corpus, dot_product_with_float_and_64_bit_atomics)
{
    enum { BLOCKS = 8, THREADS = 128, N = BLOCKS * THREADS * 3 + 5 };
    static float a[N], b[N];
    uint32_t seed = 321;
    const float big = 8.0f;
    unsigned long long want_count = 0;
    for (int i = 0; i < N; i++) {
        a[i] = fabsf(random_float(&seed));
        b[i] = fabsf(random_float(&seed));
        want_count += a[i] > big;
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_dot.ptx", "corpus_dot", &ctx, &mod);
    CUdeviceptr da = ptx_test_upload(a, sizeof a), db = ptx_test_upload(b, sizeof b);
    CUdeviceptr dresult = ptx_test_upload(NULL, sizeof(float));
    CUdeviceptr dcount = ptx_test_upload(NULL, sizeof(unsigned long long));
    int n = N;
    float threshold = big;
    void *args[] = { &da, &db, &n, &threshold, &dresult, &dcount };
    ptx_test_run(f, (unsigned[3]){ BLOCKS, 1, 1 }, (unsigned[3]){ THREADS, 1, 1 }, 0, args);
    float result;
    unsigned long long count;
    ptx_test_download(&result, dresult, sizeof result);
    ptx_test_download(&count, dcount, sizeof count);
    cr_assert_eq(count, want_count, "count %llu, want %llu", count, want_count);
    float want = 0.0f;
    for (int blk = 0; blk < BLOCKS; blk++) {
        float part[THREADS];
        for (int t = 0; t < THREADS; t++) {
            part[t] = 0.0f;
            for (int i = blk * THREADS + t; i < N; i += BLOCKS * THREADS)
                part[t] = fmaf(a[i], b[i], part[t]);
        }
        for (int stride = THREADS / 2; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; t++)
                part[t] += part[t + stride];
        want += part[0];
    }
    cr_assert_leq(ptx_test_ulp_distance_f32(result, want), (uint32_t)(BLOCKS - 1), "dot %a, want %a within %d ulps",
                  (double)result, (double)want, BLOCKS - 1);
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus, float4_scale_and_packed_rgba_to_grey)
{
    enum { BLOCK = 64, N = 2 * BLOCK + 1 };
    static float in[N * 4], out[N * 4 + 4];
    static uint32_t rgba[N];
    static uint8_t grey[N + 1];
    uint32_t seed = 4444;
    for (int i = 0; i < N * 4; i++)
        in[i] = random_float(&seed);
    for (int i = 0; i < N; i++)
        rgba[i] = ptx_test_random(&seed);
    in[1] = NAN;
    in[2] = -0.0f;
    in[3] = INFINITY;
    rgba[0] = 0xFFFFFFFFu; /* white: 255 */
    rgba[1] = 0x00000000u;
    rgba[2] = 0xFF0000FFu; /* red only: (77*255 + 128) >> 8 */
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_vec4.ptx", "corpus_vec4", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    CUdeviceptr drgba = ptx_test_upload(rgba, sizeof rgba), dgrey = ptx_test_upload(NULL, sizeof grey);
    float scale = 1.0f / 3.0f, offset = -0.0f; /* -0 + -0 stays -0 */
    int n = N;
    void *args[] = { &din, &dout, &scale, &offset, &drgba, &dgrey, &n };
    ptx_test_run(f, (unsigned[3]){ (N + BLOCK - 1) / BLOCK, 1, 1 }, (unsigned[3]){ BLOCK, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    ptx_test_download(grey, dgrey, sizeof grey);
    for (int i = 0; i < N * 4; i++)
        assert_same_f32(out[i], fmaf(in[i], scale, offset), "out", i);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ptx_test_f32_bits(out[N * 4 + i]), 0u, "wrote past n");
    cr_assert_eq(ptx_test_f32_bits(out[2]), 0x80000000u, "-0 * s + -0 is -0");
    for (int i = 0; i < N; i++) {
        uint32_t p = rgba[i];
        uint32_t want = (77u * (p & 0xFFu) + 150u * (p >> 8 & 0xFFu) + 29u * (p >> 16 & 0xFFu) + 128u) >> 8;
        cr_assert_eq(grey[i], want, "grey[%d] = %u, want %u (0x%08x)", i, grey[i], want, p);
    }
    cr_assert_eq(grey[0], 255);
    cr_assert_eq(grey[N], 0, "wrote past n");
    ptx_test_end(ctx, mod);
}

/* A float-to-integer cvt of PTX: v rounded as asked (already done by the
 * caller), NaN to 0, values past the destination's range to its bound. */
static int64_t saturate_to_int(double rounded, double lo, double hi_exclusive, int64_t lo_int, int64_t hi_int)
{
    if (isnan(rounded))
        return 0;
    if (rounded <= lo)
        return lo_int;
    if (rounded >= hi_exclusive)
        return hi_int;
    return (int64_t)rounded;
}

#define TO_S32(r) saturate_to_int((r), -2147483648.0, 2147483648.0, INT32_MIN, INT32_MAX)
#define TO_U32(r) saturate_to_int((r), 0.0, 4294967296.0, 0, UINT32_MAX)
#define TO_S64(r) saturate_to_int((r), -9223372036854775808.0, 9223372036854775808.0, INT64_MIN, INT64_MAX)

Test(ptx_corpus, conversions_round_and_saturate_as_ptx_says)
{
    enum { BLOCK = 32, N = 2 * BLOCK + 1 };
    static const float fedges[] = {
        0.0f, -0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, 0.99999994f, 1.0000001f,
        8388609.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 4294967040.0f,
        4294967296.0f, 1e10f, -1e10f, 9.2233715e18f, 9.223372e18f, -9.223372e18f, -9.2233730e18f,
        INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, 3e38f, -0.75f, 1.25f, -3.5f, 4.5f,
    };
    static const double dedges[] = {
        0.0, -0.0, 2147483647.5, 2147483647.9999, -2147483648.7, -2147483649.0, 4294967295.9, 4294967296.0,
        -0.9, -1.0, NAN, INFINITY, -INFINITY, 1e20, 9.2233720368547748e18, 9223372036854775808.0,
        -9223372036854775808.0, -9.3e18, 1e-310, 0.5, 1.5, 2.5, -2.5, 3.4028235677973366e38, 1e39,
        1.0000000596046448, 1.0000000894069672, 16777217.0, -7.5, 123456789.123,
    };
    static const int32_t kedges[] = { INT32_MIN, INT32_MAX, 16777217, -16777217, 33554435, 0, -1,
                                      2147483584, 2147483583, 16777219 };
    static float f[N], to_float[N * 5];
    static double d[N];
    static int32_t k[N], to_int[N * 5];
    static uint32_t to_uint[N * 2];
    static int64_t to_ll[N * 2];
    uint32_t seed = 2024;
    for (int i = 0; i < N; i++) {
        uint32_t r = ptx_test_random(&seed);
        f[i] = i < (int)(sizeof fedges / sizeof *fedges) ? fedges[i] : (float)(int32_t)r / 65536.0f;
        d[i] = i < (int)(sizeof dedges / sizeof *dedges) ? dedges[i] : (double)(int32_t)r * 3.25;
        k[i] = i < (int)(sizeof kedges / sizeof *kedges) ? kedges[i] : (int32_t)r;
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn = ptx_test_begin("corpus_convert.ptx", "corpus_convert", &ctx, &mod);
    CUdeviceptr df = ptx_test_upload(f, sizeof f), dd = ptx_test_upload(d, sizeof d);
    CUdeviceptr dk = ptx_test_upload(k, sizeof k), dti = ptx_test_upload(NULL, sizeof to_int);
    CUdeviceptr dtu = ptx_test_upload(NULL, sizeof to_uint), dtl = ptx_test_upload(NULL, sizeof to_ll);
    CUdeviceptr dtf = ptx_test_upload(NULL, sizeof to_float);
    int n = N;
    void *args[] = { &df, &dd, &dk, &dti, &dtu, &dtl, &dtf, &n };
    ptx_test_run(fn, (unsigned[3]){ (N + BLOCK - 1) / BLOCK, 1, 1 }, (unsigned[3]){ BLOCK, 1, 1 }, 0, args);
    ptx_test_download(to_int, dti, sizeof to_int);
    ptx_test_download(to_uint, dtu, sizeof to_uint);
    ptx_test_download(to_ll, dtl, sizeof to_ll);
    ptx_test_download(to_float, dtf, sizeof to_float);
    for (int i = 0; i < N; i++) {
        double x = f[i];
        int64_t want_int[5] = { TO_S32(rint(x)), TO_S32(trunc(x)), TO_S32(floor(x)), TO_S32(ceil(x)),
                                TO_S32(trunc(d[i])) };
        for (int j = 0; j < 5; j++)
            cr_assert_eq(to_int[i * 5 + j], (int32_t)want_int[j], "to_int[%d][%d] = %d, want %lld (f %a, d %a)", i,
                         j, to_int[i * 5 + j], (long long)want_int[j], x, d[i]);
        int64_t want_uint[2] = { TO_U32(rint(x)), TO_U32(trunc(d[i])) };
        for (int j = 0; j < 2; j++)
            cr_assert_eq(to_uint[i * 2 + j], (uint32_t)want_uint[j], "to_uint[%d][%d] = %u, want %lld (f %a, d %a)",
                         i, j, to_uint[i * 2 + j], (long long)want_uint[j], x, d[i]);
        int64_t want_ll[2] = { TO_S64(trunc(x)), TO_S64(rint(d[i])) };
        for (int j = 0; j < 2; j++)
            cr_assert_eq(to_ll[i * 2 + j], want_ll[j], "to_ll[%d][%d] = %lld, want %lld (f %a, d %a)", i, j,
                         (long long)to_ll[i * 2 + j], (long long)want_ll[j], x, d[i]);
        /* __saturatef: NaN and below 0 to +0, above 1 to 1 (-0 is left out:
         * the ISA does not say which zero it gives). */
        if (ptx_test_f32_bits(f[i]) != 0x80000000u) {
            float sat = isnan(f[i]) || f[i] < 0.0f ? 0.0f : f[i] > 1.0f ? 1.0f : f[i];
            assert_same_f32(to_float[i * 5 + 0], sat, "saturatef", i);
        }
        assert_same_f32(to_float[i * 5 + 1], (float)k[i], "int2float", i);
        assert_same_f32(to_float[i * 5 + 2], (float)d[i], "double2float", i);
        assert_same_f32(to_float[i * 5 + 3], rintf(f[i]), "rintf", i);
        assert_same_f32(to_float[i * 5 + 4], fmaf(floorf(f[i]), 0.5f, truncf(f[i])), "trunc+floor/2", i);
    }
    ptx_test_end(ctx, mod);
}
