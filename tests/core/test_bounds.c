/*
 * Every bound of src/common crossed at bound+1 (issue 25): what happens
 * one past it must be honest — a clear error naming the bound, or the
 * documented degradation — never silent corruption, a wrong answer or a
 * crash. Each bound's definition says its cost and points here.
 *
 *   bound                          where                     test
 *   context stack depth 64         stack.c STACK_MAX          context_stack_past_depth_fails_cleanly
 *   live contexts 4096             context_table.c MAX_CONTEXTS contexts_past_4096_fail_cleanly
 *   launch records per stream      object.h (GPUGUARD_LAUNCH_RECORDS)
 *                                                             launch_records_*
 *   timeline slots 512 per context object.h GG__TIMELINE_SLOTS
 *                                                             timeline_slots_*
 *   destroyed streams' logs        object.h (no count bound)  destroyed_streams_*
 *   culprit candidates 4           gpuguard.h GG_CULPRIT_CANDIDATES_MAX
 *                                                             culprit_candidates_past_4_are_counted
 *   suspect kernel names 6         attribution.h GG__SUSPECT_NAMES_MAX
 *                                                             suspect_names_past_6_are_counted
 *   chunk parameters 256           chunk.h GG__CHUNK_PARAMS_MAX
 *                                                             chunk_params_past_256_refused_naming_the_bound
 *   kept parameter sizes 64        object.h GG__KNOWN_PARAMS  known_params_past_64_*
 *   tags 63 bytes                  gpuguard.h GG_NAME_MAX     tag_past_name_max_is_truncated_terminated
 *   fault plan kernel names 63     fault_plan.h (GG_NAME_MAX) fault_plan_kernel_name_past_name_max_refused_naming_it
 *   messages 511 bytes             gpuguard.h GG_MESSAGE_MAX  message_past_message_max_is_truncated_terminated
 *   JSON nesting 64                json_syntax.h GG_JSON_MAX_DEPTH
 *                                                             fault_plan_nesting_past_64_refused_naming_it
 *   JSON open member names 512     json_syntax.h GG_JSON_MAX_OPEN_MEMBERS
 *                                                             fault_plan_members_past_512_refused_naming_it
 *   listed leaks 16                report.c MAX_LISTED_LEAKS  leak_report_lists_16_and_counts_all
 *   handle table 2^28 slots        handle.h GG__DIR_PAGES     handle_table_full_fails_naming_the_bound
 *   pins per call 4                pin.h GG__PIN_SLOTS        pins_past_4_in_one_call_refused
 *   library paths 511 bytes        state.h (config)           library_path_past_511_refused_naming_it
 *   spare records 1 per kind       lifetime.c (a context's)   spare_records_past_1_go_back_to_the_pools
 *
 * Linked with the static library: the handle table and the pins are
 * crossed from inside (2^28 ids, or a fifth pin, cannot be reached through
 * the API), and the timeline tests read which streams got a slot.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/call.h"
#include "common/handle.h"
#include "common/lifetime.h"
#include "base/json_syntax.h"
#include "common/object.h"
#include "core/launches.h"

static gg_test_rig rig;

/* Every test here waits on simulated work: a hang fails it within a
 * minute instead of holding the suite until ctest's 900 s. */
static void bound_time(void)
{
    alarm(120);
}

TestSuite(bounds, .init = bound_time);

static void open_with(const char *sim_config, gg_timeline_mode mode)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = mode, .wait_timeout_ms = 10000 };
    gg_test_init_sim_desc(sim_config, &desc);
    gg_test_rig_open(&rig, 1);
}

static bool has(const char *text, const char *part)
{
    return strstr(text, part) != NULL;
}

/* ---- the context stack: 64 per thread ---------------------------------- */

