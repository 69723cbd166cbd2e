/* The per-thread current device, primary contexts (retained implicitly,
 * never released, reset in place) and the deprecated hipCtx* stack. */
#include "sim_hip_test.h"

#include <pthread.h>

TestSuite(sim_hip_device, .timeout = 60);

typedef struct peer_result {
    int device;
    hipError_t alloc;
    void *ptr;
} peer_result;

static void *peer_main(void *arg)
{
    peer_result *r = arg;
    r->device = -1;
    (void)hipGetDevice(&r->device);
    r->alloc = hipMalloc(&r->ptr, 1 << 20);
    return NULL;
}

Test(sim_hip_device, current_device_is_per_thread_and_defaults_to_0)
{
    sim_hip_test_init(NULL);
    int dev = -1;
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0);
    HIP_OK(hipSetDevice(1));
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 1);
    void *mine;
    HIP_OK(hipMalloc(&mine, 2 << 20));

    /* A new thread starts on device 0, whatever this one chose. */
    peer_result r = { 0 };
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, peer_main, &r), 0);
    pthread_join(t, NULL);
    cr_assert_eq(r.device, 0);
    cr_assert_eq(r.alloc, hipSuccess);
    cr_assert_eq(gg_sim_device_memory_used(0), 1u << 20);
    cr_assert_eq(gg_sim_device_memory_used(1), 2u << 20);

    HIP_IS(hipSetDevice(2), hipErrorInvalidDevice);
    HIP_IS(hipSetDevice(-1), hipErrorInvalidDevice);
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 1, "a refused hipSetDevice changes nothing");
    HIP_IS(hipGetDevice(NULL), hipErrorInvalidValue);
    HIP_OK(hipFree(mine));
    HIP_OK(hipFree(r.ptr)); /* device 0's memory, freed from device 1 */
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_device, primary_context_release_does_not_release)
{
    sim_hip_test_init(NULL);
    hipCtx_t a = NULL, b = NULL, cur = NULL;
    HIP_OK(hipDevicePrimaryCtxRetain(&a, 1));
    HIP_OK(hipDevicePrimaryCtxRetain(&b, 1));
    cr_assert_not_null(a);
    cr_assert_eq(a, b, "one primary context per device");
    HIP_OK(hipSetDevice(1));
    HIP_OK(hipCtxGetCurrent(&cur));
    cr_assert_eq(cur, a, "the current context is the current device's primary context");
    void *p;
    HIP_OK(hipMalloc(&p, 4096));
    for (int i = 0; i < 3; i++) /* more releases than retains: still fine */
        HIP_OK(hipDevicePrimaryCtxRelease(1));
    HIP_OK(hipDevicePrimaryCtxRelease(0)); /* never retained */
    /* Nothing was released: the memory and the context still work. */
    unsigned char host[16] = { 0 };
    HIP_OK(hipMemsetD8(p, 7, 16));
    HIP_OK(hipMemcpyDtoH(host, p, sizeof host));
    cr_assert_eq(host[15], 7);
    HIP_OK(hipDevicePrimaryCtxRetain(&b, 1));
    cr_assert_eq(a, b);
    HIP_IS(hipDevicePrimaryCtxRelease(2), hipErrorInvalidDevice);
    HIP_IS(hipDevicePrimaryCtxRetain(&b, 2), hipErrorInvalidDevice);
    HIP_IS(hipDevicePrimaryCtxRetain(NULL, 0), hipErrorInvalidValue);
    HIP_OK(hipFree(p));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_device, primary_reset_frees_everything_and_keeps_the_handle)
{
    sim_hip_test_init(NULL);
    hipCtx_t before, after;
    HIP_OK(hipDevicePrimaryCtxRetain(&before, 1));
    void *keep; /* device 0's: a reset of device 1 leaves it alone */
    HIP_OK(hipMalloc(&keep, 4096));
    HIP_OK(hipSetDevice(1));
    hipStream_t s;
    hipEvent_t e;
    void *p, *host;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    HIP_OK(hipEventCreate(&e));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t noop = sim_hip_test_kernel(m, "noop");
    HIP_OK(hipMalloc(&p, 1 << 20));
    HIP_OK(hipHostMalloc(&host, 4096, 0));
    HIP_OK(hipEventRecord(e, s));
    cr_assert_neq(gg_sim_live_objects(), 0);

    HIP_OK(hipDevicePrimaryCtxReset(1));
    cr_assert_eq(gg_sim_device_memory_used(1), 0);
    cr_assert_eq(gg_sim_device_memory_used(0), 4096u);
    HIP_IS(hipStreamQuery(s), hipErrorInvalidHandle);
    HIP_IS(hipEventQuery(e), hipErrorInvalidHandle);
    HIP_IS(hipModuleGetFunction(&noop, m, "noop"), hipErrorInvalidHandle);
    HIP_IS(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
           hipErrorInvalidHandle);
    HIP_IS(hipFree(p), hipErrorInvalidValue);
    HIP_IS(hipHostFree(host), hipErrorInvalidValue);
    HIP_OK(hipDevicePrimaryCtxRetain(&after, 1));
    cr_assert_eq(before, after, "the handle survives the reset");
    HIP_OK(hipMalloc(&p, 4096)); /* and the context works */
    HIP_IS(hipDevicePrimaryCtxReset(5), hipErrorInvalidDevice);

    /* hipDeviceReset resets the current device only. */
    HIP_OK(hipDeviceReset());
    cr_assert_eq(gg_sim_device_memory_used(1), 0);
    cr_assert_eq(gg_sim_device_memory_used(0), 4096u);
    HIP_OK(hipSetDevice(0));
    HIP_OK(hipDeviceReset());
    cr_assert_eq(gg_sim_device_memory_used(0), 0);
    HIP_OK(hipDeviceReset()); /* nothing left: harmless */
    sim_hip_test_assert_no_leaks();
}

