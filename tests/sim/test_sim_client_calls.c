/*
 * Driver calls that numba binds beyond gpuguard's own (issue 31): device
 * UUIDs, the primary context's flags and v1 names, occupancy, host
 * functions in stream order, and the refused cooperative launch. Every
 * test that waits is bounded by alarm().
 */
#include "sim_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
    /* A 200 ms kernel in front, so the calls below are queued before the
     * fault (after it, every call returns the sticky error). */
    unsigned ms = 200;
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "spin"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuStreamAddCallback(NULL, on_callback, &cb, 0));
    CU_OK(cuLaunchHostFunc(NULL, on_host_fn, &fn));
    CU_OK(cuStreamAddCallback(NULL, on_callback, &cb2, 0));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    /* The synchronize returns once the context is poisoned; the worker
     * passes the queued calls after that, in stream order: once the last
     * callback ran, the host function before it had its turn. */
    for (int waited = 0; atomic_load(&log.calls) < 2 && waited < 5000; waited++)
        sim_test_sleep_ms(1);
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

/* CUDA_VISIBLE_DEVICES is read at cuInit, once per process: each case runs
 * in a child of its own (fork before any cuInit), bounded by alarm(). */
#include <sys/wait.h>

static const char *const visible_config =
    "{\"devices\":[{\"name\":\"zero\"},{\"name\":\"one\"},{\"name\":\"two\"}]}";

/* In a child: cuInit under CUDA_VISIBLE_DEVICES=value; exits 0 when the
 * visible devices are `want` (names, in order; NULL-terminated; NULL
 * itself: cuInit must fail with NO_DEVICE). */
static int visible_child(const char *value, const char *const *want)
{
    setenv("GPUGUARD_SIM_CONFIG", visible_config, 1);
    setenv("CUDA_VISIBLE_DEVICES", value, 1);
    alarm(10);
    CUresult r = cuInit(0);
    if (!want)
        return r == CUDA_ERROR_NO_DEVICE ? 0 : 10;
    if (r != CUDA_SUCCESS)
        return 11;
    int n = 0, count = -1;
    while (want[n])
        n++;
    if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count != n)
        return 12;
    for (int i = 0; i < n; i++) {
        char name[64];
        if (cuDeviceGetName(name, sizeof name, i) != CUDA_SUCCESS || strcmp(name, want[i]) != 0)
            return 20 + i;
    }
    return 0;
}

static void expect_visible(const char *value, const char *const *want)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(visible_child(value, want));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "CUDA_VISIBLE_DEVICES=\"%s\": child status %d", value,
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

Test(sim_client_calls, cuda_visible_devices_chooses_and_orders_devices)
{
    alarm(60);
    const char *const two_zero[] = { "two", "zero", NULL };
    const char *const one[] = { "one", NULL };
    const char *const all_three[] = { "zero", "one", "two", NULL };
    expect_visible("2,0", two_zero);
    expect_visible("1", one);
    expect_visible("0,1,2", all_three);
    expect_visible("1,3,0", one);          /* 3 names no device: the list ends there */
    expect_visible("1,x,0", one);
    expect_visible("1,1,0", one);          /* listed twice: ends there (not measured on a real driver) */
    expect_visible(" 2 , 0 ", two_zero);
    expect_visible("3", NULL);             /* one past the last device */
    expect_visible("", NULL);
    /* UUIDs: the whole text or a unique prefix; a device keeps its UUID. */
    /* cuDeviceGetUuid's bytes for the configuration's device 1 (see
     * device_uuids_are_stable_distinct_and_checked): "gpuguard-sim", 1. */
    char uuid1[41];
    const unsigned char b[16] = { 'g', 'p', 'u', 'g', 'u', 'a', 'r', 'd', '-', 's', 'i', 'm', 0, 0, 0, 1 };
    snprintf(uuid1, sizeof uuid1, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    expect_visible(uuid1, one);
    /* The three UUIDs differ in their last digit only: any shorter prefix
     * is every device's, and so names none. */
    uuid1[39] = '\0';
    expect_visible(uuid1, NULL);
    expect_visible("GPU-6770", NULL);
    alarm(0);
}

/* CUDA: an asynchronous copy to pageable host memory has completed when it
 * returns; to page-locked memory it may still be queued. Both behind a
 * 100 ms kernel. */
Test(sim_client_calls, async_copies_to_pageable_memory_complete_before_returning)
{
    alarm(20);
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    enum { N = 4096 };
    unsigned char *src = malloc(N), *pageable = malloc(N), *pinned = NULL;
    cr_assert(src && pageable);
    CU_OK(cuMemAllocHost_v2((void **)&pinned, N));
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    memset(pageable, 0, N);
    memset(pinned, 0, N);
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, N));
    CU_OK(cuMemcpyHtoD_v2(d, src, N));
    unsigned ms = 100;
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "spin"), 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    CU_OK(cuMemcpyDtoHAsync_v2(pageable, d, N, s));
    cr_assert_eq(memcmp(pageable, src, N), 0, "the pageable copy is complete on return");
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "spin"), 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    CU_OK(cuMemcpyDtoHAsync_v2(pinned, d, N, s));
    CU_IS(cuStreamQuery(s), CUDA_ERROR_NOT_READY); /* the page-locked one is queued behind the kernel */
    CU_OK(cuStreamSynchronize(s));
    cr_assert_eq(memcmp(pinned, src, N), 0);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemFreeHost(pinned));
    free(src);
    free(pageable);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    alarm(0);
}

/* A child forked after cuInit: every call answers NOT_INITIALIZED at once,
 * cuInit too (before, a copy in the child waited forever for the parent's
 * stream worker: numba's test_multiprocessing.test_fork hung). */
Test(sim_client_calls, a_child_forked_after_init_gets_not_initialized)
{
    alarm(20);
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 64));
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        alarm(5);
        unsigned char host[64];
        int count = -1;
        int bad = 0;
        bad |= cuMemcpyHtoD_v2(d, host, sizeof host) != CUDA_ERROR_NOT_INITIALIZED;
        bad |= (cuDeviceGetCount(&count) != CUDA_ERROR_NOT_INITIALIZED) << 1;
        bad |= (cuInit(0) != CUDA_ERROR_NOT_INITIALIZED) << 2;
        bad |= (strstr(gg_sim_last_error_detail(), "forked") == NULL) << 3;
        _exit(bad);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d (bits: copy, count, init, detail)",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CU_OK(cuMemFree_v2(d)); /* the parent goes on */
    CU_OK(cuCtxDestroy_v2(c));
    alarm(0);
}
