/*
 * "sticky_scope": what a device fault's sticky error poisons. "process" (the
 * CUDA face's default) is what an H100 answered (docs/DRIVER-FACTS.md,
 * "Sticky errors reach the whole process"; the probe's own comparison is
 * the ctest sim_sticky_probe_vs_h100): every context of the process answers
 * the error, no context can be created or retained after it, teardown
 * succeeds, context-free calls work. "context" is the older model.
 * Each test runs in its own process (Criterion forks), so each starts clean.
 */
#include "sim_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Launches trap_assert in the current context and waits: CUDA_ERROR_ASSERT. */
static void fault_here(void)
{
    CUmodule m = sim_test_module();
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
}

/* Every way of making a context answers want, and hands nothing out. */
static void assert_no_context_can_be_made(CUresult want)
{
    CUcontext c = (CUcontext)(uintptr_t)0x5eed;
    CU_IS(cuCtxCreate_v2(&c, 0, 1), want);
    CU_IS(cuCtxCreate_v3(&c, NULL, 0, 0, 1), want);
    CU_IS(cuCtxCreate_v4(&c, NULL, 0, 1), want);
    CU_IS(cuDevicePrimaryCtxRetain(&c, 1), want);
    CU_IS(cuDevicePrimaryCtxRetain(&c, 0), want); /* another device too */
    cr_assert_eq(c, (CUcontext)(uintptr_t)0x5eed, "a failed create or retain wrote a context");
}

Test(sim_sticky_scope, process_is_the_cuda_default)
{
    cr_assert_eq(gg_sim_sticky_scope(), 1, "before cuInit, no configuration");
    sim_test_init(NULL);
    cr_assert_eq(gg_sim_sticky_scope(), 1);
}

Test(sim_sticky_scope, query_follows_the_configuration)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"sticky_scope\":\"context\"}", 1);
    cr_assert_eq(gg_sim_sticky_scope(), 0, "before cuInit");
    setenv("GPUGUARD_SIM_CONFIG", "{\"sticky_scope\":\"process\"}", 1);
    cr_assert_eq(gg_sim_sticky_scope(), 1, "before cuInit");
    sim_test_init("{\"sticky_scope\":\"context\"}");
    cr_assert_eq(gg_sim_sticky_scope(), 0);
    /* Fixed by the first successful cuInit, like the rest of the configuration. */
    setenv("GPUGUARD_SIM_CONFIG", "{\"sticky_scope\":\"process\"}", 1);
    cr_assert_eq(gg_sim_sticky_scope(), 0);
}

Test(sim_sticky_scope, bad_value_is_refused_naming_the_key)
{
    static const char *bad[] = {
        "{\"sticky_scope\":\"thread\"}", "{\"sticky_scope\":\"Process\"}", "{\"sticky_scope\":\"\"}",
        "{\"sticky_scope\":true}", "{\"sticky_scope\":1}", "{\"sticky_scope\":null}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("GPUGUARD_SIM_CONFIG", bad[i], 1);
        CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
        const char *why = gg_sim_last_config_error();
        cr_assert(strstr(why, "sticky_scope") && strstr(why, "\"process\"") && strstr(why, "\"context\""),
                  "%s: %s", bad[i], why);
        cr_assert_eq(gg_sim_sticky_scope(), 1, "%s: an invalid configuration answers the default", bad[i]);
    }
    sim_test_init("{\"sticky_scope\":\"process\"}"); /* a good value after bad ones */
}

Test(sim_sticky_scope, bystander_and_primary_answer_the_fault)
{
    sim_test_init(NULL);
    CUcontext b = sim_test_ctx(1);
    CUdeviceptr kept;
    CU_OK(cuMemAlloc_v2(&kept, 64));
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 1));
    CUcontext other_device = sim_test_ctx(0);
    CUcontext a = sim_test_ctx(1);
    fault_here();
    CU_IS(cuMemAlloc_v2(&(CUdeviceptr){ 0 }, 64), CUDA_ERROR_ASSERT);
    CU_OK(cuCtxSetCurrent(b));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    CU_IS(cuMemsetD8_v2(kept, 1, 64), CUDA_ERROR_ASSERT);
    CUmodule m;
    CU_IS(cuModuleLoad(&m, GG_TEST_KERNEL_DIR "/sim_test_kernels.so"), CUDA_ERROR_ASSERT);
    CU_OK(cuCtxSetCurrent(p));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    CU_IS(cuMemAlloc_v2(&(CUdeviceptr){ 0 }, 64), CUDA_ERROR_ASSERT);
    CU_IS(cuCtxSynchronize_v2(other_device), CUDA_ERROR_ASSERT);
    CU_IS(cuCtxSynchronize_v2(b), CUDA_ERROR_ASSERT);
    /* A bystander answers as the faulting context itself does, frees
     * included (the simulator's poisoned context refuses them; the destroy
     * frees everything)... */
    CU_IS(cuMemFree_v2(kept), CUDA_ERROR_ASSERT);
    /* ...and the measured teardowns succeed. */
    CU_OK(cuCtxDestroy_v2(a));
    CU_OK(cuCtxDestroy_v2(b));
    CU_OK(cuCtxDestroy_v2(other_device));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_IS(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_CONTEXT); /* as without a fault */
    sim_test_assert_no_leaks();
}

