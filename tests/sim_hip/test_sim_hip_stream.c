/* Streams and events: in-order execution, asynchrony, queries, waits,
 * elapsed time, null-stream ordering, destroy with pending work, objects of
 * another device. */
#include "sim_hip_test.h"

#include <string.h>

TestSuite(sim_hip_stream, .timeout = 60);

static void launch_spin(hipFunction_t spin, hipStream_t s, unsigned ms)
{
    void *args[] = { &ms };
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static void launch_append(hipFunction_t f, hipStream_t s, void *buf, unsigned value)
{
    uint64_t d = (uint64_t)(uintptr_t)buf;
    void *args[] = { &d, &value };
    HIP_OK(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

Test(sim_hip_stream, operations_run_in_order)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t append = sim_hip_test_kernel(m, "append");
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipStream_t s;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    void *buf;
    HIP_OK(hipMalloc(&buf, 64 * sizeof(unsigned)));
    HIP_OK(hipMemsetD8Async(buf, 0, 64 * sizeof(unsigned), s));
    unsigned host[64];
    for (unsigned i = 1; i <= 20; i++) {
        if (i % 5 == 0)
            launch_spin(spin, s, 5); /* later work must still wait */
        launch_append(append, s, buf, i);
    }
    HIP_OK(hipMemcpyDtoHAsync(host, buf, sizeof host, s));
    HIP_OK(hipStreamSynchronize(s));
    cr_assert_eq(host[0], 20);
    for (unsigned i = 1; i <= 20; i++)
        cr_assert_eq(host[i], i, "slot %u = %u", i, host[i]);
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipFree(buf));
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_stream, launch_is_asynchronous_and_query_reports_not_ready)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipStream_t s;
    hipEvent_t e;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    HIP_OK(hipEventCreate(&e));
    struct timespec t0 = sim_hip_test_now();
    launch_spin(spin, s, 400);
    HIP_OK(hipEventRecord(e, s));
    double launch_ms = sim_hip_test_ms_since(t0);
    HIP_IS(hipStreamQuery(s), hipErrorNotReady);
    HIP_IS(hipEventQuery(e), hipErrorNotReady);
    cr_assert_lt(launch_ms, 400.0, "the launch call waited for the kernel");
    HIP_OK(hipStreamSynchronize(s));
    cr_assert_geq(sim_hip_test_ms_since(t0), 399.0);
    HIP_OK(hipStreamQuery(s));
    HIP_OK(hipEventQuery(e));
    HIP_OK(hipDeviceReset()); /* frees the stream, the event and the module */
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_stream, events_elapsed_time_and_errors)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipEvent_t a, b, never;
    HIP_OK(hipEventCreate(&a));
    HIP_OK(hipEventCreate(&b));
    HIP_OK(hipEventCreate(&never));
    HIP_IS(hipEventCreate(NULL), hipErrorInvalidValue);
    HIP_OK(hipEventQuery(never)); /* never recorded: complete, as in ROCm 5.2 */
    HIP_OK(hipEventSynchronize(never));
    float ms = -1;
    HIP_IS(hipEventElapsedTime(&ms, a, never), hipErrorInvalidHandle);
    HIP_OK(hipEventRecord(a, NULL));
    launch_spin(spin, NULL, 50);
    HIP_OK(hipEventRecord(b, NULL));
    HIP_OK(hipEventSynchronize(b));
    HIP_OK(hipEventElapsedTime(&ms, a, b));
    cr_assert_geq(ms, 49.0f);
    cr_assert_lt(ms, 10000.0f);
    /* Not yet reached: NOT_READY. */
    launch_spin(spin, NULL, 300);
    HIP_OK(hipEventRecord(b, NULL));
    HIP_IS(hipEventElapsedTime(&ms, a, b), hipErrorNotReady);
    HIP_IS(hipEventElapsedTime(NULL, a, b), hipErrorInvalidValue);
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipEventElapsedTime(&ms, a, b));
    cr_assert_geq(ms, 349.0f);
    HIP_OK(hipEventDestroy(a));
    HIP_OK(hipEventDestroy(b));
    HIP_OK(hipEventDestroy(never));
    HIP_IS(hipEventDestroy(never), hipErrorInvalidHandle);
    HIP_IS(hipEventQuery(NULL), hipErrorInvalidHandle);
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_stream, stream_wait_event_orders_across_streams)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipFunction_t append = sim_hip_test_kernel(m, "append");
    hipStream_t s1, s2;
    HIP_OK(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
    HIP_OK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    hipEvent_t e;
    HIP_OK(hipEventCreate(&e));
    void *buf;
    HIP_OK(hipMalloc(&buf, 16));
    HIP_OK(hipMemsetD8(buf, 0, 16));
    launch_spin(spin, s1, 200);
    launch_append(append, s1, buf, 1);
    HIP_OK(hipEventRecord(e, s1));
    HIP_IS(hipStreamWaitEvent(s2, e, 1), hipErrorInvalidValue);
    HIP_OK(hipStreamWaitEvent(s2, e, 0));
    launch_append(append, s2, buf, 2); /* must run after s1's append */
    HIP_OK(hipStreamSynchronize(s2));
    unsigned host[3];
    HIP_OK(hipMemcpyDtoH(host, buf, sizeof host));
    cr_assert_eq(host[0], 2);
    cr_assert_eq(host[1], 1);
    cr_assert_eq(host[2], 2);
    HIP_OK(hipDeviceReset());
    sim_hip_test_assert_no_leaks();
}

