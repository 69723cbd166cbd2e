/*
 * The cases of issue 25, each just past a bound attribution once had: more
 * launches queued behind a fault than records are kept per stream, more
 * destroyed streams with running work than logs were kept, a destroyed
 * stream's timeline slot given to a new stream while a write was pending.
 * The rule: a culprit is named only when it can be shown; a synchronize
 * never returns before the work it covers is done.
 *
 * Over the simulator, on every face and driver version of
 * test_core_behaviour. Proof of completion is the work's own result (a
 * buffer each stream's last kernel fills), never a time.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launches.h"

#define HANG_CONFIG "{\"misbehave\":[{\"kernel\":\"hang_me\",\"action\":\"hang\"}]}"

static gg_test_rig rig;

/* Opens device 1 (no watchdog) with `records` launch records per stream
 * (0: the default). */
static void open_with(gg_timeline_mode mode, const char *records)
{
    if (records != NULL)
        setenv("GPUGUARD_LAUNCH_RECORDS", records, 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = mode, .wait_timeout_ms = 5000 };
    gg_test_init_sim_desc(HANG_CONFIG, &desc);
    unsetenv("GPUGUARD_LAUNCH_RECORDS");
    gg_test_rig_open(&rig, 1);
}

static uint64_t device_ptr(gg_buffer b)
{
    uint64_t p = 0;
    GG_OK_(gg_buffer_device_ptr(b, &p));
    return p;
}

/* Stream 'deep': sleep_ms(ms) (#1), then a touch out of bounds (#2) that
 * faults once it runs, then `behind` noops queued behind it (#3...). */
static gg_error_info deep_queue(uint32_t behind, uint32_t ms)
{
    gg_stream deep;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "deep" }, &deep));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    GG_OK_(launch_sleep(&rig, deep, ms));
    GG_OK_(launch_touch(&rig, deep, device_ptr(buf), 1u << 30));
    for (uint32_t i = 0; i < behind; i++)
        GG_OK_(launch_plain(rig.noop, deep));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(deep, NULL));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.status, GG_ILLEGAL_ADDRESS, "%s", death.message);
    return death;
}

Test(culprit_bounds, a_fault_with_40_launches_queued_behind_it_is_named_when_its_record_is_kept)
{
    open_with(GG_TIMELINE_AUTO, NULL);
    gg_error_info death = deep_queue(40, 200);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch", "%s", death.message);
    cr_assert_eq(death.culprit.sequence, 2, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(culprit_bounds, a_fault_whose_record_was_overwritten_is_located_never_replaced)
{
    /* 32 records, 40 launches behind the fault: its record is gone. It is
     * still found (position 2 of its stream, and its number proven from
     * the records kept after it), and no later launch is named. */
    open_with(GG_TIMELINE_AUTO, "32");
    gg_error_info death = deep_queue(40, 200);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 1, "%s", death.message);
    cr_assert_eq(death.culprit.window_first, 2, "%s", death.message);
    cr_assert_eq(death.culprit.window_last, 2, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "", "%s", death.message);
    cr_assert_not_null(strstr(death.message, "launch #2 (name not kept: 40 launches were queued behind it, more "
                                             "than the 32 records kept per stream"), "%s", death.message);
    cr_assert_null(strstr(death.message, "'noop'"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(culprit_bounds, without_a_timeline_a_hang_behind_40_launches_is_inside_the_window)
{
    open_with(GG_TIMELINE_OFF, "32");
    gg_stream deep;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "deep" }, &deep));
    GG_OK_(launch_plain(rig.hang_me, deep)); /* #1 hangs */
    for (int i = 0; i < 40; i++)
        GG_OK_(launch_plain(rig.noop, deep));
    GG_EXPECT(GG_TIMEOUT, gg_stream_synchronize(deep, GG_WAIT_MS(100)));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_WINDOW, "%s", death.message);
    cr_assert_eq(death.culprit.window_count, 41, "%s", death.message);
    cr_assert_eq(death.culprit.window_first, 1, "the window must hold the hang (#1): %s", death.message);
    cr_assert_eq(death.culprit.window_last, 41, "%s", death.message);
    cr_assert_not_null(strstr(death.message, "one of 41 unfinished launches #1..#41"), "%s", death.message);
    cr_assert_not_null(strstr(death.message, "9 not kept by name"), "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* `count` streams, each running a sleep then filling its own buffer with
 * its number + 1, destroyed right after launching. The first sleeps
 * longest (ms), the last shortest: the oldest destroyed streams' work is
 * the last to finish, as when a bound once dropped the oldest logs. */
static void destroyed_streams_fill(uint32_t count, uint32_t ms, gg_buffer *bufs)
{
    for (uint32_t i = 0; i < count; i++) {
        gg_stream s;
        char tag[16];
        snprintf(tag, sizeof tag, "s%u", i);
        GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = tag }, &s));
        GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &bufs[i]));
        GG_OK_(launch_sleep(&rig, s, ms - ms * i / (count + 1)));
        GG_OK_(launch_fill(&rig, s, bufs[i], i + 1, 16));
        GG_OK_(gg_stream_destroy(s));
    }
}