Test(bounds, context_stack_past_depth_fails_cleanly)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    for (int i = 0; i < 64; i++)
        GG_OK_(gg_context_push(rig.ctx));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_push(rig.ctx));
    cr_assert(has(gg_test_last_message(), "stack is full (64 contexts)"), "%s", gg_test_last_message());
    /* The 65th left both stacks as they were: 64 pops succeed, the next
     * finds the stack empty. */
    for (int i = 0; i < 64; i++) {
        gg_context popped;
        GG_OK_(gg_context_pop(&popped));
        cr_assert_eq(popped.id, rig.ctx.id);
    }
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_pop(NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- live contexts: 4096 ----------------------------------------------- */

Test(bounds, contexts_past_4096_fail_cleanly)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = GG_TIMELINE_OFF };
    gg_test_init_sim_desc(NULL, &desc);
    static gg_context ctx[4097];
    for (int i = 0; i < 4096; i++)
        GG_OK_(gg_context_create(0, NULL, &ctx[i]));
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_context_create(0, NULL, &ctx[4096]));
    cr_assert(has(gg_test_last_message(), "too many contexts (4096 live)"), "%s", gg_test_last_message());
    cr_assert_eq(ctx[4096].id, 0);
    /* One destroyed makes room for one more. */
    GG_OK_(gg_context_destroy(ctx[0]));
    GG_OK_(gg_context_create(0, NULL, &ctx[0]));
    uint64_t live = 0;
    GG_OK_(gg_live_objects(&live));
    cr_assert_eq(live, 4096);
    /* gg_shutdown's snapshot holds 4096 ids: it releases every one. */
    GG_OK_(gg_shutdown());
    gg_test_init_sim_desc(NULL, &desc);
    GG_OK_(gg_live_objects(&live));
    cr_assert_eq(live, 0);
    gg_test_finish();
}

/* ---- launch records per stream (GPUGUARD_LAUNCH_RECORDS) ---------------- */

/* On a fresh stream: sleep 300 ms (launch #1, position 1), touch faulting
 * (#2), then `behind` noops (#3..), all queued before the sleep ends. The
 * timeline says position 1 completed, so the culprit is position 2. */
static gg_error_info fault_with_behind(unsigned behind, gg_stream *out)
{
    gg_stream s;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "queued" }, &s));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_sleep(&rig, s, 300));
    GG_OK_(launch_touch(&rig, s, dptr, 1u << 30));
    for (unsigned i = 0; i < behind; i++)
        GG_OK_(launch_plain(rig.noop, s));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(s, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    *out = s;
    return death;
}

static void open_with_records(const char *records, gg_timeline_mode mode)
{
    setenv("GPUGUARD_LAUNCH_RECORDS", records, 1);
    open_with(NULL, mode);
    unsetenv("GPUGUARD_LAUNCH_RECORDS");
}

