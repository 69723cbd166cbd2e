/* Checks: deadlines on a hung kernel, and chunked launches keeping their
 * slices near the target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gc_check.h"
#include "gc_checks.h"

/* The longest the spinning kernel waits for the host before it gives up by
 * itself, so that a lost runner never leaves the GPU spinning. */
#define SPIN_MAX_NS (30ull * 1000 * 1000 * 1000)

typedef struct spin_setup {
    gc_session s;
    gg_buffer flag_buf, seen_buf;
    uint32_t *flag; /* the host sets it to release the kernel */
    uint32_t *done; /* the kernel sets it when it is over */
} spin_setup;

/* A page-locked host flag and spin_on_flag launched on it. The kernel gets
 * the flag's host address: gpuguard's pinned buffers come from
 * cuMemAllocHost (hipHostMalloc), and on a device with unified addressing
 * (every 64-bit CUDA or ROCm device) page-locked host memory is reachable
 * from kernels at its host address, so no device-mapped allocation
 * (cuMemHostAlloc with DEVICEMAP, which gpuguard does not wrap) is needed. */
static bool start_spin(gc_result *r, const gc_env *env, const gg_init_desc *desc, spin_setup *sp)
{
    void *host = NULL;
    uint64_t seen_ptr = 0, max_ns = SPIN_MAX_NS;
    gg_kernel spin;
    if (!gc_init(r, env, desc) || !gc_open(r, env, "hang", &sp->s) || !gc_kernel(r, &sp->s, "spin_on_flag", &spin) ||
        !gc_ok(r, gg_buffer_create(sp->s.ctx, 8, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .flags = GG_BUFFER_HOST_PINNED }, &sp->flag_buf), "gg_buffer_create(pinned)") ||
        !gc_ok(r, gg_buffer_host_ptr(sp->flag_buf, &host), "gg_buffer_host_ptr") ||
        !gc_ok(r, gg_buffer_create(sp->s.ctx, 4, NULL, &sp->seen_buf), "gg_buffer_create") ||
        !gc_ok(r, gg_buffer_device_ptr(sp->seen_buf, &seen_ptr), "gg_buffer_device_ptr") ||
        !gc_ok(r, gg_memset(sp->seen_buf, 0, 0, 4, GG_NO_STREAM), "gg_memset"))
        return false;
    sp->flag = host;
    sp->done = sp->flag + 1;
    __atomic_store_n(sp->flag, 0u, __ATOMIC_SEQ_CST);
    __atomic_store_n(sp->done, 0u, __ATOMIC_SEQ_CST);
    uint64_t flag_ptr = (uint64_t)(uintptr_t)sp->flag, done_ptr = (uint64_t)(uintptr_t)sp->done;
    void *params[] = { &flag_ptr, &seen_ptr, &max_ns, &done_ptr };
    return gc_ok(r, gc_launch(spin, sp->s.stream, 1, 1, params, 4), "gg_launch(spin_on_flag)");
}

static void release_spin(spin_setup *sp)
{
    /* Sequentially consistent: also a full fence (the GPU reads it over PCIe). */
    __atomic_store_n(sp->flag, 1u, __ATOMIC_SEQ_CST);
}

/* Waits (at most 10 s) for the kernel to say it is over: a dead context
 * cannot be synchronized, and its page-locked memory must outlive the
 * kernel's last access. */
static bool wait_spin_done(gc_result *r, spin_setup *sp)
{
    double deadline = gc_now_ms() + 10000;
    while (__atomic_load_n(sp->done, __ATOMIC_SEQ_CST) == 0 && gc_now_ms() < deadline) {
        struct timespec pause = { 0, 100 * 1000 };
        nanosleep(&pause, NULL);
    }
    return __atomic_load_n(sp->done, __ATOMIC_SEQ_CST) != 0 || gc_fail(r, "the released kernel did not finish within 10 s");
}

/* Waits `deadline_ms` on the spinning kernel: must be GG_TIMEOUT, not
 * before the deadline, naming the kernel. */
static bool expect_timeout(gc_result *r, spin_setup *sp, uint32_t deadline_ms)
{
    double t0 = gc_now_ms();
    gg_status st = gg_stream_synchronize(sp->s.stream, GG_WAIT_MS(deadline_ms));
    double waited = gc_now_ms() - t0;
    gc_figure_num(r, "deadline_ms", deadline_ms);
    gc_figure_num(r, "waited_ms", waited);
    gc_figure_num(r, "overshoot_ms", waited - deadline_ms);
    gc_figure_last_error(r, "error");
    if (!gc_expect(r, st, GG_TIMEOUT, "gg_stream_synchronize on the spinning kernel"))
        return false;
    if (waited < deadline_ms)
        return gc_fail(r, "GG_TIMEOUT after %.1f ms, before the %u ms deadline", waited, deadline_ms);
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (strstr(e.message, "spin_on_flag") == NULL && strcmp(e.culprit.kernel_name, "spin_on_flag") != 0)
        return gc_fail(r, "the timeout does not name the pending kernel: %s", e.message);
    return true;
}

