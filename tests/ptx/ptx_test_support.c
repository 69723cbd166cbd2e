/* Helpers of the kernel-level PTX tests: see ptx_test_support.h. */
#include "ptx_test_support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ptx_test_read_fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GG_PTX_FIXTURE_DIR, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0L);
    cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

CUfunction ptx_test_load_kernel(const char *fixture, const char *kernel, CUmodule *mod)
{
    char *src = ptx_test_read_fixture(fixture);
    CUresult r = cuModuleLoadData(mod, src);
    free(src);
    cr_assert_eq(r, CUDA_SUCCESS, "loading %s -> %d (%s)", fixture, (int)r, gg_sim_last_error_detail());
    return sim_test_kernel(*mod, kernel);
}

CUdeviceptr ptx_test_upload(const void *host, size_t bytes)
{
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, bytes));
    if (host)
        CU_OK(cuMemcpyHtoD_v2(d, host, bytes));
    else
        CU_OK(cuMemsetD8_v2(d, 0, bytes));
    return d;
}

void ptx_test_download(void *host, CUdeviceptr d, size_t bytes)
{
    CU_OK(cuMemcpyDtoH_v2(host, d, bytes));
}

void ptx_test_run(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shared, void **args)
{
    CU_OK(cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, NULL, args,
                         NULL));
    CU_OK(cuCtxSynchronize());
}

uint32_t ptx_test_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

uint32_t ptx_test_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint64_t ptx_test_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

float ptx_test_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

double ptx_test_f64_from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

uint32_t ptx_test_gpu_f32_bits(float f)
{
    return isnan(f) ? PTX_TEST_NAN_F32 : ptx_test_f32_bits(f);
}

uint64_t ptx_test_gpu_f64_bits(double d)
{
    return isnan(d) ? PTX_TEST_NAN_F64 : ptx_test_f64_bits(d);
}

/* The floats in ascending order map onto consecutive integers: the negative
 * ones (sign bit set) are mirrored below the positive ones, -0 just under +0. */
static int64_t ordered_f32(float f)
{
    uint32_t u = ptx_test_f32_bits(f);
    return u & 0x80000000u ? -(int64_t)(u & 0x7FFFFFFFu) - 1 : (int64_t)u;
}

uint32_t ptx_test_ulp_distance_f32(float a, float b)
{
    cr_assert(!isnan(a) && !isnan(b), "ulp distance of a NaN");
    int64_t d = ordered_f32(a) - ordered_f32(b);
    return (uint32_t)(d < 0 ? -d : d);
}

static int64_t ordered_f64(double d)
{
    uint64_t u = ptx_test_f64_bits(d);
    return u & 0x8000000000000000ull ? -(int64_t)(u & 0x7FFFFFFFFFFFFFFFull) - 1 : (int64_t)u;
}

