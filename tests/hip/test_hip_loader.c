/*
 * Opening the HIP backend against what users really have: nothing, a
 * library that is not a HIP runtime, Debian's runtime on a machine without
 * an AMD GPU (this CI machine), and a fake runtime for the failures no real
 * machine here can show (tests/hip/fake_libamdhip.c).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/backend.h"
#include "hip_test.h"

#define EXPECT_IN(haystack, needle) \
    cr_expect_not_null(strstr((haystack), (needle)), "'%s' not in: %s", (needle), (haystack))

/* ------------------------------------------------------------------------ */
/* Libraries that are not there or are not HIP                              */
/* ------------------------------------------------------------------------ */

Test(hip_loader, a_missing_library_is_no_driver_naming_the_path_and_why)
{
    gg__backend b;
    const char *path = "/nonexistent/gpuguard-test/libamdhip64.so.5";
    gg__backend_open_result r = gg__hip_backend_open(path, &b);
    cr_assert_eq(r.status, GG_NO_DRIVER, "status %s: %s", gg_status_name(r.status), r.message);
    EXPECT_IN(r.message, path);
    EXPECT_IN(r.message, "No such file or directory");
    cr_expect_null(b.close, "nothing to close after a failed open");
}

Test(hip_loader, a_library_that_is_no_hip_runtime_is_refused)
{
    /* libc loads fine but has no hipInit. */
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open("libc.so.6", &b);
    cr_assert_eq(r.status, GG_NO_DRIVER, "status %s: %s", gg_status_name(r.status), r.message);
    EXPECT_IN(r.message, "lacks hipInit");
}

Test(hip_loader, a_required_entry_point_missing_is_named)
{
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open(GG_FAKE_HIP_NO_LAUNCH, &b);
    cr_assert_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    EXPECT_IN(r.message, "lacks hipModuleLaunchKernel");
    cr_expect_null(b.close);
}

