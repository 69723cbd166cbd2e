/* Device faults: sticky errors from kernels and misbehave rules on every
 * later call until a reset, the watchdog (702), hangs and prompt resets. */
#include "sim_hip_test.h"

#include <pthread.h>
#include <string.h>

TestSuite(sim_hip_faults, .timeout = 120);

typedef struct victim {
    void *mem;         /* device memory of the faulted device */
    void *host;        /* page-locked memory of the faulted device */
    hipStream_t s;
    hipEvent_t e;
    hipModule_t m;
    hipFunction_t noop;
} victim;

/* Makes a set of objects on the current device for assert_poisoned. */
static void make_victim(victim *v)
{
    HIP_OK(hipMalloc(&v->mem, 64));
    HIP_OK(hipHostMalloc(&v->host, 64, 0));
    HIP_OK(hipStreamCreateWithFlags(&v->s, hipStreamNonBlocking));
    HIP_OK(hipEventCreate(&v->e));
    v->m = sim_hip_test_module();
    v->noop = sim_hip_test_kernel(v->m, "noop");
}

/* Every call that uses the faulted device returns the sticky error; the
 * calls that need no context keep working, as does the other device. Then
 * a reset (hipDeviceReset, or hipDevicePrimaryCtxReset if by_primary)
 * clears it and frees everything. The faulted device is current. */
