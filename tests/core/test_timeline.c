/*
 * Exact culprits from completion timelines (src/common/timeline.c): after
 * each launch the device writes the launch's number into host memory in
 * stream order, so a dead context shows, per stream, the first launch that
 * never completed. Over the simulator, whose streams run in order and
 * discard everything queued behind a fault, as a real stream does.
 *
 * Run on both faces: the HIP backend writes with hipStreamWriteValue32/64
 * into hipHostMalloc(mapped) memory (the observed-window attribution is
 * tested on both faces in test_dead_context.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/launches.h"

/* add_one_u32's third launch faults: the "my_scale" of the report. */
#define THIRD_ADD_ONE_FAULTS                                                                          \
    "{\"misbehave\":[{\"kernel\":\"add_one_u32\",\"action\":\"fault\",\"launch\":3},"               \
    "{\"kernel\":\"hang_me\",\"action\":\"hang\"}]}"
/* The same, with errors kept per context: recovery is the subject. */
#define THIRD_ADD_ONE_FAULTS_PER_CONTEXT                                                              \
    "{\"misbehave\":[{\"kernel\":\"add_one_u32\",\"action\":\"fault\",\"launch\":3},"               \
    "{\"kernel\":\"hang_me\",\"action\":\"hang\"}], " PER_CONTEXT_STICKY "}"

static gg_test_rig rig;

static void open_with(const char *sim_config, gg_timeline_mode mode)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = mode, .wait_timeout_ms = 5000 };
    gg_test_init_sim_desc(sim_config, &desc);
    gg_test_rig_open(&rig, 1);
}

/* fill x3 then add_one x3 on the default stream, nothing observed; the
 * 3rd add_one (launch #6) faults. Returns the death. */
static gg_error_info six_launches(void)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    uint32_t n = 1024;
    void *params[] = { &dptr, &n };
    for (int i = 0; i < 3; i++)
        GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, n));
    gg_status last = GG_OK;
    for (int i = 0; i < 3 && last == GG_OK; i++) {
        gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.add_one_u32, .grid = { 4, 1, 1 }, .block = { 256, 1, 1 },
                             .params = params, .param_count = 2 };
        last = gg_launch(&d);
    }
    if (last == GG_OK)
        GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.status, GG_ILLEGAL_ADDRESS, "%s", death.message);
    return death;
}

Test(timeline, the_faulting_launch_among_six_is_named_exactly)
{
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_AUTO);
    gg_error_info death = six_launches();
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "add_one_u32");
    cr_assert_eq(death.culprit.sequence, 6);
    cr_assert_eq(death.culprit.stream.id, 0);
    cr_assert_not_null(strstr(death.message, "culprit: kernel 'add_one_u32' (launch #6, on the default stream)"),
                       "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, without_it_the_window_lists_the_kernels_and_suggests_sync_launches)
{
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_OFF);
    gg_error_info death = six_launches();
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 6);
    cr_assert_eq(death.culprit.window_first, 1);
    cr_assert_eq(death.culprit.window_last, 6);
    cr_assert_not_null(strstr(death.message, "'fill_u32' x3, 'add_one_u32' x3"), "%s", death.message);
    cr_assert_not_null(strstr(death.message, "GPUGUARD_SYNC_LAUNCHES=1"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, the_environment_turns_it_off)
{
    setenv("GPUGUARD_TIMELINE", "off", 1);
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_AUTO);
    unsetenv("GPUGUARD_TIMELINE");
    gg_error_info death = six_launches();
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, a_bad_environment_value_is_refused_naming_the_variable)
{
    setenv("GPUGUARD_TIMELINE", "sometimes", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim" };
    gg_status s = gg_init(&desc);
    unsetenv("GPUGUARD_TIMELINE");
    cr_assert_eq(s, GG_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(gg_test_last_message(), "GPUGUARD_TIMELINE='sometimes'"), "%s",
                       gg_test_last_message());
}

Test(timeline, a_device_without_stream_memory_operations_gets_the_window)
{
    /* Decided from what the device reports: device 1 says it has none. */
    open_with("{\"devices\":[{},{\"stream_mem_ops\":false,\"stream_mem_ops_64\":false}],"
              "\"misbehave\":[{\"kernel\":\"add_one_u32\",\"action\":\"fault\",\"launch\":3}]}",
              GG_TIMELINE_AUTO);
    gg_error_info death = six_launches();
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, a_failing_timeline_write_leaves_the_launch_standing)
{
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_AUTO);
    /* Every write of the timeline refused (not a context-killing error):
     * the launches succeed and attribution falls back to the window. */
    GG_OK_(gg_fault_set_plan("[{\"op\":\"stream_write_value\",\"error\":\"invalid_argument\"}]"));
    gg_error_info death = six_launches();
    GG_OK_(gg_fault_clear());
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, two_streams_with_unfinished_launches_give_one_candidate_each)
{
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_AUTO);
    gg_stream a, b;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "a" }, &a));
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "b" }, &b));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_plain(rig.noop, a));                  /* #1: completes */
    GG_OK_(launch_plain(rig.hang_me, a));               /* #2: never completes */
    GG_OK_(launch_touch(&rig, b, dptr, 1u << 30));      /* #3: faults */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(b, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.candidate_count, 2, "%s", death.message);
    /* Stream a's candidate is its first unfinished launch: the hang (#2), or
     * the noop (#1) if the fault stopped the context before the noop ran
     * (the streams run concurrently); never anything later. */
    bool saw_a = false, saw_touch = false;
    for (uint32_t i = 0; i < 2; i++) {
        const gg_culprit_candidate *c = &death.culprit.candidates[i];
        if (c->stream.id == a.id &&
            ((strcmp(c->kernel_name, "hang_me") == 0 && c->sequence == 2) ||
             (strcmp(c->kernel_name, "noop") == 0 && c->sequence == 1)))
            saw_a = true;
        if (strcmp(c->kernel_name, "touch") == 0 && c->sequence == 3 && c->stream.id == b.id)
            saw_touch = true;
    }
    cr_assert(saw_a && saw_touch, "%s", death.message);
    cr_assert_not_null(strstr(death.message, "kernel 'touch' #3 on stream 'b'"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, a_hung_stream_names_the_kernel_that_has_not_finished)
{
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_AUTO);
    gg_stream s;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "hung" }, &s));
    GG_OK_(launch_plain(rig.noop, s));    /* #1 completes, never observed */
    GG_OK_(launch_plain(rig.hang_me, s)); /* #2 hangs */
    GG_EXPECT(GG_TIMEOUT, gg_stream_synchronize(s, GG_WAIT_MS(50)));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "hang_me");
    cr_assert_eq(death.culprit.sequence, 2);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* The work of a destroyed stream still runs (as in CUDA), and its launches
 * stay suspects until observed: with the timeline and without. */
