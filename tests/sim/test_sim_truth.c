/* The ground truth of launches (gg_sim_truth_launches) on the CUDA face:
 * what each launch became, where it was queued, who poisoned the context.
 * Every wait is bounded: the suite's timeout, and deadline loops below. */
#include "sim_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(sim_truth, .timeout = 60);

/* Device 0 has a 200 ms watchdog, device 1 none. */
#define TRUTH_DEVICES                                                                  \
    "{\"record_launches\":true,"                                                       \
    "\"devices\":[{\"name\":\"wd\",\"watchdog\":true,\"watchdog_ms\":200},"            \
    "{\"name\":\"nowd\"}]"
#define TRUTH_CONFIG TRUTH_DEVICES "}"

#define CU_STREAM_LEGACY_VALUE ((CUstream)(uintptr_t)0x1)
#define CU_STREAM_PER_THREAD_VALUE ((CUstream)(uintptr_t)0x2)
#define MAX_RECORDS 64

static unsigned long long truth_of(CUcontext c, gg_sim_launch_truth *out, unsigned long long max)
{
    return gg_sim_truth_launches((const void *)c, out, max);
}

static unsigned long long stream_value(CUstream s)
{
    return (unsigned long long)(uintptr_t)s;
}

/* Waits (at most 5 s) until record `index` of c is in `state`; returns it. */
static gg_sim_launch_truth await_state(CUcontext c, unsigned long long index, int state)
{
    gg_sim_launch_truth recs[MAX_RECORDS];
    struct timespec t0 = sim_test_now();
    for (;;) {
        unsigned long long n = truth_of(c, recs, MAX_RECORDS);
        cr_assert_lt(index, n, "record %llu missing (%llu records)", index, n);
        if (recs[index].state == state || sim_test_ms_since(t0) > 5000) {
            cr_assert_eq(recs[index].state, state, "record %llu is in state %d, expected %d",
                         index, recs[index].state, state);
            return recs[index];
        }
        sim_test_sleep_ms(2);
    }
}

/* Waits (at most 5 s) until record `index` of c has ended; returns it. */
static gg_sim_launch_truth await_end(CUcontext c, unsigned long long index)
{
    gg_sim_launch_truth recs[MAX_RECORDS];
    struct timespec t0 = sim_test_now();
    for (;;) {
        unsigned long long n = truth_of(c, recs, MAX_RECORDS);
        cr_assert_lt(index, n, "record %llu missing (%llu records)", index, n);
        if (recs[index].state >= GG_SIM_LAUNCH_COMPLETED)
            return recs[index];
        cr_assert_lt(sim_test_ms_since(t0), 5000.0, "record %llu never ended", index);
        sim_test_sleep_ms(2);
    }
}

static void assert_ended(const gg_sim_launch_truth *r, int state, int error, int poisoned)
{
    cr_assert_eq(r->state, state, "launch %llu (%s): state %d, expected %d", r->number, r->kernel,
                 r->state, state);
    cr_assert_eq(r->error, error, "launch %llu (%s): error %d, expected %d", r->number,
                 r->kernel, r->error, error);
    cr_assert_eq(r->poisoned_context, poisoned, "launch %llu (%s): poisoned_context %d",
                 r->number, r->kernel, r->poisoned_context);
    cr_assert_gt(r->ended_ns, 0, "launch %llu has no end time", r->number);
    if (r->started_ns)
        cr_assert_geq(r->ended_ns, r->started_ns);
}

/* A discarded launch that never started. */
static void assert_never_ran(const gg_sim_launch_truth *r)
{
    assert_ended(r, GG_SIM_LAUNCH_DISCARDED, 0, 0);
    cr_assert_eq(r->started_ns, 0, "launch %llu (%s) started", r->number, r->kernel);
}

Test(sim_truth, off_by_default)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    cr_assert_eq(truth_of(c, NULL, 0), 0);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(sim_truth, fast_mode_records_nothing)
{
    sim_test_init("{\"fast\":true,\"record_launches\":true}");
    CUcontext c = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    cr_assert_eq(truth_of(c, NULL, 0), 0);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(sim_truth, record_launches_must_be_a_boolean)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"record_launches\":1}", 1);
    CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
    cr_assert(strstr(gg_sim_last_config_error(), "record_launches") != NULL, "%s",
              gg_sim_last_config_error());
}

