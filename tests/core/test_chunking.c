/* Watchdog-safe chunked launches: every block runs exactly once in any
 * slicing; slices converge to the target; a kernel that would overrun the
 * watchdog completes chunked; cancellation; enforcement on plain launches;
 * bad descriptors are named. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/launches.h"

/* Device 0: a display GPU whose watchdog kills at 400 ms; device 1: none. */
#define WATCHDOG_CONFIG                                                                      \
    "{\"devices\":[{\"name\":\"display\",\"watchdog\":true,\"watchdog_ms\":400},"            \
    "{\"name\":\"compute\",\"watchdog\":false}]}"

static gg_test_rig rig;
static gg_kernel record_blocks, spin;

static void open_rig(int device)
{
    gg_test_rig_open(&rig, device);
    GG_OK_(gg_kernel_create(rig.module, "record_blocks", &record_blocks));
    GG_OK_(gg_kernel_create(rig.module, "spin", &spin));
}

static void setup(void)
{
    gg_test_init_sim(WATCHDOG_CONFIG);
}

TestSuite(chunking, .init = setup);

/* Runs record_blocks chunked over `grid` along `dim`; asserts every count is 1. */
static void check_every_block_once(gg_dim3 grid, uint32_t dim, float target_ms, uint32_t first_slice)
{
    size_t blocks = (size_t)grid.x * grid.y * grid.z;
    gg_buffer counts;
    GG_OK_(gg_buffer_create(rig.ctx, blocks * 4, NULL, &counts));
    GG_OK_(gg_memset(counts, 0, 0, blocks * 4, GG_NO_STREAM));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(counts, &dptr));
    uint32_t gx = grid.x, gy = grid.y, offset = 12345, d = dim;
    void *params[] = { &dptr, &gx, &gy, &offset, &d };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = record_blocks, .grid = grid, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 5 };
    gg_chunk_desc chunk = { .struct_size = sizeof(gg_chunk_desc), .offset_param = 3, .dimension = dim, .target_ms = target_ms, .first_slice = first_slice };
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    GG_OK_(gg_launch_chunked(&desc, &chunk, &stats));
    cr_assert_eq(stats.blocks, blocks);
    uint32_t *host = malloc(blocks * 4);
    GG_OK_(gg_memcpy_dtoh(host, counts, 0, blocks * 4, GG_NO_STREAM));
    for (size_t i = 0; i < blocks; i++)
        cr_assert_eq(host[i], 1, "block %zu ran %u times (grid %ux%ux%u, dim %u, %u slices)", i, host[i], grid.x,
                     grid.y, grid.z, dim, stats.slices);
    free(host);
    GG_OK_(gg_buffer_destroy(counts));
}

Test(chunking, every_block_runs_exactly_once_in_1d_2d_3d_and_odd_sizes)
{
    open_rig(1);
    /* A tiny target forces many slices of varying size. */
    check_every_block_once((gg_dim3){ 1000, 1, 1 }, 0, 0.01f, 1);
    check_every_block_once((gg_dim3){ 37, 23, 1 }, 1, 0.01f, 1);
    check_every_block_once((gg_dim3){ 37, 23, 1 }, 0, 0.01f, 3);
    check_every_block_once((gg_dim3){ 5, 7, 9 }, 2, 0.01f, 2);
    check_every_block_once((gg_dim3){ 1, 1, 1 }, 0, 0.01f, 1);
    /* No target on a device without a watchdog: one slice. */
    gg_buffer counts;
    GG_OK_(gg_buffer_create(rig.ctx, 64 * 4, NULL, &counts));
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(counts, &dptr));
    uint32_t gx = 64, gy = 1, offset = 0, d = 0;
    void *params[] = { &dptr, &gx, &gy, &offset, &d };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = record_blocks, .grid = { 64, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 5 };
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    GG_OK_(gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 3 }, &stats));
    cr_assert_eq(stats.slices, 1);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(chunking, slices_converge_to_the_target_on_a_kernel_of_known_cost)
{
    open_rig(1);
    uint32_t us = 500, offset = 0; /* 0.5 ms per block */
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 600, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    GG_OK_(gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = 20.0f }, &stats));
    cr_assert_eq(stats.blocks, 600);
    /* 300 ms of work in ~20 ms slices, after a ramp from 1 block: well over
     * the 7 doublings of the ramp, and far under one slice per block. */
    cr_assert(stats.slices > 10 && stats.slices < 200, "%u slices", stats.slices);
    cr_assert_geq(stats.ms_per_block, 0.45, "measured %.3f ms per block", stats.ms_per_block);
    double ms_per_block = 0;
    uint64_t samples = 0;
    GG_OK_(gg_kernel_timing(spin, &ms_per_block, &samples));
    cr_assert_eq(samples, stats.slices);
    cr_assert_geq(ms_per_block, 0.45);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* The 400-block spin of the two tests below, chunked on the watchdog
 * device: sliced, and no slice killed, so the context is alive. How long
 * each slice took is the machine's load as much as the chunker's choice:
 * bench/ measures it, tests do not. Destroys the rig and finishes. */
