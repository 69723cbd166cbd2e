/* fixtures/math_ops.ptx (from kernels/math_ops.cu) run through the
 * simulator's CUDA face: directed rounding, square roots, the .approx
 * functions and bit manipulation, each lane's result compared with a host
 * C reference computed without the interpreter's method.
 *
 * Directed results: the host's round-to-nearest result, moved one ulp when
 * the exact value (in __float128, exact for these inputs' ranges) lies on
 * the other side of it. .approx results: within 1 ulp of a long double
 * reference (the bound ptx_alu_parts.h states). */
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_math_kernel, .timeout = 60);

__extension__ typedef __float128 quad;

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static CUfunction load(const char *kernel, CUmodule *mod)
{
    CU_OK(cuModuleLoad(mod, GG_PTX_FIXTURE_DIR "/math_ops.ptx"));
    return sim_test_kernel(*mod, kernel);
}

static CUdeviceptr upload(const void *host, size_t bytes)
{
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, bytes));
    if (host)
        CU_OK(cuMemcpyHtoD_v2(d, host, bytes));
    return d;
}

/* Runs kernel over n lanes of a, b, c into out (n * per_lane elements). */
static void run_kernel(const char *kernel, const void *a, const void *b, const void *c, size_t elem,
                       int n, void *out, size_t per_lane)
{
    CUmodule m;
    CUfunction f = load(kernel, &m);
    CUdeviceptr da = upload(a, elem * (size_t)n), db = upload(b, elem * (size_t)n);
    CUdeviceptr dc = upload(c, elem * (size_t)n), dout = upload(NULL, elem * (size_t)n * per_lane);
    void *args[] = { &da, &db, &dc, &dout, &n };
    CU_OK(cuLaunchKernel(f, (unsigned)(n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, dout, elem * (size_t)n * per_lane));
    CU_OK(cuMemFree_v2(da));
    CU_OK(cuMemFree_v2(db));
    CU_OK(cuMemFree_v2(dc));
    CU_OK(cuMemFree_v2(dout));
    CU_OK(cuModuleUnload(m));
}

/* sign(exact - rn); 0 when equal or unordered. */
static int side(quad exact, double rn)
{
    return exact > (quad)rn ? 1 : exact < (quad)rn ? -1 : 0;
}

/* The result in rounding mode ('z', 'd', 'u') from the nearest one and the
 * side the exact value lies on. */
static float directed32(float rn, int cmp, char mode)
{
    if (mode == 'z')
        mode = rn > 0 || (rn == 0 && cmp > 0) ? 'd' : 'u';
    if (mode == 'd' && cmp < 0)
        return nextafterf(rn, -INFINITY);
    if (mode == 'u' && cmp > 0)
        return nextafterf(rn, INFINITY);
    return rn;
}

static double directed64(double rn, int cmp, char mode)
{
    if (mode == 'z')
        mode = rn > 0 || (rn == 0 && cmp > 0) ? 'd' : 'u';
    if (mode == 'd' && cmp < 0)
        return nextafter(rn, -INFINITY);
    if (mode == 'u' && cmp > 0)
        return nextafter(rn, INFINITY);
    return rn;
}

static uint32_t bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return isnan(f) ? 0x7FFFFFFFu : u; }
static uint64_t bits64(double d) { uint64_t u; memcpy(&u, &d, 8); return isnan(d) ? 0x7FFFFFFFFFFFFFFFull : u; }

/* Distance in ulps between two floats (NaN and NaN: 0; NaN and a number: huge). */
static int64_t ulps32(float x, float y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y) ? 0 : INT64_MAX;
    int32_t a, b;
    memcpy(&a, &x, 4);
    memcpy(&b, &y, 4);
    int64_t oa = a < 0 ? (int64_t)INT32_MIN - a : a, ob = b < 0 ? (int64_t)INT32_MIN - b : b;
    return oa > ob ? oa - ob : ob - oa;
}

static int64_t ulps64(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y) ? 0 : INT64_MAX;
    if (x == y)
        return 0;
    int64_t n = 0;
    while (x != y && n < 8) { /* only small distances matter */
        x = nextafter(x, y);
        n++;
    }
    return x == y ? n : INT64_MAX;
}