Test(bounds, launch_records_at_bound_name_the_culprit)
{
    /* 4 records: the culprit and 3 behind it are all kept. */
    open_with_records("4", GG_TIMELINE_AUTO);
    gg_stream s;
    gg_error_info death = fault_with_behind(3, &s);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch");
    cr_assert_eq(death.culprit.sequence, 2);
    cr_assert_eq(death.culprit.stream.id, s.id);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* One or two past: the culprit's record was overwritten by a later launch.
 * It must be located (its number, its stream) and said to be unkept, never
 * named as the newer launch that took its record. */
static void records_past_bound(unsigned behind)
{
    open_with_records("4", GG_TIMELINE_AUTO);
    gg_stream s;
    gg_error_info death = fault_with_behind(behind, &s);
    cr_assert_neq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_neq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "%s", death.message);
    cr_assert(strcmp(death.culprit.kernel_name, "noop") != 0, "a later launch was named: %s", death.message);
    cr_assert_eq(death.culprit.window_count, 1, "%s", death.message);
    cr_assert_eq(death.culprit.stream.id, s.id, "%s", death.message);
    cr_assert(has(death.message, "launch #2 (name not kept"), "%s", death.message);
    char bound[64];
    snprintf(bound, sizeof bound, "%u launches were queued behind it, more than the 4 records", behind);
    cr_assert(has(death.message, bound), "%s", death.message);
    cr_assert(has(death.message, "GPUGUARD_LAUNCH_RECORDS"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(bounds, launch_records_one_past_say_the_name_was_not_kept)
{
    records_past_bound(4);
}

Test(bounds, launch_records_five_behind_never_name_a_later_launch)
{
    records_past_bound(5);
}

Test(bounds, launch_records_past_bound_without_timeline_count_the_unkept)
{
    /* No timeline: the window is every unobserved launch (#1..#7); 3 of them
     * lost their records, and the message says so instead of naming them. */
    open_with_records("4", GG_TIMELINE_OFF);
    gg_stream s;
    gg_error_info death = fault_with_behind(5, &s);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 7, "%s", death.message);
    cr_assert_eq(death.culprit.window_first, 1, "%s", death.message);
    cr_assert_eq(death.culprit.window_last, 7, "%s", death.message);
    cr_assert(has(death.message, "3 not kept by name"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(bounds, launch_records_setting_past_65536_refused_naming_it)
{
    setenv("GPUGUARD_LAUNCH_RECORDS", "131072", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
    gg_status s = gg_init(&desc);
    cr_assert_eq(s, GG_INVALID_ARGUMENT);
    cr_assert(has(gg_test_last_message(), "power of two from 1 to 65536"), "%s", gg_test_last_message());
    setenv("GPUGUARD_LAUNCH_RECORDS", "65536", 1);
    GG_OK_(gg_init(&desc));
    unsetenv("GPUGUARD_LAUNCH_RECORDS");
    gg_init_desc got = GG_INIT_DESC_INIT;
    GG_OK_(gg_config(&got));
    GG_OK_(gg_shutdown());
}

/* ---- timeline slots: 512 per context ------------------------------------ */

static bool stream_has_timeline(gg_stream s)
{
    gg__stream *st = gg__handle_lookup(s.id, GG__T_STREAM);
    cr_assert_not_null(st);
    return st->log.timeline_slot != NULL;
}

/* The default stream holds slot 0, so 511 streams get one and the 512th
 * does not; a fault on it is attributed from what was observed complete:
 * both its unobserved launches are suspects (WINDOW), never a wrong EXACT. */
Test(bounds, timeline_slots_past_512_give_an_honest_window)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    static gg_stream s[512];
    for (int i = 0; i < 512; i++)
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s[i]));
    for (int i = 0; i < 511; i++)
        cr_assert(stream_has_timeline(s[i]), "stream %d has no timeline", i);
    cr_assert_not(stream_has_timeline(s[511]), "the 512th stream got a slot past the page");
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_plain(rig.noop, s[511]));            /* #1: completes, not observed */
    GG_OK_(launch_touch(&rig, s[511], dptr, 1u << 30)); /* #2: faults */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(s[511], NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_first, 1, "%s", death.message);
    cr_assert_eq(death.culprit.window_last, 2, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 2, "%s", death.message);
    cr_assert(has(death.message, "'touch' x1"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* The same on the 511th stream, which has a slot: EXACT. */
Test(bounds, timeline_slots_at_511_streams_name_the_culprit_exactly)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    static gg_stream s[511];
    for (int i = 0; i < 511; i++)
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s[i]));
    cr_assert(stream_has_timeline(s[510]));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_plain(rig.noop, s[510]));
    GG_OK_(launch_touch(&rig, s[510], dptr, 1u << 30));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(s[510], NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch");
    cr_assert_eq(death.culprit.sequence, 2);
    cr_assert_eq(death.culprit.stream.id, s[510].id);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* A destroyed stream's slot comes back once its work is observed: a stream
 * made after that has a timeline again. */
Test(bounds, timeline_slots_come_back_after_a_destroy)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    static gg_stream s[512];
    for (int i = 0; i < 512; i++)
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s[i]));
    cr_assert_not(stream_has_timeline(s[511]));
    GG_OK_(launch_plain(rig.noop, s[0]));
    GG_OK_(gg_stream_destroy(s[0]));
    GG_OK_(gg_context_synchronize(rig.ctx, NULL)); /* observes the destroyed stream's work */
    GG_OK_(gg_stream_create(rig.ctx, NULL, &s[0]));
    cr_assert(stream_has_timeline(s[0]), "the freed slot did not come back");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- destroyed streams' logs: no count bound ---------------------------- */

/* `count` streams each sleep 200 ms then fill their own word of a buffer,
 * and are destroyed at once. A context synchronize must wait for every
 * one (their fills are all there after it), however many there are: the
 * old bound kept 16 and dropped the oldest. */
static void destroyed_streams_wait(unsigned count, gg_timeline_mode mode)
{
    open_with(NULL, mode);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, count * 4, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(gg_memset(buf, 0, 0, count * 4, GG_NO_STREAM));
    for (unsigned i = 0; i < count; i++) {
        gg_stream s;
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s));
        GG_OK_(launch_sleep(&rig, s, 200));
        uint64_t word = dptr + i * 4;
        uint32_t value = i + 1, n = 1;
        void *params[] = { &word, &value, &n };
        gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.fill_u32, .stream = s, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
                             .params = params, .param_count = 3 };
        GG_OK_(gg_launch(&d));
        GG_OK_(gg_stream_destroy(s));
    }
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    /* Read on a fresh stream: it does not wait for the others itself. */
    gg_stream reader;
    GG_OK_(gg_stream_create(rig.ctx, NULL, &reader));
    uint32_t *got = calloc(count, 4);
    cr_assert_not_null(got);
    GG_OK_(gg_memcpy_dtoh(got, buf, 0, count * 4, reader));
    GG_OK_(gg_stream_synchronize(reader, NULL));
    for (unsigned i = 0; i < count; i++)
        cr_assert_eq(got[i], i + 1, "destroyed stream %u's work was not waited for", i);
    free(got);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(bounds, destroyed_streams_past_16_are_all_waited_for)
{
    destroyed_streams_wait(17, GG_TIMELINE_AUTO);
}

