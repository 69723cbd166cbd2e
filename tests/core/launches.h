/* Small launch helpers over the core test kernels. */
#ifndef GG_TEST_LAUNCHES_H
#define GG_TEST_LAUNCHES_H

#include "support/gg_test.h"

static inline gg_status launch_touch(gg_test_rig *r, gg_stream s, uint64_t ptr, uint64_t bytes)
{
    void *params[] = { &ptr, &bytes };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = r->touch, .stream = s, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = params, .param_count = 2 };
    return gg_launch(&d);
}

static inline gg_status launch_sleep(gg_test_rig *r, gg_stream s, uint32_t ms)
{
    void *params[] = { &ms };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = r->sleep_ms, .stream = s, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = params, .param_count = 1 };
    return gg_launch(&d);
}

static inline gg_status launch_plain(gg_kernel k, gg_stream s)
{
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .stream = s, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    return gg_launch(&d);
}

static inline gg_status launch_fill(gg_test_rig *r, gg_stream s, gg_buffer buf, uint32_t value, uint32_t n)
{
    uint64_t dptr = 0;
    gg_status st = gg_buffer_device_ptr(buf, &dptr);
    if (st != GG_OK)
        return st;
    void *params[] = { &dptr, &value, &n };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = r->fill_u32, .stream = s, .grid = { (n + 255) / 256, 1, 1 },
                         .block = { 256, 1, 1 }, .params = params, .param_count = 3 };
    return gg_launch(&d);
}

/* After a sticky fault in ctx, recovery as the simulator's driver allows
 * it: its CUDA faces keep the error for the whole process (measured on a
 * real driver: docs/DRIVER-FACTS.md), so recover is refused with
 * GG_PROCESS_POISONED and ctx stays DEAD; its HIP face keeps errors per
 * device context, so recover gives an ALIVE context. Returns whether it
 * recovered. */
static inline bool recover_as_the_driver_allows(gg_context ctx)
{
    if (gg_test_backend_in_use()->hip) {
        GG_OK_(gg_context_recover(ctx));
        cr_assert_eq(gg_context_state(ctx), GG_STATE_ALIVE);
        return true;
    }
    GG_EXPECT(GG_PROCESS_POISONED, gg_context_recover(ctx));
    cr_assert_eq(gg_context_state(ctx), GG_STATE_DEAD);
    return false;
}

/* The simulator keeping sticky errors per context ("sticky_scope"): for
 * tests whose subject is in-process recovery (stale ids, fresh timelines,
 * recovering adopted contexts), which a driver that keeps errors per
 * context allows; CUDA's drivers do not (recover_as_the_driver_allows). */
#define PER_CONTEXT_STICKY "\"sticky_scope\": \"context\""

/* Kills the rig's context with an out-of-bounds access surfacing at a sync. */
static inline void kill_with_illegal_address(gg_test_rig *r, gg_buffer buf)
{
    uint64_t dptr = 0;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_touch(r, GG_NO_STREAM, dptr, 1u << 30));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(r->ctx, NULL));
}

#endif
