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

/* A program linked directly against a driver function the interposer does
 * not wrap (cuGraphCreate, cuMemGetInfo_v2 here) finds it in the interposer
 * (a pass-through trampoline, so it starts under LD_LIBRARY_PATH), and the
 * call reaches the real driver: the same answer as the driver's own
 * function, in every argument register. */
Test(intercept_real_driver, unwrapped_exports_pass_through_to_the_real_driver)
{
    void *real = real_driver();
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(dlsym(self, "gg_intercept_marker"), "libcuda.so.1 here is not the interposer");
    static const char *const names[] = { "cuGraphCreate", "cuMemGetInfo_v2", "cuDeviceGetUuid_v2",
                                         "cuLaunchKernel_ptsz", "cuFlushGPUDirectRDMAWrites" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *mine = dlsym(self, names[i]);
        void *theirs = dlsym(real, names[i]);
        cr_assert_not_null(theirs, "the 535 driver exports %s", names[i]);
        cr_assert_not_null(mine, "the interposer does not export %s", names[i]);
        cr_assert_neq(mine, theirs, "%s: the interposer's own trampoline was expected", names[i]);
        Dl_info info;
        cr_assert(dladdr(mine, &info) && dladdr(theirs, &info) != 0);
    }
    /* Called with arguments in six registers: the same answers. (No kernel
     * module here: the driver answers its own errors, not ours: never 34,
     * 500.) */
    typedef CUresult (*graph_create)(void **, unsigned int);
    typedef CUresult (*mem_info)(size_t *, size_t *);
    typedef CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                               void **, void **);
    void *g = NULL;
    size_t free_b = 0, total_b = 0;
    graph_create gc_mine = (graph_create)(uintptr_t)dlsym(self, "cuGraphCreate");
    graph_create gc_real = (graph_create)(uintptr_t)dlsym(real, "cuGraphCreate");
    mem_info mi_mine = (mem_info)(uintptr_t)dlsym(self, "cuMemGetInfo_v2");
    mem_info mi_real = (mem_info)(uintptr_t)dlsym(real, "cuMemGetInfo_v2");
    launch l_mine = (launch)(uintptr_t)dlsym(self, "cuLaunchKernel_ptsz");
    launch l_real = (launch)(uintptr_t)dlsym(real, "cuLaunchKernel_ptsz");
    for (int round = 0; round < 2; round++) { /* the first call resolves the trampoline, the second jumps */
        CUresult a = gc_mine(&g, 0), b = gc_real(&g, 0);
        cr_assert_eq(a, b, "cuGraphCreate: %d through the interposer, %d from the driver", a, b);
        cr_assert(a != CUDA_ERROR_STUB_LIBRARY && a != CUDA_ERROR_NOT_FOUND);
        a = mi_mine(&free_b, &total_b), b = mi_real(&free_b, &total_b);
        cr_assert_eq(a, b, "cuMemGetInfo_v2: %d through the interposer, %d from the driver", a, b);
        a = l_mine(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
        b = l_real(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
        cr_assert_eq(a, b, "cuLaunchKernel_ptsz: %d through the interposer, %d from the driver", a, b);
    }
    dlclose(self);
    dlclose(real);
}

/* While a plan (or a report) is in force, cuGetProcAddress hands out the
 * interposer's trampoline for a function it only passes through (here the
 * per-thread-stream launch and cuGraphCreate, as the CUDA runtime gets
 * them), so those calls are counted and can be failed; the calls the plan
 * does not fail still get the real driver's own answers. */
Test(intercept_real_driver, with_a_plan_proc_address_hands_out_trampolines_that_plans_reach)
{
    void *real = real_driver();
    setenv("GPUGUARD_INTERCEPT_FAULTS", "{\"rules\": [{\"function\": \"cuLaunchKernel\", \"nth\": 2, "
                                        "\"error\": \"launch_failed\"}, {\"function\": \"cuGraphCreate\", "
                                        "\"nth\": 1, \"error\": \"out_of_memory\"}]}", 1);
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(dlsym(self, "gg_intercept_marker"), "libcuda.so.1 here is not the interposer");
    CUdriverProcAddressQueryResult st;
    void *launch_p = NULL, *graph_p = NULL;
    cr_assert_eq(cuGetProcAddress_v2("cuLaunchKernel", &launch_p, 12020, 2, &st), CUDA_SUCCESS);
    cr_assert_eq(launch_p, dlsym(self, "cuLaunchKernel_ptsz"), "the trampoline of cuLaunchKernel_ptsz was expected");
    cr_assert_eq(cuGetProcAddress_v2("cuGraphCreate", &graph_p, 12020, 0, &st), CUDA_SUCCESS);
    cr_assert_eq(graph_p, dlsym(self, "cuGraphCreate"));
    typedef CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                               void **, void **);
    typedef CUresult (*graph_create)(void **, unsigned int);
    launch l_mine = (launch)(uintptr_t)launch_p;
    launch l_real = (launch)(uintptr_t)dlsym(real, "cuLaunchKernel_ptsz");
    graph_create gc_mine = (graph_create)(uintptr_t)graph_p;
    graph_create gc_real = (graph_create)(uintptr_t)dlsym(real, "cuGraphCreate");
    CUresult driver_launch = l_real(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    cr_assert_eq(l_mine(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), driver_launch, "the first: the driver's answer");
    cr_assert_eq(l_mine(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_LAUNCH_FAILED, "the second: failed");
    cr_assert_eq(l_mine(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), driver_launch);
    void *g = NULL;
    cr_assert_eq(gc_mine(&g, 0), CUDA_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(gc_mine(&g, 0), gc_real(&g, 0));
    dlclose(self);
    dlclose(real);
}