/* A float of magnitude within 2^-20 .. 2^20, random sign. */
static float random_f32(uint32_t *s)
{
    float m = 1.0f + (float)(next_random(s) & 0x7FFFFF) / 8388608.0f;
    int e = (int)(next_random(s) % 41) - 20;
    return ((next_random(s) & 1) ? -1.0f : 1.0f) * ldexpf(m, e);
}

Test(ptx_math_kernel, f32_directed_rounding_sqrt_and_approx_functions)
{
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    enum { N = 256, K = 16 };
    static float a[N], b[N], c[N], out[N * K];
    /* Edges first: zeros, infinities, NaN, a negative, a subnormal, exact squares. */
    const float edge_x[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -4.0f, 0x1p-140f, 4.0f, 2.0f, 1.0f };
    const float edge_y[] = { -0.0f, 0.0f, 2.0f, 1.0f, 1.0f, 3.0f, 0x1p-3f, 0.0f, -2.0f, 0x1p-30f };
    const float edge_z[] = { 0.0f, -0.0f, 1.0f, 1.0f, 1.0f, 1.0f, 0x1p-149f, -0.0f, 0.5f, -1.0f };
    uint32_t seed = 7;
    for (int i = 0; i < N; i++) {
        a[i] = random_f32(&seed);
        b[i] = random_f32(&seed);
        c[i] = random_f32(&seed);
        if (i % 3 == 0)
            a[i] = fabsf(a[i]); /* square roots of positives too */
    }
    for (size_t i = 0; i < sizeof edge_x / sizeof edge_x[0]; i++) {
        a[i] = edge_x[i];
        b[i] = edge_y[i];
        c[i] = edge_z[i];
    }
    run_kernel("math_f32", a, b, c, sizeof(float), N, out, K);
    for (int i = 0; i < N; i++) {
        float x = a[i], y = b[i], z = c[i];
        const float *o = out + (size_t)i * K;
        float sq = sqrtf(x);
        int sq_side = side((quad)x - (quad)sq * (quad)sq, 0.0);
        float fm = fmaf(x, y, z);
        int fm_side = side((quad)x * (quad)y + (quad)z, fm);
        /* An exact zero sum of terms of opposite signs is -0 rounding down. */
        float fm_down = directed32(fm, fm_side, 'd');
        if (fm == 0 && fm_side == 0 && !(signbit(x * y) == 0 && signbit(z) == 0) && !isnan(fm))
            fm_down = -0.0f;
        float sum = x + y, prod = x * y, quo = x / y;
        int quo_side = side(((quad)x - (quad)quo * (quad)y) * (y < 0 ? -1 : 1), 0.0);
        float want[K] = {
            directed32(sq, sq_side, 'z'), directed32(sq, sq_side, 'd'), directed32(sq, sq_side, 'u'),
            fm_down, directed32(fm, fm_side, 'z'), directed32(fm, fm_side, 'u'),
            directed32(sum, side((quad)x + (quad)y, sum), 'z'),
            directed32(prod, side((quad)x * (quad)y, prod), 'd'),
            isinf(y) || y == 0 ? quo : directed32(quo, quo_side, 'u'),
            copysignf(fabsf(x), y) /* copysignf(x, y): x's magnitude, y's sign */,
        };
        for (int k = 0; k < 10; k++)
            cr_assert_eq(bits32(o[k]), bits32(want[k]), "lane %d (x %a y %a z %a) result %d: %a, want %a",
                         i, (double)x, (double)y, (double)z, k, (double)o[k], (double)want[k]);
        /* .approx functions: within 1 ulp of a long double reference. */
        float approx_want[] = {
            x == 0 ? copysignf(INFINITY, x) : (float)(1.0L / sqrtl(x)), (float)exp2l(y),
            x == 0 ? -INFINITY : (float)log2l(x), (float)sinl(y), (float)cosl(y), sq,
        };
        for (int k = 10; k < K; k++)
            cr_assert_leq(ulps32(o[k], approx_want[k - 10]), 1, "lane %d (x %a y %a) result %d: %a, want %a",
                          i, (double)x, (double)y, k, (double)o[k], (double)approx_want[k - 10]);
    }
    cr_assert_eq(bits32(out[5 * K + 0]), 0x7FFFFFFFu, "sqrt.rz of -4 is the canonical NaN");
    cr_assert_eq(bits32(out[1 * K + 0]), 0x80000000u, "sqrt.rz of -0 is -0");
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}

