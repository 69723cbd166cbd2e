/*
 * Completion marks every Nth launch (issue 30): a stride that is set
 * (GPUGUARD_TIMELINE_STRIDE, gg_init_desc::timeline_stride), and the one
 * GG_TIMELINE_AUTO chooses from what a mark costs against a launch
 * (gg_context_timeline). The simulator's "host_us" keys make its launch and
 * write-value calls cost the host a known time, so auto's measurement is
 * decided by figures far apart (milliseconds against microseconds), not by
 * this machine's noise. The culprits' honesty under strides is refereed
 * against the simulator's truth by tests/model (test_model_attribution_stride).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launches.h"

/* add_one_u32's first launch faults; sleep_ms holds the stream meanwhile. */
#define FIRST_ADD_ONE_FAULTS "{\"misbehave\":[{\"kernel\":\"add_one_u32\",\"action\":\"fault\",\"launch\":1}]}"
/* Auto times a context's launches 17 to 48 (gpuguard.h, gg_timeline_info):
 * after this many it has decided. */
#define AUTO_DECIDES_AFTER 48

static gg_test_rig rig;

static void open_with(const char *sim_config, gg_timeline_mode mode, uint32_t stride, uint32_t budget)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = mode, .timeline_stride = stride,
                          .timeline_budget_percent = budget, .wait_timeout_ms = 10000 };
    gg_test_init_sim_desc(sim_config, &desc);
    gg_test_rig_open(&rig, 1); /* the compute GPU: no watchdog, plain launches */
}

static gg_status launch_add_one(gg_buffer buf)
{
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    uint32_t n = 1024;
    void *params[] = { &dptr, &n };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.add_one_u32, .grid = { 4, 1, 1 },
                         .block = { 256, 1, 1 }, .params = params, .param_count = 2 };
    return gg_launch(&d);
}

/* On the default stream: a 100 ms sleep (so that everything after it is
 * queued before any of it runs), `fills_before` fills, the faulting
 * add_one, `fills_after` fills; then a synchronize. Returns the death. */
static gg_error_info fault_after(int fills_before, int fills_after)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    GG_OK_(launch_sleep(&rig, GG_NO_STREAM, 100));
    for (int i = 0; i < fills_before; i++)
        GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, 1024));
    GG_OK_(launch_add_one(buf));
    for (int i = 0; i < fills_after; i++)
        GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, 1024));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.status, GG_ILLEGAL_ADDRESS, "%s", death.message);
    return death;
}

static gg_timeline_info timeline_of(gg_context ctx)
{
    gg_timeline_info info = GG_TIMELINE_INFO_INIT;
    GG_OK_(gg_context_timeline(ctx, &info));
    cr_assert_not_null(info.why);
    return info;
}

/* ---- a stride that is set ---------------------------------------------- */

