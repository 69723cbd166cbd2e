#include "sim_test.h"

#include <stdlib.h>

void sim_test_init(const char *config)
{
    if (config)
        setenv("GPUGUARD_SIM_CONFIG", config, 1);
    else
        unsetenv("GPUGUARD_SIM_CONFIG");
    CU_OK(cuInit(0));
}

CUcontext sim_test_ctx(int dev)
{
    CUcontext c = NULL;
    CU_OK(cuCtxCreate_v4(&c, NULL, 0, dev));
    cr_assert_not_null(c);
    return c;
}

CUmodule sim_test_module(void)
{
    CUmodule m = NULL;
    CU_OK(cuModuleLoad(&m, GG_TEST_KERNEL_DIR "/sim_test_kernels.so"));
    return m;
}

CUfunction sim_test_kernel(CUmodule m, const char *name)
{
    CUfunction f = NULL;
    CU_OK(cuModuleGetFunction(&f, m, name));
    return f;
}

struct timespec sim_test_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

double sim_test_ms_since(struct timespec t0)
{
    struct timespec t = sim_test_now();
    return (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

void sim_test_sleep_ms(int ms)
{
    struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
}

CUresult sim_test_poll_stream(CUstream s, int timeout_ms)
{
    struct timespec t0 = sim_test_now();
    CUresult r;
    while ((r = cuStreamQuery(s)) == CUDA_ERROR_NOT_READY && sim_test_ms_since(t0) < timeout_ms)
        sim_test_sleep_ms(2);
    return r;
}

CUresult sim_test_poll_event(CUevent e, int timeout_ms)
{
    struct timespec t0 = sim_test_now();
    CUresult r;
    while ((r = cuEventQuery(e)) == CUDA_ERROR_NOT_READY && sim_test_ms_since(t0) < timeout_ms)
        sim_test_sleep_ms(2);
    return r;
}

void sim_test_assert_no_leaks(void)
{
    struct timespec t0 = sim_test_now();
    while (gg_sim_live_objects() != 0 && sim_test_ms_since(t0) < 10000)
        sim_test_sleep_ms(5);
    cr_assert_eq(gg_sim_live_objects(), 0, "%llu simulator objects leaked", gg_sim_live_objects());
    for (int d = 0; d < 2; d++)
        cr_assert_eq(gg_sim_device_memory_used(d), 0, "device %d memory not freed", d);
}

/* The test that dereferences a device address expects a plain SIGSEGV,
 * not a sanitizer's report of it. */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define SIM_TEST_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define SIM_TEST_TSAN 1
#endif
#endif
#ifdef SIM_TEST_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0";
}
#endif
#ifdef SIM_TEST_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "handle_segv=0";
}
#endif