Test(bounds, destroyed_streams_past_100_are_all_waited_for)
{
    destroyed_streams_wait(101, GG_TIMELINE_AUTO);
}

Test(bounds, destroyed_streams_past_100_are_all_waited_for_without_timeline)
{
    destroyed_streams_wait(101, GG_TIMELINE_OFF);
}

/* The first of 101 destroyed streams faults (behind a sleep, so all are
 * destroyed first); the 100 others did a noop. It is still a suspect. */
static void destroyed_first_faults(gg_timeline_mode mode)
{
    open_with(NULL, mode);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    gg_stream first;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "first" }, &first));
    GG_OK_(launch_sleep(&rig, first, 300));                /* #1 */
    GG_OK_(launch_touch(&rig, first, dptr, 1u << 30));     /* #2: faults */
    GG_OK_(gg_stream_destroy(first));
    for (int i = 0; i < 100; i++) {
        gg_stream s;
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s));
        GG_OK_(launch_plain(rig.noop, s));
        gg_status st = gg_stream_destroy(s);
        cr_assert(st == GG_OK, "%s", gg_status_name(st));
    }
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    bool named = death.culprit.certainty == GG_ATTRIBUTION_EXACT && strcmp(death.culprit.kernel_name, "touch") == 0 &&
                 death.culprit.sequence == 2 && death.culprit.stream.id == first.id;
    bool in_window = death.culprit.certainty == GG_ATTRIBUTION_WINDOW && death.culprit.window_first <= 2 &&
                     death.culprit.window_last >= 2;
    cr_assert(named || in_window, "the first destroyed stream's fault is not a suspect: %s", death.message);
    if (mode != GG_TIMELINE_OFF)
        cr_assert(named, "with timelines the 100 noops are known done: %s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(bounds, destroyed_streams_past_100_keep_the_first_as_a_suspect)
{
    destroyed_first_faults(GG_TIMELINE_AUTO);
}

Test(bounds, destroyed_streams_past_100_keep_the_first_as_a_suspect_without_timeline)
{
    destroyed_first_faults(GG_TIMELINE_OFF);
}

/* ---- culprit candidates: 4 listed --------------------------------------- */

/* Five streams hang and a sixth faults: six candidates, four listed, the
 * count whole and the message saying how many more. */
Test(bounds, culprit_candidates_past_4_are_counted)
{
    open_with("{\"misbehave\":[{\"kernel\":\"hang_me\",\"action\":\"hang\"}]}", GG_TIMELINE_AUTO);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    gg_stream s[6];
    for (int i = 0; i < 6; i++)
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s[i]));
    for (int i = 0; i < 5; i++)
        GG_OK_(launch_plain(rig.hang_me, s[i]));
    GG_OK_(launch_touch(&rig, s[5], dptr, 1u << 30)); /* #6 */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(s[5], NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.candidate_count, 6, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 6, "%s", death.message);
    cr_assert(has(death.message, "one of 6 streams' first unfinished launches"), "%s", death.message);
    cr_assert(has(death.message, ", and 2 more"), "%s", death.message);
    for (int i = 0; i < GG_CULPRIT_CANDIDATES_MAX; i++)
        cr_assert_neq(death.culprit.candidates[i].sequence, 0, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- suspect kernel names: 6 -------------------------------------------- */

Test(bounds, suspect_names_past_6_are_counted)
{
    /* Seven kernels in the window (no timeline): six named with counts,
     * the seventh counted as "1 more". */
    open_with(NULL, GG_TIMELINE_OFF);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_sleep(&rig, GG_NO_STREAM, 200));
    GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 1, 16));
    uint32_t n = 16;
    void *params[] = { &dptr, &n };
    gg_launch_desc add = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.add_one_u32, .grid = { 1, 1, 1 }, .block = { 16, 1, 1 },
                           .params = params, .param_count = 2 };
    GG_OK_(gg_launch(&add));
    GG_OK_(launch_plain(rig.noop, GG_NO_STREAM));
    GG_OK_(launch_touch(&rig, GG_NO_STREAM, dptr, 1u << 30)); /* faults: what follows is discarded */
    GG_OK_(launch_plain(rig.trap, GG_NO_STREAM));
    GG_OK_(launch_plain(rig.hang_me, GG_NO_STREAM));
    gg_kernel spin;
    GG_OK_(gg_kernel_create(rig.module, "spin", &spin));
    uint32_t us = 1, off = 0;
    void *sp[] = { &us, &off };
    gg_launch_desc sd = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = sp, .param_count = 2 };
    GG_OK_(gg_launch(&sd));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 8, "%s", death.message);
    cr_assert(has(death.message, "'sleep_ms' x1, 'fill_u32' x1, 'add_one_u32' x1, 'noop' x1, 'touch' x1, 'trap' x1, 2 more"),
              "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- chunked launches: 256 parameters ----------------------------------- */

Test(bounds, chunk_params_past_256_refused_naming_the_bound)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    static uint32_t values[257];
    static void *params[257];
    for (int i = 0; i < 257; i++)
        params[i] = &values[i];
    gg_kernel spin;
    GG_OK_(gg_kernel_create(rig.module, "spin", &spin));
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 4, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                         .param_count = 257 };
    gg_chunk_desc chunk = { .struct_size = sizeof(gg_chunk_desc), .offset_param = 1 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&d, &chunk, NULL));
    cr_assert(has(gg_test_last_message(), "param_count 257 is more than 256"), "%s", gg_test_last_message());
    /* At 256 that check passes; the kernel's own count (2) refuses it. */
    d.param_count = 256;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&d, &chunk, NULL));
    cr_assert_not(has(gg_test_last_message(), "more than 256"), "%s", gg_test_last_message());
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- kept parameter sizes: 64 ------------------------------------------- */

