/* Device faults: sticky errors from kernels and misbehave rules, hangs,
 * the watchdog, overruns and slow kernels. */
#include "sim_test.h"

#include <string.h>

TestSuite(sim_faults, .timeout = 120);

/* Every call that uses a poisoned context returns the sticky error; the
 * calls CUDA keeps working do work; destroy frees everything. */
static void assert_poisoned(CUcontext c, CUresult sticky, CUstream s, CUevent e, CUmodule m)
{
    CUdeviceptr d;
    char host[8];
    CU_IS(cuCtxSynchronize(), sticky);
    CU_IS(cuMemAlloc_v2(&d, 8), sticky);
    CU_IS(cuStreamQuery(s), sticky);
    CU_IS(cuStreamSynchronize(s), sticky);
    CU_IS(cuStreamQuery(NULL), sticky);
    CU_IS(cuEventQuery(e), sticky);
    CU_IS(cuEventSynchronize(e), sticky);
    CU_IS(cuEventRecord(e, s), sticky);
    CU_IS(cuMemcpyHtoD_v2(0x7d0000000000ull, host, 1), sticky);
    CUfunction f;
    CU_IS(cuModuleGetFunction(&f, m, "noop"), sticky);
    CU_IS(cuModuleLoad(&m, GG_TEST_KERNEL_DIR "/sim_test_kernels.so"), sticky);
    CUstream s2;
    CU_IS(cuStreamCreate(&s2, 1), sticky);
    /* Still working: stack, device queries, error names. */
    CUcontext cur;
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_eq(cur, c);
    CU_OK(cuCtxPopCurrent_v2(&cur));
    CU_OK(cuCtxPushCurrent_v2(c));
    CU_OK(cuCtxSetCurrent(c));
    int v;
    CU_OK(cuDeviceGetAttribute(&v, 17, 0));
    const char *name;
    CU_OK(cuGetErrorName(sticky, &name));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_faults, kernel_out_of_bounds_is_sticky_illegal_address)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction touch = sim_test_kernel(m, "touch");
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    CUdeviceptr a;
    CU_OK(cuMemAlloc_v2(&a, 100 << 20));
    uint64_t off = 99;
    void *ok_args[] = { &a, &off };
    CU_OK(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, s, ok_args, NULL));
    CU_OK(cuStreamSynchronize(s));
    struct timespec t0 = sim_test_now();
    unsigned first_ms = 300, long_ms = 8000;
    void *first_args[] = { &first_ms };
    void *long_args[] = { &long_ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, first_args, NULL));
    /* The fault is asynchronous: these calls return SUCCESS, or already the
     * sticky error if the machine is slow enough for the fault to come first. */
    uint64_t bad = 100u << 20;
    void *bad_args[] = { &a, &bad };
    CUresult r = cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, s, bad_args, NULL);
    cr_assert(r == CUDA_SUCCESS, "the faulting launch itself is accepted (%d)", r);
    r = cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, long_args, NULL); /* to be discarded */
    cr_assert(r == CUDA_SUCCESS || r == CUDA_ERROR_ILLEGAL_ADDRESS, "%d", r);
    r = cuEventRecord(e, s);
    cr_assert(r == CUDA_SUCCESS || r == CUDA_ERROR_ILLEGAL_ADDRESS, "%d", r);
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_assert_lt(sim_test_ms_since(t0), 6000.0, "pending work was not discarded");
    CU_IS(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, s, ok_args, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_assert_eq(gg_sim_device_memory_used(1), 100u << 20);
    assert_poisoned(c, CUDA_ERROR_ILLEGAL_ADDRESS, s, e, m);
}

Test(sim_faults, trap_assert_is_sticky)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    cr_assert_eq(sim_test_poll_stream(s, 10000), CUDA_ERROR_ASSERT);
    assert_poisoned(c, CUDA_ERROR_ASSERT, s, e, m);
}

Test(sim_faults, misbehave_fault_at_nth_launch)
{
    sim_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"fault\",\"launch\":3,"
                  "\"error\":\"launch_failed\"}]}");
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction noop = sim_test_kernel(m, "noop");
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    for (int i = 1; i <= 2; i++) {
        CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
        CU_OK(cuStreamSynchronize(s));
    }
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
    assert_poisoned(c, CUDA_ERROR_LAUNCH_FAILED, s, e, m);
}

/* Under "sticky_scope": "context": with the CUDA face's default, the
 * fault on device 0 would poison c1 too (test_sim_sticky_scope.c). */
Test(sim_faults, misbehave_rule_is_per_device)
{
    sim_test_init("{\"sticky_scope\":\"context\","
                  "\"misbehave\":[{\"kernel\":\"noop\",\"device\":0,\"action\":\"fault\"}]}");
    CUcontext c1 = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    CUcontext c0 = sim_test_ctx(0);
    m = sim_test_module();
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuCtxDestroy_v2(c0));
    CU_OK(cuCtxSynchronize()); /* c1 is current again and healthy */
    CU_OK(cuCtxDestroy_v2(c1));
    sim_test_assert_no_leaks();
}