Test(sim_sticky_scope, no_context_is_made_after_a_fault_whatever_is_torn_down)
{
    sim_test_init(NULL);
    CUcontext b = sim_test_ctx(1);
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 1));
    CUcontext a = sim_test_ctx(1);
    fault_here();
    assert_no_context_can_be_made(CUDA_ERROR_ASSERT); /* the culprit alive */
    CU_OK(cuCtxDestroy_v2(a));
    assert_no_context_can_be_made(CUDA_ERROR_ASSERT); /* culprit gone, bystanders alive */
    CU_OK(cuCtxDestroy_v2(b));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    assert_no_context_can_be_made(CUDA_ERROR_ASSERT); /* no context left */
    CU_OK(cuDevicePrimaryCtxReset_v2(1));
    CU_OK(cuDevicePrimaryCtxReset(0));
    assert_no_context_can_be_made(CUDA_ERROR_ASSERT); /* after the resets */
    CU_IS(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_CONTEXT); /* the failed retains counted none */
    sim_test_assert_no_leaks();
}

/* The runtime's cudaDeviceReset path: reset the retained primary context
 * that faulted. Its handle then answers CONTEXT_IS_DESTROYED (709), as the
 * driver's does, and each earlier retain is still released once. */
Test(sim_sticky_scope, primary_reset_does_not_clear_the_process)
{
    sim_test_init(NULL);
    CUcontext p, p_again;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 1));
    CU_OK(cuDevicePrimaryCtxRetain(&p_again, 1));
    cr_assert_eq(p, p_again);
    CU_OK(cuCtxSetCurrent(p));
    fault_here();
    CU_OK(cuDevicePrimaryCtxReset_v2(1));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CU_IS(cuMemAlloc_v2(&(CUdeviceptr){ 0 }, 64), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    assert_no_context_can_be_made(CUDA_ERROR_ASSERT);
    unsigned flags = 99;
    int active = 99;
    CU_OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
    cr_assert_eq(active, 0, "the reset destroyed it");
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_IS(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_CONTEXT);
    CU_OK(cuDevicePrimaryCtxReset_v2(1)); /* nothing left to reset: still a success */
    sim_test_assert_no_leaks();
}

Test(sim_sticky_scope, context_free_calls_still_work)
{
    sim_test_init(NULL);
    CUcontext a = sim_test_ctx(1);
    fault_here();
    CU_OK(cuInit(0));
    int version = 0, count = 0;
    CU_OK(cuDriverGetVersion(&version));
    cr_assert_gt(version, 0);
    CU_OK(cuDeviceGetCount(&count));
    cr_assert_eq(count, 2);
    CUdevice dev = -1;
    CU_OK(cuDeviceGet(&dev, 1));
    cr_assert_eq(dev, 1);
    char name[64];
    CU_OK(cuDeviceGetName(name, sizeof name, 1));
    const char *err = NULL;
    CU_OK(cuGetErrorName(CUDA_ERROR_ASSERT, &err));
    cr_assert_str_eq(err, "CUDA_ERROR_ASSERT");
    CUcontext cur = NULL;
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_eq(cur, a);
    CU_OK(cuCtxDestroy_v2(a));
    sim_test_assert_no_leaks();
}

/* Only the culprit is FAULTED: a bystander's running launch is stopped and
 * its queued one never runs, both DISCARDED; the queued one is marked
 * before the culprit's error shows. */