static gg_kernel open_wide(void)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    gg_module m;
    GG_OK_(gg_module_create_from_file(rig.ctx, gg_test_kernel_module("bounds_kernels"), NULL, &m));
    gg_kernel k;
    GG_OK_(gg_kernel_create(m, "wide66", &k));
    return k;
}

Test(bounds, known_params_past_64_still_check_the_whole_count)
{
    /* Sizes are kept for 64 parameters; the count is kept whole. */
    gg_kernel k = open_wide();
    static uint64_t values[66][2]; /* 16 bytes each: parameter 65 is that wide */
    static void *params[66];
    for (int i = 0; i < 66; i++)
        params[i] = values[i];
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = params, .param_count = 65 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch(&d));
    cr_assert(has(gg_test_last_message(), "takes 66 parameter(s) but param_count is 65"), "%s", gg_test_last_message());
    d.param_count = 66;
    GG_OK_(gg_launch(&d));
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* Chunking writes a 4-byte offset (in 8 bytes of storage) at the offset
 * parameter: past the 64 kept sizes that width cannot be checked, so such
 * an offset parameter is refused rather than let the driver copy a wider
 * parameter (here 16 bytes) from the 8 bytes written. */
Test(bounds, known_params_past_64_refuse_an_unchecked_chunk_offset)
{
    gg_kernel k = open_wide();
    GG_OK_(gg_kernel_set_chunking(k, 63, 0)); /* the 64th: its size (4) is kept */
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_set_chunking(k, 65, 0));
    cr_assert(has(gg_test_last_message(), "past the first 64 parameters"), "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_set_chunking(k, 64, 0)); /* 4 bytes, but not known to be */
    static uint64_t values[66][2]; /* 16 bytes each: parameter 65 is that wide */
    static void *params[66];
    for (int i = 0; i < 66; i++)
        params[i] = values[i];
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .grid = { 4, 1, 1 }, .block = { 1, 1, 1 }, .params = params, .param_count = 66 };
    gg_chunk_desc chunk = { .struct_size = sizeof(gg_chunk_desc), .offset_param = 65 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&d, &chunk, NULL));
    cr_assert(has(gg_test_last_message(), "past the first 64"), "%s", gg_test_last_message());
    chunk.offset_param = 63;
    GG_OK_(gg_launch_chunked(&d, &chunk, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- names: GG_NAME_MAX (63 bytes and the terminator) ------------------- */

Test(bounds, tag_past_name_max_is_truncated_terminated)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    char tag[GG_NAME_MAX + 1];
    memset(tag, 'a', GG_NAME_MAX);
    tag[GG_NAME_MAX] = '\0'; /* 64 bytes: one past what a tag keeps */
    gg_stream s;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = tag }, &s));
    char *json = NULL;
    GG_OK_(gg_objects_json(&json));
    char kept[GG_NAME_MAX + 3];
    snprintf(kept, sizeof kept, "\"%.*s\"", GG_NAME_MAX - 1, tag);
    cr_assert(has(json, kept), "the tag is not kept as its first 63 bytes: %s", json);
    gg_free(json);
    GG_OK_(gg_stream_destroy(s));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(bounds, fault_plan_kernel_name_past_name_max_refused_naming_it)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    char plan[256], name[GG_NAME_MAX + 1];
    memset(name, 'k', GG_NAME_MAX);
    name[GG_NAME_MAX] = '\0';
    snprintf(plan, sizeof plan, "[{\"op\":\"launch\",\"kernel\":\"%.*s\",\"error\":\"launch_failed\"}]",
             GG_NAME_MAX - 1, name);
    GG_OK_(gg_fault_set_plan(plan)); /* 63 bytes: kept */
    snprintf(plan, sizeof plan, "[{\"op\":\"launch\",\"kernel\":\"%s\",\"error\":\"launch_failed\"}]", name);
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_fault_set_plan(plan));
    cr_assert(has(gg_test_last_message(), "rule 0"), "%s", gg_test_last_message());
    cr_assert(has(gg_test_last_message(), "64 bytes long; a kernel filter names at most 63"),
              "the bound is not named: %s", gg_test_last_message());
    GG_OK_(gg_fault_clear());
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- messages: GG_MESSAGE_MAX ------------------------------------------- */

