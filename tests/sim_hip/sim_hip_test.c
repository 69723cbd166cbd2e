#include "sim_hip_test.h"

#include <stdlib.h>

void sim_hip_test_init(const char *config)
{
    if (config)
        setenv("GPUGUARD_SIM_CONFIG", config, 1);
    else
        unsetenv("GPUGUARD_SIM_CONFIG");
    HIP_OK(hipInit(0));
}

hipModule_t sim_hip_test_module(void)
{
    hipModule_t m = NULL;
    HIP_OK(hipModuleLoad(&m, SIM_HIP_TEST_KERNELS));
    cr_assert_not_null(m);
    return m;
}

hipFunction_t sim_hip_test_kernel(hipModule_t m, const char *name)
{
    hipFunction_t f = NULL;
    HIP_OK(hipModuleGetFunction(&f, m, name));
    return f;
}

struct timespec sim_hip_test_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

double sim_hip_test_ms_since(struct timespec t0)
{
    struct timespec t = sim_hip_test_now();
    return (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

void sim_hip_test_sleep_ms(int ms)
{
    struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
}

hipError_t sim_hip_test_poll_stream(hipStream_t s, int timeout_ms)
{
    struct timespec t0 = sim_hip_test_now();
    hipError_t r;
    while ((r = hipStreamQuery(s)) == hipErrorNotReady && sim_hip_test_ms_since(t0) < timeout_ms)
        sim_hip_test_sleep_ms(2);
    return r;
}

hipError_t sim_hip_test_poll_event(hipEvent_t e, int timeout_ms)
{
    struct timespec t0 = sim_hip_test_now();
    hipError_t r;
    while ((r = hipEventQuery(e)) == hipErrorNotReady && sim_hip_test_ms_since(t0) < timeout_ms)
        sim_hip_test_sleep_ms(2);
    return r;
}

void sim_hip_test_assert_no_leaks(void)
{
    struct timespec t0 = sim_hip_test_now();
    while (gg_sim_live_objects() != 0 && sim_hip_test_ms_since(t0) < 10000)
        sim_hip_test_sleep_ms(5);
    cr_assert_eq(gg_sim_live_objects(), 0, "%llu simulator objects leaked", gg_sim_live_objects());
    for (int d = 0; d < 4; d++)
        cr_assert_eq(gg_sim_device_memory_used(d), 0, "device %d memory not freed", d);
}

/* The test that dereferences a device address expects a plain SIGSEGV, not
 * a sanitizer's report of it. */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_HIP_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define SIM_HIP_TEST_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_HIP_TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define SIM_HIP_TEST_TSAN 1
#endif
#endif
#ifdef SIM_HIP_TEST_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0";
}
#endif
#ifdef SIM_HIP_TEST_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "handle_segv=0";
}
#endif