static void assert_poisoned(hipError_t sticky, const victim *v, bool by_primary)
{
    int dev = -1;
    HIP_OK(hipGetDevice(&dev));
    char host[8] = { 0 };
    void *p;
    hipStream_t s2;
    hipEvent_t e2;
    hipModule_t m2;
    hipFunction_t f;
    HIP_IS(hipDeviceSynchronize(), sticky);
    HIP_IS(hipMalloc(&p, 8), sticky);
    HIP_IS(hipFree(v->mem), sticky);
    HIP_IS(hipHostMalloc(&p, 8, 0), sticky);
    HIP_IS(hipHostFree(v->host), sticky);
    HIP_IS(hipMemcpyHtoD(v->mem, host, 8), sticky);
    HIP_IS(hipMemcpyDtoH(host, v->mem, 8), sticky);
    HIP_IS(hipMemcpyDtoD(v->mem, v->mem, 8), sticky);
    HIP_IS(hipMemsetD8(v->mem, 0, 8), sticky);
    HIP_IS(hipMemcpyHtoDAsync(v->mem, host, 8, v->s), sticky);
    HIP_IS(hipMemcpyDtoHAsync(host, v->mem, 8, NULL), sticky);
    HIP_IS(hipMemcpyDtoDAsync(v->mem, v->mem, 8, v->s), sticky);
    HIP_IS(hipMemsetD8Async(v->mem, 0, 8, v->s), sticky);
    HIP_IS(hipStreamQuery(v->s), sticky);
    HIP_IS(hipStreamSynchronize(v->s), sticky);
    HIP_IS(hipStreamQuery(NULL), sticky);
    HIP_IS(hipStreamSynchronize(NULL), sticky);
    HIP_IS(hipStreamWaitEvent(v->s, v->e, 0), sticky);
    HIP_IS(hipStreamCreateWithFlags(&s2, 0), sticky);
    HIP_IS(hipStreamDestroy(v->s), sticky);
    HIP_IS(hipEventCreate(&e2), sticky);
    HIP_IS(hipEventRecord(v->e, v->s), sticky);
    HIP_IS(hipEventQuery(v->e), sticky);
    HIP_IS(hipEventSynchronize(v->e), sticky);
    HIP_IS(hipEventDestroy(v->e), sticky);
    HIP_IS(hipModuleLoad(&m2, SIM_HIP_TEST_KERNELS), sticky);
    HIP_IS(hipModuleGetFunction(&f, v->m, "noop"), sticky);
    HIP_IS(hipModuleUnload(v->m), sticky);
    HIP_IS(hipModuleLaunchKernel(v->noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), sticky);
    HIP_IS(hipModuleLaunchKernel(v->noop, 1, 1, 1, 1, 1, 1, 0, v->s, NULL, NULL), sticky);
    /* Still working: no context needed. */
    int n, attr;
    HIP_OK(hipGetDeviceCount(&n));
    HIP_OK(hipDeviceGetAttribute(&attr, hipDeviceAttributeKernelExecTimeout, dev));
    hipCtx_t c, cur;
    HIP_OK(hipDevicePrimaryCtxRetain(&c, dev));
    HIP_OK(hipDevicePrimaryCtxRelease(dev));
    HIP_OK(hipCtxGetCurrent(&cur));
    cr_assert_eq(cur, c);
    HIP_OK(hipCtxPushCurrent(c));
    HIP_OK(hipCtxPopCurrent(&cur));
    cr_assert_str_neq(hipGetErrorName(sticky), "hipErrorUnknown");
    /* The other device is unaffected. */
    HIP_OK(hipSetDevice(1 - dev));
    HIP_OK(hipMalloc(&p, 8));
    HIP_OK(hipMemcpyHtoD(p, host, 8));
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipFree(p));
    HIP_OK(hipSetDevice(dev));
    HIP_IS(hipDeviceSynchronize(), sticky); /* ... and still sticky */

    /* A reset clears it; every object of the device is gone. */
    if (by_primary)
        HIP_OK(hipDevicePrimaryCtxReset(dev));
    else
        HIP_OK(hipDeviceReset());
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipStreamQuery(NULL));
    HIP_IS(hipStreamQuery(v->s), hipErrorInvalidHandle);
    HIP_IS(hipEventQuery(v->e), hipErrorInvalidHandle);
    HIP_IS(hipModuleGetFunction(&f, v->m, "noop"), hipErrorInvalidHandle);
    HIP_IS(hipFree(v->mem), hipErrorInvalidValue);
    HIP_IS(hipHostFree(v->host), hipErrorInvalidValue);
    HIP_OK(hipMalloc(&p, 8));
    HIP_OK(hipFree(p));
    hipModule_t m = sim_hip_test_module();
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL,
                                 NULL, NULL));
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_faults, kernel_out_of_bounds_is_sticky_illegal_address)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    victim v;
    make_victim(&v);
    hipFunction_t touch = sim_hip_test_kernel(v.m, "touch");
    hipFunction_t spin = sim_hip_test_kernel(v.m, "spin");
    void *a;
    HIP_OK(hipMalloc(&a, 100 << 20));
    uint64_t da = (uint64_t)(uintptr_t)a, off = 99;
    void *ok_args[] = { &da, &off };
    HIP_OK(hipModuleLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, v.s, ok_args, NULL));
    HIP_OK(hipStreamSynchronize(v.s));
    struct timespec t0 = sim_hip_test_now();
    unsigned first_ms = 300, long_ms = 8000;
    void *first_args[] = { &first_ms };
    void *long_args[] = { &long_ms };
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, v.s, first_args, NULL));
    /* The fault is asynchronous: these calls return success, or already the
     * sticky error if the machine is slow enough for the fault to come first. */
    uint64_t bad = 100u << 20;
    void *bad_args[] = { &da, &bad };
    HIP_OK(hipModuleLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, v.s, bad_args, NULL));
    hipError_t r = hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, v.s, long_args, NULL);
    cr_assert(r == hipSuccess || r == hipErrorIllegalAddress, "%d", r);
    HIP_IS(hipStreamSynchronize(v.s), hipErrorIllegalAddress);
    cr_assert_lt(sim_hip_test_ms_since(t0), 6000.0, "pending work was not discarded");
    cr_assert_eq(gg_sim_device_memory_used(1), (100u << 20) + 4096u, "still allocated");
    assert_poisoned(hipErrorIllegalAddress, &v, false);
}

Test(sim_hip_faults, trap_assert_is_sticky)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    victim v;
    make_victim(&v);
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(v.m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0,
                                 v.s, NULL, NULL));
    cr_assert_eq(sim_hip_test_poll_stream(v.s, 10000), hipErrorAssert);
    assert_poisoned(hipErrorAssert, &v, true);
}

