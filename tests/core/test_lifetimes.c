/* Lifetimes and ownership: children belong to one context, mixing contexts is
 * WRONG_CONTEXT, destroying a context makes every child id stale, bounds are
 * checked before the driver is called, bad input is named. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

TestSuite(lifetimes, .init = setup);

Test(lifetimes, copies_round_trip_sync_and_async)
{
    gg_buffer dev, pinned;
    gg_stream stream;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &dev));
    GG_OK_(gg_buffer_create(rig.ctx, 4096, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .flags = GG_BUFFER_HOST_PINNED }, &pinned));
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "copies" }, &stream));
    unsigned char *host = NULL;
    GG_OK_(gg_buffer_host_ptr(pinned, (void **)&host));
    for (int i = 0; i < 4096; i++)
        host[i] = (unsigned char)i;
    GG_OK_(gg_memcpy_htod(dev, 0, host, 4096, stream));
    GG_OK_(gg_memset(dev, 100, 0xab, 10, stream));
    unsigned char out[4096];
    GG_OK_(gg_stream_synchronize(stream, NULL));
    GG_OK_(gg_memcpy_dtoh(out, dev, 0, sizeof out, GG_NO_STREAM));
    for (int i = 0; i < 4096; i++)
        cr_assert_eq(out[i], i >= 100 && i < 110 ? 0xab : (unsigned char)i, "byte %d", i);
    gg_buffer dev2;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &dev2));
    GG_OK_(gg_memcpy_dtod(dev2, 0, dev, 0, 4096, GG_NO_STREAM));
    memset(out, 0, sizeof out);
    GG_OK_(gg_memcpy_dtoh(out, dev2, 0, 4096, GG_NO_STREAM));
    cr_assert_eq(out[5], 5);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, out_of_bounds_copies_are_refused_before_the_driver)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 100, NULL, &buf));
    char host[256];
    unsigned long long before = gg_test_sim_total_calls();
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_htod(buf, 0, host, 101, GG_NO_STREAM));
    cr_assert(strstr(gg_test_last_message(), "outside") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_htod(buf, 100, host, 1, GG_NO_STREAM));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_dtoh(host, buf, SIZE_MAX, 2, GG_NO_STREAM));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_dtoh(host, buf, 1, SIZE_MAX, GG_NO_STREAM));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memset(buf, 50, 0, 51, GG_NO_STREAM));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_htod(buf, 0, host, 0, GG_NO_STREAM));
    cr_assert(strstr(gg_test_last_message(), "bytes is 0") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_htod(buf, 0, NULL, 10, GG_NO_STREAM));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_dtoh(NULL, buf, 0, 10, GG_NO_STREAM));
    cr_assert_eq(gg_test_sim_total_calls(), before, "a refused copy reached the driver");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, bad_allocation_requests_are_named)
{
    gg_buffer buf;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_create(rig.ctx, 0, NULL, &buf));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_create(rig.ctx, 64, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .flags = 0x80 }, &buf));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_create(rig.ctx, 64, NULL, NULL));
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_buffer_create(rig.ctx, SIZE_MAX / 2, NULL, &buf));
    cr_assert_eq(buf.id, 0, "a failed creation leaves nothing to free");
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE, "out of memory is not sticky");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, mixing_contexts_is_wrong_context_naming_both)
{
    gg_context other;
    GG_OK_(gg_context_create(1, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "other" }, &other));
    gg_stream foreign;
    gg_buffer mine, theirs;
    gg_event their_event;
    GG_OK_(gg_stream_create(other, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "foreign" }, &foreign));
    GG_OK_(gg_event_create(other, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "their-event" }, &their_event));
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &mine));
    GG_OK_(gg_buffer_create(other, 64, NULL, &theirs));
    char host[64] = { 0 };
    GG_EXPECT(GG_WRONG_CONTEXT, gg_memcpy_htod(mine, 0, host, 64, foreign));
    cr_assert(strstr(gg_test_last_message(), "foreign") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_WRONG_CONTEXT, gg_memcpy_dtod(mine, 0, theirs, 0, 64, GG_NO_STREAM));
    GG_EXPECT(GG_WRONG_CONTEXT, launch_plain(rig.noop, foreign));
    GG_OK_(gg_event_record(their_event, GG_NO_STREAM)); /* its own context's default stream */
    gg_stream own;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "own" }, &own));
    GG_EXPECT(GG_WRONG_CONTEXT, gg_event_record(their_event, own));
    GG_EXPECT(GG_WRONG_CONTEXT, gg_stream_wait_event(own, their_event));
    GG_OK_(gg_context_destroy(other));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, destroying_a_context_makes_every_child_stale)
{
    gg_stream stream;
    gg_event event;
    gg_buffer buf;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "s" }, &stream));
    GG_OK_(gg_event_create(rig.ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "e" }, &event));
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf));
    gg_kernel noop = rig.noop;
    GG_OK_(gg_context_destroy(rig.ctx));
    GG_EXPECT(GG_INVALID_HANDLE, gg_stream_query(stream));
    cr_assert(strstr(gg_test_last_message(), "its context was destroyed") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_HANDLE, gg_event_query(event));
    size_t size;
    GG_EXPECT(GG_INVALID_HANDLE, gg_buffer_size(buf, &size));
    GG_EXPECT(GG_INVALID_HANDLE, launch_plain(noop, GG_NO_STREAM));
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_INVALID);
    /* Destroying what is already gone is harmless. */
    GG_OK_(gg_stream_destroy(stream));
    GG_OK_(gg_context_destroy(rig.ctx));
    GG_OK_(gg_context_destroy((gg_context){ 0 }));
    gg_test_finish();
}

