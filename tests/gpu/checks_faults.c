/* Checks: a kernel fault surfaces with its culprit, the dead context fails
 * fast and cleans up silently without the driver, recovery computes, and a
 * process with a dead context exits cleanly. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "gc_calls.h"
#include "gc_check.h"
#include "gc_checks.h"

/* The culprit of the last error must be `kernel`, launch `sequence`. */
static bool expect_culprit(gc_result *r, const char *kernel, uint64_t sequence, bool exact)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (strcmp(e.culprit.kernel_name, kernel) != 0 || e.culprit.sequence != sequence)
        return gc_fail(r, "culprit is '%s' #%llu, expected '%s' #%llu (%s)", e.culprit.kernel_name,
                       (unsigned long long)e.culprit.sequence, kernel, (unsigned long long)sequence, e.message);
    if (exact && e.culprit.certainty != GG_ATTRIBUTION_EXACT)
        return gc_fail(r, "culprit named but not EXACT (certainty %d, %u candidates) with one launch pending",
                       (int)e.culprit.certainty, e.culprit.window_count);
    return true;
}

static bool expect_dead(gc_result *r, gg_context ctx)
{
    gg_state st = gg_context_state(ctx);
    return st == GG_STATE_DEAD || gc_fail(r, "context state %d, expected DEAD", (int)st);
}

/* The counter must see gpuguard's own driver calls, or a count of 0 later
 * proves nothing: a query of a live stream makes at least one. */
static bool counter_sees_calls(gc_result *r, gg_stream live)
{
    gc_calls_arm();
    gg_status st = gg_stream_query(live);
    uint64_t seen = gc_calls_disarm(NULL, 0);
    gc_figure_num(r, "control_driver_calls", (double)seen);
    if (st != GG_OK && st != GG_NOT_READY)
        return gc_ok(r, st, "gg_stream_query of a live stream (the counter's control)");
    if (seen == 0)
        return gc_fail(r, "%s saw no driver call during a live gg_stream_query: it cannot prove that none is made",
                       gc_calls_source());
    return true;
}

void check_stray_store(const gc_env *env, gc_result *r)
{
    gc_session s;
    gg_kernel fill;
    gg_buffer buf;
    uint64_t ptr = 0;
    uint32_t value = 1, n = 256;
    void *params[] = { &ptr, &value, &n };
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "stray", &s) || !gc_kernel(r, &s, "fill_u32", &fill) ||
        !gc_ok(r, gg_buffer_create(s.ctx, 1024, NULL, &buf), "gg_buffer_create") ||
        !gc_ok(r, gg_buffer_device_ptr(buf, &ptr), "gg_buffer_device_ptr") ||
        /* Launch #1 runs and is observed, so only #2 (the stray store) is pending. */
        !gc_ok(r, gc_launch(fill, s.stream, 1, 256, params, 3), "gg_launch(fill_u32)") ||
        !gc_ok(r, gg_stream_synchronize(s.stream, NULL), "gg_stream_synchronize"))
        return;
    double t0 = gc_now_ms();
    bool ok = gc_kill_with_stray_store(r, &s);
    gc_figure_num(r, "surfaced_after_ms", gc_now_ms() - t0);
    gc_figure_last_error(r, "error");
    if (!ok || !expect_culprit(r, "oob_store", 2, true) || !expect_dead(r, s.ctx))
        return;
    gg_error_info e = GG_ERROR_INFO_INIT, death = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (!env->hip && e.native_code != 700)
        gc_fail(r, "native code %d (%s), expected CUDA_ERROR_ILLEGAL_ADDRESS (700)", e.native_code, e.native_name);
    if (!gc_ok(r, gg_context_death(s.ctx, &death), "gg_context_death"))
        return;
    if (death.status != GG_ILLEGAL_ADDRESS || strcmp(death.culprit.kernel_name, "oob_store") != 0)
        gc_fail(r, "gg_context_death says %s, culprit '%s'", gg_status_name(death.status), death.culprit.kernel_name);
    gc_note(r, "GG_ILLEGAL_ADDRESS (%s) at gg_stream_synchronize, culprit oob_store #2 EXACT, context DEAD",
            e.native_name);
}