Test(sim_hip_faults, misbehave_fault_at_nth_launch)
{
    sim_hip_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"fault\",\"launch\":3,"
                      "\"error\":\"launch_failed\"}]}");
    HIP_OK(hipSetDevice(1));
    victim v;
    make_victim(&v);
    for (int i = 1; i <= 2; i++) {
        HIP_OK(hipModuleLaunchKernel(v.noop, 1, 1, 1, 1, 1, 1, 0, v.s, NULL, NULL));
        HIP_OK(hipStreamSynchronize(v.s));
    }
    HIP_OK(hipModuleLaunchKernel(v.noop, 1, 1, 1, 1, 1, 1, 0, v.s, NULL, NULL));
    HIP_IS(hipStreamSynchronize(v.s), hipErrorLaunchFailure);
    assert_poisoned(hipErrorLaunchFailure, &v, false);
}

Test(sim_hip_faults, misbehave_rule_is_per_device)
{
    sim_hip_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"device\":0,\"action\":\"fault\"}]}");
    HIP_OK(hipSetDevice(1));
    hipModule_t m1 = sim_hip_test_module();
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m1, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL,
                                 NULL, NULL));
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipSetDevice(0));
    hipModule_t m0 = sim_hip_test_module();
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m0, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL,
                                 NULL, NULL));
    HIP_IS(hipDeviceSynchronize(), hipErrorIllegalAddress);
    HIP_OK(hipSetDevice(1));
    HIP_OK(hipDeviceSynchronize()); /* device 1 is healthy */
    HIP_OK(hipModuleUnload(m1));
    HIP_OK(hipSetDevice(0));
    HIP_OK(hipDeviceReset());
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_faults, watchdog_kills_a_long_kernel_with_702)
{
    sim_hip_test_init(SIM_HIP_TEST_FAST_WATCHDOG);
    victim v;
    make_victim(&v); /* device 0: the watchdog one */
    hipFunction_t spin = sim_hip_test_kernel(v.m, "spin");
    unsigned short_ms = 10, long_ms = 10000;
    void *a1[] = { &short_ms };
    void *a2[] = { &long_ms };
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, v.s, a1, NULL)); /* under 100 ms */
    HIP_OK(hipStreamSynchronize(v.s));
    struct timespec t0 = sim_hip_test_now();
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, v.s, a2, NULL));
    HIP_IS(hipStreamSynchronize(v.s), hipErrorLaunchTimeOut);
    double ms = sim_hip_test_ms_since(t0);
    cr_assert_geq(ms, 99.0);
    cr_assert_lt(ms, 5000.0);
    cr_assert_str_eq(hipGetErrorName(hipErrorLaunchTimeOut), "hipErrorLaunchTimeOut");
    assert_poisoned(hipErrorLaunchTimeOut, &v, true);
}

Test(sim_hip_faults, watchdog_counts_blocks_of_one_launch)
{
    /* 100 blocks of 5 ms each: 500 ms in one launch, over the 100 ms limit. */
    sim_hip_test_init(SIM_HIP_TEST_FAST_WATCHDOG);
    hipModule_t m = sim_hip_test_module();
    unsigned ms = 5;
    void *args[] = { &ms };
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m, "spin"), 100, 1, 1, 1, 1, 1, 0, NULL,
                                 args, NULL));
    HIP_IS(hipDeviceSynchronize(), hipErrorLaunchTimeOut);
    HIP_OK(hipDeviceReset());
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_faults, hang_on_watchdog_device_is_killed_with_702)
{
    /* Only the first launch hangs: assert_poisoned launches noop again. */
    sim_hip_test_init(SIM_HIP_TEST_WD_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\","
                      "\"action\":\"hang\",\"launch\":1}]}");
    victim v;
    make_victim(&v);
    HIP_OK(hipModuleLaunchKernel(v.noop, 1, 1, 1, 1, 1, 1, 0, v.s, NULL, NULL));
    HIP_IS(hipStreamSynchronize(v.s), hipErrorLaunchTimeOut);
    assert_poisoned(hipErrorLaunchTimeOut, &v, false);
}

