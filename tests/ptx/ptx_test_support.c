/* Helpers of the kernel-level PTX tests: see ptx_test_support.h. */
#include "ptx_test_support.h"

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