Test(sim_truth, unknown_context_has_no_records)
{
    sim_test_init(TRUTH_CONFIG);
    cr_assert_eq(gg_sim_truth_launches(NULL, NULL, 0), 0);
    cr_assert_eq(gg_sim_truth_launches((const void *)(uintptr_t)0x12345, NULL, 0), 0);
}

Test(sim_truth, completed_launch)
{
    sim_test_init(TRUTH_CONFIG);
    CUcontext c = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuLaunchKernel(noop, 4, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_OK(cuStreamSynchronize(s));
    gg_sim_launch_truth r[2];
    memset(r, 0xab, sizeof r);
    cr_assert_eq(truth_of(c, r, 2), 1);
    /* Synchronize returned success: the truth already says so. */
    assert_ended(&r[0], GG_SIM_LAUNCH_COMPLETED, 0, 0);
    cr_assert_eq(r[0].number, 1);
    cr_assert_eq(r[0].stream, stream_value(s));
    cr_assert_neq(r[0].stream, 0);
    cr_assert_eq(r[0].stream_position, 1);
    cr_assert_str_eq(r[0].kernel, "noop");
    cr_assert_eq(r[0].misbehaviour, 0);
    cr_assert_gt(r[0].started_ns, 0);
    /* Only as many as there are were written. */
    cr_assert_eq(r[1].number, 0xababababababababull);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuCtxDestroy_v2(c));
}

/* The faulting launch is marked, as poisoner, before synchronize can see
 * the error; those queued behind it are discarded by then too. */
Test(sim_truth, fault_rule_poisons_and_discards_the_queue)
{
    sim_test_init(TRUTH_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"fault\","
                                "\"launch\":1}]}");
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction noop = sim_test_kernel(m, "noop");
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    unsigned ms = 300; /* holds the stream while the rest is queued */
    void *spin_args[] = { &ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, spin_args, NULL));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));  /* faults */
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));  /* discarded */
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, spin_args, NULL)); /* behind, on null */
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 4);
    assert_ended(&r[0], GG_SIM_LAUNCH_COMPLETED, 0, 0);
    assert_ended(&r[1], GG_SIM_LAUNCH_FAULTED, CUDA_ERROR_ILLEGAL_ADDRESS, 1);
    cr_assert_eq(r[1].misbehaviour, 1);
    cr_assert_gt(r[1].started_ns, 0);
    cr_assert_geq(r[1].started_ns, r[0].ended_ns);
    assert_never_ran(&r[2]);
    assert_never_ran(&r[3]);
    cr_assert_eq(r[3].stream, 0);
    cr_assert_eq(r[3].stream_position, 1);
    /* Refused launches are not recorded. */
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_assert_eq(truth_of(c, NULL, 0), 4);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(sim_truth, kernel_fault_of_its_own)
{
    sim_test_init(TRUTH_CONFIG);
    CUcontext c = sim_test_ctx(1);
    CUfunction trap = sim_test_kernel(sim_test_module(), "trap_assert");
    CU_OK(cuLaunchKernel(trap, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 1);
    assert_ended(&r[0], GG_SIM_LAUNCH_FAULTED, CUDA_ERROR_ASSERT, 1);
    cr_assert_eq(r[0].misbehaviour, 0);
    cr_assert_eq(r[0].stream, 0);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(sim_truth, hang_on_watchdog_device_times_out)
{
    sim_test_init(TRUTH_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\"}]}");
    CUcontext c = sim_test_ctx(0);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL)); /* never runs */
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_TIMEOUT);
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 2);
    assert_ended(&r[0], GG_SIM_LAUNCH_TIMED_OUT, CUDA_ERROR_LAUNCH_TIMEOUT, 1);
    cr_assert_eq(r[0].misbehaviour, 2);
    cr_assert_geq(r[0].ended_ns - r[0].started_ns, 200000000ull, "killed after %llu ns",
                  r[0].ended_ns - r[0].started_ns);
    assert_never_ran(&r[1]);
    cr_assert_eq(r[1].misbehaviour, 2);
    cr_assert_eq(r[1].stream_position, 2);
    CU_OK(cuCtxDestroy_v2(c));
}

/* Numbers follow acceptance in the context, positions acceptance on each
 * stream; every name of the null stream is recorded as 0, the calling
 * thread's per-thread default stream (CU_STREAM_PER_THREAD) as 0x2, a
 * stream of its own with positions of its own. */