void check_culprit_among_pending(const gc_env *env, gc_result *r)
{
    gc_session s;
    gg_stream other;
    gg_kernel fill, oob;
    gg_buffer buf;
    uint64_t ptr = 0, index = (uint64_t)1 << 38;
    uint32_t value = 3, n = 256, bad = 0xBADu;
    void *fill_params[] = { &ptr, &value, &n };
    void *oob_params[] = { &ptr, &index, &bad };
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "pending", &s) ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "other" }, &other), "gg_stream_create") ||
        !gc_kernel(r, &s, "fill_u32", &fill) || !gc_kernel(r, &s, "oob_store", &oob) ||
        !gc_ok(r, gg_buffer_create(s.ctx, 1024, NULL, &buf), "gg_buffer_create") ||
        !gc_ok(r, gg_buffer_device_ptr(buf, &ptr), "gg_buffer_device_ptr"))
        return;
    /* #1-#3 fill, #4 the stray store, #5 fill on another stream; nothing observed. */
    for (int i = 0; i < 3; i++)
        if (!gc_ok(r, gc_launch(fill, s.stream, 1, 256, fill_params, 3), "gg_launch(fill_u32)"))
            return;
    if (!gc_ok(r, gc_launch(oob, s.stream, 1, 32, oob_params, 3), "gg_launch(oob_store)"))
        return;
    gg_status st = gc_launch(fill, other, 1, 256, fill_params, 3);
    if (st != GG_OK && st != GG_ILLEGAL_ADDRESS && st != GG_CONTEXT_DEAD)
        return (void)gc_ok(r, st, "gg_launch(fill_u32) on the second stream");
    st = gg_stream_synchronize(s.stream, NULL);
    gc_figure_last_error(r, "error");
    if (st != GG_ILLEGAL_ADDRESS && st != GG_CONTEXT_DEAD)
        return (void)gc_expect(r, st, GG_ILLEGAL_ADDRESS, "gg_stream_synchronize");
    gg_error_info death = GG_ERROR_INFO_INIT;
    if (!gc_ok(r, gg_context_death(s.ctx, &death), "gg_context_death"))
        return;
    const gg_culprit *c = &death.culprit;
    if (c->certainty == GG_ATTRIBUTION_EXACT) {
        if (strcmp(c->kernel_name, "oob_store") != 0 || c->sequence != 4)
            gc_fail(r, "EXACT culprit '%s' #%llu, expected oob_store #4", c->kernel_name,
                    (unsigned long long)c->sequence);
        else
            gc_note(r, "culprit oob_store #4 EXACT among 5 pending launches on two streams");
        return;
    }
    if (c->certainty == GG_ATTRIBUTION_WINDOW && c->candidate_count > 1) {
        /* With the completion timeline, the other stream's fill (#5) may not
         * have run before the fault stopped the context: then each stream
         * has one candidate, and the stray store must be one of them. */
        for (uint32_t i = 0; i < c->candidate_count && i < GG_CULPRIT_CANDIDATES_MAX; i++)
            if (strcmp(c->candidates[i].kernel_name, "oob_store") == 0 && c->candidates[i].sequence == 4) {
                gc_note(r, "culprit oob_store #4 is its stream's first unfinished launch; %u streams had one "
                        "(WINDOW, one candidate per stream)", c->candidate_count);
                return;
            }
        return (void)gc_fail(r, "no candidate is the stray store #4: %s", death.message);
    }
    if (c->certainty == GG_ATTRIBUTION_WINDOW && c->window_first <= 4 && 4 <= c->window_last) {
        gc_skip(r, "gpuguard gave a WINDOW of %u launches (#%llu..#%llu, suspect '%s'): no completion timeline on "
                "this device (it reports no stream memory operations, or GPUGUARD_TIMELINE=off), so EXACT "
                "cannot be checked", c->window_count, (unsigned long long)c->window_first,
                (unsigned long long)c->window_last, c->kernel_name);
        return;
    }
    gc_fail(r, "the culprit does not cover the stray store #4: certainty %d, '%s' #%llu, window #%llu..#%llu",
            (int)c->certainty, c->kernel_name, (unsigned long long)c->sequence,
            (unsigned long long)c->window_first, (unsigned long long)c->window_last);
}