Test(ptx_math_kernel, f64_directed_rounding_sqrt_and_rsqrt)
{
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    enum { N = 192, K = 8 };
    static double a[N], b[N], c[N], out[N * K];
    uint32_t seed = 11;
    for (int i = 0; i < N; i++) {
        /* Magnitudes within 2^-3 .. 2^3: x * y + z and x - q * y are exact in __float128. */
        double m[3];
        for (int j = 0; j < 3; j++) {
            uint64_t mant = ((uint64_t)next_random(&seed) << 32 | next_random(&seed)) >> 12;
            m[j] = ldexp(1.0 + ldexp((double)mant, -52), (int)(next_random(&seed) % 7) - 3);
        }
        a[i] = (i % 4 == 3) ? -m[0] : m[0];
        b[i] = (next_random(&seed) & 1) ? -m[1] : m[1];
        c[i] = (next_random(&seed) & 1) ? -m[2] : m[2];
    }
    a[0] = -0.0; b[0] = 2.0; c[0] = 0.0; /* fma.rm: -0 * 2 + 0 = -0 rounding down */
    a[1] = 0.0; b[1] = -1.0; c[1] = 0.0;
    run_kernel("math_f64", a, b, c, sizeof(double), N, out, K);
    for (int i = 0; i < N; i++) {
        double x = a[i], y = b[i], z = c[i];
        const double *o = out + (size_t)i * K;
        double sq = sqrt(x);
        int sq_side = side((quad)x - (quad)sq * (quad)sq, 0.0);
        double fm = fma(x, y, z);
        int fm_side = side((quad)x * (quad)y + (quad)z, fm);
        double fm_down = directed64(fm, fm_side, 'd');
        if (fm == 0 && fm_side == 0 && !(signbit(x * y) == 0 && signbit(z) == 0))
            fm_down = -0.0;
        double sum = x + y, quo = x / y;
        int quo_side = side(((quad)x - (quad)quo * (quad)y) * (y < 0 ? -1 : 1), 0.0);
        double want[6] = {
            directed64(sq, sq_side, 'z'), fm_down, directed64(fm, fm_side, 'u'),
            directed64(sum, side((quad)x + (quad)y, sum), 'z'), directed64(quo, quo_side, 'd'),
            copysign(fabs(x), y),
        };
        for (int k = 0; k < 6; k++)
            cr_assert_eq(bits64(o[k]), bits64(want[k]), "lane %d (x %a y %a z %a) result %d: %a, want %a",
                         i, x, y, z, k, o[k], want[k]);
        double rs = x == 0 ? copysign(INFINITY, x) : (double)(1.0L / sqrtl(x));
        cr_assert_leq(ulps64(o[6], rs), 1, "lane %d rsqrt(%a): %a, want %a", i, x, o[6], rs);
        cr_assert_eq(bits64(o[7]), bits64(sq), "lane %d sqrt(%a): %a, want %a", i, x, o[7], sq);
    }
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}

static uint32_t ref_brev(uint32_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        if (x >> i & 1)
            r |= 1u << (31 - i);
    return r;
}

static uint32_t ref_popc(uint64_t x)
{
    uint32_t n = 0;
    for (; x; x >>= 1)
        n += (uint32_t)(x & 1);
    return n;
}

static uint32_t ref_clz(uint64_t x, int bits)
{
    uint32_t n = 0;
    for (int i = bits - 1; i >= 0 && !(x >> i & 1); i--)
        n++;
    return n;
}

static uint32_t byte_of(uint32_t x, uint32_t y, unsigned k) /* byte k of y:x */
{
    return ((k < 4 ? x : y) >> (8 * (k & 3))) & 0xFF;
}