static void completes_in_slices(gg_launch_desc *desc)
{
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    GG_OK_(gg_launch_chunked(desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1 }, &stats));
    cr_assert_eq(stats.blocks, 400);
    cr_log_info("largest slice %.1f ms for a 300 ms budget", stats.largest_slice_ms);
    cr_assert_gt(stats.slices, 2);
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(chunking, a_kernel_that_would_overrun_the_watchdog_completes_chunked)
{
    open_rig(0); /* watchdog kills at 400 ms */
    GG_OK_(gg_context_set_watchdog(rig.ctx, GG_WATCHDOG_ALLOW, 300));
    uint32_t us = 2000, offset = 0; /* 2 ms per block, 400 blocks: 800 ms in one launch */
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 400, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    GG_OK_(gg_launch(&desc)); /* unchunked, allowed by policy: the watchdog kills it */
    GG_EXPECT(GG_LAUNCH_TIMEOUT, gg_context_synchronize(rig.ctx, NULL));
    /* LAUNCH_TIMEOUT is sticky: on CUDA only a new process computes again
     * (the chunked run has a process of its own in
     * an_overlong_kernel_completes_chunked_from_the_start). */
    if (!recover_as_the_driver_allows(rig.ctx)) {
        GG_OK_(gg_context_destroy(rig.ctx));
        gg_test_finish();
        return;
    }
    GG_OK_(gg_module_create_from_file(rig.ctx, gg_test_kernel_module("core_kernels"), NULL, &rig.module));
    GG_OK_(gg_kernel_create(rig.module, "spin", &spin));
    desc.kernel = spin;
    completes_in_slices(&desc);
}

/* The same launch in a process no fault has touched: chunked from the
 * start, it completes in slices under the watchdog and leaves the context
 * alive (what the previous test does after its kill where the driver
 * allows recovery in-process). */
Test(chunking, an_overlong_kernel_completes_chunked_from_the_start)
{
    open_rig(0); /* watchdog kills at 400 ms */
    GG_OK_(gg_context_set_watchdog(rig.ctx, GG_WATCHDOG_ALLOW, 300));
    uint32_t us = 2000, offset = 0; /* 2 ms per block, 400 blocks: 800 ms in one launch */
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 400, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    completes_in_slices(&desc);
}

static bool cancel_after_three(void *user, const gg_chunk_progress *p)
{
    int *calls = user;
    /* The library says how much of the struct it filled (its own size). */
    if (p->struct_size != sizeof *p)
        return (*calls = -1000), false;
    ++*calls;
    return p->slices < 3;
}