static void expect_filled(gg_buffer *bufs, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t got[16] = { 0 };
        GG_OK_(gg_memcpy_dtoh(got, bufs[i], 0, sizeof got, GG_NO_STREAM)); /* the null stream: not ordered after gpuguard's streams (non-blocking) */
        cr_assert_eq(got[0], i + 1, "stream %u's work had not run when the synchronize returned", i);
        cr_assert_eq(got[15], i + 1, "stream %u's work had not run when the synchronize returned", i);
        GG_OK_(gg_buffer_destroy(bufs[i]));
    }
}

Test(culprit_bounds, a_context_synchronize_waits_for_the_work_of_20_destroyed_streams)
{
    open_with(GG_TIMELINE_AUTO, NULL);
    gg_buffer bufs[20];
    destroyed_streams_fill(20, 300, bufs);
    GG_OK_(gg_context_synchronize(rig.ctx, GG_WAIT_MS(5000)));
    expect_filled(bufs, 20);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(culprit_bounds, a_context_synchronize_waits_for_the_work_of_130_destroyed_streams_without_timeline)
{
    open_with(GG_TIMELINE_OFF, NULL);
    gg_buffer bufs[130];
    destroyed_streams_fill(130, 200, bufs);
    GG_OK_(gg_context_synchronize(rig.ctx, GG_WAIT_MS(10000)));
    expect_filled(bufs, 130);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* A fault on the first of 20 destroyed streams, the 19 others quick. */
static gg_error_info fault_on_first_of_20(gg_stream *first)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    for (int i = 0; i < 20; i++) {
        gg_stream s;
        GG_OK_(gg_stream_create(rig.ctx, NULL, &s));
        if (i == 0) {
            *first = s;
            GG_OK_(launch_sleep(&rig, s, 150));                 /* #1 */
            GG_OK_(launch_touch(&rig, s, device_ptr(buf), 1u << 30)); /* #2 faults */
        } else {
            GG_OK_(launch_plain(rig.noop, s));
        }
        GG_OK_(gg_stream_destroy(s));
    }
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, GG_WAIT_MS(5000)));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    return death;
}