Test(lifetimes, unloading_a_module_makes_its_kernels_stale)
{
    gg_kernel noop = rig.noop;
    GG_OK_(gg_module_destroy(rig.module));
    GG_EXPECT(GG_INVALID_HANDLE, launch_plain(noop, GG_NO_STREAM));
    cr_assert(strstr(gg_test_last_message(), "its module was unloaded") != NULL, "%s", gg_test_last_message());
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, wrong_type_and_forged_handles_are_refused)
{
    gg_stream stream;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "s" }, &stream));
    gg_event as_event = { stream.id };
    GG_EXPECT(GG_INVALID_HANDLE, gg_event_query(as_event));
    cr_assert(strstr(gg_test_last_message(), "expected a gg_event id, got a gg_stream id") != NULL, "%s",
              gg_test_last_message());
    GG_EXPECT(GG_INVALID_HANDLE, gg_stream_query((gg_stream){ stream.id ^ 0x1234 }));
    GG_EXPECT(GG_INVALID_HANDLE, gg_stream_query((gg_stream){ 0xdeadbeefdeadbeefull }));
    GG_EXPECT(GG_INVALID_HANDLE, gg_stream_query((gg_stream){ 0 }));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, module_errors_name_what_was_wrong)
{
    gg_module m;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_module_create_from_file(rig.ctx, NULL, NULL, &m));
    gg_status s = gg_module_create_from_file(rig.ctx, "/nonexistent/kernels.so", NULL, &m);
    cr_assert_neq(s, GG_OK);
    cr_assert(strstr(gg_test_last_message(), "/nonexistent/kernels.so") != NULL, "%s", gg_test_last_message());
    gg_kernel k;
    cr_assert_neq(gg_kernel_create(rig.module, "no_such_kernel", &k), GG_OK);
    cr_assert(strstr(gg_test_last_message(), "no_such_kernel") != NULL, "%s", gg_test_last_message());
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, kernels_compute_through_the_simulator)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 1000 * 4, NULL, &buf));
    GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 5, 1000));
    uint64_t dptr;
    uint32_t n = 1000;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    void *params[] = { &dptr, &n };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.add_one_u32, .grid = { 4, 1, 1 }, .block = { 256, 1, 1 },
                         .params = params, .param_count = 2 };
    GG_OK_(gg_launch(&d));
    uint32_t out[1000];
    GG_OK_(gg_memcpy_dtoh(out, buf, 0, sizeof out, GG_NO_STREAM));
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(out[i], 6);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, dump_json_lists_live_objects_with_tags)
{
    gg_stream stream;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "tagged-stream" }, &stream));
    char *json = NULL;
    GG_OK_(gg_objects_json(&json));
    cr_assert(strstr(json, "tagged-stream") != NULL && strstr(json, "\"alive\"") != NULL, "%s", json);
    gg_free(json);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(lifetimes, create_descriptors_carry_tags_and_refuse_unknown_flags)
{
    gg_stream s;
    gg_event e;
    gg_buffer b;
    gg_module m;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .flags = 4 }, &s));
    cr_assert(strstr(gg_test_last_message(), "desc->flags") != NULL, "%s", gg_test_last_message());
    cr_assert_eq(s.id, 0);
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_event_create(rig.ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .flags = 1 }, &e));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_create(rig.ctx, 64, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .flags = 2 }, &b));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_module_create_from_file(rig.ctx, gg_test_kernel_module("core_kernels"),
                                                       &(gg_module_desc){ .struct_size = sizeof(gg_module_desc), .flags = 8 }, &m));
    /* NULL descriptors are all defaults; tags land in the dump. */
    GG_OK_(gg_stream_create(rig.ctx, NULL, &s));
    GG_OK_(gg_event_create(rig.ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "ev-tag" }, &e));
    GG_OK_(gg_buffer_create(rig.ctx, 64, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "pinned-tag", .flags = GG_BUFFER_HOST_PINNED }, &b));
    GG_OK_(gg_module_create_from_file(rig.ctx, gg_test_kernel_module("core_kernels"), &(gg_module_desc){ .struct_size = sizeof(gg_module_desc), .tag = "mod-tag" },
                               &m));
    void *host = NULL;
    GG_OK_(gg_buffer_host_ptr(b, &host));
    cr_assert_not_null(host);
    char *json = NULL;
    GG_OK_(gg_objects_json(&json));
    cr_assert(strstr(json, "ev-tag") && strstr(json, "pinned-tag") && strstr(json, "mod-tag"), "%s", json);
    gg_free(json);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* gg_kernel_create makes the caller's own handle (two for one name are two
 * ids); gg_kernel_destroy ends one before its module, harmlessly twice;
 * the module's destroy ends the rest. */
Test(lifetimes, kernels_are_created_and_destroyed_like_every_kind)
{
    gg_kernel first, second;
    GG_OK_(gg_kernel_create(rig.module, "noop", &first));
    GG_OK_(gg_kernel_create(rig.module, "noop", &second));
    cr_assert_neq(first.id, second.id, "one name gave one id twice");
    GG_OK_(gg_kernel_destroy(first));
    const char *name = NULL;
    GG_EXPECT(GG_INVALID_HANDLE, gg_kernel_name(first, &name));
    GG_OK_(gg_kernel_destroy(first)); /* twice: harmless */
    GG_OK_(gg_kernel_destroy((gg_kernel){ 0 }));
    GG_EXPECT(GG_INVALID_HANDLE, gg_kernel_destroy((gg_kernel){ rig.module.id })); /* another kind */
    GG_OK_(gg_kernel_name(second, &name));
    cr_assert_str_eq(name, "noop");
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = second, .grid = { 1, 1, 1 },
                         .block = { 1, 1, 1 } };
    GG_OK_(gg_launch(&d));
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_module_destroy(rig.module));
    GG_EXPECT(GG_INVALID_HANDLE, gg_kernel_name(second, &name));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