Test(timeline_stride, a_stride_of_four_names_the_launches_up_to_the_next_mark)
{
    open_with(FIRST_ADD_ONE_FAULTS, GG_TIMELINE_ON, 4, 0);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_SET);
    cr_assert_eq(info.stride, 4u);
    char *json = NULL;
    GG_OK_(gg_objects_json(&json));
    cr_assert_not_null(strstr(json, "\"timeline_stride\":\t4"), "%s", json);
    gg_free(json);
    /* Launches #1 sleep, #2..#6 fill, #7 add_one (faults), #8..#11 fill.
     * Marks follow #4 (value 4) and #8 (value 8): the first lands, the
     * second never does, so the culprit is one of #5..#8. */
    gg_error_info death = fault_after(5, 4);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 4u, "%s", death.message);
    cr_assert_eq(death.culprit.window_first, 5u, "%s", death.message);
    cr_assert_eq(death.culprit.window_last, 8u, "%s", death.message);
    cr_assert_eq(death.culprit.candidate_count, 0u, "no launch of the window is known unfinished: %s",
                 death.message);
    cr_assert_not_null(strstr(death.message, "one of 4 unfinished launches #5..#8"), "%s", death.message);
    cr_assert_not_null(strstr(death.message, "'add_one_u32' x1"), "%s", death.message);
    cr_assert_not_null(strstr(death.message, "completion is marked every 4 launches"), "%s", death.message);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, a_window_of_one_launch_is_still_exact)
{
    open_with(FIRST_ADD_ONE_FAULTS, GG_TIMELINE_ON, 4, 0);
    /* #1 sleep, #2..#4 fill (the mark after #4 lands), #5 add_one faults,
     * nothing after it: every other launch is known complete. */
    gg_error_info death = fault_after(3, 0);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_eq(death.culprit.sequence, 5u, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "add_one_u32");
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, stride_one_is_every_launch_marked)
{
    open_with(FIRST_ADD_ONE_FAULTS, GG_TIMELINE_AUTO, 1, 0);
    cr_assert_eq(timeline_of(rig.ctx).basis, GG_TIMELINE_BASIS_SET, "a set stride is not measured");
    gg_error_info death = fault_after(5, 4);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_eq(death.culprit.sequence, 7u, "%s", death.message);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

/* ---- bounds and bad settings ------------------------------------------- */

/* Settings are checked before any backend is loaded. */
static gg_status init_status(gg_init_desc *desc)
{
    desc->backend = "sim";
    return gg_init(desc);
}

static void expect_init_refused(const char *why_contains)
{
    gg_init_desc desc = GG_INIT_DESC_INIT;
    gg_status s = init_status(&desc);
    cr_assert_eq(s, GG_INVALID_ARGUMENT, "gg_init returned %s", gg_status_name(s));
    cr_assert_not_null(strstr(gg_test_last_message(), why_contains), "message: %s", gg_test_last_message());
}

static void init_ok(void)
{
    gg_init_desc desc = GG_INIT_DESC_INIT;
    gg_test_init_sim_desc(NULL, &desc);
}

Test(timeline_stride, the_largest_stride_is_accepted_and_one_more_refused)
{
    setenv("GPUGUARD_TIMELINE_STRIDE", "64", 1);
    init_ok();
    gg_init_desc got = GG_INIT_DESC_INIT;
    GG_OK_(gg_config(&got));
    cr_assert_eq(got.timeline_stride, 64u);
    cr_assert_eq(got.timeline_budget_percent, 50u, "the default budget");
    gg_shutdown();
    setenv("GPUGUARD_TIMELINE_STRIDE", "65", 1);
    expect_init_refused("GPUGUARD_TIMELINE_STRIDE='65' is not a whole number from 1 to 64");
    setenv("GPUGUARD_TIMELINE_STRIDE", "0", 1);
    expect_init_refused("GPUGUARD_TIMELINE_STRIDE='0'");
    setenv("GPUGUARD_TIMELINE_STRIDE", "4x", 1);
    expect_init_refused("GPUGUARD_TIMELINE_STRIDE='4x'");
    unsetenv("GPUGUARD_TIMELINE_STRIDE");
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline_stride = GG_TIMELINE_STRIDE_MAX + 1 };
    cr_assert_eq(init_status(&desc), GG_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(gg_test_last_message(), "desc->timeline_stride 65 is above GG_TIMELINE_STRIDE_MAX"),
                       "%s", gg_test_last_message());
}

Test(timeline_stride, a_stride_with_the_timeline_off_is_refused)
{
    setenv("GPUGUARD_TIMELINE", "off", 1);
    setenv("GPUGUARD_TIMELINE_STRIDE", "4", 1);
    expect_init_refused("but the timeline is off");
}