void check_dead_fails_fast(const gc_env *env, gc_result *r)
{
    gc_session s;
    gg_stream control;
    gg_kernel fill;
    gg_buffer buf;
    char why[256];
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "fail-fast", &s) || !gc_kernel(r, &s, "fill_u32", &fill) ||
        !gc_ok(r, gg_buffer_create(s.ctx, 4096, NULL, &buf), "gg_buffer_create") ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "control" }, &control), "gg_stream_create"))
        return;
    bool counting = gc_calls_open(env, why, sizeof why);
    if ((counting && !counter_sees_calls(r, control)) || !gc_kill_with_stray_store(r, &s))
        return;
    uint64_t ptr = 0;
    uint32_t value = 1, n = 16, host[16] = { 0 };
    void *params[] = { &ptr, &value, &n };
    gg_buffer more;
    gg_stream stream2;
    gg_event event;
    gg_module module2;
    struct fail_fast_call { const char *what; gg_status got; } calls[12];
    size_t k = 0;
    double t0 = gc_now_ms();
    if (counting)
        gc_calls_arm();
    calls[k++] = (struct fail_fast_call){ "gg_stream_query", gg_stream_query(s.stream) };
    calls[k++] = (struct fail_fast_call){ "gg_stream_synchronize", gg_stream_synchronize(s.stream, NULL) };
    calls[k++] = (struct fail_fast_call){ "gg_launch", gc_launch(fill, s.stream, 1, 16, params, 3) };
    calls[k++] = (struct fail_fast_call){ "gg_buffer_create", gg_buffer_create(s.ctx, 64, NULL, &more) };
    calls[k++] = (struct fail_fast_call){ "gg_memcpy_htod", gg_memcpy_htod(buf, 0, host, sizeof host, GG_NO_STREAM) };
    calls[k++] = (struct fail_fast_call){ "gg_memcpy_dtoh", gg_memcpy_dtoh(host, buf, 0, sizeof host, s.stream) };
    calls[k++] = (struct fail_fast_call){ "gg_memset", gg_memset(buf, 0, 0, 64, s.stream) };
    calls[k++] = (struct fail_fast_call){ "gg_stream_create", gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "late" }, &stream2) };
    calls[k++] = (struct fail_fast_call){ "gg_event_create", gg_event_create(s.ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "late" }, &event) };
    calls[k++] = (struct fail_fast_call){ "gg_module_create_from_file", gg_module_create_from_file(s.ctx, env->kernel_image, NULL, &module2) };
    calls[k++] = (struct fail_fast_call){ "gg_context_synchronize", gg_context_synchronize(s.ctx, NULL) };
    calls[k++] = (struct fail_fast_call){ "gg_kernel_create", gg_kernel_create(s.module, "fill_u32", &fill) };
    char first[64] = "";
    uint64_t driver_calls = counting ? gc_calls_disarm(first, sizeof first) : 0;
    gc_figure_num(r, "calls", (double)k);
    gc_figure_num(r, "us_per_call", (gc_now_ms() - t0) * 1000.0 / (double)k);
    for (size_t i = 0; i < k; i++)
        if (calls[i].got != GG_CONTEXT_DEAD)
            return (void)gc_fail(r, "%s in the dead context returned %s, expected GG_CONTEXT_DEAD", calls[i].what,
                                 gg_status_name(calls[i].got));
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (strstr(e.message, "oob_store") == NULL && strcmp(e.culprit.kernel_name, "oob_store") != 0)
        gc_fail(r, "the fail-fast error does not name the original culprit: %s", e.message);
    gc_figure_str(r, "driver_call_counter", counting ? gc_calls_source() : why);
    if (!counting) {
        gc_skip(r, "%zu calls failed fast with GG_CONTEXT_DEAD, but driver calls could not be counted: %s", k, why);
        return;
    }
    gc_figure_num(r, "driver_calls", (double)driver_calls);
    if (driver_calls != 0)
        return (void)gc_fail(r, "%llu driver calls during %zu fail-fast calls (first: %s)",
                             (unsigned long long)driver_calls, k, first);
    gc_note(r, "%zu calls returned GG_CONTEXT_DEAD naming oob_store; %s counted 0 driver calls", k,
            gc_calls_source());
}

static int warnings;
static void count_warnings(void *user, gg_log_level level, uint64_t id, const char *message)
{
    (void)user;
    (void)id;
    (void)message;
    if (level <= GG_LOG_WARN)
        warnings++;
}