Test(culprit_bounds, a_fault_on_the_first_of_20_destroyed_streams_is_named)
{
    open_with(GG_TIMELINE_AUTO, NULL);
    gg_stream first;
    gg_error_info death = fault_on_first_of_20(&first);
    /* The 19 noops may or may not have been seen done: a window over them
     * is honest too, but it must hold the touch and never lose it. */
    cr_assert_neq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "%s", death.message);
    if (death.culprit.certainty == GG_ATTRIBUTION_EXACT) {
        cr_assert_str_eq(death.culprit.kernel_name, "touch", "%s", death.message);
        cr_assert_eq(death.culprit.sequence, 2, "%s", death.message);
        cr_assert_eq(death.culprit.stream.id, first.id, "%s", death.message);
    } else {
        cr_assert_leq(death.culprit.window_first, 2, "%s", death.message);
        cr_assert_geq(death.culprit.window_last, 2, "%s", death.message);
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(culprit_bounds, a_fault_on_the_first_of_20_destroyed_streams_is_in_the_window_without_timeline)
{
    open_with(GG_TIMELINE_OFF, NULL);
    gg_stream first;
    gg_error_info death = fault_on_first_of_20(&first);
    cr_assert_neq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "%s", death.message);
    cr_assert_leq(death.culprit.window_first, 2, "%s", death.message);
    cr_assert_geq(death.culprit.window_last, 2, "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(culprit_bounds, a_slot_of_a_destroyed_stream_is_not_reused_while_its_write_is_pending)
{
    /* 20 streams each run sleep_ms(100) and are destroyed at once; 20 new
     * streams then take slots. On one of them a noop completes (observed)
     * and a touch faults. Were an old slot handed over early, the old
     * stream's late write (its position 1) would mark the new stream's
     * first launch complete and blame the wrong one. */
    open_with(GG_TIMELINE_AUTO, NULL);
    gg_buffer bufs[20];
    destroyed_streams_fill(20, 200, bufs);
    gg_stream fresh[20];
    for (int i = 0; i < 20; i++)
        GG_OK_(gg_stream_create(rig.ctx, NULL, &fresh[i]));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    for (int i = 0; i < 20; i++)
        GG_OK_(launch_touch(&rig, fresh[i], device_ptr(buf), 1)); /* in bounds: completes */
    /* Not observed: the timeline alone says these completed. */
    GG_OK_(launch_sleep(&rig, fresh[19], 300));
    GG_OK_(launch_touch(&rig, fresh[19], device_ptr(buf), 1u << 30)); /* faults */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(fresh[19], GG_WAIT_MS(5000)));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    /* Stream 19's first unfinished launch is the faulting touch, numbered
     * after 20 x (sleep, fill) + 20 touches + the sleep. */
    uint64_t touch_seq = 20 * 2 + 20 + 2;
    /* Every other stream's timeline says done (the old streams' writes
     * landed long before): one suspect, named. */
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_eq(death.culprit.sequence, touch_seq, "%s", death.message);
    cr_assert_eq(death.culprit.stream.id, fresh[19].id, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch", "%s", death.message);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- a native context shared by several gg contexts --------------------
 * HIP has one context per device, and a CUDA primary context is everyone's:
 * two gg contexts on it share fate, and one destroyed leaves its work
 * running there. A fault may then be another gg context's: none of this
 * context's launches is named (NONE, the message says whose work may be to
 * blame), and a late timeline write of the departed one never lands in
 * this one's page. */

/* A rig on device 1's primary context (every HIP context is one). */
static void open_shared_rig(gg_test_rig *r, const char *tag)
{
    GG_OK_(gg_context_create(1, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = tag, .use_primary = true }, &r->ctx));
    GG_OK_(gg_module_create_from_file(r->ctx, gg_test_kernel_module("core_kernels"), NULL, &r->module));
    GG_OK_(gg_kernel_create(r->module, "touch", &r->touch));
    GG_OK_(gg_kernel_create(r->module, "sleep_ms", &r->sleep_ms));
    GG_OK_(gg_kernel_create(r->module, "noop", &r->noop));
    GG_OK_(gg_kernel_create(r->module, "fill_u32", &r->fill_u32));
}

static void init_shared(void)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = GG_TIMELINE_AUTO, .wait_timeout_ms = 5000 };
    gg_test_init_sim_desc(HANG_CONFIG, &desc);
}