/* The part of check_hang_released between the launch and the release. */
static bool times_out_alive(gc_result *r, spin_setup *sp, uint32_t deadline_ms)
{
    if (!expect_timeout(r, sp, deadline_ms))
        return false;
    if (gg_context_state(sp->s.ctx) != GG_STATE_ALIVE)
        return gc_fail(r, "context not ALIVE after a timeout under GG_TIMEOUT_RETURNS");
    /* Still running: a query says so. */
    return gc_expect(r, gg_stream_query(sp->s.stream), GG_NOT_READY, "gg_stream_query while the kernel spins");
}

void check_hang_released(const gc_env *env, gc_result *r)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeout_policy = GG_TIMEOUT_RETURNS };
    spin_setup sp;
    const uint32_t deadline_ms = 500;
    if (!start_spin(r, env, &desc, &sp))
        return;
    bool alive = times_out_alive(r, &sp, deadline_ms);
    double t0 = gc_now_ms();
    release_spin(&sp);
    if (!alive) {
        wait_spin_done(r, &sp);
        return;
    }
    if (!gc_ok(r, gg_stream_synchronize(sp.s.stream, GG_WAIT_MS(10000)), "gg_stream_synchronize after the flag was set"))
        return (void)wait_spin_done(r, &sp);
    gc_figure_num(r, "release_ms", gc_now_ms() - t0);
    uint32_t seen = 0;
    if (__atomic_load_n(sp.done, __ATOMIC_SEQ_CST) != 1)
        return (void)gc_fail(r, "the stream synchronized before the kernel said it was over");
    if (!gc_ok(r, gg_memcpy_dtoh(&seen, sp.seen_buf, 0, 4, GG_NO_STREAM), "gg_memcpy_dtoh"))
        return;
    if (seen != 1)
        return (void)gc_fail(r, "the kernel ended seeing flag %#x, expected 1 (0xffffffff: it gave up waiting)",
                             seen);
    gc_note(r, "GG_TIMEOUT after %.0f ms (deadline %u) naming spin_on_flag, context ALIVE; released by the host "
            "flag in %.1f ms", cJSON_GetNumberValue(cJSON_GetObjectItem(r->figures, "waited_ms")), deadline_ms,
            cJSON_GetNumberValue(cJSON_GetObjectItem(r->figures, "release_ms")));
}

void check_hang_kills(const gc_env *env, gc_result *r)
{
    spin_setup sp;
    const uint32_t deadline_ms = 300;
    if (!start_spin(r, env, NULL, &sp))
        return;
    bool timed_out = expect_timeout(r, &sp, deadline_ms);
    gg_state state = gg_context_state(sp.s.ctx);
    gg_status later = gg_stream_query(sp.s.stream);
    /* Let the kernel finish before the context goes. */
    release_spin(&sp);
    if (!wait_spin_done(r, &sp) || !timed_out)
        return;
    if (state != GG_STATE_DEAD)
        return (void)gc_fail(r, "context state %d after a timeout under the default policy, expected DEAD",
                             (int)state);
    if (!gc_expect(r, later, GG_CONTEXT_DEAD, "gg_stream_query after the timeout"))
        return;
    double t0 = gc_now_ms();
    if (!gc_ok(r, gg_context_destroy(sp.s.ctx), "gg_context_destroy"))
        return;
    gc_figure_num(r, "destroy_ms", gc_now_ms() - t0);
    gc_note(r, "GG_TIMEOUT at its %u ms deadline, context DEAD, later calls GG_CONTEXT_DEAD, destroyed",
            deadline_ms);
}

typedef struct slice_log {
    float ms[4096];
    uint32_t count;
} slice_log;