void check_dead_cleanup_silent(const gc_env *env, gc_result *r)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .cleanup = GG_CLEANUP_COUNTED, .log_fn = count_warnings, .log_level = GG_LOG_WARN };
    gc_session s;
    gg_stream extra, control;
    gg_event event;
    gg_buffer dev, pinned;
    char why[256];
    if (!gc_init(r, env, &desc) || !gc_open(r, env, "cleanup", &s) ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "extra" }, &extra), "gg_stream_create") ||
        !gc_ok(r, gg_event_create(s.ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "event" }, &event), "gg_event_create") ||
        !gc_ok(r, gg_buffer_create(s.ctx, 1 << 20, NULL, &dev), "gg_buffer_create") ||
        !gc_ok(r, gg_buffer_create(s.ctx, 4096, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .flags = GG_BUFFER_HOST_PINNED }, &pinned), "gg_buffer_create(pinned)") ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "control" }, &control), "gg_stream_create"))
        return;
    bool counting = gc_calls_open(env, why, sizeof why);
    if ((counting && !counter_sees_calls(r, control)) || !gc_kill_with_stray_store(r, &s))
        return;
    int warnings_before = warnings;
    if (counting)
        gc_calls_arm();
    gg_status st[6] = {
        gg_event_destroy(event), gg_stream_destroy(extra), gg_buffer_destroy(dev),
        gg_buffer_destroy(pinned), gg_module_destroy(s.module), gg_stream_destroy(s.stream),
    };
    char first[64] = "";
    uint64_t driver_calls = counting ? gc_calls_disarm(first, sizeof first) : 0;
    static const char *const names[6] = { "gg_event_destroy", "gg_stream_destroy", "gg_buffer_destroy",
                                          "gg_buffer_destroy(pinned)", "gg_module_destroy", "gg_stream_destroy" };
    for (int i = 0; i < 6; i++)
        if (!gc_expect(r, st[i], GG_OK, names[i]))
            return;
    uint64_t skipped = 0;
    gg_context_skipped_cleanups(s.ctx, &skipped);
    gc_figure_num(r, "skipped_cleanups", (double)skipped);
    gc_figure_num(r, "warnings", warnings - warnings_before);
    if (warnings != warnings_before)
        return (void)gc_fail(r, "cleanup logged %d warnings under GG_CLEANUP_COUNTED", warnings - warnings_before);
    if (skipped < 6)
        return (void)gc_fail(r, "gg_context_skipped_cleanups says %llu, expected at least 6",
                             (unsigned long long)skipped);
    if (!gc_ok(r, gg_context_destroy(s.ctx), "gg_context_destroy of the dead context"))
        return;
    uint64_t live = 1;
    gg_live_objects(&live);
    if (live != 0)
        return (void)gc_fail(r, "%llu gpuguard objects still live after the cleanup", (unsigned long long)live);
    gc_figure_str(r, "driver_call_counter", counting ? gc_calls_source() : why);
    if (!counting)
        return gc_skip(r, "6 destroys returned GG_OK silently (%llu skipped), but driver calls could not be "
                       "counted: %s", (unsigned long long)skipped, why);
    gc_figure_num(r, "driver_calls", (double)driver_calls);
    if (driver_calls != 0)
        return (void)gc_fail(r, "%llu driver calls during cleanup in the dead context (first: %s)",
                             (unsigned long long)driver_calls, first);
    gc_note(r, "6 destroys: GG_OK, nothing logged, %llu skipped cleanups, 0 driver calls (%s)",
            (unsigned long long)skipped, gc_calls_source());
}

void check_recover_computes(const gc_env *env, gc_result *r)
{
    gc_session s;
    bool recovered;
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "recover", &s) || !gc_kill_with_stray_store(r, &s) ||
        !gc_recover_as_the_driver_allows(r, env, &s, &recovered))
        return;
    if (!recovered)
        return gc_note(r, "gg_context_recover and gg_context_create refused with GG_PROCESS_POISONED (the driver keeps "
                       "the sticky error for the whole process); the context stays DEAD");
    if (gg_context_state(s.ctx) != GG_STATE_ALIVE)
        return (void)gc_fail(r, "context state %d after recovery", (int)gg_context_state(s.ctx));
    if (!gc_expect(r, gg_stream_query(s.stream), GG_INVALID_HANDLE, "gg_stream_query of a pre-recovery stream"))
        return;
    gc_session fresh = { .ctx = s.ctx };
    if (!gc_ok(r, gg_module_create_from_file(s.ctx, env->kernel_image, NULL, &fresh.module), "gg_module_create_from_file") ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "after" }, &fresh.stream), "gg_stream_create") ||
        !gc_computes(r, &fresh, 1 << 20, 41))
        return;
    gc_note(r, "recovered context is ALIVE, old stream stale, 2^20 values computed and verified");
}