Test(timeline_stride, the_budget_is_bounded_both_ways)
{
    setenv("GPUGUARD_TIMELINE_BUDGET", "10000", 1);
    init_ok();
    gg_init_desc got = GG_INIT_DESC_INIT;
    GG_OK_(gg_config(&got));
    cr_assert_eq(got.timeline_budget_percent, 10000u);
    gg_shutdown();
    setenv("GPUGUARD_TIMELINE_BUDGET", "10001", 1);
    expect_init_refused("GPUGUARD_TIMELINE_BUDGET='10001' is not a whole number of percent from 1 to 10000");
    setenv("GPUGUARD_TIMELINE_BUDGET", "0", 1);
    expect_init_refused("GPUGUARD_TIMELINE_BUDGET='0'");
    unsetenv("GPUGUARD_TIMELINE_BUDGET");
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline_budget_percent = 10001 };
    cr_assert_eq(init_status(&desc), GG_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(gg_test_last_message(), "desc->timeline_budget_percent 10001 is above 10000"), "%s",
                       gg_test_last_message());
}

Test(timeline_stride, the_info_call_refuses_bad_arguments_and_gone_contexts)
{
    open_with(NULL, GG_TIMELINE_AUTO, 0, 0);
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_timeline(rig.ctx, NULL));
    gg_timeline_info small = { .struct_size = 3 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_timeline(rig.ctx, &small));
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURING, "before any launch auto is measuring");
    cr_assert_eq(info.stride, 1u);
    cr_assert_eq(info.samples, 0u);
    gg_context gone = rig.ctx;
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_timeline_info untouched = GG_TIMELINE_INFO_INIT;
    untouched.stride = 77;
    GG_EXPECT(GG_INVALID_HANDLE, gg_context_timeline(gone, &untouched));
    cr_assert_eq(untouched.stride, 77u, "*info untouched on a gone context");
    gg_test_finish();
}

Test(timeline_stride, with_the_timeline_off_there_is_none)
{
    open_with(NULL, GG_TIMELINE_OFF, 0, 0);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_NONE);
    cr_assert_eq(info.stride, 0u);
    cr_assert_not_null(strstr(info.why, "off"), "%s", info.why);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

/* ---- auto's measurement ------------------------------------------------ */

/* Launches fill `count` times on `s`, each synchronized when `wait_each`
 * (the device then idle at every launch). */
static void launch_fills(gg_stream s, int count, bool wait_each)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    for (int i = 0; i < count; i++) {
        GG_OK_(launch_fill(&rig, s, buf, 1, 1024));
        if (wait_each)
            GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    }
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_buffer_destroy(buf));
}

/* What auto's figures say the stride must be (gpuguard.h's rule). */
static uint32_t expected_stride(const gg_timeline_info *info)
{
    uint32_t stride = 1;
    while (stride < GG_TIMELINE_STRIDE_MAX &&
           (double)info->mark_ns / stride > (double)info->launch_ns * info->budget_percent / 100.0)
        stride *= 2;
    return stride;
}