static bool log_slice(void *user, const gg_chunk_progress *p)
{
    slice_log *log = user;
    if (log->count < sizeof log->ms / sizeof log->ms[0])
        log->ms[log->count++] = p->last_slice_ms;
    return true;
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

void check_chunked_slices(const gc_env *env, gc_result *r)
{
    gc_session s;
    gg_kernel mark;
    gg_buffer marks_buf;
    gg_device_info info = GG_DEVICE_INFO_INIT;
    if (!gc_init(r, env, NULL) || !gc_ok(r, gg_device_properties(env->device, &info), "gg_device_properties"))
        return;
    /* A GPU runs up to 32 blocks per multiprocessor at once: blocks of 2 ms,
     * about 100 such waves (0.2 s of device time when all 32 fit, longer
     * when fewer do), so that a 20 ms slice holds about 10 waves. The
     * simulator does the same in simulated time, which its host interprets:
     * blocks of 1024 threads (2 per multiprocessor; only thread 0 spins) of
     * 0.25 ms, 240 waves, 5 ms slices of 20 waves. Its device time counts a
     * host stall between two calls to an idle device, as a GPU's does, so
     * the target stays large against this host's scheduling. */
    uint32_t sms = info.multiprocessors > 0 ? (uint32_t)info.multiprocessors : 1;
    uint32_t blocks = env->simulated ? sms * 2 * 240 : (sms * 3200 > 1000 ? sms * 3200 : 1000);
    uint32_t threads = env->simulated ? 1024 : 32;
    uint64_t block_ns = env->simulated ? 250000 : 2000000;
    float target_ms = env->simulated ? 5.0f : 20.0f;
    if (blocks > (uint32_t)info.max_grid[0])
        blocks = (uint32_t)info.max_grid[0];
    if (!gc_open(r, env, "chunked", &s) || !gc_kernel(r, &s, "chunk_mark", &mark) ||
        !gc_ok(r, gg_buffer_create(s.ctx, (size_t)blocks * 4, NULL, &marks_buf), "gg_buffer_create") ||
        !gc_ok(r, gg_memset(marks_buf, 0, 0, (size_t)blocks * 4, GG_NO_STREAM), "gg_memset"))
        return;
    gc_figure_bool(r, "watchdog", info.watchdog);
    uint64_t ptr = 0;
    uint32_t offset = 0;
    gg_buffer_device_ptr(marks_buf, &ptr);
    void *params[] = { &ptr, &block_ns, &offset };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = mark, .stream = s.stream, .grid = { blocks, 1, 1 }, .block = { threads, 1, 1 },
                         .params = params, .param_count = 3 };
    static slice_log log;
    gg_chunk_desc chunk = { .struct_size = sizeof(gg_chunk_desc), .offset_param = 2, .target_ms = target_ms, .slice_timeout_ms = 20000,
                            .progress = log_slice, .progress_user = &log };
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    if (!gc_ok(r, gg_launch_chunked(&d, &chunk, &stats), "gg_launch_chunked"))
        return;
    uint32_t *marks = malloc((size_t)blocks * 4);
    if (marks == NULL)
        return (void)gc_fail(r, "out of host memory");
    bool ok = gc_ok(r, gg_memcpy_dtoh(marks, marks_buf, 0, (size_t)blocks * 4, GG_NO_STREAM), "gg_memcpy_dtoh");
    for (uint32_t i = 0; ok && i < blocks; i++)
        if (marks[i] != 1)
            ok = gc_fail(r, "block %u ran %u times", i, marks[i]);
    free(marks);
    gc_figure_num(r, "blocks", blocks);
    gc_figure_num(r, "target_ms", target_ms);
    gc_figure_num(r, "slices", stats.slices);
    gc_figure_num(r, "largest_slice_ms", stats.largest_slice_ms);
    gc_figure_num(r, "device_ms", stats.device_ms);
    gc_figure_num(r, "total_ms", stats.total_ms);
    if (!ok)
        return;
    /* The first slices grow from one row of blocks (at most 2x per slice);
     * the rest are steady state: judge those. */
    uint32_t warmup = 0;
    while (warmup < log.count && log.ms[warmup] < target_ms / 2)
        warmup++;
    uint32_t steady = log.count > warmup + 1 ? log.count - warmup - 1 : 0; /* the last slice is a remainder */
    if (steady < 3)
        return (void)gc_fail(r, "only %u steady slices of %u (target %.1f ms): the grid was not sliced",
                             steady, log.count, target_ms);
    float sorted[4096];
    memcpy(sorted, log.ms + warmup, steady * sizeof(float));
    qsort(sorted, steady, sizeof(float), compare_floats);
    float median = sorted[steady / 2], worst = sorted[steady - 1];
    gc_figure_num(r, "warmup_slices", warmup);
    gc_figure_num(r, "median_slice_ms", median);
    gc_figure_num(r, "worst_slice_ms", worst);
    /* The simulator's slices are simulated time (its PTX kernel's warp-
     * instructions), so the same bounds hold there, on any host. */
    if (median < target_ms / 3 || median > target_ms * 2 || worst > target_ms * 4)
        return (void)gc_fail(r, "slices not near the %.1f ms target: median %.2f ms, worst %.2f ms (bounds: median "
                             "in [target/3, 2*target], worst under 4*target)", target_ms, median, worst);
    gc_note(r, "%u slices, every block once; median %.2f ms, worst %.2f ms for a %.1f ms target", stats.slices,
            median, worst, target_ms);
}
