/*
 * The CUDA backend on its own (no src/common above it): its error table, its
 * loader against what users really have on their machines (nothing, the
 * toolkit's stub, a driver) and its operations over gpuguard's simulated
 * driver. Tests that need a library the machine lacks skip, saying which.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/backend.h"
#include "cuda/cuda_abi.h"
#include "cuda/cuda_loader.h"

#define STUB_LIBRARY "/usr/local/cuda/lib64/stubs/libcuda.so"
#define SIM_LIBRARY GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so"

/* ------------------------------------------------------------------------ */
/* Error table                                                              */
/* ------------------------------------------------------------------------ */

/* The table's functions are pure: tested directly, without opening a driver
 * (an opened backend's classify/code_name/native_for_status point at them). */
#include "cuda/cuda_errors.h"

typedef struct expected_class {
    int code;
    const char *name;
    gg_status status;
    bool sticky;
} expected_class;

/* Every code DRIVER-FACTS.md says kills the context, plus NVLink's
 * uncorrectable error (see cuda_errors.c), with the status each maps to. */
static const expected_class sticky_codes[] = {
    { 214, "CUDA_ERROR_ECC_UNCORRECTABLE", GG_DRIVER, true },
    { 220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", GG_DRIVER, true },
    { 226, "CUDA_ERROR_CONTAINED", GG_DRIVER, true },
    { 700, "CUDA_ERROR_ILLEGAL_ADDRESS", GG_ILLEGAL_ADDRESS, true },
    { 702, "CUDA_ERROR_LAUNCH_TIMEOUT", GG_LAUNCH_TIMEOUT, true },
    { 710, "CUDA_ERROR_ASSERT", GG_LAUNCH_FAILED, true },
    { 714, "CUDA_ERROR_HARDWARE_STACK_ERROR", GG_LAUNCH_FAILED, true },
    { 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", GG_LAUNCH_FAILED, true },
    { 716, "CUDA_ERROR_MISALIGNED_ADDRESS", GG_ILLEGAL_ADDRESS, true },
    { 717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", GG_ILLEGAL_ADDRESS, true },
    { 718, "CUDA_ERROR_INVALID_PC", GG_LAUNCH_FAILED, true },
    { 719, "CUDA_ERROR_LAUNCH_FAILED", GG_LAUNCH_FAILED, true },
    { 721, "CUDA_ERROR_TENSOR_MEMORY_LEAK", GG_LAUNCH_FAILED, true },
    { 810, "CUDA_ERROR_MPS_CLIENT_TERMINATED", GG_DRIVER, true },
    { 911, "CUDA_ERROR_EXTERNAL_DEVICE", GG_DRIVER, true },
};

static const expected_class other_codes[] = {
    { 0, "CUDA_SUCCESS", GG_OK, false },
    { 1, "CUDA_ERROR_INVALID_VALUE", GG_INVALID_ARGUMENT, false },
    { 2, "CUDA_ERROR_OUT_OF_MEMORY", GG_OUT_OF_MEMORY, false },
    { 3, "CUDA_ERROR_NOT_INITIALIZED", GG_NOT_INITIALIZED, false },
    { 4, "CUDA_ERROR_DEINITIALIZED", GG_DRIVER, false },
    { 34, "CUDA_ERROR_STUB_LIBRARY", GG_NO_DRIVER, false },
    { 100, "CUDA_ERROR_NO_DEVICE", GG_NO_DEVICE, false },
    { 101, "CUDA_ERROR_INVALID_DEVICE", GG_NO_DEVICE, false },
    { 201, "CUDA_ERROR_INVALID_CONTEXT", GG_INVALID_HANDLE, false },
    { 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", GG_UNSUPPORTED, false },
    { 400, "CUDA_ERROR_INVALID_HANDLE", GG_INVALID_HANDLE, false },
    { 500, "CUDA_ERROR_NOT_FOUND", GG_INVALID_ARGUMENT, false },
    { 600, "CUDA_ERROR_NOT_READY", GG_NOT_READY, false },
    { 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", GG_INVALID_ARGUMENT, false },
    { 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", GG_INVALID_HANDLE, false },
    { 801, "CUDA_ERROR_NOT_SUPPORTED", GG_UNSUPPORTED, false },
    { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", GG_NO_DRIVER, false },
    { 909, "CUDA_ERROR_TIMEOUT", GG_TIMEOUT, false },
    { 999, "CUDA_ERROR_UNKNOWN", GG_DRIVER, false },
};

static void check_class(const expected_class *e)
{
    gg__code_class c = gg__cuda_classify(e->code);
    cr_expect_str_eq(gg__cuda_code_name(e->code), e->name, "name of %d", e->code);
    cr_expect_eq(c.status, e->status, "%s: status %s, expected %s", e->name,
                 gg_status_name(c.status), gg_status_name(e->status));
    cr_expect_eq(c.sticky, e->sticky, "%s: sticky %d, expected %d", e->name, c.sticky, e->sticky);
}

Test(cuda_errors, every_context_killing_code_is_sticky)
{
    for (size_t i = 0; i < sizeof sticky_codes / sizeof sticky_codes[0]; i++)
        check_class(&sticky_codes[i]);
}

Test(cuda_errors, ordinary_failures_are_not_sticky_and_keep_their_meaning)
{
    for (size_t i = 0; i < sizeof other_codes / sizeof other_codes[0]; i++)
        check_class(&other_codes[i]);
}

Test(cuda_errors, no_other_code_is_sticky)
{
    int sticky = 0;
    for (int code = -10; code <= 2000; code++)
        sticky += gg__cuda_classify(code).sticky;
    cr_expect_eq(sticky, (int)(sizeof sticky_codes / sizeof sticky_codes[0]));
}

Test(cuda_errors, only_deinitialized_means_the_driver_is_shutting_down)
{
    for (int code = -10; code <= 2000; code++)
        cr_expect_eq(gg__cuda_classify(code).deinitialized, code == 4, "code %d", code);
}

Test(cuda_errors, unknown_codes_have_a_static_name_and_are_plain_driver_errors)
{
    const int unknown[] = { -1, 9, 35, 103, 722, 917, 1000, 123456 };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        gg__code_class c = gg__cuda_classify(unknown[i]);
        cr_expect_str_eq(gg__cuda_code_name(unknown[i]), "CUDA_ERROR_UNRECOGNIZED");
        cr_expect_eq(c.status, GG_DRIVER);
        cr_expect_not(c.sticky);
    }
    for (int code = -10; code <= 2000; code++)
        cr_assert_not_null(gg__cuda_code_name(code));
}

Test(cuda_errors, injected_statuses_get_the_code_a_driver_would_return)
{
    const struct { gg_status status; int code; } map[] = {
        { GG_ILLEGAL_ADDRESS, 700 }, { GG_LAUNCH_FAILED, 719 }, { GG_LAUNCH_TIMEOUT, 702 },
        { GG_OUT_OF_MEMORY, 2 },     { GG_NOT_READY, 600 },     { GG_NO_DEVICE, 100 },
        { GG_INVALID_ARGUMENT, 1 },  { GG_OK, 0 },              { GG_CANCELLED, 999 },
        { GG_NO_DRIVER, 999 },       { GG_INTERNAL, 999 },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        cr_expect_eq(gg__cuda_native_for_status(map[i].status), map[i].code, "%s",
                     gg_status_name(map[i].status));
}

Test(cuda_errors, injected_codes_classify_back_to_the_injected_status)
{
    const gg_status round_trip[] = {
        GG_OK, GG_INVALID_ARGUMENT, GG_INVALID_HANDLE, GG_NOT_INITIALIZED, GG_NO_DEVICE,
        GG_OUT_OF_MEMORY, GG_NOT_READY, GG_TIMEOUT, GG_LAUNCH_TIMEOUT, GG_LAUNCH_FAILED,
        GG_ILLEGAL_ADDRESS, GG_UNSUPPORTED, GG_BUSY, GG_DRIVER,
    };
    for (size_t i = 0; i < sizeof round_trip / sizeof round_trip[0]; i++) {
        int code = gg__cuda_native_for_status(round_trip[i]);
        cr_expect_eq(gg__cuda_classify(code).status, round_trip[i], "%s -> %d",
                     gg_status_name(round_trip[i]), code);
    }
}

/* ------------------------------------------------------------------------ */
/* Loader                                                                   */
/* ------------------------------------------------------------------------ */

Test(cuda_loader, a_missing_library_is_no_driver_naming_the_path)
{
    gg__backend b;
    const char *path = "/nonexistent/gpuguard-test/libcuda.so.1";
    gg__backend_open_result r = gg__cuda_backend_open(path, &b);
    cr_assert_eq(r.status, GG_NO_DRIVER, "status %s: %s", gg_status_name(r.status), r.message);
    cr_expect_not_null(strstr(r.message, path), "message: %s", r.message);
    cr_expect_null(b.close, "nothing to close after a failed open");
}

Test(cuda_loader, a_library_that_is_no_driver_is_refused)
{
    /* libc loads fine but has no cuDriverGetVersion. */
    gg__backend b;
    gg__backend_open_result r = gg__cuda_backend_open("libc.so.6", &b);
    cr_assert_eq(r.status, GG_NO_DRIVER, "status %s: %s", gg_status_name(r.status), r.message);
    cr_expect_not_null(strstr(r.message, "lacks cuDriverGetVersion"), "message: %s", r.message);
}

Test(cuda_loader, the_toolkit_stub_is_reported_as_a_stub_not_a_driver)
{
    if (access(STUB_LIBRARY, R_OK) != 0)
        cr_skip_test("no CUDA toolkit stub at " STUB_LIBRARY);
    gg__backend b;
    gg__backend_open_result r = gg__cuda_backend_open(STUB_LIBRARY, &b);
    cr_assert_eq(r.status, GG_NO_DRIVER, "status %s: %s", gg_status_name(r.status), r.message);
    cr_expect_eq(r.native_code, 34);
    cr_expect_not_null(strstr(r.message, "stub library"), "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "install the NVIDIA driver"), "message: %s", r.message);
}

/* ------------------------------------------------------------------------ */
/* Over the simulated driver                                                */
/* ------------------------------------------------------------------------ */

static gg__backend sim;

static void open_sim(void)
{
    if (access(SIM_LIBRARY, R_OK) != 0)
        cr_skip_test("the simulated driver is not built (" SIM_LIBRARY ")");
    /* The simulator's default machine: device 0 a display GPU (watchdog), device 1 not. */
    unsetenv("GPUGUARD_SIM_CONFIG");
    gg__backend_open_result r = gg__cuda_backend_open(SIM_LIBRARY, &sim);
    cr_assert_eq(r.status, GG_OK, "open: %s: %s", gg_status_name(r.status), r.message);
}

static void close_sim(void)
{
    if (sim.close != NULL)
        sim.close(sim.self, true);
    memset(&sim, 0, sizeof sim);
}

/* The caller's current context, which every backend operation must leave alone. */
static gg__nctx current(void)
{
    gg__nctx c = (gg__nctx)0x1;
    cr_assert_eq(sim.ctx_get_current(sim.self, &c), 0);
    return c;
}

#define OK(call) cr_assert_eq((call), 0, "%s", #call)

TestSuite(cuda_sim, .init = open_sim, .fini = close_sim);

Test(cuda_sim, open_fills_the_whole_table)
{
    cr_expect_str_eq(sim.name, "cuda");
    cr_expect_not_null(strstr(sim.library, "libgpuguard_sim_cuda.so"), "library %s", sim.library);
#define EXPECT_SET(f) cr_expect(sim.f != NULL, "gg__backend." #f " is not set")
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
        cr_expect(sim.op_names[op] != NULL && strncmp(sim.op_names[op], "cu", 2) == 0,
                  "op %d named %s", op, sim.op_names[op] ? sim.op_names[op] : "(null)");
    cr_expect_str_eq(sim.op_names[GG__OP_MEM_ALLOC], "cuMemAlloc_v2");
    cr_expect_str_eq(sim.op_names[GG__OP_LAUNCH], "cuLaunchKernel");
    int version = 0;
    OK(sim.driver_version(sim.self, &version));
    cr_expect_gt(version, 0);
}

Test(cuda_sim, the_simulator_has_two_devices_and_device_0_has_a_watchdog)
{
    int count = 0;
    OK(sim.device_count(sim.self, &count));
    cr_assert_eq(count, 2);

    gg__device_props p0, p1;
    OK(sim.device_props(sim.self, 0, &p0));
    OK(sim.device_props(sim.self, 1, &p1));
    cr_expect(p0.watchdog, "device 0 is the display GPU");
    cr_expect_not(p1.watchdog);
    cr_expect(p0.simulated && p1.simulated);
    cr_expect_gt(strlen(p0.name), 0);
    cr_expect_gt(p0.total_memory, 0);
    cr_expect_gt(p0.multiprocessors, 0);
    cr_expect_gt(p0.max_threads_per_block, 0);
    for (int i = 0; i < 3; i++) {
        cr_expect_gt(p0.max_block[i], 0);
        cr_expect_gt(p0.max_grid[i], 0);
    }
}

Test(cuda_sim, an_invalid_device_is_refused)
{
    gg__device_props p;
    int rc = sim.device_props(sim.self, 7, &p);
    cr_expect_eq(sim.classify(rc).status, GG_NO_DEVICE, "%s", sim.code_name(rc));
    gg__nctx ctx = (gg__nctx)0x1;
    rc = sim.ctx_create(sim.self, 7, false, &ctx);
    cr_expect_neq(rc, 0);
    cr_expect_null(ctx, "a failed creation leaves nothing behind");
}

Test(cuda_sim, context_create_leaves_the_current_context_unchanged)
{
    cr_assert_null(current(), "a new thread has no current context");

    gg__nctx a = NULL, b = NULL;
    OK(sim.ctx_create(sim.self, 0, false, &a));
    cr_assert_not_null(a);
    cr_expect_null(current(), "creating a context must not make it current");

    OK(sim.ctx_push(sim.self, a));
    cr_expect_eq(current(), a);
    OK(sim.ctx_create(sim.self, 1, false, &b));
    cr_assert_not_null(b);
    cr_expect_neq(a, b);
    cr_expect_eq(current(), a, "the caller's context is still current");

    gg__nctx popped = NULL;
    OK(sim.ctx_pop(sim.self, &popped));
    cr_expect_eq(popped, a);
    cr_expect_null(current());

    OK(sim.ctx_destroy(sim.self, 1, false, b));
    OK(sim.ctx_destroy(sim.self, 0, false, a));
    cr_expect_null(current());
}

Test(cuda_sim, set_current_replaces_the_top_of_the_stack)
{
    gg__nctx a = NULL;
    OK(sim.ctx_create(sim.self, 0, false, &a));
    OK(sim.ctx_set_current(sim.self, a));
    cr_expect_eq(current(), a);
    OK(sim.ctx_set_current(sim.self, NULL));
    cr_expect_null(current());
    OK(sim.ctx_destroy(sim.self, 0, false, a));
}

Test(cuda_sim, the_primary_context_is_retained_without_becoming_current)
{
    gg__nctx p = NULL, q = NULL;
    OK(sim.ctx_create(sim.self, 1, true, &p));
    cr_assert_not_null(p);
    cr_expect_null(current());
    OK(sim.ctx_create(sim.self, 1, true, &q));
    cr_expect_eq(p, q, "one primary context per device");
    OK(sim.ctx_destroy(sim.self, 1, true, q));
    OK(sim.ctx_destroy(sim.self, 1, true, p));
    OK(sim.ctx_reset_primary(sim.self, 1));
}

Test(cuda_sim, memory_round_trips_through_the_device)
{
    gg__nctx ctx = NULL;
    OK(sim.ctx_create(sim.self, 1, false, &ctx));
    OK(sim.ctx_push(sim.self, ctx));

    enum { N = 4096 };
    unsigned char in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 7 + 3);

    gg__dptr a = 0, b = 0;
    OK(sim.mem_alloc(sim.self, &a, N));
    OK(sim.mem_alloc(sim.self, &b, N));
    cr_assert_neq(a, 0);

    /* Synchronous forms. */
    OK(sim.memcpy_htod(sim.self, a, in, N, NULL, false));
    OK(sim.memcpy_dtod(sim.self, b, a, N, NULL, false));
    memset(out, 0, N);
    OK(sim.memcpy_dtoh(sim.self, out, b, N, NULL, false));
    cr_expect_arr_eq(out, in, N);

    /* Asynchronous forms on a stream, then a memset over half. */
    gg__nstream s = NULL;
    OK(sim.stream_create(sim.self, &s));
    OK(sim.memset_d8(sim.self, b, 0xAB, N / 2, s, true));
    OK(sim.memcpy_dtoh(sim.self, out, b, N, s, true));
    OK(sim.stream_synchronize(sim.self, s));
    OK(sim.stream_query(sim.self, s));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], i < N / 2 ? 0xAB : in[i], "byte %d", i);

    OK(sim.memset_d8(sim.self, a, 0x11, N, NULL, false));
    OK(sim.memcpy_dtoh(sim.self, out, a, 16, NULL, false));
    cr_expect_eq(out[15], 0x11);

    OK(sim.stream_destroy(sim.self, s));
    OK(sim.mem_free(sim.self, b));
    OK(sim.mem_free(sim.self, a));
    gg__nctx popped = NULL;
    OK(sim.ctx_pop(sim.self, &popped));
    OK(sim.ctx_destroy(sim.self, 1, false, ctx));
}

Test(cuda_sim, pinned_host_memory_is_usable)
{
    gg__nctx ctx = NULL;
    OK(sim.ctx_create(sim.self, 1, false, &ctx));
    OK(sim.ctx_push(sim.self, ctx));
    void *h = NULL;
    OK(sim.host_alloc(sim.self, &h, 256));
    cr_assert_not_null(h);
    memset(h, 0x5A, 256);
    OK(sim.host_free(sim.self, h));
    OK(sim.ctx_pop(sim.self, NULL));
    OK(sim.ctx_destroy(sim.self, 1, false, ctx));
}

Test(cuda_sim, events_time_work_on_a_stream)
{
    gg__nctx ctx = NULL;
    OK(sim.ctx_create(sim.self, 1, false, &ctx));
    OK(sim.ctx_push(sim.self, ctx));
    gg__nstream s = NULL;
    gg__nevent e0 = NULL, e1 = NULL;
    OK(sim.stream_create(sim.self, &s));
    OK(sim.event_create(sim.self, &e0));
    OK(sim.event_create(sim.self, &e1));
    OK(sim.event_record(sim.self, e0, s));
    OK(sim.event_record(sim.self, e1, s));
    OK(sim.stream_wait_event(sim.self, NULL, e1));
    OK(sim.event_synchronize(sim.self, e1));
    OK(sim.event_query(sim.self, e1));
    float ms = -1.0f;
    OK(sim.event_elapsed(sim.self, &ms, e0, e1));
    cr_expect_geq(ms, 0.0f);
    OK(sim.ctx_synchronize(sim.self));
    OK(sim.event_destroy(sim.self, e1));
    OK(sim.event_destroy(sim.self, e0));
    OK(sim.stream_destroy(sim.self, s));
    OK(sim.ctx_pop(sim.self, NULL));
    OK(sim.ctx_destroy(sim.self, 1, false, ctx));
}

Test(cuda_sim, a_module_that_does_not_exist_is_refused)
{
    gg__nctx ctx = NULL;
    OK(sim.ctx_create(sim.self, 1, false, &ctx));
    OK(sim.ctx_push(sim.self, ctx));
    gg__nmodule m = (gg__nmodule)0x1;
    int rc = sim.module_load_file(sim.self, &m, "/nonexistent/gpuguard-test/module.so");
    cr_expect_neq(rc, 0);
    cr_expect_null(m);
    cr_expect_eq(sim.classify(rc).status, GG_INVALID_ARGUMENT, "%s", sim.code_name(rc));
    OK(sim.ctx_pop(sim.self, NULL));
    OK(sim.ctx_destroy(sim.self, 1, false, ctx));
}

/* ------------------------------------------------------------------------ */
/* Entry-point resolution, against a fake driver (tests/cuda/fake_libcuda.c) */
/* whose cuGetProcAddress answers as Debian's 535 driver was measured to.    */
/* ------------------------------------------------------------------------ */

static void *fake_symbol(const char *library, const char *name)
{
    void *h = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(h, "the fake driver %s is loaded", library);
    void *p = dlsym(h, name);
    dlclose(h); /* the loader's RTLD_NODELETE keeps it mapped */
    return p;
}

static int asked_version(const char *base)
{
    int (*asked)(const char *) =
        (int (*)(const char *))fake_symbol(GG_FAKE_LIBCUDA, "fake_cuda_asked_version");
    cr_assert_not_null(asked);
    return asked(base);
}

static void fake_reset(void)
{
    unsetenv("FAKE_CUDA_VERSION");
    unsetenv("FAKE_CUDA_NULL");
    unsetenv("FAKE_CUDA_LIE");
    unsetenv("FAKE_CUDA_INIT");
}

static gg__backend_open_result load_fake(const char *library, const char *version,
                                         ggcu_driver *drv)
{
    fake_reset();
    if (version != NULL)
        setenv("FAKE_CUDA_VERSION", version, 1);
    return gg__cuda_driver_load(drv, library);
}

/* What the measured rule makes the loader pick on each driver version. */
static const struct {
    const char *version;
    const char *ctx_create;
    const char *elapsed;
} picks[] = {
    { "11040", "cuCtxCreate_v3", "cuEventElapsedTime" },
    { "12020", "cuCtxCreate_v3", "cuEventElapsedTime" }, /* Debian 12's 535 driver */
    { "12040", "cuCtxCreate_v3", "cuEventElapsedTime" },
    { "12050", "cuCtxCreate_v4", "cuEventElapsedTime" },
    { "12080", "cuCtxCreate_v4", "cuEventElapsedTime_v2" },
    { "13000", "cuCtxCreate_v4", "cuEventElapsedTime_v2" },
};

Test(cuda_resolve, each_driver_version_gets_the_variants_it_has)
{
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
        ggcu_driver *drv = calloc(1, sizeof *drv);
        cr_assert_not_null(drv);
        gg__backend_open_result r = load_fake(GG_FAKE_LIBCUDA, picks[i].version, drv);
        cr_assert_eq(r.status, GG_OK, "driver %s: %s", picks[i].version, r.message);
        cr_expect_eq(drv->driver_version, atoi(picks[i].version));
        cr_expect_str_eq(gg__cuda_entry_point(drv, "cuCtxCreate")->variant, picks[i].ctx_create,
                         "driver %s", picks[i].version);
        cr_expect_str_eq(gg__cuda_entry_point(drv, "cuEventElapsedTime")->variant,
                         picks[i].elapsed, "driver %s", picks[i].version);
        /* Exactly the member of the variant in use is set. */
        cr_expect_eq(drv->cuCtxCreate_v4 != NULL,
                     strcmp(picks[i].ctx_create, "cuCtxCreate_v4") == 0);
        cr_expect_eq(drv->cuCtxCreate_v3 != NULL,
                     strcmp(picks[i].ctx_create, "cuCtxCreate_v3") == 0);
        for (size_t e = 0; e < drv->entry_count; e++) {
            const ggcu_entry_point *ep = &drv->entries[e];
            if (ep->variant == NULL)
                continue;
            /* Never a version above the driver's: it would answer with an
             * older variant under the newer one's name. */
            cr_expect_leq(ep->version, drv->driver_version, "%s asked at %d on driver %d",
                          ep->base, ep->version, drv->driver_version);
            cr_expect_str_eq(ep->resolved_by, "cuGetProcAddress_v2");
            cr_expect(ep->exported, "%s", ep->variant);
            cr_expect_eq(ep->fn, fake_symbol(GG_FAKE_LIBCUDA, ep->variant),
                         "%s is dlsym(%s)", ep->base, ep->variant);
        }
        gg__cuda_driver_close(drv);
        free(drv);
    }
}

Test(cuda_resolve, the_version_asked_is_the_variants_own)
{
    ggcu_driver drv;
    void (*forget)(void) = NULL;
    gg__backend_open_result r = load_fake(GG_FAKE_LIBCUDA, "13000", &drv);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    forget = (void (*)(void))fake_symbol(GG_FAKE_LIBCUDA, "fake_cuda_forget_questions");
    gg__cuda_driver_close(&drv);
    forget();
    r = load_fake(GG_FAKE_LIBCUDA, "13000", &drv);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    /* CUDA 13's cuCtxSynchronize at 13000 takes a context argument: the
     * 2000 form is asked for, never "the newest". */
    cr_expect_eq(asked_version("cuCtxSynchronize"), 2000);
    cr_expect_eq(asked_version("cuCtxCreate"), 12050);
    cr_expect_eq(asked_version("cuMemAlloc"), 3020);
    cr_expect_eq(asked_version("cuLaunchKernel"), 4000);
    gg__cuda_driver_close(&drv);
}

/* The bug this loader fixes: on 11.4-12.4 drivers cuCtxCreate is _v3, whose
 * device argument comes after numParams and flags. */
Test(cuda_resolve, a_context_is_created_through_the_resolved_variants_signature)
{
    const struct { const char *version; const char *variant; } cases[] = {
        { "12020", "cuCtxCreate_v3" }, { "13000", "cuCtxCreate_v4" },
    };
    typedef struct { const char *variant; int device; unsigned flags; int params_count;
                     int params_null; } record;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_reset();
        setenv("FAKE_CUDA_VERSION", cases[i].version, 1);
        gg__backend b;
        gg__backend_open_result r = gg__cuda_backend_open(GG_FAKE_LIBCUDA, &b);
        cr_assert_eq(r.status, GG_OK, "%s", r.message);
        cr_expect_str_eq(b.op_names[GG__OP_CTX_CREATE], cases[i].variant);
        gg__nctx ctx = NULL;
        cr_assert_eq(b.ctx_create(b.self, 1, false, &ctx), 0);
        const record *(*last)(void) =
            (const record *(*)(void))fake_symbol(GG_FAKE_LIBCUDA, "fake_cuda_last_create");
        const record *rec = last();
        cr_expect_str_eq(rec->variant, cases[i].variant);
        cr_expect_eq(rec->device, 1, "%s got device %d", rec->variant, rec->device);
        cr_expect_eq(rec->flags, 0u);
        cr_expect(rec->params_null);
        if (strcmp(cases[i].variant, "cuCtxCreate_v3") == 0)
            cr_expect_eq(rec->params_count, 0);
        b.close(b.self, true);
    }
}

Test(cuda_resolve, an_11x_driver_is_asked_through_the_older_cuGetProcAddress)
{
    ggcu_driver drv;
    gg__backend_open_result r = load_fake(GG_FAKE_LIBCUDA_GPA11, "11040", &drv);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    const ggcu_entry_point *ep = gg__cuda_entry_point(&drv, "cuCtxCreate");
    cr_expect_str_eq(ep->variant, "cuCtxCreate_v3");
    cr_expect_str_eq(ep->resolved_by, "cuGetProcAddress");
    cr_expect_eq(ep->fn, fake_symbol(GG_FAKE_LIBCUDA_GPA11, "cuCtxCreate_v3"));
    gg__cuda_driver_close(&drv);
}

Test(cuda_resolve, a_library_without_cuGetProcAddress_is_no_driver)
{
    ggcu_driver drv;
    gg__backend_open_result r = load_fake(GG_FAKE_LIBCUDA_NOGPA, "12020", &drv);
    cr_assert_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    cr_expect_not_null(strstr(r.message, "exports neither cuGetProcAddress_v2 nor cuGetProcAddress"),
                       "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "fake_libcuda_nogpa"), "message: %s", r.message);
    cr_expect_null(drv.handle, "nothing stays loaded");
}

Test(cuda_resolve, a_driver_older_than_11_4_is_no_driver_naming_both_versions)
{
    ggcu_driver drv;
    gg__backend_open_result r = load_fake(GG_FAKE_LIBCUDA_GPA11, "11030", &drv);
    cr_assert_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    cr_expect_not_null(strstr(r.message, "CUDA 11.3 (11030)"), "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "11.4 (11040)"), "message: %s", r.message);
}

Test(cuda_resolve, a_required_entry_point_the_driver_does_not_return_is_named)
{
    ggcu_driver drv;
    fake_reset();
    setenv("FAKE_CUDA_VERSION", "12020", 1);
    setenv("FAKE_CUDA_NULL", "cuLaunchKernel", 1);
    gg__backend_open_result r = gg__cuda_driver_load(&drv, GG_FAKE_LIBCUDA);
    unsetenv("FAKE_CUDA_NULL");
    cr_assert_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    cr_expect_not_null(strstr(r.message, "cuLaunchKernel"), "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "12.2 (12020)"), "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "SYMBOL_NOT_FOUND"), "message: %s", r.message);
}

Test(cuda_resolve, an_optional_entry_point_the_driver_lacks_is_left_unset)
{
    ggcu_driver drv;
    fake_reset();
    setenv("FAKE_CUDA_NULL", "cuMemAllocHost", 1);
    gg__backend_open_result r = gg__cuda_driver_load(&drv, GG_FAKE_LIBCUDA);
    unsetenv("FAKE_CUDA_NULL");
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    cr_expect_null(drv.cuMemAllocHost_v2);
    cr_expect_null(gg__cuda_entry_point(&drv, "cuMemAllocHost")->variant);
    gg__cuda_driver_close(&drv);
}

Test(cuda_resolve, a_driver_answering_with_another_variant_is_not_trusted)
{
    /* cuGetProcAddress hands out the variant before the one asked for (a
     * different signature): refused, never called. */
    ggcu_driver drv;
    fake_reset();
    setenv("FAKE_CUDA_LIE", "cuCtxCreate", 1);
    gg__backend_open_result r = gg__cuda_driver_load(&drv, GG_FAKE_LIBCUDA);
    unsetenv("FAKE_CUDA_LIE");
    cr_assert_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    cr_expect_not_null(strstr(r.message, "cuCtxCreate"), "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "not trusted"), "message: %s", r.message);
}

Test(cuda_resolve, a_garbage_file_is_no_driver_naming_the_path)
{
    char path[] = "/tmp/gg-garbage-libcuda-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char junk[] = "this is not an ELF shared object\n";
    cr_assert_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    gg__backend b;
    gg__backend_open_result r = gg__cuda_backend_open(path, &b);
    unlink(path);
    cr_assert_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    cr_expect_not_null(strstr(r.message, path), "message: %s", r.message);
    cr_expect_not_null(strstr(r.message, "cannot load the CUDA driver"), "message: %s", r.message);
}

Test(cuda_resolve, cuInit_failures_become_open_errors)
{
    const struct { const char *code; gg_status status; const char *text; } cases[] = {
        { "100", GG_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" },
        { "803", GG_NO_DRIVER, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
        { "999", GG_NO_DRIVER, "CUDA_ERROR_UNKNOWN" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_reset();
        setenv("FAKE_CUDA_VERSION", "12020", 1);
        setenv("FAKE_CUDA_INIT", cases[i].code, 1);
        gg__backend b;
        gg__backend_open_result r = gg__cuda_backend_open(GG_FAKE_LIBCUDA, &b);
        cr_expect_eq(r.status, cases[i].status, "cuInit %s: %s", cases[i].code, r.message);
        cr_expect_eq(r.native_code, atoi(cases[i].code));
        cr_expect_not_null(strstr(r.message, cases[i].text), "message: %s", r.message);
        cr_expect_not_null(strstr(r.message, "fake_libcuda"), "message: %s", r.message);
        cr_expect_not_null(strstr(r.message, "12.2 (12020)"), "message: %s", r.message);
    }
    unsetenv("FAKE_CUDA_INIT");
}

Test(cuda_resolve, no_device_says_when_the_kernel_module_is_not_loaded)
{
    if (access("/proc/driver/nvidia", F_OK) == 0)
        cr_skip_test("this machine has the NVIDIA kernel module loaded");
    fake_reset();
    setenv("FAKE_CUDA_INIT", "100", 1);
    gg__backend b;
    gg__backend_open_result r = gg__cuda_backend_open(GG_FAKE_LIBCUDA, &b);
    unsetenv("FAKE_CUDA_INIT");
    cr_assert_eq(r.status, GG_NO_DEVICE, "%s", r.message);
    cr_expect_not_null(strstr(r.message, "the NVIDIA kernel module is not loaded"),
                       "message: %s", r.message);
}

/* ------------------------------------------------------------------------ */
/* gg_driver_entry_point: the loader's record, through the public API        */
/* ------------------------------------------------------------------------ */

Test(cuda_entry_points, are_listed_after_init_and_refused_before)
{
    gg_entry_point_info e = GG_ENTRY_POINT_INFO_INIT;
    cr_expect_eq(gg_driver_entry_point(0, &e), GG_NOT_INITIALIZED);
    if (access(SIM_LIBRARY, R_OK) != 0)
        cr_skip_test("the simulated driver is not built (" SIM_LIBRARY ")");
    unsetenv("GPUGUARD_SIM_CONFIG");
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = SIM_LIBRARY };
    cr_assert_eq(gg_init(&desc), GG_OK);

    size_t count = 0;
    bool saw_create = false;
    while (gg_driver_entry_point(count, &e) == GG_OK) {
        cr_expect_not_null(e.name);
        cr_expect_not_null(e.resolved_by);
        if (e.required)
            cr_expect_not_null(e.variant, "%s is required but has no variant", e.name);
        if (strcmp(e.name, "cuCtxCreate") == 0) {
            saw_create = true;
            cr_expect_str_eq(e.variant, "cuCtxCreate_v4");
            cr_expect_eq(e.abi_version, 12050);
        }
        count++;
    }
    cr_expect(saw_create);
    cr_expect_gt(count, 40u);

    /* Past the end: refused, saying how many there are. */
    cr_expect_eq(gg_driver_entry_point(count, &e), GG_INVALID_ARGUMENT);
    gg_error_info err = GG_ERROR_INFO_INIT;
    gg_last_error(&err);
    char want[64];
    snprintf(want, sizeof want, "has %zu", count);
    cr_expect_not_null(strstr(err.message, want), "message: %s", err.message);
    cr_expect_eq(gg_driver_entry_point(SIZE_MAX, &e), GG_INVALID_ARGUMENT);
    cr_expect_eq(gg_driver_entry_point(0, NULL), GG_INVALID_ARGUMENT);
    cr_expect_eq(gg_shutdown(), GG_OK);
}
