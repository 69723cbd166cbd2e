/* gg_init / gg_shutdown and the settings: zeroed descriptors mean defaults,
 * the environment overrides them and is parsed strictly, and every failure
 * names what was wrong. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>

#include "support/gg_test.h"

Test(init, calls_before_init_fail_with_not_initialized)
{
    int count = -1;
    GG_EXPECT(GG_NOT_INITIALIZED, gg_device_count(&count));
    gg_context ctx;
    GG_EXPECT(GG_NOT_INITIALIZED, gg_context_create(0, NULL, &ctx));
    cr_assert(strstr(gg_test_last_message(), "gg_init") != NULL, "%s", gg_test_last_message());
    GG_OK_(gg_shutdown()); /* harmless when not initialised */
}

typedef struct bad_env {
    const char *name;
    const char *value;
} bad_env;

static const bad_env bad_envs[] = {
    { "GPUGUARD_BACKEND", "cuda12" },
    { "GPUGUARD_BACKEND", "" },
    { "GPUGUARD_LOG", "loud" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "ten" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "-5" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "0" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "99999999999999999999" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "100ms" },
    { "GPUGUARD_WATCHDOG", "sometimes" },
    { "GPUGUARD_WATCHDOG", "auto:" },
    { "GPUGUARD_WATCHDOG", "auto:0" },
    /* Plain digits only: no spaces, signs or hex that strtoul would take. */
    { "GPUGUARD_WAIT_TIMEOUT_MS", " 5" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "+5" },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "5 " },
    { "GPUGUARD_WAIT_TIMEOUT_MS", "0x10" },
    { "GPUGUARD_WATCHDOG", "allow: 9" },
    { "GPUGUARD_WATCHDOG", "allow:+9" },
    { "GPUGUARD_WATCHDOG", " allow" },
    { "GPUGUARD_SYNC_LAUNCHES", "yes" },
    { "GPUGUARD_TIMEOUT_POLICY", "kill-softly" },
    { "GPUGUARD_TIMEOUT_POLICY", "" },
    { "GPUGUARD_CUDA_LIBRARY", "" },
    { "GPUGUARD_FAULTS", "@/nonexistent/plan.json" },
};

Test(init, invalid_environment_values_fail_init_naming_the_variable)
{
    for (size_t i = 0; i < sizeof bad_envs / sizeof bad_envs[0]; i++) {
        setenv(bad_envs[i].name, bad_envs[i].value, 1);
        gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
        gg_status status = gg_init(&desc);
        unsetenv(bad_envs[i].name);
        cr_assert_eq(status, GG_INVALID_ARGUMENT, "%s='%s' gave %s", bad_envs[i].name, bad_envs[i].value,
                     gg_status_name(status));
        cr_assert(strstr(gg_test_last_message(), bad_envs[i].name) != NULL, "message '%s' does not name %s",
                  gg_test_last_message(), bad_envs[i].name);
        cr_assert_eq(gg_backend_name()[0], '\0', "a failed init leaves the library uninitialised");
    }
}

/* GPUGUARD_FAIL_HOST_ALLOC is read at the process's first allocation by
 * gpuguard, so each of these runs in its own test (its own process). */
Test(init, host_alloc_countdown_refuses_anything_but_plain_digits)
{
    setenv("GPUGUARD_FAIL_HOST_ALLOC", " 3", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "GPUGUARD_FAIL_HOST_ALLOC") != NULL, "%s", gg_test_last_message());
}

Test(init, host_alloc_countdown_fails_exactly_that_allocation)
{
    /* gg_init's allocations come first (the backend, the device table);
     * a large N fails nothing, and init then succeeds. Failing the first
     * allocation fails gg_init with GG_OUT_OF_MEMORY naming what it was. */
    setenv("GPUGUARD_FAIL_HOST_ALLOC", "1", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "out of host memory") != NULL, "%s", gg_test_last_message());
    cr_assert_eq(gg_backend_name()[0], '\0', "a failed init leaves the library uninitialised");
    /* Only once: the next init gets its memory. */
    GG_OK_(gg_init(&desc));
    uint64_t live = 1;
    GG_OK_(gg_live_objects(&live));
    cr_assert_eq(live, 0);
    GG_OK_(gg_shutdown());
}

Test(init, invalid_descriptor_fields_are_named)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "opencl" };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "desc->backend") != NULL, "%s", gg_test_last_message());
    desc = (gg_init_desc){ .struct_size = sizeof(gg_init_desc), .cleanup = (gg_cleanup_policy)42 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "desc->cleanup") != NULL, "%s", gg_test_last_message());
}

Test(init, missing_driver_library_is_no_driver_naming_the_path)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "cuda", .cuda_library = "/nonexistent/libcuda.so.1" };
    GG_EXPECT(GG_NO_DRIVER, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "/nonexistent/libcuda.so.1") != NULL, "%s", gg_test_last_message());
    cr_assert_eq(gg_backend_name()[0], '\0');
}

Test(init, zeroed_descriptor_means_defaults)
{
    gg_test_init_sim(NULL);
    gg_init_desc cfg = GG_INIT_DESC_INIT;
    GG_OK_(gg_config(&cfg));
    cr_assert_str_eq(cfg.backend, "sim");
    cr_assert_eq(cfg.wait_timeout_ms, 10000);
    cr_assert_eq(cfg.cleanup, GG_CLEANUP_WARN_ONCE);
    cr_assert_eq(cfg.timeout_policy, GG_TIMEOUT_KILLS_CONTEXT);
    cr_assert_eq(cfg.watchdog, GG_WATCHDOG_AUTO_CHUNK);
    cr_assert_eq(cfg.watchdog_budget_ms, 2000);
    cr_assert_eq(cfg.log_level, GG_LOG_OFF);
    cr_assert_eq(cfg.sync_launches, false);
    gg_test_finish();
}