Test(ptx_math_kernel, bit_manipulation)
{
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    enum { N = 256, K = 20 };
    static uint32_t a[N], b[N], c[N], out[N * K];
    uint32_t seed = 3;
    for (int i = 0; i < N; i++) {
        a[i] = next_random(&seed);
        b[i] = next_random(&seed);
        c[i] = next_random(&seed);
        if (i % 5 == 0)
            c[i] &= 0x3F3F; /* positions and lengths below 64 as often as not */
    }
    a[0] = 0; b[0] = 0; c[0] = 32;              /* clz 32, ffs 0, shift by 32 */
    a[1] = 0x80000000u; b[1] = 0x7FFFFFFFu; c[1] = 33; /* INT_MIN */
    a[2] = 0xFFFFFFFFu; b[2] = 1; c[2] = 0x2010; /* bfe len 32 from 16 */
    run_kernel("math_bits", a, b, c, sizeof(uint32_t), N, out, K);
    for (int i = 0; i < N; i++) {
        uint32_t x = a[i], y = b[i], s = c[i];
        uint64_t xy = (uint64_t)x << 32 | y;
        const uint32_t *o = out + (size_t)i * K;
        uint32_t perm = 0;
        for (unsigned k = 0; k < 4; k++) {
            unsigned sel = (s >> (4 * k)) & 0x7; /* CUDA's __byte_perm: nvcc masks with 0x7777 */
            perm |= byte_of(x, y, sel) << (8 * k);
        }
        /* Funnel shifts of the pair y:x (PTX shf's b:a is CUDA's hi:lo). */
        uint64_t pair = (uint64_t)y << 32 | x;
        unsigned wrap = s & 31, clamp = s > 32 ? 32 : s;
        uint32_t pos = s & 0xFF, len = (s >> 8) & 0xFF;
        uint32_t ext_u = 0, ext_s, ins = y;
        for (uint32_t k = 0; k < len && pos + k < 32; k++)
            ext_u |= (x >> (pos + k) & 1) << k;
        uint32_t top = pos + len - 1 < 31 ? pos + len - 1 : 31;
        bool sign = len > 0 && (x >> top & 1);
        ext_s = ext_u;
        for (uint32_t k = pos >= 32 ? 0 : (len < 32 - pos ? len : 32 - pos); k < 32 && sign; k++)
            ext_s |= 1u << k;
        for (uint32_t k = 0; k < len && pos + k < 32; k++)
            ins = (ins & ~(1u << (pos + k))) | ((x >> k & 1) << (pos + k));
        uint32_t inv = (x >> 31) ? ~x : x;
        uint32_t find = inv ? 31 - ref_clz(inv, 32) : 0xFFFFFFFFu;
        uint32_t f4e = 0, ecr = 0;
        for (unsigned k = 0; k < 4; k++) {
            f4e |= byte_of(x, y, ((s & 3) + k) & 7) << (8 * k);
            ecr |= byte_of(x, y, k < (s & 3) ? k : (s & 3)) << (8 * k);
        }
        uint32_t want[K] = {
            ref_brev(x), ref_popc(x), ref_clz(x, 32), perm,
            (uint32_t)((pair << wrap) >> 32), (uint32_t)(pair >> wrap),
            (uint32_t)((pair << clamp) >> 32), (uint32_t)(pair >> clamp),
            s + ((int64_t)(int32_t)x > (int64_t)(int32_t)y ? (uint32_t)x - (uint32_t)y : (uint32_t)y - (uint32_t)x),
            ref_popc(xy), ref_clz(xy >> (s & 63), 64), x ? 1 + (uint32_t)__builtin_ctz(x) : 0,
            ref_brev(x), ref_brev(y), ext_u, ext_s, ins, find, f4e, ecr,
        };
        for (int k = 0; k < K; k++)
            cr_assert_eq(o[k], want[k], "lane %d (x %#x y %#x s %#x) result %d: %#x, want %#x", i, x, y,
                         s, k, o[k], want[k]);
    }
    cr_assert_eq(out[2 * K + 15], 0xFFFFFFFFu, "bfe.s32 of 32 bits from 16: the top sign-extends");
    cr_assert_eq(out[2 * K + 14], 0xFFFFu, "bfe.u32 stops at bit 31");
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}