Test(chunking, progress_callback_can_cancel)
{
    open_rig(1);
    uint32_t us = 100, offset = 0;
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 1000, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    int calls = 0;
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    GG_EXPECT(GG_CANCELLED, gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = 1.0f,
                                                                        .progress = cancel_after_three,
                                                                        .progress_user = &calls }, &stats));
    cr_assert_eq(calls, 3, "%d calls (-1000: progress->struct_size was not the library's size)", calls);
    cr_assert_eq(stats.slices, 3);
    cr_assert_eq(stats.struct_size, sizeof stats, "the library changed the caller's struct_size");
    cr_assert_lt(stats.blocks, 1000);
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE, "cancelling does not kill the context");
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(chunking, chunkable_kernels_are_chunked_automatically_on_a_watchdog_device)
{
    open_rig(0);
    GG_OK_(gg_context_set_watchdog(rig.ctx, GG_WATCHDOG_AUTO_CHUNK, 300));
    GG_OK_(gg_kernel_set_chunking(spin, 1, 0));
    uint32_t us = 2000, offset = 0;
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 400, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    GG_OK_(gg_launch(&desc)); /* 800 ms of work: would be killed at 400 ms unchunked */
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    double ms_per_block;
    uint64_t samples;
    GG_OK_(gg_kernel_timing(spin, &ms_per_block, &samples));
    cr_assert_gt(samples, 2, "the launch was not sliced");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(chunking, risky_plain_launch_is_refused_before_the_driver_unless_allowed)
{
    open_rig(0);
    GG_OK_(gg_context_set_watchdog(rig.ctx, GG_WATCHDOG_REFUSE, 300));
    uint32_t us = 2000, offset = 0;
    void *params[] = { &us, &offset };
    /* 5 blocks of 2 ms: "fits" holds up to 30 ms per block, a 15x slow-down
     * (a TSan run on a loaded machine measured 9 ms per block, and 20 blocks
     * were refused). */
    gg_launch_desc small = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 5, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                             .param_count = 2 };
    /* Timing history from a chunked run... */
    GG_OK_(gg_launch_chunked(&small, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1 }, NULL));
    /* ...predicts that 400 blocks take ~800 ms: refused, no launch made. */
    gg_launch_desc big = small;
    big.grid.x = 400;
    unsigned long long launches = gg_test_sim_call_count(gg_test_backend_in_use()->fn_launch);
    GG_EXPECT(GG_WATCHDOG_RISK, gg_launch(&big));
    cr_assert(strstr(gg_test_last_message(), "spin") != NULL && strstr(gg_test_last_message(), "300 ms") != NULL,
              "%s", gg_test_last_message());
    cr_assert_eq(gg_test_sim_call_count(gg_test_backend_in_use()->fn_launch), launches, "a refused launch reached the driver");
    /* A plain launch that fits is allowed and timed. */
    GG_OK_(gg_launch(&small));
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    /* The allow policy sends it anyway (and the watchdog then kills it). */
    GG_OK_(gg_context_set_watchdog(rig.ctx, GG_WATCHDOG_ALLOW, 300));
    GG_OK_(gg_launch(&big));
    GG_EXPECT(GG_LAUNCH_TIMEOUT, gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(chunking, bad_chunk_descriptors_are_named)
{
    open_rig(1);
    uint32_t us = 1, offset = 0;
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 10, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&desc, NULL, NULL));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 2 }, NULL));
    cr_assert(strstr(gg_test_last_message(), "offset_param") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .dimension = 3 }, NULL));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = -1 }, NULL));
    cr_assert(strstr(gg_test_last_message(), "target_ms") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = NAN }, NULL));
    GG_EXPECT(GG_INVALID_ARGUMENT,
              gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = 50, .max_ms = 10 }, NULL));
    desc.grid.y = 0;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&desc, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1 }, NULL));
    cr_assert(strstr(gg_test_last_message(), "grid.y is 0") != NULL, "%s", gg_test_last_message());
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch(&desc));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_set_chunking(spin, 1, 5));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

static bool note_first_slice(void *user, const gg_chunk_progress *p)
{
    uint64_t *first = user;
    if (*first == 0)
        *first = p->blocks_done;
    return true;
}

/* One figure, one definition: what a chunked launch reports per block is
 * the kernel's timing history, as gg_kernel_timing gives it; and a kernel
 * with a history starts its next chunked launch from it, not from one row. */
Test(chunking, the_next_chunked_launch_starts_from_the_timing_history)
{
    open_rig(1);
    uint32_t us = 500, offset = 0; /* 0.5 ms per block */
    void *params[] = { &us, &offset };
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 400, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                            .param_count = 2 };
    uint64_t first = 0;
    gg_chunk_desc chunk = { .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = 200, .progress = note_first_slice,
                            .progress_user = &first };
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    GG_OK_(gg_launch_chunked(&desc, &chunk, &stats));
    cr_assert_eq(first, 1, "without a history the first slice is one row of blocks");
    double history = 0;
    uint64_t samples = 0;
    GG_OK_(gg_kernel_timing(spin, &history, &samples));
    cr_assert_eq(stats.ms_per_block, history, "the launch reports the history's figure");
    cr_assert_gt(history, 0.0);

    first = 0;
    GG_OK_(gg_launch_chunked(&desc, &chunk, &stats));
    /* Half the target's worth at the history's rate: 200 rows at 0.5 ms;
     * at least 2 unless the machine made a block take 50 ms. */
    cr_assert_geq(first, 2, "the first slice came from the history (%.3f ms/block): %llu block(s)", history,
                  (unsigned long long)first);
    cr_assert_eq(stats.blocks, 400);
    GG_OK_(gg_kernel_timing(spin, &history, &samples));
    cr_assert_eq(stats.ms_per_block, history);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