/* Kills the context with trap_kernel or assert_kernel and checks what surfaced. */
static void check_device_fault(const gc_env *env, gc_result *r, const char *kernel_name, int cuda_native)
{
    gc_session s;
    gg_kernel kernel;
    uint32_t arg = 1;
    void *params[] = { &arg };
    if (!gc_init(r, env, NULL) || !gc_open(r, env, kernel_name, &s) || !gc_kernel(r, &s, kernel_name, &kernel) ||
        !gc_ok(r, gc_launch(kernel, s.stream, 1, 32, params, 1), "gg_launch"))
        return;
    gg_status st = gg_stream_synchronize(s.stream, NULL);
    gc_figure_last_error(r, "error");
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (st != GG_LAUNCH_FAILED && st != GG_ILLEGAL_ADDRESS)
        return (void)gc_fail(r, "gg_stream_synchronize returned %s (%s), expected a launch failure",
                             gg_status_name(st), e.message);
    if (!expect_culprit(r, kernel_name, 1, true) || !expect_dead(r, s.ctx))
        return;
    if (!env->hip && !env->simulated && cuda_native != 0 && e.native_code != cuda_native)
        return (void)gc_fail(r, "native code %d (%s), expected %d", e.native_code, e.native_name, cuda_native);
    bool recovered;
    if (!gc_recover_as_the_driver_allows(r, env, &s, &recovered))
        return;
    if (!recovered)
        return gc_note(r, "%s (%s %d), culprit %s EXACT, context DEAD; recovery refused with GG_PROCESS_POISONED "
                       "(the driver keeps the error for the whole process)", gg_status_name(st), e.native_name,
                       e.native_code, kernel_name);
    gc_session fresh = { .ctx = s.ctx };
    if (!gc_ok(r, gg_module_create_from_file(s.ctx, env->kernel_image, NULL, &fresh.module), "gg_module_create_from_file") ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "after" }, &fresh.stream), "gg_stream_create") ||
        !gc_computes(r, &fresh, 4096, 5))
        return;
    gc_note(r, "%s (%s %d), culprit %s EXACT, context DEAD, recovered and computes", gg_status_name(st),
            e.native_name, e.native_code, kernel_name);
}

void check_trap(const gc_env *env, gc_result *r)
{
    /* __trap() is reported as 719 (LAUNCH_FAILED) or 715 (ILLEGAL_INSTRUCTION)
     * depending on the GPU; both map to GG_LAUNCH_FAILED: not pinned here. */
    check_device_fault(env, r, "trap_kernel", 0);
}

void check_device_assert(const gc_env *env, gc_result *r)
{
    check_device_fault(env, r, "assert_kernel", 710); /* CUDA_ERROR_ASSERT */
}

/* The helper process: a context killed by the stray store, then a plain
 * return from main with every object still alive. */
int helper_fault_exit(const gc_env *env)
{
    gc_result r = { .figures = cJSON_CreateObject() };
    gc_session s;
    if (!gc_init(&r, env, NULL) || !gc_open(&r, env, "helper", &s) || !gc_kill_with_stray_store(&r, &s)) {
        printf("helper: %s\n", r.message);
        cJSON_Delete(r.figures);
        return 3;
    }
    cJSON_Delete(r.figures);
    printf("helper: context dead: %s\n", gg_status_name(GG_ILLEGAL_ADDRESS));
    return 0;
}

void check_exit_with_dead_context(const gc_env *env, gc_result *r)
{
    char out[2048], err[4096];
    int status = gc_run_helper(r, env, "fault-exit", 60, out, sizeof out, err, sizeof err);
    if (status < 0)
        return;
    gc_figure_str(r, "helper_stdout", out);
    gc_figure_str(r, "helper_stderr", err);
    if (!WIFEXITED(status))
        return (void)gc_fail(r, "the process died of signal %d at exit with a dead context (stderr: %.300s)",
                             WTERMSIG(status), err);
    if (WEXITSTATUS(status) != 0)
        return (void)gc_fail(r, "the process exited %d (stdout: %.300s, stderr: %.300s)", WEXITSTATUS(status), out,
                             err);
    if (strstr(out, "helper: context dead") == NULL)
        return (void)gc_fail(r, "the helper never killed its context (stdout: %.300s)", out);
    if (err[0] != '\0')
        return (void)gc_fail(r, "stderr not empty at exit: %.300s", err);
    gc_note(r, "a process returning from main with a dead context and live objects exited 0, stderr empty");
}

void check_new_process_after_fault(const gc_env *env, gc_result *r)
{
    char out[2048], err[4096];
    int status = gc_run_helper(r, env, "fault-exit", 60, out, sizeof out, err, sizeof err);
    if (status < 0)
        return;
    if (strstr(out, "helper: context dead") == NULL)
        return (void)gc_fail(r, "the helper never killed its context (stdout: %.300s)", out);
    gc_session s;
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "next-process", &s) || !gc_computes(r, &s, 1 << 20, 99))
        return;
    gc_note(r, "after a process died with a dead context, a new process computed 2^20 values correctly");
}