Test(sim_truth, streams_and_positions)
{
    sim_test_init(TRUTH_CONFIG);
    CUcontext c = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s1, s2;
    CU_OK(cuStreamCreate(&s1, 0));
    CU_OK(cuStreamCreate(&s2, 1));
    const CUstream order[] = { s1, s2, NULL, s1, CU_STREAM_LEGACY_VALUE, s2,
                               CU_STREAM_PER_THREAD_VALUE, s1 };
    const unsigned long long want_stream[] = { stream_value(s1), stream_value(s2), 0,
                                               stream_value(s1), 0, stream_value(s2), 0x2,
                                               stream_value(s1) };
    const unsigned long long want_position[] = { 1, 1, 1, 2, 2, 2, 1, 3 };
    const size_t n = sizeof order / sizeof order[0];
    for (size_t i = 0; i < n; i++) {
        CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, order[i], NULL, NULL));
        if (i == 2) { /* streams are distinct from non-launch ops: seq is not the position */
            CUevent e;
            CU_OK(cuEventCreate(&e, 0));
            CU_OK(cuEventRecord(e, s1));
            CU_OK(cuEventDestroy_v2(e));
        }
    }
    CU_OK(cuCtxSynchronize());
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].number, i + 1);
        cr_assert_eq(r[i].stream, want_stream[i], "launch %zu: stream %llx, expected %llx", i,
                     r[i].stream, want_stream[i]);
        cr_assert_eq(r[i].stream_position, want_position[i], "launch %zu: position %llu", i,
                     r[i].stream_position);
        assert_ended(&r[i], GG_SIM_LAUNCH_COMPLETED, 0, 0);
    }
    CU_OK(cuStreamDestroy_v2(s1));
    CU_OK(cuStreamDestroy_v2(s2));
    CU_OK(cuCtxDestroy_v2(c));
}

/* Two streams fault at about the same moment, many times: exactly one
 * launch is the poisoner, and it carries the context's sticky error. */
/* Twenty rounds in one process: "sticky_scope": "context", so that each
 * round's fault poisons only its own context. */
Test(sim_truth, poisoned_context_exactly_once)
{
    sim_test_init(TRUTH_DEVICES ",\"sticky_scope\":\"context\"}");
    for (int round = 0; round < 20; round++) {
        CUcontext c = sim_test_ctx(1);
        CUmodule m = sim_test_module();
        CUfunction trap = sim_test_kernel(m, "trap_assert");
        CUfunction touch = sim_test_kernel(m, "touch");
        CUstream s1, s2;
        CU_OK(cuStreamCreate(&s1, 1));
        CU_OK(cuStreamCreate(&s2, 1));
        uint64_t nowhere = 0x10, off = 0;
        void *touch_args[] = { &nowhere, &off };
        CU_OK(cuLaunchKernel(trap, 1, 1, 1, 1, 1, 1, 0, s1, NULL, NULL));
        CUresult r2 = cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, s2, touch_args, NULL);
        cr_assert(r2 == CUDA_SUCCESS || r2 == CUDA_ERROR_ASSERT, "%d", r2);
        CUresult sticky = cuCtxSynchronize();
        cr_assert(sticky == CUDA_ERROR_ASSERT || sticky == CUDA_ERROR_ILLEGAL_ADDRESS, "%d",
                  sticky);
        gg_sim_launch_truth r[MAX_RECORDS];
        unsigned long long n = truth_of(c, r, MAX_RECORDS);
        cr_assert_eq(n, r2 == CUDA_SUCCESS ? 2 : 1);
        int poisoners = 0;
        for (unsigned long long i = 0; i < n; i++) {
            /* A launch still running is stopped by the poison (or ends with
             * a fault of its own first): wait for it. */
            if (r[i].state == GG_SIM_LAUNCH_QUEUED || r[i].state == GG_SIM_LAUNCH_RUNNING)
                r[i] = await_end(c, i);
            if (r[i].poisoned_context) {
                poisoners++;
                cr_assert_eq(r[i].state, GG_SIM_LAUNCH_FAULTED);
                cr_assert_eq(r[i].error, (int)sticky);
            } else {
                /* It lost the race with a fault of its own, or never ran. */
                cr_assert(r[i].state == GG_SIM_LAUNCH_FAULTED ||
                          r[i].state == GG_SIM_LAUNCH_DISCARDED, "state %d", r[i].state);
            }
        }
        cr_assert_eq(poisoners, 1, "round %d: %d poisoners", round, poisoners);
        CU_OK(cuCtxDestroy_v2(c));
    }
    sim_test_assert_no_leaks();
}

/* The records outlive cuCtxDestroy; the destroy itself marks what it
 * dropped from the queues, its worker the launch it stopped. */