/* ROCm 5.2: push and set make the context's device current; pop and
 * set(NULL) only pop, the current device stays. */
Test(sim_hip_device, context_stack_follows_rocm)
{
    sim_hip_test_init(NULL);
    hipCtx_t c0, c1, cur = NULL, popped = NULL;
    HIP_OK(hipDevicePrimaryCtxRetain(&c0, 0));
    HIP_OK(hipDevicePrimaryCtxRetain(&c1, 1));
    HIP_OK(hipCtxGetCurrent(&cur));
    cr_assert_eq(cur, c0, "no stack: the current device's primary context");
    HIP_IS(hipCtxPopCurrent(&popped), hipErrorInvalidContext);

    HIP_OK(hipCtxPushCurrent(c1));
    int dev = -1;
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 1);
    HIP_OK(hipCtxGetCurrent(&cur));
    cr_assert_eq(cur, c1);
    void *p;
    HIP_OK(hipMalloc(&p, 4096)); /* goes to device 1 */
    cr_assert_eq(gg_sim_device_memory_used(1), 4096u);

    HIP_OK(hipCtxPushCurrent(c0));
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0);
    HIP_OK(hipCtxPopCurrent(&popped));
    cr_assert_eq(popped, c0);
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0, "pop leaves the current device alone, as in ROCm");
    HIP_OK(hipCtxPopCurrent(NULL));
    HIP_IS(hipCtxPopCurrent(&popped), hipErrorInvalidContext);

    HIP_OK(hipCtxSetCurrent(c1)); /* empty stack: pushes */
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 1);
    HIP_OK(hipCtxSetCurrent(c0)); /* replaces the top */
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0);
    HIP_OK(hipCtxSetCurrent(NULL)); /* pops */
    HIP_IS(hipCtxPopCurrent(&popped), hipErrorInvalidContext);
    HIP_OK(hipCtxSetCurrent(NULL)); /* empty: nothing to pop, still fine */
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0);

    HIP_IS(hipCtxPushCurrent(NULL), hipErrorInvalidContext);
    HIP_IS(hipCtxPushCurrent((hipCtx_t)(uintptr_t)0x1234), hipErrorInvalidContext);
    HIP_IS(hipCtxSetCurrent((hipCtx_t)(uintptr_t)0x1234), hipErrorInvalidContext);
    HIP_IS(hipCtxGetCurrent(NULL), hipErrorInvalidValue);
    HIP_OK(hipFree(p));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_device, device_synchronize_waits_for_every_stream_of_the_device)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipStream_t a, b;
    HIP_OK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
    HIP_OK(hipStreamCreateWithFlags(&b, 0));
    unsigned ms1 = 150, ms2 = 250;
    void *args1[] = { &ms1 }, *args2[] = { &ms2 };
    struct timespec t0 = sim_hip_test_now();
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, a, args1, NULL));
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, b, args2, NULL));
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, args1, NULL));
    HIP_OK(hipDeviceSynchronize());
    cr_assert_geq(sim_hip_test_ms_since(t0), 249.0);
    HIP_OK(hipStreamQuery(a));
    HIP_OK(hipStreamQuery(b));
    HIP_OK(hipStreamQuery(NULL));
    HIP_OK(hipStreamDestroy(a));
    HIP_OK(hipStreamDestroy(b));
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}