typedef struct waiter {
    hipStream_t s;
    hipError_t result;
    double ms;
} waiter;

static void *wait_main(void *arg)
{
    waiter *w = arg;
    struct timespec t0 = sim_hip_test_now();
    w->result = hipStreamSynchronize(w->s);
    w->ms = sim_hip_test_ms_since(t0);
    return NULL;
}

/* Without a watchdog a hung kernel never ends; a reset returns at once and
 * releases a thread blocked on the stream. */
Test(sim_hip_faults, hang_without_watchdog_and_reset_returns_promptly)
{
    sim_hip_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\"}]}");
    HIP_OK(hipSetDevice(1));
    victim v;
    make_victim(&v);
    HIP_OK(hipModuleLaunchKernel(v.noop, 1, 1, 1, 1, 1, 1, 0, v.s, NULL, NULL));
    HIP_OK(hipEventRecord(v.e, v.s));
    cr_assert_eq(sim_hip_test_poll_stream(v.s, 500), hipErrorNotReady);
    HIP_IS(hipEventQuery(v.e), hipErrorNotReady);
    waiter w = { .s = v.s, .result = hipSuccess };
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, wait_main, &w), 0);
    sim_hip_test_sleep_ms(200);
    struct timespec t0 = sim_hip_test_now();
    HIP_OK(hipDeviceReset());
    cr_assert_lt(sim_hip_test_ms_since(t0), 1000.0, "resetting a hung device must not hang");
    pthread_join(t, NULL);
    cr_assert_lt(w.ms, 3000.0, "the blocked hipStreamSynchronize returned");
    cr_assert_neq(w.result, hipErrorNotReady);
    HIP_IS(hipStreamQuery(v.s), hipErrorInvalidHandle);
    HIP_OK(hipDeviceSynchronize());
    void *p;
    HIP_OK(hipMalloc(&p, 16)); /* the device works again */
    HIP_OK(hipFree(p));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_faults, overrun_is_killed_on_watchdog_device_and_completes_elsewhere)
{
    sim_hip_test_init(SIM_HIP_TEST_WD_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\","
                      "\"action\":\"overrun\",\"block_us\":50000}]}");
    HIP_OK(hipSetDevice(1));
    hipModule_t m1 = sim_hip_test_module();
    hipEvent_t a, b;
    HIP_OK(hipEventCreate(&a));
    HIP_OK(hipEventCreate(&b));
    HIP_OK(hipEventRecord(a, NULL));
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m1, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL,
                                 NULL, NULL));
    HIP_OK(hipEventRecord(b, NULL));
    HIP_OK(hipDeviceSynchronize()); /* no watchdog: completes after block_us */
    float ms = 0;
    HIP_OK(hipEventElapsedTime(&ms, a, b));
    cr_assert_geq(ms, 49.0f);
    HIP_OK(hipDeviceReset());
    HIP_OK(hipSetDevice(0));
    hipModule_t m0 = sim_hip_test_module();
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m0, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL,
                                 NULL, NULL));
    HIP_IS(hipDeviceSynchronize(), hipErrorLaunchTimeOut);
    HIP_OK(hipDeviceReset());
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_faults, slow_adds_time_per_block)
{
    sim_hip_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"slow\","
                      "\"block_us\":20000}]}");
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipEvent_t a, b;
    HIP_OK(hipEventCreate(&a));
    HIP_OK(hipEventCreate(&b));
    HIP_OK(hipEventRecord(a, NULL));
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m, "noop"), 5, 1, 1, 1, 1, 1, 0, NULL,
                                 NULL, NULL));
    HIP_OK(hipEventRecord(b, NULL));
    HIP_OK(hipEventSynchronize(b));
    float ms = 0;
    HIP_OK(hipEventElapsedTime(&ms, a, b));
    cr_assert_geq(ms, 99.0f, "5 blocks x 20 ms took %.1f ms", (double)ms);
    HIP_OK(hipDeviceReset());
    sim_hip_test_assert_no_leaks();
}
