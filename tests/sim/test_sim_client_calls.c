/*
 * Driver calls that numba binds beyond gpuguard's own (issue 31): device
 * UUIDs, the primary context's flags and v1 names, occupancy, host
 * functions in stream order, and the refused cooperative launch. Every
 * test that waits is bounded by alarm().
 */
#include "sim_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

TestSuite(sim_client_calls, .timeout = 30);

Test(sim_client_calls, device_uuids_are_stable_distinct_and_checked)
{
    sim_test_init(NULL);
    CUuuid a, b, a2, v2;
    CU_OK(cuDeviceGetUuid(&a, 0));
    CU_OK(cuDeviceGetUuid(&b, 1));
    CU_OK(cuDeviceGetUuid(&a2, 0));
    CU_OK(cuDeviceGetUuid_v2(&v2, 0));
    cr_assert_eq(memcmp(a.bytes, a2.bytes, 16), 0, "the same device, the same UUID");
    cr_assert_eq(memcmp(a.bytes, v2.bytes, 16), 0, "v2 answers as v1 (no MIG instances)");
    cr_assert_neq(memcmp(a.bytes, b.bytes, 16), 0, "two devices, two UUIDs");
    CU_IS(cuDeviceGetUuid(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuDeviceGetUuid(&a, 2), CUDA_ERROR_INVALID_DEVICE); /* two devices: 0 and 1 */
    CU_IS(cuDeviceGetUuid_v2(&a, -1), CUDA_ERROR_INVALID_DEVICE);
}

Test(sim_client_calls, primary_context_flags_v1_refuses_an_active_context_v2_does_not)
{
    sim_test_init(NULL);
    unsigned flags = 99;
    int active = -1;
    CU_OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
    cr_assert_eq(flags, 0u);
    cr_assert_eq(active, 0);
    /* Every scheduling value and the other bits under CU_CTX_FLAGS_MASK. */
    const unsigned good[] = { 0x0, 0x1, 0x2, 0x4, 0xF8 | 0x4 };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CU_OK(cuDevicePrimaryCtxSetFlags(1, good[i]));
        CU_OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
        cr_assert_eq(flags, good[i]);
    }
    /* Sched value 3 and 5..7, and the first bit past the mask. */
    const unsigned bad[] = { 0x3, 0x5, 0x7, 0x100 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_IS(cuDevicePrimaryCtxSetFlags_v2(1, bad[i]), CUDA_ERROR_INVALID_VALUE);
        CU_IS(cuDevicePrimaryCtxSetFlags(1, bad[i]), CUDA_ERROR_INVALID_VALUE);
    }
    CUcontext primary;
    CU_OK(cuDevicePrimaryCtxRetain(&primary, 1));
    CU_IS(cuDevicePrimaryCtxSetFlags(1, 0x4), CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE);
    CU_OK(cuDevicePrimaryCtxSetFlags_v2(1, 0x4));
    CU_OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
    cr_assert_eq(flags, 0x4u);
    cr_assert_eq(active, 1);
    /* The v1 release and reset work as v2's. */
    CU_OK(cuDevicePrimaryCtxReset(1));
    CU_OK(cuDevicePrimaryCtxRelease(1));
    CU_OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
    cr_assert_eq(active, 0);
    CU_OK(cuDevicePrimaryCtxSetFlags_v2(1, 0));
    CU_IS(cuDevicePrimaryCtxSetFlags(2, 0), CUDA_ERROR_INVALID_DEVICE);
}

/* ---- host functions in stream order ------------------------------------ */

typedef struct call_log {
    atomic_int calls;
    atomic_int order[8];      /* which call came n-th */
    CUresult status[8];
    CUstream stream[8];
} call_log;

typedef struct call_tag {
    call_log *log;
    int id;
} call_tag;

static void on_callback(CUstream s, CUresult status, void *user)
{
    call_tag *t = user;
    int n = atomic_fetch_add(&t->log->calls, 1);
    if (n < 8) {
        t->log->status[n] = status;
        t->log->stream[n] = s;
        atomic_store(&t->log->order[n], t->id);
    }
}

static void on_host_fn(void *user)
{
    on_callback(NULL, CUDA_SUCCESS, user);
}