Test(bounds, message_past_message_max_is_truncated_terminated)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    char path[2048];
    memset(path, 'p', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 1] = '\0';
    gg_module m;
    gg_status s = gg_module_create_from_file(rig.ctx, path, NULL, &m);
    cr_assert_neq(s, GG_OK);
    gg_error_info e = GG_ERROR_INFO_INIT;
    GG_OK_(gg_last_error(&e));
    cr_assert_eq(strnlen(e.message, sizeof e.message), GG_MESSAGE_MAX - 1, "the message was not cut at the bound");
    cr_assert(has(e.message, "gg_module_create_from_file"), "%s", e.message);
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- JSON nesting: 64 --------------------------------------------------- */

Test(bounds, fault_plan_nesting_past_64_refused_naming_it)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    /* {"rules":[], "x": [[...]]}: the top object is at depth 0, the k-th
     * array at depth k. 64 arrays pass the syntax check (the plan is then
     * refused for its unknown field); 65 are refused naming the bound. */
    for (int arrays = 64; arrays <= 65; arrays++) {
        char plan[512];
        size_t n = (size_t)snprintf(plan, sizeof plan, "{\"rules\":[],\"x\":");
        for (int i = 0; i < arrays; i++)
            plan[n++] = '[';
        for (int i = 0; i < arrays; i++)
            plan[n++] = ']';
        plan[n++] = '}';
        plan[n] = '\0';
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_fault_set_plan(plan));
        bool depth = has(gg_test_last_message(), "nested at most 64 deep");
        cr_assert_eq(depth, arrays == 65, "%d arrays: %s", arrays, gg_test_last_message());
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(bounds, fault_plan_members_past_512_refused_naming_it)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    /* {"rules":[], "k0":0, ...}: 512 names pass the duplicate check (the
     * plan is then refused for its unknown fields); 513 are refused naming
     * the bound. */
    static char plan[GG_JSON_MAX_OPEN_MEMBERS * 16 + 64];
    for (int members = GG_JSON_MAX_OPEN_MEMBERS; members <= GG_JSON_MAX_OPEN_MEMBERS + 1; members++) {
        size_t n = (size_t)snprintf(plan, sizeof plan, "{\"rules\":[]");
        for (int i = 1; i < members; i++)
            n += (size_t)snprintf(plan + n, sizeof plan - n, ",\"k%d\":0", i);
        snprintf(plan + n, sizeof plan - n, "}");
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_fault_set_plan(plan));
        bool bound = has(gg_test_last_message(), "at most 512 members in the objects open at this point");
        cr_assert_eq(bound, members == GG_JSON_MAX_OPEN_MEMBERS + 1, "%d members: %s", members,
                     gg_test_last_message());
        cr_assert(bound || has(gg_test_last_message(), "unknown top-level field \"k1\""), "%s", gg_test_last_message());
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- the leak report: 16 listed ----------------------------------------- */