uint64_t ptx_test_ulp_distance_f64(double a, double b)
{
    cr_assert(!isnan(a) && !isnan(b), "ulp distance of a NaN");
    int64_t x = ordered_f64(a), y = ordered_f64(b);
    return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

uint32_t ptx_test_ulps_from_ref_f32(float got, double ref, double ref_err)
{
    cr_assert(!isnan(got) && !isnan(ref), "ulps from a NaN");
    double spread = fabs(ref) * ref_err;
    float lo = (float)(ref - spread), hi = (float)(ref + spread); /* rounding is monotonic */
    int64_t g = ordered_f32(got);
    if (g >= ordered_f32(lo) && g <= ordered_f32(hi))
        return 0;
    uint32_t dl = ptx_test_ulp_distance_f32(got, lo), dh = ptx_test_ulp_distance_f32(got, hi);
    return dl < dh ? dl : dh;
}

uint64_t ptx_test_ulps_from_ref_f64(double got, long double ref, long double ref_err)
{
    cr_assert(!isnan(got) && !isnan(ref), "ulps from a NaN");
    long double spread = fabsl(ref) * ref_err;
    double lo = (double)(ref - spread), hi = (double)(ref + spread);
    int64_t g = ordered_f64(got);
    if (g >= ordered_f64(lo) && g <= ordered_f64(hi))
        return 0;
    uint64_t dl = ptx_test_ulp_distance_f64(got, lo), dh = ptx_test_ulp_distance_f64(got, hi);
    return dl < dh ? dl : dh;
}

/* Runs kernel(buf0, ..., buf{nbuf-1}, int n) over n threads in blocks of
 * 128: each host[i] (bytes[i] long) is uploaded and, after the launch,
 * downloaded back. */
void ptx_test_run_elementwise(CUfunction f, int nbuf, void *const *host, const size_t *bytes, int n)
{
    CUdeviceptr d[12];
    void *args[13];
    cr_assert_leq(nbuf, 12);
    for (int i = 0; i < nbuf; i++) {
        d[i] = ptx_test_upload(host[i], bytes[i]);
        args[i] = &d[i];
    }
    args[nbuf] = &n;
    ptx_test_run(f, (unsigned[3]){ (unsigned)(n + 127) / 128, 1, 1 }, (unsigned[3]){ 128, 1, 1 }, 0, args);
    for (int i = 0; i < nbuf; i++) {
        ptx_test_download(host[i], d[i], bytes[i]);
        CU_OK(cuMemFree_v2(d[i]));
    }
}


/* A uniform float in [lo, hi] and a float whose magnitude is log-uniform in
 * [2^lo_exp, 2^hi_exp) with the given sign (0: random). */
float ptx_test_uniform_f32(uint32_t *seed, float lo, float hi)
{
    return lo + (hi - lo) * (float)(ptx_test_random(seed) >> 8) * 0x1p-24f;
}

float ptx_test_logscale_f32(uint32_t *seed, int lo_exp, int hi_exp, int sign)
{
    uint32_t r = ptx_test_random(seed);
    int e = lo_exp + (int)(r % (uint32_t)(hi_exp - lo_exp));
    float m = 1.0f + (float)(ptx_test_random(seed) >> 9) * 0x1p-23f;
    float v = ldexpf(m, e);
    return sign < 0 || (sign == 0 && (r & 0x80000000u)) ? -v : v;
}


void ptx_test_report(const struct ptx_test_max_error *m)
{
    cr_log_info("%s: max %llu ulp over %d inputs (bound %u)", m->fn, (unsigned long long)m->ulps, m->count,
                m->bound);
}

/* got against a float function whose double reference is ref: exact bits
 * where the reference rounds to a zero, an infinity or a NaN; otherwise at
 * most m->bound ulps from the correctly rounded value. */
void ptx_test_check_f32(struct ptx_test_max_error *m, float x, float got, double ref)
{
    float r = (float)ref;
    m->count++;
    /* A NaN result: any NaN. CUDA's math library returns NaN constants of
     * its own for some domains (pow of a negative base: nvcc moves
     * 0dFFF8000000000000, a negative NaN), so its bits are the library's
     * choice, not the canonical NaN of an arithmetic instruction. */
    if (isnan(ref)) {
        cr_assert(isnan(got), "%s(%a) = %a, want NaN", m->fn, (double)x, (double)got);
        return;
    }
    if (isinf(r) || ref == 0.0) {
        cr_assert_eq(ptx_test_f32_bits(got), ptx_test_gpu_f32_bits(r), "%s(%a) = %a (0x%08x), want %a", m->fn,
                     (double)x, (double)got, ptx_test_f32_bits(got), (double)r);
        return;
    }
    cr_assert(!isnan(got), "%s(%a) = NaN, want %a", m->fn, (double)x, ref);
    uint32_t d = ptx_test_ulps_from_ref_f32(got, ref, PTX_TEST_REF_ERR_F32);
    cr_assert_leq(d, m->bound, "%s(%a) = %a, %u ulps from %a (bound %u)", m->fn, (double)x, (double)got, d, ref,
                  m->bound);
    if (d > m->ulps)
        m->ulps = d;
}

void ptx_test_check_f64(struct ptx_test_max_error *m, double x, double got, long double ref)
{
    double r = (double)ref;
    m->count++;
    if (isnan(ref)) { /* any NaN: see ptx_test_check_f32 */
        cr_assert(isnan(got), "%s(%a) = %a, want NaN", m->fn, x, got);
        return;
    }
    if (isinf(r) || ref == 0.0L) {
        cr_assert_eq(ptx_test_f64_bits(got), ptx_test_gpu_f64_bits(r), "%s(%a) = %a, want %a", m->fn, x, got, r);
        return;
    }
    cr_assert(!isnan(got), "%s(%a) = NaN, want %La", m->fn, x, ref);
    uint64_t d = ptx_test_ulps_from_ref_f64(got, ref, PTX_TEST_REF_ERR_F64);
    cr_assert_leq(d, (uint64_t)m->bound, "%s(%a) = %a, %llu ulps from %La (bound %u)", m->fn, x, got,
                  (unsigned long long)d, ref, m->bound);
    if (d > m->ulps)
        m->ulps = d;
}

/* The size of one ulp of a float of magnitude |v| (denormal spacing below
 * the normal range). */
long double ptx_test_ulp_size_f32(long double v)
{
    int e;
    frexpl(fabsl(v), &e);
    return ldexpl(1.0L, (e - 1 < -126 ? -126 : e - 1) - 23);
}

/* |got - exact| within `budget`, an absolute bound built from the table;
 * returns the error in ulps of the exact value, for the report. */
long double ptx_test_check_budget(const char *what, int i, float got, long double exact, long double budget)
{
    cr_assert(!isnan(got), "%s[%d] = NaN, want %La", what, i, exact);
    long double err = fabsl((long double)got - exact);
    cr_assert(err <= budget, "%s[%d] = %a, want %La within %Lg (error %Lg)", what, i, (double)got, exact, budget,
              err);
    return err / ptx_test_ulp_size_f32(exact);
}


/* Loads a fixture that may hold a device function (.func), which the
 * interpreter refuses for now: the test is skipped with the refusal's text
 * only while the refusal names .func; any other failure fails it. */
CUfunction ptx_test_load_or_skip(const char *fixture, const char *kernel, const char *refusal, CUcontext *ctx,
                                 CUmodule *mod)
{
    sim_test_init(NULL);
    *ctx = sim_test_ctx(0);
    char *src = ptx_test_read_fixture(fixture);
    CUresult r = cuModuleLoadData(mod, src);
    free(src);
    if (r != CUDA_SUCCESS) {
        const char *detail = gg_sim_last_error_detail();
        cr_assert(detail && strstr(detail, refusal), "loading %s -> %d (%s)", fixture, (int)r, detail ? detail : "");
        CU_OK(cuCtxDestroy_v2(*ctx));
        cr_skip_test("%s: %s", fixture, detail);
    }
    return sim_test_kernel(*mod, kernel);
}


CUfunction ptx_test_begin(const char *fixture, const char *kernel, CUcontext *ctx, CUmodule *mod)
{
    sim_test_init(NULL);
    *ctx = sim_test_ctx(0);
    return ptx_test_load_kernel(fixture, kernel, mod);
}

void ptx_test_end(CUcontext ctx, CUmodule mod)
{
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}