Test(sim_client_calls, callbacks_and_host_functions_run_after_earlier_work_in_order)
{
    alarm(20);
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    call_log log = { 0 };
    call_tag tags[3] = { { &log, 1 }, { &log, 2 }, { &log, 3 } };
    unsigned ms = 100;
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "spin"), 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    CU_OK(cuStreamAddCallback(s, on_callback, &tags[0], 0));
    CU_OK(cuLaunchHostFunc(s, on_host_fn, &tags[1]));
    CU_OK(cuStreamAddCallback(s, on_callback, &tags[2], 0));
    /* Queued behind a 100 ms kernel: none has run yet. */
    cr_assert_eq(atomic_load(&log.calls), 0);
    cr_assert_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    CU_OK(cuStreamSynchronize(s));
    cr_assert_eq(atomic_load(&log.calls), 3);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(atomic_load(&log.order[i]), i + 1, "call %d", i);
    cr_assert_eq(log.status[0], CUDA_SUCCESS);
    cr_assert_eq(log.stream[0], s, "the callback gets the stream it was queued on");
    /* Bad arguments. */
    CU_IS(cuStreamAddCallback(s, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamAddCallback(s, on_callback, &tags[0], 1), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchHostFunc(s, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuStreamDestroy_v2(s));
    CU_IS(cuStreamAddCallback(s, on_callback, &tags[0], 0), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    alarm(0);
}

/* A kernel's fault poisons the context: a callback behind it still runs
 * and gets the error; a host function behind it does not run. */
Test(sim_client_calls, after_a_fault_callbacks_get_the_error_host_functions_do_not_run)
{
    alarm(20);
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    call_log log = { 0 };
    call_tag cb = { &log, 1 }, fn = { &log, 2 }, cb2 = { &log, 3 };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuStreamAddCallback(NULL, on_callback, &cb, 0));
    CU_OK(cuLaunchHostFunc(NULL, on_host_fn, &fn));
    CU_OK(cuStreamAddCallback(NULL, on_callback, &cb2, 0));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    cr_assert_eq(atomic_load(&log.calls), 2, "the two callbacks, not the host function");
    cr_assert_eq(atomic_load(&log.order[0]), 1);
    cr_assert_eq(atomic_load(&log.order[1]), 3);
    cr_assert_eq(log.status[0], CUDA_ERROR_ASSERT);
    cr_assert_eq(log.status[1], CUDA_ERROR_ASSERT);
    CU_OK(cuCtxDestroy_v2(c));
    alarm(0);
}

/* Destroying the context with host calls still queued drops them uncalled
 * and returns (no hang). */
Test(sim_client_calls, a_destroy_drops_queued_host_calls)
{
    alarm(20);
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    call_log log = { 0 };
    call_tag cb = { &log, 1 };
    unsigned ms = 60000; /* ended by the destroy */
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "spin"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuStreamAddCallback(NULL, on_callback, &cb, 0));
    CU_OK(cuCtxDestroy_v2(c));
    cr_assert_eq(atomic_load(&log.calls), 0);
    sim_test_assert_no_leaks();
    alarm(0);
}

Test(sim_client_calls, cooperative_launches_are_refused_with_a_reason)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CU_IS(cuLaunchCooperativeKernel(sim_test_kernel(m, "noop"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL),
          CUDA_ERROR_NOT_SUPPORTED);
    cr_assert(strstr(gg_sim_last_error_detail(), "cooperative launches are not simulated") != NULL, "%s",
              gg_sim_last_error_detail());
    int coop = -1;
    CU_OK(cuDeviceGetAttribute(&coop, 95 /* COOPERATIVE_LAUNCH */, 1));
    cr_assert_eq(coop, 0);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
}

/* Unified addressing: an address names its allocation's context, so
 * cuMemFree frees it with no context current, or another one current. */
Test(sim_client_calls, mem_free_finds_the_allocation_s_own_context)
{
    sim_test_init(NULL);
    CUcontext a = sim_test_ctx(0), b = sim_test_ctx(1);
    CUdeviceptr pa, pa2, pb;
    CU_OK(cuCtxSetCurrent(a));
    CU_OK(cuMemAlloc_v2(&pa, 256));
    CU_OK(cuMemAlloc_v2(&pa2, 256));
    CU_OK(cuCtxSetCurrent(b));
    CU_OK(cuMemAlloc_v2(&pb, 256));
    CU_OK(cuMemFree_v2(pa)); /* a's, with b current */
    CUcontext top;
    while (cuCtxGetCurrent(&top) == CUDA_SUCCESS && top)
        CU_OK(cuCtxPopCurrent_v2(&top)); /* an empty stack: none current */
    CU_OK(cuMemFree_v2(pb)); /* none current */
    CU_IS(cuMemFree_v2(pb), CUDA_ERROR_INVALID_CONTEXT); /* gone, and no context to judge it by */
    CU_OK(cuCtxSetCurrent(a));
    CU_IS(cuMemFree_v2(pb), CUDA_ERROR_INVALID_VALUE);   /* gone: the current context's answer */
    CU_OK(cuMemFree_v2(pa2));
    CU_OK(cuCtxDestroy_v2(b));
    CU_OK(cuCtxDestroy_v2(a));
}