static unsigned leak_lines, summary_lines;
static char summary[512];

static void count_leaks(void *user, gg_log_level level, uint64_t id, const char *message)
{
    (void)user;
    (void)id;
    if (level == GG_LOG_WARN && has(message, ": leaked "))
        leak_lines++;
    if (level == GG_LOG_WARN && has(message, "releasing ")) {
        summary_lines++;
        snprintf(summary, sizeof summary, "%s", message);
    }
}

Test(bounds, leak_report_lists_16_and_counts_all)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .log_fn = count_leaks, .log_level = GG_LOG_WARN };
    gg_test_init_sim_desc(NULL, &desc);
    gg_context ctx;
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "leaky" }, &ctx));
    for (int i = 0; i < 20; i++) {
        gg_event e;
        GG_OK_(gg_event_create(ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "lost" }, &e));
    }
    GG_OK_(gg_shutdown());
    /* The context line is the first of the 16; 15 objects are named. */
    cr_assert_eq(leak_lines, 15, "%u", leak_lines);
    cr_assert_eq(summary_lines, 1);
    cr_assert(has(summary, "releasing 21 leaked object(s): 1 context(s), ") && has(summary, " 20 event(s)"), "%s",
              summary);
}

/* ---- the handle table: 2^28 slots --------------------------------------- */

Test(bounds, handle_table_full_fails_naming_the_bound)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    /* Move the table's high-water mark to its last slot (2^28 ids would
     * take 8 GiB): one more id is handed out, then none. */
    uint32_t used = atomic_load(&gg__handle_slots_used);
    atomic_store(&gg__handle_slots_used, GG__DIR_PAGES * GG__PAGE_SLOTS - 1u);
    gg_event last;
    GG_OK_(gg_event_create(rig.ctx, NULL, &last));
    cr_assert_eq(gg__id_slot(last.id), GG__DIR_PAGES * GG__PAGE_SLOTS - 1u);
    gg_event past = { 1 };
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_event_create(rig.ctx, NULL, &past));
    cr_assert_eq(past.id, 0);
    cr_assert(has(gg_test_last_message(), "handle table is full"), "%s", gg_test_last_message());
    /* A freed id is reused (same kind): the table full is not the end. */
    GG_OK_(gg_event_destroy(last));
    GG_OK_(gg_event_create(rig.ctx, NULL, &past));
    GG_OK_(gg_event_destroy(past));
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    (void)used;
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- pins: 4 per call --------------------------------------------------- */

Test(bounds, pins_past_4_in_one_call_refused)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    gg_event e[5];
    for (int i = 0; i < 5; i++)
        GG_OK_(gg_event_create(rig.ctx, NULL, &e[i]));
    gg__call c = GG__CALL("bounds test");
    for (int i = 0; i < GG__PIN_SLOTS; i++)
        cr_assert_not_null(gg__lookup(&c, e[i].id, GG__T_EVENT, "event"));
    /* The fifth would be written past the thread's record. */
    cr_assert_null(gg__lookup(&c, e[4].id, GG__T_EVENT, "event"));
    cr_assert_eq(gg__lookup_status(), GG_INTERNAL);
    cr_assert(has(gg_test_last_message(), "more than 4 objects pinned by one call"), "%s", gg_test_last_message());
    cr_assert_eq(c.npins, GG__PIN_SLOTS);
    gg__leave(&c);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- library paths: 511 bytes ------------------------------------------- */

