/* The ground truth of launches (gg_sim_truth_launches) on the HIP face,
 * keyed by a device's primary context (what hipDevicePrimaryCtxRetain
 * hands out, gpuguard's native context on HIP), with HIP's error codes. */
#include "sim_hip_test.h"

#include <string.h>

TestSuite(sim_hip_truth, .timeout = 60);

/* Device 0 has a 200 ms watchdog, device 1 none. */
#define HIP_TRUTH_DEVICES                                                              \
    "{\"record_launches\":true,"                                                       \
    "\"devices\":[{\"name\":\"wd\",\"watchdog\":true,\"watchdog_ms\":200},"            \
    "{\"name\":\"nowd\"}]"
#define MAX_RECORDS 16

static hipCtx_t primary_of(int ordinal)
{
    hipDevice_t dev;
    hipCtx_t c = NULL;
    HIP_OK(hipDeviceGet(&dev, ordinal));
    HIP_OK(hipDevicePrimaryCtxRetain(&c, dev));
    HIP_OK(hipDevicePrimaryCtxRelease(dev));
    cr_assert_not_null(c);
    return c;
}

static unsigned long long truth_of(hipCtx_t c, gg_sim_launch_truth *out)
{
    return gg_sim_truth_launches((const void *)c, out, out ? MAX_RECORDS : 0);
}

/* Waits (at most 5 s) until record `index` of c has ended; returns it. */
static gg_sim_launch_truth await_end(hipCtx_t c, unsigned long long index)
{
    gg_sim_launch_truth recs[MAX_RECORDS];
    struct timespec t0 = sim_hip_test_now();
    for (;;) {
        unsigned long long n = truth_of(c, recs);
        cr_assert_lt(index, n, "record %llu missing (%llu records)", index, n);
        if (recs[index].state >= GG_SIM_LAUNCH_COMPLETED)
            return recs[index];
        cr_assert_lt(sim_hip_test_ms_since(t0), 5000.0, "record %llu never ended", index);
        sim_hip_test_sleep_ms(2);
    }
}

Test(sim_hip_truth, off_by_default)
{
    sim_hip_test_init(NULL);
    hipFunction_t noop = sim_hip_test_kernel(sim_hip_test_module(), "noop");
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    HIP_OK(hipDeviceSynchronize());
    cr_assert_eq(truth_of(primary_of(0), NULL), 0);
    HIP_OK(hipDeviceReset());
}

/* Streams: a user stream's hipStream_t value; NULL and hipStreamPerThread
 * are the null stream, 0. */
Test(sim_hip_truth, streams_and_completion)
{
    sim_hip_test_init(HIP_TRUTH_DEVICES "}");
    HIP_OK(hipSetDevice(1));
    hipFunction_t noop = sim_hip_test_kernel(sim_hip_test_module(), "noop");
    hipStream_t s;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, hipStreamPerThread, NULL, NULL));
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    HIP_OK(hipDeviceSynchronize());
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(primary_of(1), r), 4);
    cr_assert_eq(truth_of(primary_of(0), NULL), 0);
    const unsigned long long want_stream[] = { (uintptr_t)s, 0, 0, (uintptr_t)s };
    const unsigned long long want_position[] = { 1, 1, 2, 2 };
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(r[i].number, (unsigned long long)i + 1);
        cr_assert_eq(r[i].stream, want_stream[i], "launch %d", i);
        cr_assert_eq(r[i].stream_position, want_position[i], "launch %d", i);
        cr_assert_eq(r[i].state, GG_SIM_LAUNCH_COMPLETED);
        cr_assert_str_eq(r[i].kernel, "noop");
        cr_assert_gt(r[i].started_ns, 0);
        cr_assert_geq(r[i].ended_ns, r[i].started_ns);
    }
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipDeviceReset());
}

/* A fault rule: the culprit with hipErrorIllegalAddress as poisoner, the
 * launch behind it discarded, both written before the error shows; the
 * records stay through hipDeviceReset, and numbering goes on after it. */
Test(sim_hip_truth, fault_discard_and_reset)
{
    sim_hip_test_init(HIP_TRUTH_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\","
                                        "\"action\":\"fault\",\"launch\":1}]}");
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t noop = sim_hip_test_kernel(m, "noop");
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    unsigned ms = 200;
    void *spin_args[] = { &ms };
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, spin_args, NULL));
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    HIP_IS(hipDeviceSynchronize(), hipErrorIllegalAddress);
    hipCtx_t c = primary_of(1);
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r), 3);
    cr_assert_eq(r[0].state, GG_SIM_LAUNCH_COMPLETED);
    cr_assert_eq(r[1].state, GG_SIM_LAUNCH_FAULTED);
    cr_assert_eq(r[1].error, hipErrorIllegalAddress);
    cr_assert_eq(r[1].poisoned_context, 1);
    cr_assert_eq(r[1].misbehaviour, 1);
    cr_assert_eq(r[2].state, GG_SIM_LAUNCH_DISCARDED);
    cr_assert_eq(r[2].started_ns, 0);
    cr_assert_gt(r[2].ended_ns, 0);
    cr_assert_eq(r[2].poisoned_context, 0);
    HIP_OK(hipDeviceReset());
    cr_assert_eq(truth_of(c, NULL), 3);
    cr_assert_eq(primary_of(1), c, "the primary context keeps its handle");
    m = sim_hip_test_module();
    noop = sim_hip_test_kernel(m, "noop");
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    HIP_OK(hipDeviceSynchronize());
    cr_assert_eq(truth_of(c, r), 4);
    cr_assert_eq(r[3].number, 4);
    cr_assert_eq(r[3].stream_position, 4);
    cr_assert_eq(r[3].state, GG_SIM_LAUNCH_COMPLETED);
    gg_sim_truth_reset();
    cr_assert_eq(truth_of(c, NULL), 0);
    HIP_OK(hipDeviceReset());
}

Test(sim_hip_truth, hang_times_out_on_the_watchdog_device)
{
    sim_hip_test_init(HIP_TRUTH_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\","
                                        "\"action\":\"hang\"}]}");
    HIP_OK(hipSetDevice(0));
    hipFunction_t noop = sim_hip_test_kernel(sim_hip_test_module(), "noop");
    HIP_OK(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    HIP_IS(hipDeviceSynchronize(), hipErrorLaunchTimeOut);
    gg_sim_launch_truth r = await_end(primary_of(0), 0);
    cr_assert_eq(r.state, GG_SIM_LAUNCH_TIMED_OUT);
    cr_assert_eq(r.error, hipErrorLaunchTimeOut);
    cr_assert_eq(r.poisoned_context, 1);
    cr_assert_eq(r.misbehaviour, 2);
    HIP_OK(hipDeviceReset());
}