Test(timeline_stride, auto_marks_fewer_launches_when_a_mark_costs_more_than_the_budget)
{
    /* A mark costs 3 ms of host time, a launch 1 ms (and the simulator's
     * own microseconds): about 3 times a launch, six times the budget of
     * 50 %: every 8th launch (3/8 of a launch is within half of one). */
    open_with("{\"host_us\": {\"launch\": 1000, \"write_value\": 3000}}", GG_TIMELINE_AUTO, 0, 0);
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, true);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_eq(info.samples, 32u);
    cr_assert_geq(info.samples_device_idle, 16u, "synchronized after each launch: %u", info.samples_device_idle);
    cr_assert_geq(info.mark_ns, 3000000u, "mark %llu ns", (unsigned long long)info.mark_ns);
    cr_assert_geq(info.launch_ns, 1000000u, "launch %llu ns", (unsigned long long)info.launch_ns);
    cr_assert_eq(info.budget_percent, 50u);
    cr_assert_eq(info.stride, expected_stride(&info), "launch %llu ns, mark %llu ns: stride %u",
                 (unsigned long long)info.launch_ns, (unsigned long long)info.mark_ns, info.stride);
    cr_assert_eq(info.stride, 8u, "launch %llu ns, mark %llu ns", (unsigned long long)info.launch_ns,
                 (unsigned long long)info.mark_ns);
    cr_assert_not_null(strstr(info.why, "every Nth launch is marked"), "%s", info.why);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, a_larger_budget_keeps_more_marks)
{
    /* The same costs with a budget of 100 %: every 4th; of 400 %: all. */
    setenv("GPUGUARD_TIMELINE_BUDGET", "100", 1);
    open_with("{\"host_us\": {\"launch\": 1000, \"write_value\": 3000}}", GG_TIMELINE_AUTO, 0, 0);
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, true);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_eq(info.budget_percent, 100u);
    cr_assert_eq(info.stride, 4u, "launch %llu ns, mark %llu ns", (unsigned long long)info.launch_ns,
                 (unsigned long long)info.mark_ns);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, auto_keeps_every_mark_when_a_mark_is_cheap)
{
    /* A launch costs 3 ms, the mark the simulator's microseconds. */
    open_with("{\"host_us\": {\"launch\": 3000}}", GG_TIMELINE_AUTO, 0, 0);
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, false);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_eq(info.stride, 1u, "launch %llu ns, mark %llu ns", (unsigned long long)info.launch_ns,
                 (unsigned long long)info.mark_ns);
    cr_assert_not_null(strstr(info.why, "no more than the budget"), "%s", info.why);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, auto_keeps_every_mark_when_the_device_is_behind_the_host)
{
    /* A mark costs 1 ms, far above half a launch, but each kernel runs
     * 5 ms: the device is behind the host at every launch, and the host's
     * cost hidden behind its work. */
    open_with("{\"host_us\": {\"write_value\": 1000}}", GG_TIMELINE_AUTO, 0, 0);
    for (int i = 0; i < AUTO_DECIDES_AFTER; i++)
        GG_OK_(launch_sleep(&rig, GG_NO_STREAM, 5));
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_lt(info.samples_device_idle, 16u, "device idle in %u of 32", info.samples_device_idle);
    cr_assert_gt(info.mark_ns * 100, info.launch_ns * 50, "the mark is over the budget");
    cr_assert_eq(info.stride, 1u);
    cr_assert_not_null(strstr(info.why, "behind the host"), "%s", info.why);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, timeline_on_is_never_measured)
{
    open_with("{\"host_us\": {\"write_value\": 2000}}", GG_TIMELINE_ON, 0, 0);
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, true);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_SET);
    cr_assert_eq(info.stride, 1u);
    cr_assert_eq(info.samples, 0u);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, after_auto_chose_a_stride_a_fault_is_a_window_holding_the_culprit)
{
    open_with("{\"host_us\": {\"launch\": 1000, \"write_value\": 3000}, "
              "\"misbehave\":[{\"kernel\":\"add_one_u32\",\"action\":\"fault\",\"launch\":1}]}",
              GG_TIMELINE_AUTO, 0, 0);
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, true);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.stride, 8u, "launch %llu ns, mark %llu ns", (unsigned long long)info.launch_ns,
                 (unsigned long long)info.mark_ns);
    /* AUTO_DECIDES_AFTER fills so far on the default stream; then one
     * sleep, two fills, the fault, two fills. */
    gg_error_info death = fault_after(2, 2);
    uint64_t culprit = AUTO_DECIDES_AFTER + 4; /* 1-based: the sleep, two fills, then it */
    cr_assert_neq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "%s", death.message);
    cr_assert_leq(death.culprit.window_first, culprit, "%s", death.message);
    cr_assert_geq(death.culprit.window_last, culprit, "%s", death.message);
    cr_assert_leq(death.culprit.window_count, 8u, "at most one stride: %s", death.message);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, on_the_simulator_by_default_auto_keeps_every_mark)
{
    /* The simulator's launch costs the host at least 20 us by default
     * (src/sim/README.md, "host_us"), as a real driver's launch costs more
     * than its write-value: auto keeps exact culprits here as on the GPU
     * measured, even with the device idle at every launch. */
    open_with(NULL, GG_TIMELINE_AUTO, 0, 0);
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, true);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_geq(info.launch_ns, 20000u, "launch %llu ns", (unsigned long long)info.launch_ns);
    cr_assert_eq(info.stride, 1u, "launch %llu ns, mark %llu ns: %s", (unsigned long long)info.launch_ns,
                 (unsigned long long)info.mark_ns, info.why);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, on_a_watchdog_device_launches_are_not_timed_and_all_marked)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .wait_timeout_ms = 10000 };
    gg_test_init_sim_desc(NULL, &desc);
    gg_test_rig_open(&rig, 0); /* the display GPU: launches go through the watchdog's path */
    launch_fills(GG_NO_STREAM, AUTO_DECIDES_AFTER, false);
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURING, "%s", info.why);
    cr_assert_eq(info.stride, 1u);
    cr_assert_eq(info.samples, 0u);
    cr_assert_not_null(strstr(info.why, "watchdog"), "%s", info.why);
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

