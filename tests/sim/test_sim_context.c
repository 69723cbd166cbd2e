/* Contexts: per-thread stacks, destroy from another thread, primary
 * contexts, stale handles. */
#include "sim_test.h"

#include <pthread.h>

TestSuite(sim_context, .timeout = 60);

Test(sim_context, create_pushes_and_stack_behaves_like_cuda)
{
    sim_test_init(NULL);
    CUcontext cur = (CUcontext)1;
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_null(cur, "no context is current at first");
    CUdeviceptr d;
    CU_IS(cuMemAlloc_v2(&d, 8), CUDA_ERROR_INVALID_CONTEXT);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);

    CUcontext a = sim_test_ctx(0);
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_eq(cur, a);
    CUcontext b = sim_test_ctx(1);
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_eq(cur, b);
    CUdevice dev;
    CU_OK(cuCtxGetDevice(&dev));
    cr_assert_eq(dev, 1);

    CUcontext popped;
    CU_OK(cuCtxPopCurrent_v2(&popped));
    cr_assert_eq(popped, b);
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_eq(cur, a);
    CU_OK(cuCtxSetCurrent(b)); /* replaces the top */
    CU_OK(cuCtxPopCurrent_v2(&popped));
    cr_assert_eq(popped, b);
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_null(cur);
    CU_IS(cuCtxPopCurrent_v2(&popped), CUDA_ERROR_INVALID_CONTEXT);

    CU_OK(cuCtxPushCurrent_v2(a));
    CU_OK(cuCtxPushCurrent_v2(b));
    CU_OK(cuCtxSetCurrent(NULL)); /* pops */
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_eq(cur, a);

    CU_OK(cuCtxDestroy_v2(a)); /* current here: popped */
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_null(cur);
    CU_OK(cuCtxDestroy_v2(b));
    CU_IS(cuCtxDestroy_v2(b), CUDA_ERROR_INVALID_CONTEXT);
    CU_IS(cuCtxPushCurrent_v2(b), CUDA_ERROR_INVALID_CONTEXT);
    CU_IS(cuCtxSetCurrent(a), CUDA_ERROR_INVALID_CONTEXT);
    sim_test_assert_no_leaks();
}

typedef struct peer {
    CUcontext ctx;
    pthread_barrier_t *bar;
    CUresult after_destroy;
    CUcontext still_current;
} peer;

static void *peer_thread(void *arg)
{
    peer *p = arg;
    cuCtxPushCurrent_v2(p->ctx);
    pthread_barrier_wait(p->bar); /* context is current here */
    pthread_barrier_wait(p->bar); /* main thread destroyed it */
    CUdeviceptr d;
    p->after_destroy = cuMemAlloc_v2(&d, 8);
    cuCtxGetCurrent(&p->still_current);
    return NULL;
}

Test(sim_context, destroy_while_current_elsewhere_gives_context_is_destroyed_there)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUcontext popped;
    CU_OK(cuCtxPopCurrent_v2(&popped));
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    peer p = { .ctx = c, .bar = &bar };
    pthread_t t;
    pthread_create(&t, NULL, peer_thread, &p);
    pthread_barrier_wait(&bar);
    CU_OK(cuCtxDestroy_v2(c));
    pthread_barrier_wait(&bar);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&bar);
    cr_assert_eq(p.after_destroy, CUDA_ERROR_CONTEXT_IS_DESTROYED);
    cr_assert_eq(p.still_current, c, "it stays on the other thread's stack");
    sim_test_assert_no_leaks();
}

static void *stack_is_per_thread(void *arg)
{
    CUcontext cur = (CUcontext)1;
    cuCtxGetCurrent(&cur);
    *(CUcontext *)arg = cur;
    return NULL;
}

Test(sim_context, stacks_are_per_thread)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUcontext seen = (CUcontext)1;
    pthread_t t;
    pthread_create(&t, NULL, stack_is_per_thread, &seen);
    pthread_join(t, NULL);
    cr_assert_null(seen);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_context, primary_context_retain_release_reset)
{
    sim_test_init(NULL);
    CUcontext p1, p2, cur;
    CU_OK(cuDevicePrimaryCtxRetain(&p1, 1));
    CU_OK(cuCtxGetCurrent(&cur));
    cr_assert_null(cur, "retain does not push");
    CU_OK(cuDevicePrimaryCtxRetain(&p2, 1));
    cr_assert_eq(p1, p2);
    CU_IS(cuCtxDestroy_v2(p1), CUDA_ERROR_INVALID_CONTEXT);
    CU_OK(cuCtxPushCurrent_v2(p1));
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 4096));
    cr_assert_eq(gg_sim_device_memory_used(1), 4096);
    CU_OK(cuDevicePrimaryCtxReset_v2(1)); /* frees everything; the handle stays valid */
    cr_assert_eq(gg_sim_device_memory_used(1), 0);
    CU_OK(cuMemAlloc_v2(&d, 4096));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_OK(cuMemFree_v2(d)); /* still retained once */
    CU_OK(cuDevicePrimaryCtxRelease_v2(1)); /* last release destroys */
    CU_IS(cuMemAlloc_v2(&d, 8), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CU_IS(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_CONTEXT);
    CU_OK(cuCtxPopCurrent_v2(&cur));
    CU_OK(cuDevicePrimaryCtxRetain(&p1, 1)); /* a fresh one */
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    sim_test_assert_no_leaks();
}

Test(sim_context, stale_and_forged_handles_are_refused)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuEventDestroy_v2(e));
    CU_IS(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuEventRecord(e, NULL), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuStreamQuery((CUstream)(uintptr_t)0xdeadbeef), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuEventQuery((CUevent)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuCtxPushCurrent_v2((CUcontext)(uintptr_t)0x42), CUDA_ERROR_INVALID_CONTEXT);
    /* A stream handle is not an event handle. */
    CUstream s2;
    CU_OK(cuStreamCreate(&s2, 0));
    CU_IS(cuEventQuery((CUevent)(void *)s2), CUDA_ERROR_INVALID_HANDLE);
    CUcontext c;
    CU_OK(cuCtxGetCurrent(&c));
    CU_OK(cuCtxDestroy_v2(c));
    CU_IS(cuStreamQuery(s2), CUDA_ERROR_INVALID_HANDLE);
    sim_test_assert_no_leaks();
}