Test(sim_faults, hang_without_watchdog_stays_not_ready_and_destroy_is_prompt)
{
    sim_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\"}]}");
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_OK(cuEventRecord(e, s));
    cr_assert_eq(sim_test_poll_stream(s, 500), CUDA_ERROR_NOT_READY);
    CU_IS(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    struct timespec t0 = sim_test_now();
    CU_OK(cuCtxDestroy_v2(c));
    cr_assert_lt(sim_test_ms_since(t0), 1000.0, "destroying a hung context must not hang");
    CU_IS(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    sim_test_assert_no_leaks();
}

Test(sim_faults, hang_on_watchdog_device_is_killed_with_launch_timeout)
{
    sim_test_init(SIM_TEST_WD_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\"}]}");
    CUcontext c = sim_test_ctx(0);
    CUmodule m = sim_test_module();
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_TIMEOUT);
    assert_poisoned(c, CUDA_ERROR_LAUNCH_TIMEOUT, s, e, m);
}

Test(sim_faults, watchdog_kills_a_long_kernel)
{
    sim_test_init(SIM_TEST_FAST_WATCHDOG);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    unsigned short_ms = 10, long_ms = 10000;
    void *a1[] = { &short_ms };
    void *a2[] = { &long_ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, a1, NULL)); /* well under 100 ms */
    CU_OK(cuStreamSynchronize(s));
    struct timespec t0 = sim_test_now();
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, a2, NULL));
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_TIMEOUT);
    double ms = sim_test_ms_since(t0);
    cr_assert_geq(ms, 99.0);
    cr_assert_lt(ms, 5000.0);
    assert_poisoned(c, CUDA_ERROR_LAUNCH_TIMEOUT, s, e, m);
}

Test(sim_faults, watchdog_counts_blocks_of_one_launch)
{
    /* 100 blocks of 5 ms each: 500 ms in one launch, over the 100 ms limit. */
    sim_test_init(SIM_TEST_FAST_WATCHDOG);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = sim_test_module();
    unsigned ms = 5;
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "spin"), 100, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_TIMEOUT);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_faults, overrun_is_killed_on_watchdog_device_and_completes_elsewhere)
{
    sim_test_init(SIM_TEST_WD_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"overrun\","
                  "\"block_us\":50000}]}");
    CUcontext c1 = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUevent a, b;
    CU_OK(cuEventCreate(&a, 0));
    CU_OK(cuEventCreate(&b, 0));
    CU_OK(cuEventRecord(a, NULL));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuEventRecord(b, NULL));
    CU_OK(cuCtxSynchronize()); /* no watchdog: completes after block_us */
    float ms = 0;
    CU_OK(cuEventElapsedTime_v2(&ms, a, b));
    cr_assert_geq(ms, 49.0f);
    CUcontext c0 = sim_test_ctx(0);
    m = sim_test_module();
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_TIMEOUT);
    CU_OK(cuCtxDestroy_v2(c0));
    CU_OK(cuCtxDestroy_v2(c1));
    sim_test_assert_no_leaks();
}

Test(sim_faults, slow_adds_time_per_block)
{
    sim_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"slow\",\"block_us\":20000}]}");
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUevent a, b;
    CU_OK(cuEventCreate(&a, 0));
    CU_OK(cuEventCreate(&b, 0));
    CU_OK(cuEventRecord(a, NULL));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "noop"), 5, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuEventRecord(b, NULL));
    CU_OK(cuEventSynchronize(b));
    float ms = 0;
    CU_OK(cuEventElapsedTime_v2(&ms, a, b));
    cr_assert_geq(ms, 99.0f, "5 blocks x 20 ms took %.1f ms", (double)ms);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The old model, still the one "sticky_scope": "context" asks for (the
 * CUDA face's default, "process", is test_sim_sticky_scope.c's). */
Test(sim_faults, faults_do_not_leak_into_other_contexts)
{
    sim_test_init("{\"sticky_scope\":\"context\"}");
    CUcontext good = sim_test_ctx(1);
    CUdeviceptr g;
    CU_OK(cuMemAlloc_v2(&g, 64));
    CUcontext bad = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    CU_OK(cuCtxDestroy_v2(bad));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemsetD8_v2(g, 1, 64));
    CU_OK(cuCtxDestroy_v2(good));
    sim_test_assert_no_leaks();
}

/* Under "sticky_scope": "context" only: in a poisoned process a reset
 * destroys the primary context (test_sim_sticky_scope.c). */
Test(sim_faults, primary_reset_clears_a_fault)
{
    sim_test_init("{\"sticky_scope\":\"context\"}");
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 1));
    CU_OK(cuCtxPushCurrent_v2(p));
    CUmodule m = sim_test_module();
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    CU_OK(cuDevicePrimaryCtxReset_v2(1));
    CU_OK(cuCtxSynchronize());
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 16));
    CU_IS(cuModuleGetFunction(NULL, m, "noop"), CUDA_ERROR_INVALID_HANDLE); /* reset unloaded it */
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    sim_test_assert_no_leaks();
}