/* Threads launching on one context while auto samples: every sample is
 * taken by exactly one launch, the last writer decides once, and nothing
 * races (the ThreadSanitizer build runs this too). */
typedef struct sampler {
    gg_stream stream;
    gg_buffer buf;
    gg_status status;
} sampler;

static void *launch_many(void *arg)
{
    sampler *s = arg;
    for (int i = 0; i < AUTO_DECIDES_AFTER && s->status == GG_OK; i++)
        s->status = launch_fill(&rig, s->stream, s->buf, 1, 256);
    return NULL;
}

Test(timeline_stride, threads_launching_while_auto_samples_decide_once)
{
    open_with(NULL, GG_TIMELINE_AUTO, 0, 0);
    enum { THREADS = 4 };
    sampler s[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        s[i].status = GG_OK;
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s[i].stream));
        GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &s[i].buf));
    }
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, launch_many, &s[i]), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(s[i].status, GG_OK, "thread %d: %s", i, gg_status_name(s[i].status));
    }
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_leq(info.samples, 32u);
    cr_assert_geq(info.samples, 16u, "valid samples: %u (%s)", info.samples, info.why);
    for (int i = 0; i < THREADS; i++) {
        GG_OK_(gg_buffer_destroy(s[i].buf));
        GG_OK_(gg_stream_destroy(s[i].stream));
    }
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, auto_decides_at_the_48th_launch_not_the_47th)
{
    open_with(NULL, GG_TIMELINE_AUTO, 0, 0);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    for (int i = 0; i < AUTO_DECIDES_AFTER - 1; i++)
        GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, 256));
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURING, "after 47 launches: %s", info.why);
    cr_assert_eq(info.samples, 31u);
    GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, 256));
    info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "after 48 launches: %s", info.why);
    cr_assert_eq(info.samples, 32u);
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_buffer_destroy(buf));
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}

Test(timeline_stride, launches_that_fail_are_not_weighed)
{
    open_with(NULL, GG_TIMELINE_AUTO, 0, 0);
    /* Launches 17 to 48 fail in the driver (a non-sticky error): no
     * sample is valid, and auto keeps every launch marked, saying why. */
    GG_OK_(gg_fault_set_plan("[{\"op\":\"launch\",\"from\":17,\"to\":48,\"error\":\"out_of_memory\"}]"));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    for (int i = 0; i < AUTO_DECIDES_AFTER; i++) {
        gg_status s = launch_fill(&rig, GG_NO_STREAM, buf, 1, 256);
        cr_assert_eq(s, i < 16 ? GG_OK : GG_OUT_OF_MEMORY, "launch %d: %s", i + 1, gg_status_name(s));
    }
    GG_OK_(gg_fault_clear());
    gg_timeline_info info = timeline_of(rig.ctx);
    cr_assert_eq(info.basis, GG_TIMELINE_BASIS_MEASURED, "%s", info.why);
    cr_assert_eq(info.samples, 0u);
    cr_assert_eq(info.stride, 1u);
    cr_assert_not_null(strstr(info.why, "too few launches"), "%s", info.why);
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_buffer_destroy(buf));
    gg_context_destroy(rig.ctx);
    gg_test_finish();
}