Test(sim_truth, records_survive_destroy)
{
    sim_test_init(TRUTH_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\","
                                "\"launch\":2}]}");
    CUcontext c = sim_test_ctx(1); /* no watchdog: the hang lasts until the destroy */
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* hangs */
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* queued behind */
    await_state(c, 1, GG_SIM_LAUNCH_RUNNING);
    CU_OK(cuCtxDestroy_v2(c));
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 3);
    assert_ended(&r[0], GG_SIM_LAUNCH_COMPLETED, 0, 0);
    assert_never_ran(&r[2]);
    gg_sim_launch_truth hung = await_state(c, 1, GG_SIM_LAUNCH_DISCARDED);
    assert_ended(&hung, GG_SIM_LAUNCH_DISCARDED, 0, 0);
    cr_assert_gt(hung.started_ns, 0);
    cr_assert_eq(hung.misbehaviour, 2);
    sim_test_assert_no_leaks(); /* the records are not simulator objects */
    cr_assert_eq(truth_of(c, NULL, 0), 3);
}

/* A primary reset keeps the context's handle, and so its log: numbering
 * and the null stream's positions go on. */
Test(sim_truth, primary_reset_keeps_the_log)
{
    sim_test_init(TRUTH_DEVICES ",\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"hang\","
                                "\"launch\":1}]}");
    CUdevice dev;
    CU_OK(cuDeviceGet(&dev, 1));
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, dev));
    CU_OK(cuCtxSetCurrent(c));
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL)); /* hangs */
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    await_state(c, 0, GG_SIM_LAUNCH_RUNNING);
    CU_OK(cuDevicePrimaryCtxReset_v2(dev));
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 2);
    assert_never_ran(&r[1]);
    await_state(c, 0, GG_SIM_LAUNCH_DISCARDED);
    CU_OK(cuDevicePrimaryCtxRetain(&c, dev));
    CU_OK(cuCtxSetCurrent(c));
    noop = sim_test_kernel(sim_test_module(), "noop");
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 3);
    cr_assert_eq(r[2].number, 3);
    cr_assert_eq(r[2].stream, 0);
    cr_assert_eq(r[2].stream_position, 3);
    assert_ended(&r[2], GG_SIM_LAUNCH_COMPLETED, 0, 0);
    CU_OK(cuDevicePrimaryCtxRelease_v2(dev));
    CU_OK(cuDevicePrimaryCtxRelease_v2(dev));
}

/* Reset forgets every context's records; a live context records on from
 * number 1, its streams from position 1. */
Test(sim_truth, reset_forgets)
{
    sim_test_init(TRUTH_CONFIG);
    CUcontext dead = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy_v2(dead));
    CUcontext c = sim_test_ctx(1);
    noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    for (int i = 0; i < 3; i++)
        CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, i == 1 ? NULL : s, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    cr_assert_eq(truth_of(dead, NULL, 0), 1);
    cr_assert_eq(truth_of(c, NULL, 0), 3);
    gg_sim_truth_reset();
    cr_assert_eq(truth_of(dead, NULL, 0), 0);
    cr_assert_eq(truth_of(c, NULL, 0), 0);
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    gg_sim_launch_truth r[MAX_RECORDS];
    cr_assert_eq(truth_of(c, r, MAX_RECORDS), 2);
    cr_assert_eq(r[0].number, 1);
    cr_assert_eq(r[0].stream, stream_value(s));
    cr_assert_eq(r[0].stream_position, 1);
    cr_assert_eq(r[1].number, 2);
    cr_assert_eq(r[1].stream_position, 1);
    assert_ended(&r[1], GG_SIM_LAUNCH_COMPLETED, 0, 0);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuCtxDestroy_v2(c));
    gg_sim_truth_reset();
    cr_assert_eq(truth_of(c, NULL, 0), 0);
}

/* More records than any first capacity: all there, in order, and a copy
 * takes only as many as asked. */
Test(sim_truth, many_launches_all_recorded)
{
    enum { LAUNCHES = 5000 };
    sim_test_init(TRUTH_CONFIG);
    CUcontext c = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    for (int i = 0; i < LAUNCHES; i++)
        CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, i % 2 ? s : NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    static gg_sim_launch_truth r[LAUNCHES + 1];
    memset(r, 0, sizeof r);
    cr_assert_eq(truth_of(c, r, LAUNCHES + 1), LAUNCHES);
    cr_assert_eq(r[LAUNCHES].number, 0);
    for (unsigned long long i = 0; i < LAUNCHES; i++) {
        cr_assert_eq(r[i].number, i + 1);
        cr_assert_eq(r[i].stream, i % 2 ? stream_value(s) : 0);
        cr_assert_eq(r[i].stream_position, i / 2 + 1);
        cr_assert_eq(r[i].state, GG_SIM_LAUNCH_COMPLETED);
    }
    memset(r, 0, sizeof r);
    cr_assert_eq(truth_of(c, r, 10), LAUNCHES);
    cr_assert_eq(r[9].number, 10);
    cr_assert_eq(r[10].number, 0);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuCtxDestroy_v2(c));
}