Test(hip_loader, hipInit_failures_become_open_errors)
{
    const struct { const char *code; gg_status status; const char *text; } cases[] = {
        { "101", GG_NO_DEVICE, "hipErrorInvalidDevice (101)" },
        { "100", GG_NO_DEVICE, "hipErrorNoDevice (100)" },
        { "35", GG_NO_DRIVER, "kernel driver is too old" },
        { "999", GG_NO_DRIVER, "hipErrorUnknown (999)" },
        /* A code newer than our table: the runtime's own name is used. */
        { "1100", GG_NO_DRIVER, "hipErrorFromTheFuture (1100)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("FAKE_HIP_INIT", cases[i].code, 1);
        gg__backend b;
        gg__backend_open_result r = gg__hip_backend_open(GG_FAKE_HIP, &b);
        cr_expect_eq(r.status, cases[i].status, "hipInit %s: %s", cases[i].code, r.message);
        cr_expect_eq(r.native_code, atoi(cases[i].code));
        EXPECT_IN(r.message, cases[i].text);
        EXPECT_IN(r.message, "fake_libamdhip");
        EXPECT_IN(r.message, "HIP 5.2.21153");
        cr_expect_null(b.close);
    }
    unsetenv("FAKE_HIP_INIT");
}

Test(hip_loader, no_device_says_what_hipGetDeviceCount_said)
{
    setenv("FAKE_HIP_INIT", "101", 1);
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open(GG_FAKE_HIP, &b);
    cr_assert_eq(r.status, GG_NO_DEVICE, "%s", r.message);
    EXPECT_IN(r.message, "sees no AMD GPU");
    EXPECT_IN(r.message, "hipGetDeviceCount: hipErrorNoDevice, 0 device(s)");
}

Test(hip_loader, a_good_runtime_opens_and_fills_the_whole_table)
{
    unsetenv("FAKE_HIP_INIT");
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open(GG_FAKE_HIP, &b);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    cr_expect_str_eq(b.name, "hip");
    EXPECT_IN(b.library, "fake_libamdhip");
    cr_expect_eq(b.library[0], '/', "the path the dynamic linker chose: %s", b.library);
#define EXPECT_SET(f) cr_expect(b.f != NULL, "gg__backend." #f " is not set")
    EXPECT_SET(classify); EXPECT_SET(code_name); EXPECT_SET(native_for_status);
    EXPECT_SET(driver_version); EXPECT_SET(device_count); EXPECT_SET(device_props);
    EXPECT_SET(ctx_create); EXPECT_SET(ctx_destroy); EXPECT_SET(ctx_reset_primary);
    EXPECT_SET(ctx_get_current); EXPECT_SET(ctx_set_current); EXPECT_SET(ctx_push);
    EXPECT_SET(ctx_pop); EXPECT_SET(ctx_synchronize);
    EXPECT_SET(stream_create); EXPECT_SET(stream_destroy); EXPECT_SET(stream_query);
    EXPECT_SET(stream_synchronize); EXPECT_SET(stream_wait_event);
    EXPECT_SET(event_create); EXPECT_SET(event_destroy); EXPECT_SET(event_record);
    EXPECT_SET(event_query); EXPECT_SET(event_synchronize); EXPECT_SET(event_elapsed);
    EXPECT_SET(mem_alloc); EXPECT_SET(mem_free); EXPECT_SET(host_alloc); EXPECT_SET(host_free);
    EXPECT_SET(memcpy_htod); EXPECT_SET(memcpy_dtoh); EXPECT_SET(memcpy_dtod);
    EXPECT_SET(memset_d8); EXPECT_SET(module_load_file); EXPECT_SET(module_load_data);
    EXPECT_SET(module_unload); EXPECT_SET(module_get_function); EXPECT_SET(launch);
    EXPECT_SET(close);
#undef EXPECT_SET
    for (int op = 0; op < GG__OP_COUNT; op++)
        cr_expect(b.op_names[op] != NULL && strncmp(b.op_names[op], "hip", 3) == 0,
                  "op %d named %s", op, b.op_names[op] ? b.op_names[op] : "(null)");
    cr_expect_str_eq(b.op_names[GG__OP_MEM_ALLOC], "hipMalloc");
    cr_expect_str_eq(b.op_names[GG__OP_LAUNCH], "hipModuleLaunchKernel");
    cr_expect_str_eq(b.op_names[GG__OP_CTX_CREATE], "hipDevicePrimaryCtxRetain");
    int version = 0;
    cr_expect_eq(b.driver_version(b.self, &version), 0);
    cr_expect_eq(version, 50221153);
    b.close(b.self, true);
}

/* ------------------------------------------------------------------------ */
/* Debian's runtime on a machine without an AMD GPU                         */
/* ------------------------------------------------------------------------ */

static void need_real_runtime(void)
{
    if (access(GG_TEST_REAL_HIP, R_OK) != 0)
        cr_skip_test("no HIP runtime at " GG_TEST_REAL_HIP " (apt-get install libamdhip64-dev)");
}

/* The default search tries libamdhip64.so.6 first: the expectations below
 * are Debian 12's runtime's, so a machine with ROCm 6 where the dynamic
 * linker looks (its usual places) is skipped. */
static void need_debian_runtime_found_first(void)
{
    need_real_runtime();
    const char *const rocm6[] = { "/usr/lib/x86_64-linux-gnu/libamdhip64.so.6",
                                  "/opt/rocm/lib/libamdhip64.so.6" };
    for (size_t i = 0; i < sizeof rocm6 / sizeof rocm6[0]; i++)
        if (access(rocm6[i], R_OK) == 0)
            cr_skip_test("ROCm 6 is installed (%s): the default search finds it first", rocm6[i]);
}

/* A machine with an AMD GPU opens fine: the no-device path cannot be seen there. */
static void skip_if_opened(gg__backend *b, const gg__backend_open_result *r)
{
    if (r->status == GG_OK) {
        b->close(b->self, true);
        cr_skip_test("this machine has an AMD GPU: the no-device path cannot be checked");
    }
}

/* Criterion captures both streams from the start of the test: whatever the
 * runtime prints during init is there to compare. */
static void capture_output(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

static void expect_nothing_printed(void)
{
    fflush(stdout);
    fflush(stderr);
    cr_expect_stdout_eq_str("");
    cr_expect_stderr_eq_str("");
}

Test(hip_real, the_default_search_finds_debians_runtime_and_reports_no_device,
     .init = capture_output)
{
    need_debian_runtime_found_first();
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open(NULL, &b);
    skip_if_opened(&b, &r);
    cr_expect_eq(r.status, GG_NO_DEVICE, "%s: %s", gg_status_name(r.status), r.message);
    /* What Debian's 5.2.3 runtime says without a GPU (DRIVER-FACTS.md). */
    cr_expect_eq(r.native_code, 101);
    EXPECT_IN(r.message, "libamdhip64.so.5");
    EXPECT_IN(r.message, "hipErrorInvalidDevice (101)");
    EXPECT_IN(r.message, "sees no AMD GPU");
    EXPECT_IN(r.message, "hipGetDeviceCount: hipErrorNoDevice, 0 device(s)");
    cr_expect_null(b.close);
    expect_nothing_printed();
}

Test(hip_real, an_explicit_path_to_the_runtime_behaves_the_same, .init = capture_output)
{
    need_real_runtime();
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open(GG_TEST_REAL_HIP, &b);
    skip_if_opened(&b, &r);
    cr_expect_eq(r.status, GG_NO_DEVICE, "%s", r.message);
    EXPECT_IN(r.message, GG_TEST_REAL_HIP);
    /* Twice: hipInit's failure is stable and a second open is as clean. */
    r = gg__hip_backend_open(GG_TEST_REAL_HIP, &b);
    cr_expect_eq(r.status, GG_NO_DEVICE, "%s", r.message);
    expect_nothing_printed();
}

Test(hip_real, gg_init_with_the_hip_backend_fails_with_no_device_and_prints_nothing,
     .init = capture_output)
{
    need_debian_runtime_found_first();
    unsetenv("GPUGUARD_BACKEND");
    unsetenv("GPUGUARD_HIP_LIBRARY");
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "hip" };
    gg_status status = gg_init(&desc);
    if (status == GG_OK) {
        gg_shutdown();
        cr_skip_test("this machine has an AMD GPU: the no-device path cannot be checked");
    }
    cr_expect_eq(status, GG_NO_DEVICE, "%s", gg_status_name(status));
    gg_error_info e = GG_ERROR_INFO_INIT;
    cr_assert_eq(gg_last_error(&e), GG_OK);
    cr_expect_eq(e.status, GG_NO_DEVICE);
    cr_expect_eq(e.native_code, 101);
    EXPECT_IN(e.message, "libamdhip64.so.5");
    EXPECT_IN(e.message, "sees no AMD GPU");
    cr_expect_str_eq(gg_backend_name(), "", "a failed init leaves the library uninitialised");
    cr_expect_eq(gg_shutdown(), GG_OK);
    expect_nothing_printed();
}

Test(hip_real, auto_without_libcuda_reports_both_backends, .init = capture_output)
{
    need_debian_runtime_found_first();
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (cuda != NULL) {
        dlclose(cuda);
        cr_skip_test("libcuda.so.1 is installed: auto would not reach HIP's no-device path");
    }
    unsetenv("GPUGUARD_BACKEND");
    unsetenv("GPUGUARD_HIP_LIBRARY");
    unsetenv("GPUGUARD_CUDA_LIBRARY");
    gg_status status = gg_init(NULL);
    if (status == GG_OK) {
        gg_shutdown();
        cr_skip_test("a backend opened: this machine has a GPU");
    }
    cr_expect_eq(status, GG_NO_DEVICE, "no CUDA driver + no AMD GPU is 'no device'");
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    EXPECT_IN(e.message, "CUDA:");
    EXPECT_IN(e.message, "HIP: hipInit: hipErrorInvalidDevice");
    expect_nothing_printed();
}