Test(bounds, library_path_past_511_refused_naming_it)
{
    char path[513];
    memset(path, 'l', 512);
    path[0] = '/';
    path[512] = '\0';
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = path };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    cr_assert(has(gg_test_last_message(), "longer than 511 bytes"), "%s", gg_test_last_message());
}

/* ---- a context's spare records: one per kind ---------------------------- */

/* The clear's size per kind as a constant (gg__kind_kept_from, object.h)
 * is the kinds table's, for every kind, and 0 past the kinds. */
Test(bounds, kept_from_constant_matches_the_kinds_table)
{
    for (int t = GG__T_NONE + 1; t < GG__T_COUNT; t++)
        cr_assert_eq(gg__kind_kept_from((gg__type)t), gg__kinds[t].kept_from, "kind %d", t);
    cr_assert_eq(gg__kind_kept_from(GG__T_COUNT), 0);
}

/* A destroy leaves the record to its context for the next create when the
 * context has none of that kind; a second one goes back to the pools. The
 * next create takes the spare, cleared: nothing of the old buffer shows. */
Test(bounds, spare_records_past_1_go_back_to_the_pools)
{
    open_with(NULL, GG_TIMELINE_AUTO);
    gg__context *ctx = gg__handle_lookup(rig.ctx.id, GG__T_CONTEXT);
    cr_assert_not_null(ctx);
    gg_buffer b1, b2, b3, b4;
    gg_buffer_desc tagged = GG_BUFFER_DESC_INIT;
    tagged.tag = "first";
    GG_OK_(gg_buffer_create(rig.ctx, 256, &tagged, &b1));
    GG_OK_(gg_buffer_create(rig.ctx, 256, NULL, &b2));
    gg__object *r1 = gg__handle_lookup(b1.id, GG__T_BUFFER);
    gg__object *r2 = gg__handle_lookup(b2.id, GG__T_BUFFER);
    cr_assert(r1 != NULL && r2 != NULL && r1 != r2);
    cr_assert_not(gg__context_has_spare(ctx, GG__T_BUFFER));
    GG_OK_(gg_buffer_destroy(b1)); /* kept: the context had no spare */
    cr_assert(gg__context_has_spare(ctx, GG__T_BUFFER));
    GG_OK_(gg_buffer_destroy(b2)); /* one past the bound: to the pools */
    /* Dirty the spare where a device buffer's create writes nothing: its
     * last field and the adoption flags. The inlined create's clear
     * (lifetime.h, constant-sized per kind) must reach them as
     * gg__object_new's does. */
    ((gg__buffer *)r1)->host_ptr = (void *)r1;
    r1->adopted = true;
    r1->owned = true;
    GG_OK_(gg_buffer_create(rig.ctx, 512, NULL, &b3));
    gg__object *r3 = gg__handle_lookup(b3.id, GG__T_BUFFER);
    cr_assert_eq(r3, r1, "the next create takes the spare");
    cr_assert_not(gg__context_has_spare(ctx, GG__T_BUFFER), "one spare, taken");
    cr_assert_eq(r3->tag[0], '\0', "the spare is cleared: the old tag is gone");
    cr_assert_null(((gg__buffer *)r3)->host_ptr, "the clear reaches the record's last field");
    cr_assert(!r3->adopted && !r3->owned, "the clear reaches the adoption flags");
    size_t bytes = 0;
    GG_OK_(gg_buffer_size(b3, &bytes));
    cr_assert_eq(bytes, 512);
    GG_OK_(gg_buffer_create(rig.ctx, 256, NULL, &b4));
    cr_assert_eq(gg__handle_lookup(b4.id, GG__T_BUFFER), r2, "the second destroyed record went to the pools");
    GG_OK_(gg_buffer_destroy(b4));
    GG_OK_(gg_context_destroy(rig.ctx)); /* b3 with it, and the spare back to the pools */
    gg_test_finish();
}