/* A reader taking snapshots while launches run (for TSan): each snapshot
 * is a prefix of the history, and no record ever goes back. */
typedef struct reader_arg {
    CUcontext c;
    atomic_bool stop;
    atomic_ullong snapshots;
    char failure[160];
} reader_arg;

enum { READER_LAUNCHES = 400 };

static int state_rank(int state)
{
    return state >= GG_SIM_LAUNCH_COMPLETED ? 2 : state;
}

/* What the times say must agree with the state (a torn record would not). */
static bool times_match_state(const gg_sim_launch_truth *r)
{
    switch (r->state) {
    case GG_SIM_LAUNCH_QUEUED: return !r->started_ns && !r->ended_ns;
    case GG_SIM_LAUNCH_RUNNING: return r->started_ns && !r->ended_ns;
    case GG_SIM_LAUNCH_COMPLETED: return r->started_ns && r->ended_ns >= r->started_ns;
    default: return false; /* nothing here faults or is discarded */
    }
}

static void *reader(void *p)
{
    reader_arg *a = p;
    static gg_sim_launch_truth snap[READER_LAUNCHES];
    static int last_rank[READER_LAUNCHES];
    static int last_final[READER_LAUNCHES];
    unsigned long long last_n = 0;
    while (!atomic_load(&a->stop) && !a->failure[0]) {
        unsigned long long n = gg_sim_truth_launches((const void *)a->c, snap, READER_LAUNCHES);
        atomic_fetch_add(&a->snapshots, 1);
        if (n < last_n || n > READER_LAUNCHES)
            snprintf(a->failure, sizeof a->failure, "count went from %llu to %llu", last_n, n);
        for (unsigned long long i = 0; i < n && !a->failure[0]; i++) {
            const gg_sim_launch_truth *r = &snap[i];
            int rank = state_rank(r->state);
            if (r->number != i + 1 || strcmp(r->kernel, "noop") != 0)
                snprintf(a->failure, sizeof a->failure, "record %llu: number %llu kernel %s", i,
                         r->number, r->kernel);
            else if (rank < last_rank[i] || (last_final[i] && r->state != last_final[i]))
                snprintf(a->failure, sizeof a->failure, "record %llu went back to %d", i,
                         r->state);
            else if (!times_match_state(r))
                snprintf(a->failure, sizeof a->failure, "record %llu torn: state %d", i,
                         r->state);
            last_rank[i] = rank;
            if (rank == 2)
                last_final[i] = r->state;
        }
        last_n = n;
    }
    return NULL;
}

Test(sim_truth, concurrent_reader)
{
    sim_test_init(TRUTH_CONFIG);
    CUcontext c = sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s1, s2;
    CU_OK(cuStreamCreate(&s1, 1));
    CU_OK(cuStreamCreate(&s2, 1));
    reader_arg a = { .c = c };
    atomic_init(&a.stop, false);
    atomic_init(&a.snapshots, 0);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, reader, &a), 0);
    /* Launch only once the reader reads, so that they overlap. */
    struct timespec t0 = sim_test_now();
    while (atomic_load(&a.snapshots) == 0 && sim_test_ms_since(t0) < 5000)
        sim_test_sleep_ms(1);
    for (int i = 0; i < READER_LAUNCHES; i++)
        CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, i % 3 == 0 ? NULL : i % 3 == 1 ? s1 : s2,
                             NULL, NULL));
    CU_OK(cuCtxSynchronize());
    atomic_store(&a.stop, true);
    pthread_join(t, NULL);
    cr_assert_eq(a.failure[0], '\0', "%s", a.failure);
    cr_assert_gt(atomic_load(&a.snapshots), 0);
    cr_assert_eq(truth_of(c, NULL, 0), READER_LAUNCHES);
    CU_OK(cuStreamDestroy_v2(s1));
    CU_OK(cuStreamDestroy_v2(s2));
    CU_OK(cuCtxDestroy_v2(c));
}
