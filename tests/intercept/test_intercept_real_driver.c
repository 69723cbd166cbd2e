/*
 * The interposer over Debian's real NVIDIA driver (libcuda1 535, CUDA 12.2,
 * fetched by scripts/fetch-referees.sh; no GPU here): the driver, not our
 * simulator, decides what is forwarded and what cuGetProcAddress hands out.
 * Run through tests/cuda/real_libcuda.sh, which sets GG_REAL_LIBCUDA or
 * reports the test skipped.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim_cuda.h"

static void *real_driver(void)
{
    const char *path = getenv("GG_REAL_LIBCUDA");
    if (path == NULL)
        cr_skip_test("GG_REAL_LIBCUDA is not set: run through ctest (tests/cuda/real_libcuda.sh)");
    setenv("GPUGUARD_INTERCEPT_DRIVER", path, 1);
    void *real = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(real, "cannot open %s: %s", path, dlerror());
    return real;
}

Test(intercept_real_driver, forwards_to_the_real_driver)
{
    void *real = real_driver();
    int version = 0;
    cr_assert_eq(cuDriverGetVersion(&version), CUDA_SUCCESS);
    cr_assert_eq(version, 12020, "the 535 driver said %d through the interposer", version);
    if (access("/proc/driver/nvidia", F_OK) != 0)
        cr_assert_eq(cuInit(0), CUDA_ERROR_NO_DEVICE, "no kernel module here: the driver's own 100");
    const char *name = NULL;
    cr_assert_eq(cuGetErrorName(CUDA_ERROR_LAUNCH_FAILED, &name), CUDA_SUCCESS);
    cr_assert_str_eq(name, "CUDA_ERROR_LAUNCH_FAILED", "the real driver's own name for 719");
    dlclose(real);
}

Test(intercept_real_driver, proc_address_wraps_what_it_knows_and_passes_the_rest)
{
    void *real = real_driver();
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(dlsym(self, "gg_intercept_marker"), "libcuda.so.1 here is not the interposer");
    CUdriverProcAddressQueryResult st;
    void *pfn = NULL;
    /* Known: the variant the real driver picks for 12.2, as its wrapper. */
    cr_assert_eq(cuGetProcAddress_v2("cuCtxCreate", &pfn, 12020, 0, &st), CUDA_SUCCESS);
    cr_assert_eq(st, CU_GET_PROC_ADDRESS_SUCCESS);
    cr_assert_eq(pfn, dlsym(self, "cuCtxCreate_v3"), "12.2 hands out cuCtxCreate_v3: its wrapper was expected");
    cr_assert_eq(cuGetProcAddress_v2("cuMemAlloc", &pfn, 12020, 0, &st), CUDA_SUCCESS);
    cr_assert_eq(pfn, dlsym(self, "cuMemAlloc_v2"));
    /* Asked for an older ABI, the driver's older variant: its wrapper too. */
    cr_assert_eq(cuGetProcAddress_v2("cuCtxCreate", &pfn, 3020, 0, &st), CUDA_SUCCESS);
    cr_assert_eq(pfn, dlsym(self, "cuCtxCreate_v2"));
    /* Unknown to the interposer: the driver's own pointer, unchanged. */
    cr_assert_eq(cuGetProcAddress_v2("cuGraphCreate", &pfn, 12020, 0, &st), CUDA_SUCCESS);
    cr_assert_eq(st, CU_GET_PROC_ADDRESS_SUCCESS);
    cr_assert_not_null(pfn);
    cr_assert_eq(pfn, dlsym(real, "cuGraphCreate"), "an unwrapped entry point was not passed through");
    /* Per-thread default stream variants are not wrapped: passed through. */
    cr_assert_eq(cuGetProcAddress_v2("cuLaunchKernel", &pfn, 12020, 2, &st), CUDA_SUCCESS);
    cr_assert_eq(pfn, dlsym(real, "cuLaunchKernel_ptsz"));
    dlclose(self);
    dlclose(real);
}

Test(intercept_real_driver, a_function_the_driver_lacks_is_not_found_not_a_crash)
{
    void *real = real_driver();
    cr_assert_null(dlsym(real, "cuCtxCreate_v4"), "the 535 driver (12.2) has no cuCtxCreate_v4 (12.5)");
    int version = 0;
    cr_assert_eq(cuDriverGetVersion(&version), CUDA_SUCCESS); /* loaded: the fast path from here */
    CUcontext ctx = NULL;
    cr_assert_eq(cuCtxCreate_v4(&ctx, NULL, 0, 0), CUDA_ERROR_NOT_FOUND);
    dlclose(real);
}

Test(intercept_real_driver, the_plan_applies_before_the_real_driver)
{
    void *real = real_driver();
    setenv("GPUGUARD_INTERCEPT_FAULTS", "{\"rules\": [{\"function\": \"cuDriverGetVersion\", \"nth\": 2, "
                                        "\"error\": 999}]}", 1);
    int version = 0;
    cr_assert_eq(cuDriverGetVersion(&version), CUDA_SUCCESS);
    cr_assert_eq(cuDriverGetVersion(&version), CUDA_ERROR_UNKNOWN, "the numeric error 999 was not injected");
    cr_assert_eq(cuDriverGetVersion(&version), CUDA_SUCCESS);
    dlclose(real);
}
