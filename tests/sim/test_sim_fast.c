/* Fast mode ("fast": true): work completes on the calling thread when it is
 * submitted, kernels are not run, copies still copy, and every query
 * succeeds at once. */
#include "sim_test.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

TestSuite(sim_fast, .timeout = 60);

#define FAST "{\"fast\": true}"

Test(sim_fast, launches_complete_at_once_without_running_kernels)
{
    sim_test_init(FAST);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction fill = sim_test_kernel(m, "fill");
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUevent e;
    CU_OK(cuEventCreate(&e, 0));
    CUdeviceptr buf;
    CU_OK(cuMemAlloc_v2(&buf, 64 * sizeof(unsigned)));
    CU_OK(cuMemsetD8Async(buf, 0, 64 * sizeof(unsigned), s));

    /* fill would write 7s; a 10-second spin would keep the stream busy. */
    unsigned n = 64, value = 7, ms = 10000;
    void *fill_args[] = { &buf, &n, &value };
    void *spin_args[] = { &ms };
    struct timespec t0 = sim_test_now();
    CU_OK(cuLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, s, fill_args, NULL));
    CU_OK(cuLaunchKernel(spin, 4, 1, 1, 1, 1, 1, 0, s, spin_args, NULL));
    CU_OK(cuEventRecord(e, s));
    CU_OK(cuStreamQuery(s));  /* no NOT_READY, not even once */
    CU_OK(cuEventQuery(e));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuEventSynchronize(e));
    cr_assert_lt(sim_test_ms_since(t0), 1000.0, "a kernel ran (or was waited for)");

    unsigned host[64];
    memset(host, 0xff, sizeof host);
    CU_OK(cuMemcpyDtoHAsync_v2(host, buf, sizeof host, s));
    CU_OK(cuStreamQuery(s)); /* the copy, too, is done when the call returns */
    for (unsigned i = 0; i < 64; i++)
        cr_assert_eq(host[i], 0, "element %u = %u: the kernel ran", i, host[i]);

    CU_OK(cuMemFree_v2(buf));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_fast, copies_still_copy)
{
    sim_test_init(FAST);
    CUcontext c = sim_test_ctx(0);
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUdeviceptr a, b;
    CU_OK(cuMemAlloc_v2(&a, 256));
    CU_OK(cuMemAlloc_v2(&b, 256));
    char in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (char)i;
    memset(out, 0, sizeof out);
    CU_OK(cuMemcpyHtoDAsync_v2(a, in, sizeof in, s));
    memset(in, 0, sizeof in); /* a pageable source was read at the call */
    CU_OK(cuMemcpyDtoDAsync_v2(b, a, 256, s));
    CU_OK(cuMemsetD8Async(a, 0x5a, 16, s));
    CU_OK(cuMemcpyDtoHAsync_v2(out, b, sizeof out, s));
    for (int i = 0; i < 256; i++)
        cr_assert_eq((unsigned char)out[i], (unsigned char)i, "byte %d", i);
    CU_OK(cuMemcpyDtoH_v2(out, a, 16));
    for (int i = 0; i < 16; i++)
        cr_assert_eq((unsigned char)out[i], 0x5a);
    /* An asynchronous copy past the end of its allocation is still the
     * sticky fault it is when it runs, only now at once. */
    CU_OK(cuMemcpyHtoDAsync_v2(a + 200, in, 100, s));
    CU_IS(cuStreamQuery(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_fast, launches_are_still_validated_and_counted)
{
    sim_test_init(FAST);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction fill = sim_test_kernel(m, "fill");
    gg_sim_reset_counts();
    CU_IS(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    cr_assert(strstr(gg_sim_last_error_detail(), "kernelParams is NULL") != NULL, "%s",
              gg_sim_last_error_detail());
    CUdeviceptr buf = 0;
    unsigned n = 1, value = 1;
    void *args[] = { &buf, &n, NULL };
    CU_IS(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    args[2] = &value;
    CU_IS(cuLaunchKernel(fill, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    cr_assert_eq(gg_sim_call_count("cuLaunchKernel"), 4);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_fast, events_time_and_order_as_usual)
{
    sim_test_init(FAST);
    CUcontext c = sim_test_ctx(1);
    CUstream s1, s2;
    CU_OK(cuStreamCreate(&s1, 1));
    CU_OK(cuStreamCreate(&s2, 0));
    CUevent a, b, never;
    CU_OK(cuEventCreate(&a, 0));
    CU_OK(cuEventCreate(&b, 0));
    CU_OK(cuEventCreate(&never, 0));
    CU_OK(cuEventQuery(never));
    CU_OK(cuEventRecord(a, s1));
    sim_test_sleep_ms(20);
    CU_OK(cuEventRecord(b, NULL));
    CU_OK(cuStreamWaitEvent(s2, a, 0));
    CU_OK(cuStreamQuery(s2));
    float ms = -1;
    CU_OK(cuEventElapsedTime(&ms, a, b));
    cr_assert_geq(ms, 19.0f, "%f ms between the records", ms);
    CU_OK(cuEventDestroy_v2(a));
    CU_OK(cuEventDestroy_v2(b));
    CU_OK(cuEventDestroy_v2(never));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

typedef struct hammer_arg {
    CUcontext ctx;
    CUfunction noop;
    CUstream stream;
    CUevent event;
    bool shared_stream;
} hammer_arg;

static void *hammer(void *p)
{
    hammer_arg *h = p;
    if (cuCtxPushCurrent_v2(h->ctx) != CUDA_SUCCESS)
        return (void *)1;
    for (int i = 0; i < 2000; i++) {
        if (cuLaunchKernel(h->noop, 1, 1, 1, 1, 1, 1, 0, h->stream, NULL, NULL) != CUDA_SUCCESS)
            return (void *)2;
        if (cuEventRecord(h->event, h->stream) != CUDA_SUCCESS || cuEventQuery(h->event) != CUDA_SUCCESS)
            return (void *)3;
        /* A stream another thread is submitting to has that thread's
         * operation in flight for a moment: NOT_READY then is the truth. */
        CUresult r = cuStreamQuery(h->stream);
        if (r != CUDA_SUCCESS && !(h->shared_stream && r == CUDA_ERROR_NOT_READY))
            return (void *)4;
    }
    CUcontext popped;
    cuCtxPopCurrent_v2(&popped);
    return NULL;
}

Test(sim_fast, threads_on_one_stream_and_on_two_contexts)
{
    sim_test_init(FAST);
    CUcontext c0 = sim_test_ctx(0);
    CUmodule m0 = sim_test_module();
    CUstream s0;
    CU_OK(cuStreamCreate(&s0, 1));
    CUcontext c1 = sim_test_ctx(1);
    CUmodule m1 = sim_test_module();
    CUstream s1;
    CU_OK(cuStreamCreate(&s1, 1));
    hammer_arg args[3] = {
        { c0, sim_test_kernel(m0, "noop"), s0, NULL, true },
        { c0, sim_test_kernel(m0, "noop"), s0, NULL, true }, /* the same stream from two threads */
        { c1, sim_test_kernel(m1, "noop"), s1, NULL, false },
    };
    for (int i = 0; i < 3; i++) {
        CU_OK(cuCtxSetCurrent(args[i].ctx));
        CU_OK(cuEventCreate(&args[i].event, 0));
    }
    pthread_t t[3];
    void *result[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, hammer, &args[i]);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], &result[i]);
    for (int i = 0; i < 3; i++)
        cr_assert_null(result[i], "thread %d failed at step %d", i, (int)(intptr_t)result[i]);
    CU_OK(cuCtxSetCurrent(c0));
    CU_OK(cuStreamQuery(s0)); /* once the threads are done, nothing is in flight */
    CU_OK(cuStreamSynchronize(s0));
    CU_OK(cuCtxDestroy_v2(c0));
    CU_OK(cuCtxDestroy_v2(c1));
    sim_test_assert_no_leaks();
}

Test(sim_fast, refused_with_misbehave_and_when_not_a_boolean)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"fast\": true, \"misbehave\": [{\"kernel\": \"k\", \"action\": \"hang\"}]}", 1);
    CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
    cr_assert(strstr(gg_sim_last_config_error(), "misbehave") != NULL, "%s", gg_sim_last_config_error());
    setenv("GPUGUARD_SIM_CONFIG", "{\"fast\": 1}", 1);
    CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
    cr_assert(strstr(gg_sim_last_config_error(), "fast") != NULL, "%s", gg_sim_last_config_error());
    /* An empty rule list is no misbehaviour. */
    sim_test_init("{\"fast\": true, \"misbehave\": []}");
}