/* HIP's null stream synchronises with the device's blocking streams. */
Test(sim_hip_stream, null_stream_orders_with_blocking_streams_not_with_non_blocking)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipStream_t blocking, nonblocking;
    HIP_OK(hipStreamCreateWithFlags(&blocking, hipStreamDefault));
    HIP_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
    HIP_IS(hipStreamCreateWithFlags(&blocking, 4), hipErrorInvalidValue);
    HIP_IS(hipStreamCreateWithFlags(NULL, 0), hipErrorInvalidValue);
    launch_spin(spin, blocking, 300);
    launch_spin(spin, NULL, 1); /* waits for the blocking stream */
    HIP_IS(hipStreamQuery(NULL), hipErrorNotReady);
    HIP_OK(hipStreamSynchronize(NULL));
    HIP_OK(hipStreamQuery(blocking));
    /* hipStreamPerThread is the null stream in the simulator. */
    launch_spin(spin, hipStreamPerThread, 300);
    HIP_IS(hipStreamQuery(NULL), hipErrorNotReady);
    HIP_OK(hipStreamSynchronize(hipStreamPerThread));
    /* A non-blocking stream does not wait for the null stream. */
    launch_spin(spin, NULL, 2000);
    launch_spin(spin, nonblocking, 1);
    cr_assert_eq(sim_hip_test_poll_stream(nonblocking, 1500), hipSuccess);
    HIP_IS(hipStreamQuery(NULL), hipErrorNotReady);
    struct timespec t0 = sim_hip_test_now();
    HIP_OK(hipDeviceReset()); /* does not wait for the 2 s kernel */
    cr_assert_lt(sim_hip_test_ms_since(t0), 1000.0);
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_stream, destroy_returns_at_once_and_pending_work_still_runs)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipFunction_t append = sim_hip_test_kernel(m, "append");
    void *buf;
    HIP_OK(hipMalloc(&buf, 16));
    HIP_OK(hipMemsetD8(buf, 0, 16));
    hipStream_t s;
    hipEvent_t e;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    HIP_OK(hipEventCreate(&e));
    launch_spin(spin, s, 300);
    launch_append(append, s, buf, 7);
    HIP_OK(hipEventRecord(e, s));
    struct timespec t0 = sim_hip_test_now();
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipEventDestroy(e));
    cr_assert_lt(sim_hip_test_ms_since(t0), 250.0, "destroy waited for the work");
    HIP_IS(hipStreamDestroy(s), hipErrorInvalidHandle);
    HIP_IS(hipStreamDestroy(NULL), hipErrorInvalidHandle);
    HIP_IS(hipStreamQuery(s), hipErrorInvalidHandle);
    HIP_OK(hipDeviceSynchronize());
    unsigned host[2];
    HIP_OK(hipMemcpyDtoH(host, buf, sizeof host));
    cr_assert_eq(host[0], 1);
    cr_assert_eq(host[1], 7);
    HIP_OK(hipFree(buf));
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

/* Streams and events belong to the device current at their creation; the
 * calls on them work from any device, work on them stays on their device. */
Test(sim_hip_stream, objects_of_another_device)
{
    sim_hip_test_init(NULL);
    hipStream_t s0;
    hipEvent_t e0;
    HIP_OK(hipStreamCreateWithFlags(&s0, hipStreamNonBlocking)); /* device 0 */
    HIP_OK(hipEventCreate(&e0));
    hipModule_t m0 = sim_hip_test_module();
    HIP_OK(hipSetDevice(1));
    hipModule_t m1 = sim_hip_test_module();
    hipFunction_t noop1 = sim_hip_test_kernel(m1, "noop");
    hipFunction_t noop0 = sim_hip_test_kernel(m0, "noop");
    hipEvent_t e1;
    HIP_OK(hipEventCreate(&e1));
    void *d1;
    HIP_OK(hipMalloc(&d1, 16));
    char host[16] = { 0 };
    HIP_OK(hipStreamQuery(s0)); /* queries work from anywhere */
    HIP_OK(hipStreamSynchronize(s0));
    HIP_OK(hipEventRecord(e0, s0));
    HIP_OK(hipEventRecord(e0, NULL)); /* the event's device's null stream */
    HIP_OK(hipEventSynchronize(e0));
    HIP_IS(hipEventRecord(e1, s0), hipErrorInvalidHandle);
    HIP_IS(hipMemcpyHtoDAsync(d1, host, 16, s0), hipErrorInvalidValue);
    HIP_OK(hipMemcpyHtoDAsync(d1, host, 16, NULL)); /* d1's device */
    HIP_IS(hipModuleLaunchKernel(noop1, 1, 1, 1, 1, 1, 1, 0, s0, NULL, NULL),
           hipErrorInvalidHandle);
    HIP_OK(hipModuleLaunchKernel(noop0, 1, 1, 1, 1, 1, 1, 0, s0, NULL, NULL));
    HIP_IS(hipModuleLaunchKernel(noop0, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
           hipErrorInvalidHandle); /* NULL stream: the current device, 1 */
    HIP_OK(hipStreamWaitEvent(NULL, e0, 0)); /* cross-device waits are fine */
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipStreamDestroy(s0));
    HIP_OK(hipEventDestroy(e0));
    HIP_OK(hipEventDestroy(e1));
    HIP_OK(hipModuleUnload(m0));
    HIP_OK(hipModuleUnload(m1));
    HIP_OK(hipFree(d1));
    sim_hip_test_assert_no_leaks();
}