Test(culprit_bounds, a_fault_of_another_gg_context_on_the_same_native_context_names_none_of_ours)
{
    init_shared();
    gg_test_rig a, b;
    open_shared_rig(&a, "a");
    open_shared_rig(&b, "b");
    gg_buffer buf;
    GG_OK_(gg_buffer_create(a.ctx, 4096, NULL, &buf));
    uint64_t dptr = device_ptr(buf);
    gg_stream sa, sb;
    GG_OK_(gg_stream_create(a.ctx, NULL, &sa));
    GG_OK_(gg_stream_create(b.ctx, NULL, &sb));
    GG_OK_(launch_sleep(&a, sa, 100));
    GG_OK_(launch_touch(&a, sa, dptr, 1u << 30)); /* a's: faults after 100 ms */
    GG_OK_(launch_sleep(&b, sb, 2000));            /* b's: unfinished when it does */
    gg_status st = gg_stream_synchronize(sb, GG_WAIT_MS(5000));
    cr_assert_eq(st, GG_ILLEGAL_ADDRESS, "%s", gg_test_last_message());
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(b.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "b's sleep must not be blamed: %s", death.message);
    cr_assert_not_null(strstr(death.message, "culprit unknown: gg context 'a' shares this native context"), "%s",
                       death.message);
    /* a shares the fate: its next call finds it dead (and a destroy of a
     * dead primary context resets it under every other user). On CUDA b's
     * death poisoned the process and a died with it (GG_PROCESS_POISONED:
     * it fails fast); on HIP a's own call meets the device's error. */
    if (gg_test_backend_in_use()->hip) {
        GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(a.ctx, GG_WAIT_MS(5000)));
    } else {
        GG_EXPECT(GG_CONTEXT_DEAD, gg_context_synchronize(a.ctx, GG_WAIT_MS(5000)));
        cr_assert_not_null(strstr(gg_test_last_message(), "GG_PROCESS_POISONED"), "%s", gg_test_last_message());
    }
    GG_OK_(gg_context_destroy(a.ctx));
    GG_OK_(gg_context_destroy(b.ctx));
    gg_test_finish();
}

Test(culprit_bounds, work_left_running_by_a_destroyed_gg_context_is_not_blamed_on_the_next)
{
    init_shared();
    gg_test_rig a, b;
    open_shared_rig(&a, "a");
    gg_buffer buf;
    GG_OK_(gg_buffer_create(a.ctx, 4096, NULL, &buf));
    uint64_t dptr = device_ptr(buf);
    /* a's default stream: a sleep, then a fault; a goes while they run
     * (on HIP and with a primary context still retained, they go on). */
    GG_OK_(launch_sleep(&a, GG_NO_STREAM, 150));
    GG_OK_(launch_touch(&a, GG_NO_STREAM, dptr, 1u << 30));
    open_shared_rig(&b, "b"); /* retains the primary context first, so it stays */
    GG_OK_(gg_context_destroy(a.ctx));
    gg_stream sb;
    GG_OK_(gg_stream_create(b.ctx, NULL, &sb));
    GG_OK_(launch_sleep(&b, sb, 2000));
    gg_status st = gg_stream_synchronize(sb, GG_WAIT_MS(5000));
    cr_assert_eq(st, GG_ILLEGAL_ADDRESS, "%s", gg_test_last_message());
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(b.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "b's sleep must not be blamed: %s", death.message);
    cr_assert_not_null(strstr(death.message, "culprit unknown: gg context 'a', destroyed with its work still running"),
                       "%s", death.message);
    GG_OK_(gg_context_destroy(b.ctx));
    gg_test_finish();
}

Test(culprit_bounds, work_a_destroyed_gg_context_finished_leaves_the_next_its_culprits)
{
    /* The departed work completed (its timeline says so, even after the
     * fault): the next context's own faulting launch is named. */
    init_shared();
    gg_test_rig a, b;
    open_shared_rig(&a, "a");
    open_shared_rig(&b, "b");
    GG_OK_(launch_sleep(&a, GG_NO_STREAM, 20));
    GG_OK_(gg_context_destroy(a.ctx));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(b.ctx, 4096, NULL, &buf));
    gg_stream sb;
    GG_OK_(gg_stream_create(b.ctx, NULL, &sb));
    GG_OK_(launch_sleep(&b, sb, 200));
    GG_OK_(launch_touch(&b, sb, device_ptr(buf), 1u << 30)); /* b's #2 faults, long after a's sleep ended */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_stream_synchronize(sb, GG_WAIT_MS(5000)));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(b.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT, "%s", death.message);
    cr_assert_str_eq(death.culprit.kernel_name, "touch", "%s", death.message);
    cr_assert_eq(death.culprit.sequence, 2, "%s", death.message);
    GG_OK_(gg_context_destroy(b.ctx));
    gg_test_finish();
}