Test(init, environment_overrides_the_descriptor)
{
    setenv("GPUGUARD_WAIT_TIMEOUT_MS", "250", 1);
    setenv("GPUGUARD_WATCHDOG", "refuse:500", 1);
    setenv("GPUGUARD_SYNC_LAUNCHES", "1", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .wait_timeout_ms = 99, .watchdog = GG_WATCHDOG_ALLOW };
    gg_test_init_sim_desc(NULL, &desc);
    gg_init_desc cfg = GG_INIT_DESC_INIT;
    GG_OK_(gg_config(&cfg));
    cr_assert_eq(cfg.wait_timeout_ms, 250);
    cr_assert_eq(cfg.watchdog, GG_WATCHDOG_REFUSE);
    cr_assert_eq(cfg.watchdog_budget_ms, 500);
    cr_assert(cfg.sync_launches);
    gg_test_finish();
}

Test(init, double_init_refused_and_reinit_after_shutdown_works)
{
    gg_test_init_sim(NULL);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
    GG_EXPECT(GG_ALREADY_INITIALIZED, gg_init(&desc));
    gg_context ctx;
    GG_OK_(gg_context_create(1, NULL, &ctx));
    GG_OK_(gg_shutdown()); /* releases the context */
    gg_test_init_sim(NULL);
    cr_assert_eq(gg_context_state(ctx), GG_STATE_INVALID, "ids from before a shutdown are stale");
    GG_EXPECT(GG_INVALID_HANDLE, gg_context_synchronize(ctx, NULL));
    int count = 0;
    GG_OK_(gg_device_count(&count));
    cr_assert_eq(count, 2);
    gg_test_finish();
}

Test(init, silent_by_default, .init = cr_redirect_stderr)
{
    gg_test_init_sim(NULL);
    gg_context ctx;
    GG_OK_(gg_context_create(0, NULL, &ctx));
    gg_buffer buf;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_create(ctx, 0, NULL, &buf));
    GG_OK_(gg_shutdown()); /* with a leaked context: reported only through the log */
    fflush(stderr);
    cr_assert_stderr_eq_str("");
}

static int log_calls;
static void count_log(void *user, gg_log_level level, uint64_t object_id, const char *message)
{
    (void)user;
    (void)object_id;
    (void)message;
    if (level <= GG_LOG_WARN)
        log_calls++;
}

Test(init, leak_report_goes_to_the_log_callback)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .log_fn = count_log };
    gg_test_init_sim_desc(NULL, &desc);
    gg_context ctx;
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "forgotten" }, &ctx));
    GG_OK_(gg_shutdown());
    cr_assert_gt(log_calls, 0, "the leaked context was not reported");
}

Test(init, device_info_of_the_simulator)
{
    gg_test_init_sim(NULL);
    gg_device_info info = GG_DEVICE_INFO_INIT;
    GG_OK_(gg_device_properties(0, &info));
    cr_assert(info.simulated);
    cr_assert(info.watchdog, "device 0 is the display-attached one");
    cr_assert_str_eq(info.backend, "cuda");
    GG_OK_(gg_device_properties(1, &info));
    cr_assert(!info.watchdog);
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_device_properties(2, &info));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_device_properties(0, NULL));
    gg_test_finish();
}

/* GPUGUARD_LOG=DEBUG would otherwise write to stderr. */
static void quiet_log(void *user, gg_log_level level, uint64_t context, const char *message)
{
    (void)user, (void)level, (void)context, (void)message;
}

/* Issue 26: GPUGUARD_TIMELINE=ON was refused while
 * GPUGUARD_TIMEOUT_POLICY=Return was accepted. Every keyword of every
 * variable, in upper and mixed case, through gg_init. */
Test(init, every_keyword_variable_takes_any_case)
{
    static const struct {
        const char *name, *value;
    } cases[] = {
        { "GPUGUARD_TIMELINE", "ON" },        { "GPUGUARD_TIMELINE", "Off" },     { "GPUGUARD_TIMELINE", "AUTO" },
        { "GPUGUARD_TIMEOUT_POLICY", "Return" }, { "GPUGUARD_TIMEOUT_POLICY", "KILL" },
        { "GPUGUARD_LOG", "DEBUG" },          { "GPUGUARD_LOG", "Off" },          { "GPUGUARD_WATCHDOG", "Refuse:500" },
        { "GPUGUARD_WATCHDOG", "ALLOW" },     { "GPUGUARD_BACKEND", "SIM" },      { "GPUGUARD_BACKEND", "Sim" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv(cases[i].name, cases[i].value, 1);
        gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA, .log_fn = quiet_log };
        gg_status status = gg_init(&desc);
        unsetenv(cases[i].name);
        cr_assert_eq(status, GG_OK, "%s=%s gave %s: %s", cases[i].name, cases[i].value, gg_status_name(status),
                     gg_test_last_message());
        GG_OK_(gg_shutdown());
    }
    /* Still refused: a keyword with something around it. */
    setenv("GPUGUARD_TIMELINE", "ON ", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    unsetenv("GPUGUARD_TIMELINE");
    cr_assert(strstr(gg_test_last_message(), "GPUGUARD_TIMELINE='ON '") != NULL, "%s", gg_test_last_message());
}