static void destroyed_stream_case(gg_timeline_mode mode)
{
    open_with(THIRD_ADD_ONE_FAULTS, mode);
    gg_stream s;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "gone" }, &s));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_touch(&rig, s, dptr, 1u << 30)); /* #1: faults */
    /* The fault may already surface at the destroy (which still destroys). */
    gg_status destroyed = gg_stream_destroy(s);
    cr_assert(destroyed == GG_OK || destroyed == GG_ILLEGAL_ADDRESS, "%s", gg_status_name(destroyed));
    cr_assert_eq(gg_stream_query(s), GG_INVALID_HANDLE);
    if (destroyed == GG_OK)
        GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch");
    cr_assert_eq(death.culprit.sequence, 1);
    cr_assert_eq(death.culprit.stream.id, s.id, "the destroyed stream's id is named");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, a_faulting_launch_on_a_destroyed_stream_is_still_named)
{
    destroyed_stream_case(GG_TIMELINE_AUTO);
}

Test(timeline, a_destroyed_streams_launch_is_named_without_a_timeline_too)
{
    destroyed_stream_case(GG_TIMELINE_OFF);
}

/* An event keeps its stream by id: after that stream is destroyed and its
 * record reused by a new stream, querying the old event marks nothing of
 * the new stream complete. */
Test(timeline, a_stale_event_does_not_hide_a_new_streams_culprit)
{
    open_with(THIRD_ADD_ONE_FAULTS, GG_TIMELINE_OFF);
    gg_stream old_stream, fresh;
    gg_event ev;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "old" }, &old_stream));
    GG_OK_(gg_event_create(rig.ctx, NULL, &ev));
    GG_OK_(launch_plain(rig.noop, old_stream));
    GG_OK_(gg_event_record(ev, old_stream));
    GG_OK_(gg_event_synchronize(ev, NULL));
    GG_OK_(gg_stream_destroy(old_stream));
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "fresh" }, &fresh));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_plain(rig.noop, fresh));         /* #2 */
    GG_OK_(launch_touch(&rig, fresh, dptr, 1u << 30)); /* #3: faults */
    gg_status q = gg_event_query(ev);              /* the old event: complete long ago */
    cr_assert(q == GG_OK || q == GG_ILLEGAL_ADDRESS, "%s", gg_status_name(q));
    if (q == GG_OK)
        GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    /* Both of the fresh stream's launches are still suspects (nothing of it
     * was observed), and the fault is among them. */
    cr_assert_neq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "%s", death.message);
    cr_assert_eq(death.culprit.window_last, 3, "%s", death.message);
    cr_assert_eq(death.culprit.window_first, 2, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(timeline, recovery_gives_the_fresh_context_a_working_timeline)
{
    open_with(THIRD_ADD_ONE_FAULTS_PER_CONTEXT, GG_TIMELINE_AUTO);
    gg_error_info death = six_launches();
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    GG_OK_(gg_context_recover(rig.ctx));
    GG_OK_(gg_module_create_from_file(rig.ctx, gg_test_kernel_module("core_kernels"), NULL, &rig.module));
    GG_OK_(gg_kernel_create(rig.module, "fill_u32", &rig.fill_u32));
    GG_OK_(gg_kernel_create(rig.module, "touch", &rig.touch));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, 1024)); /* #1 of the fresh context */
    GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 2, 1024)); /* #2 */
    GG_OK_(launch_touch(&rig, GG_NO_STREAM, dptr, 1u << 30)); /* #3: faults */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