Test(sim_sticky_scope, bystander_launches_are_discarded_not_faulted)
{
    sim_test_init("{\"record_launches\":true,\"devices\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
                  "\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\"}]}");
    CUcontext b = sim_test_ctx(1);
    CUmodule mb = sim_test_module();
    CUfunction noop = sim_test_kernel(mb, "noop");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* hangs */
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* queued behind it */
    CUcontext a = sim_test_ctx(1);
    fault_here();
    gg_sim_launch_truth r[4];
    unsigned long long n = gg_sim_truth_launches((const void *)b, r, 4);
    cr_assert_eq(n, 2);
    cr_assert_eq(r[1].state, GG_SIM_LAUNCH_DISCARDED, "the queued launch: state %d", r[1].state);
    /* The hung one is stopped by its worker: wait for its end. */
    struct timespec t0 = sim_test_now();
    while ((r[0].state == GG_SIM_LAUNCH_QUEUED || r[0].state == GG_SIM_LAUNCH_RUNNING) &&
           sim_test_ms_since(t0) < 10000) {
        sim_test_sleep_ms(2);
        gg_sim_truth_launches((const void *)b, r, 4);
    }
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(r[i].state, GG_SIM_LAUNCH_DISCARDED, "bystander launch %d: state %d", i, r[i].state);
        cr_assert_eq(r[i].poisoned_context, 0);
        cr_assert_eq(r[i].error, 0);
    }
    gg_sim_launch_truth culprit;
    cr_assert_eq(gg_sim_truth_launches((const void *)a, &culprit, 1), 1);
    cr_assert_eq(culprit.state, GG_SIM_LAUNCH_FAULTED);
    cr_assert_eq(culprit.error, (int)CUDA_ERROR_ASSERT);
    cr_assert_eq(culprit.poisoned_context, 1);
    CU_OK(cuCtxSetCurrent(b));
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_ASSERT);
    CU_IS(cuStreamDestroy_v2(s), CUDA_ERROR_ASSERT); /* as in the faulting context: the destroy frees it */
    CU_OK(cuCtxDestroy_v2(a));
    CU_OK(cuCtxDestroy_v2(b));
    sim_test_assert_no_leaks();
}

Test(sim_sticky_scope, context_scope_keeps_the_fault_to_its_context)
{
    sim_test_init("{\"sticky_scope\":\"context\"}");
    CUcontext b = sim_test_ctx(1);
    CUcontext a = sim_test_ctx(1);
    fault_here();
    CU_OK(cuCtxSetCurrent(b));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy_v2(a));
    CU_OK(cuCtxDestroy_v2(b));
    /* A fresh context computes. */
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 64 * sizeof(unsigned)));
    unsigned n = 64, value = 7;
    void *args[] = { &d, &n, &value };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "fill"), 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    unsigned host[64];
    CU_OK(cuMemcpyDtoH_v2(host, d, sizeof host));
    for (unsigned i = 0; i < 64; i++)
        cr_assert_eq(host[i], 7u, "element %u", i);
    CU_OK(cuMemFree_v2(d));
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 1));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* Threads make, use and destroy contexts while another context faults:
 * once the fault's error has been seen, every later call of theirs answers
 * it (no context escapes the poison, none is made after it). */
typedef struct churn {
    atomic_bool seen;          /* the main thread saw the fault's error */
    atomic_int bad;            /* answers that broke the rule */
    atomic_int refused;        /* threads whose create was refused */
} churn;

static void *churner(void *p)
{
    churn *ch = p;
    struct timespec t0 = sim_test_now();
    while (sim_test_ms_since(t0) < 10000) {
        bool seen_before = atomic_load(&ch->seen);
        CUcontext c;
        CUresult r = cuCtxCreate_v4(&c, NULL, 0, 1);
        if (r != CUDA_SUCCESS) {
            if (r != CUDA_ERROR_ASSERT)
                atomic_fetch_add(&ch->bad, 1);
            atomic_fetch_add(&ch->refused, 1);
            return NULL;
        }
        if (seen_before) /* made after the fault's error was seen */
            atomic_fetch_add(&ch->bad, 1);
        seen_before = atomic_load(&ch->seen);
        CUdeviceptr d = 0;
        r = cuMemAlloc_v2(&d, 64);
        if (seen_before ? r != CUDA_ERROR_ASSERT : r != CUDA_SUCCESS && r != CUDA_ERROR_ASSERT)
            atomic_fetch_add(&ch->bad, 1);
        if (r == CUDA_SUCCESS)
            (void)cuMemFree_v2(d); /* may answer the error if it came meanwhile; the destroy frees it */
        r = cuCtxSynchronize();
        if (seen_before ? r != CUDA_ERROR_ASSERT : r != CUDA_SUCCESS && r != CUDA_ERROR_ASSERT)
            atomic_fetch_add(&ch->bad, 1);
        if (cuCtxDestroy_v2(c) != CUDA_SUCCESS)
            atomic_fetch_add(&ch->bad, 1);
    }
    return NULL;
}

Test(sim_sticky_scope, contexts_made_concurrently_do_not_escape)
{
    sim_test_init(NULL);
    enum { THREADS = 4 };
    static churn ch;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, churner, &ch), 0);
    sim_test_sleep_ms(20);
    CUcontext a = sim_test_ctx(1);
    fault_here();
    atomic_store(&ch.seen, true);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(atomic_load(&ch.bad), 0, "%d answers broke the rule", atomic_load(&ch.bad));
    cr_assert_eq(atomic_load(&ch.refused), THREADS, "every thread ends refused");
    CU_OK(cuCtxDestroy_v2(a));
    sim_test_assert_no_leaks();
}
