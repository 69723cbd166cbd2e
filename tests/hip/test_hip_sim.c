/*
 * The HIP backend over gpuguard's simulated driver, HIP face
 * (libgpuguard_sim_hip.so): every operation once, on the backend alone and
 * then through the public API. Skipped, saying so, until the HIP face is
 * built.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/backend.h"
#include "gpuguard/gpuguard.h"
#include "hip_test.h"

#define CORE_KERNELS GG_TEST_KERNEL_DIR "/core_kernels.so"

static void need_sim(void)
{
    if (access(GG_TEST_SIM_HIP, R_OK) != 0)
        cr_skip_test("the simulator's HIP face is not built (" GG_TEST_SIM_HIP ")");
    /* The simulator's default machine: device 0 a display GPU (watchdog), device 1 not. */
    unsetenv("GPUGUARD_SIM_CONFIG");
}

/* ------------------------------------------------------------------------ */
/* The backend alone                                                        */
/* ------------------------------------------------------------------------ */

static gg__backend sim;

static void open_sim(void)
{
    need_sim();
    gg__backend_open_result r = gg__hip_backend_open(GG_TEST_SIM_HIP, &sim);
    cr_assert_eq(r.status, GG_OK, "open: %s: %s", gg_status_name(r.status), r.message);
}

static void close_sim(void)
{
    if (sim.close != NULL)
        sim.close(sim.self, true);
    memset(&sim, 0, sizeof sim);
}

static gg__nctx current(void)
{
    gg__nctx c = (gg__nctx)0x1;
    cr_assert_eq(sim.ctx_get_current(sim.self, &c), 0);
    return c;
}

#define OK(call)                                                                  \
    do {                                                                          \
        int ok__rc = (call);                                                      \
        cr_assert_eq(ok__rc, 0, "%s returned %s", #call, sim.code_name(ok__rc)); \
    } while (0)

/* A context on `device`, made current by a push (popped by leave()). */
static gg__nctx enter(int device)
{
    gg__nctx ctx = NULL;
    OK(sim.ctx_create(sim.self, device, false, &ctx));
    OK(sim.ctx_push(sim.self, ctx));
    return ctx;
}

static void leave(int device, gg__nctx ctx)
{
    OK(sim.ctx_pop(sim.self, NULL));
    OK(sim.ctx_destroy(sim.self, device, false, ctx));
}

TestSuite(hip_sim, .init = open_sim, .fini = close_sim);

Test(hip_sim, open_names_the_simulator_and_the_hip_functions)
{
    cr_expect_str_eq(sim.name, "hip");
    cr_expect_not_null(strstr(sim.library, "libgpuguard_sim_hip.so"), "library %s", sim.library);
    for (int op = 0; op < GG__OP_COUNT; op++)
        cr_expect(sim.op_names[op] != NULL && strncmp(sim.op_names[op], "hip", 3) == 0,
                  "op %d named %s", op, sim.op_names[op] ? sim.op_names[op] : "(null)");
    int version = 0;
    OK(sim.driver_version(sim.self, &version));
    cr_expect_gt(version, 0);
}

Test(hip_sim, the_simulator_has_two_devices_and_device_0_has_a_watchdog)
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

Test(hip_sim, an_invalid_device_is_refused)
{
    gg__device_props p;
    int rc = sim.device_props(sim.self, 7, &p);
    cr_expect_eq(sim.classify(rc).status, GG_NO_DEVICE, "%s", sim.code_name(rc));
    gg__nctx ctx = (gg__nctx)0x1;
    rc = sim.ctx_create(sim.self, 7, false, &ctx);
    cr_expect_neq(rc, 0);
    cr_expect_null(ctx, "a failed creation leaves nothing behind");
}

Test(hip_sim, both_kinds_of_context_are_the_primary_context_and_creating_leaves_current_alone)
{
    gg__nctx before = current();
    gg__nctx own = NULL, primary = NULL;
    OK(sim.ctx_create(sim.self, 1, false, &own));
    OK(sim.ctx_create(sim.self, 1, true, &primary));
    cr_assert_not_null(own);
    cr_expect_eq(own, primary, "one context per HIP device");
    cr_expect_eq(current(), before);
    OK(sim.ctx_destroy(sim.self, 1, true, primary));
    OK(sim.ctx_destroy(sim.self, 1, false, own));
}

Test(hip_sim, push_pop_and_set_current_behave_like_a_stack)
{
    gg__nctx c0 = NULL, c1 = NULL, popped = NULL;
    OK(sim.ctx_create(sim.self, 0, false, &c0));
    OK(sim.ctx_create(sim.self, 1, false, &c1));
    gg__nctx saved = current();
    OK(sim.ctx_push(sim.self, c0));
    OK(sim.ctx_push(sim.self, c1));
    cr_expect_eq(current(), c1);
    OK(sim.ctx_pop(sim.self, &popped));
    cr_expect_eq(popped, c1);
    cr_expect_eq(current(), c0);
    OK(sim.ctx_set_current(sim.self, c1));
    cr_expect_eq(current(), c1);
    OK(sim.ctx_set_current(sim.self, saved));
    OK(sim.ctx_destroy(sim.self, 1, false, c1));
    OK(sim.ctx_destroy(sim.self, 0, false, c0));
}

Test(hip_sim, memory_round_trips_through_the_device)
{
    gg__nctx ctx = enter(1);
    enum { N = 4096 };
    unsigned char in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 7 + 3);

    gg__dptr a = 0, b = 0;
    OK(sim.mem_alloc(sim.self, &a, N));
    OK(sim.mem_alloc(sim.self, &b, N));
    cr_assert_neq(a, 0);

    OK(sim.memcpy_htod(sim.self, a, in, N, NULL, false));
    OK(sim.memcpy_dtod(sim.self, b, a, N, NULL, false));
    memset(out, 0, N);
    OK(sim.memcpy_dtoh(sim.self, out, b, N, NULL, false));
    cr_expect_arr_eq(out, in, N);

    gg__nstream s = NULL;
    OK(sim.stream_create(sim.self, &s));
    OK(sim.memset_d8(sim.self, b, 0xAB, N / 2, s, true));
    OK(sim.memcpy_dtod(sim.self, a, b, N, s, true));
    OK(sim.memcpy_dtoh(sim.self, out, a, N, s, true));
    OK(sim.stream_synchronize(sim.self, s));
    OK(sim.stream_query(sim.self, s));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], i < N / 2 ? 0xAB : in[i], "byte %d", i);

    OK(sim.memcpy_htod(sim.self, a, in, N, s, true));
    OK(sim.stream_synchronize(sim.self, s));
    OK(sim.memset_d8(sim.self, a, 0x11, N, NULL, false));
    OK(sim.memcpy_dtoh(sim.self, out, a, 16, NULL, false));
    cr_expect_eq(out[15], 0x11);

    OK(sim.stream_destroy(sim.self, s));
    OK(sim.mem_free(sim.self, b));
    OK(sim.mem_free(sim.self, a));
    leave(1, ctx);
}

Test(hip_sim, pinned_host_memory_is_usable)
{
    gg__nctx ctx = enter(1);
    void *h = NULL;
    OK(sim.host_alloc(sim.self, &h, 256));
    cr_assert_not_null(h);
    memset(h, 0x5A, 256);
    OK(sim.host_free(sim.self, h));
    leave(1, ctx);
}

Test(hip_sim, events_time_work_on_a_stream)
{
    gg__nctx ctx = enter(1);
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
    leave(1, ctx);
}

Test(hip_sim, a_module_that_does_not_exist_is_refused)
{
    gg__nctx ctx = enter(1);
    gg__nmodule m = (gg__nmodule)0x1;
    int rc = sim.module_load_file(sim.self, &m, "/nonexistent/gpuguard-test/module.so");
    cr_expect_neq(rc, 0);
    cr_expect_null(m);
    cr_expect_eq(sim.classify(rc).status, GG_INVALID_ARGUMENT, "%s", sim.code_name(rc));
    leave(1, ctx);
}

/* fill_u32(dst, value, n) over n words of a fresh allocation, read back. */
static void launch_fill(gg__nmodule m, gg__nstream s, uint32_t value)
{
    enum { N = 1000 };
    gg__nfunc f = NULL;
    OK(sim.module_get_function(sim.self, &f, m, "fill_u32"));
    gg__dptr dst = 0;
    OK(sim.mem_alloc(sim.self, &dst, N * 4));
    uint64_t dst_param = dst;
    uint32_t n = N;
    void *params[] = { &dst_param, &value, &n };
    const gg_dim3 grid = { (N + 255) / 256, 1, 1 }, block = { 256, 1, 1 };
    OK(sim.launch(sim.self, f, &grid, &block, 0, s, params));
    uint32_t out[N];
    memset(out, 0, sizeof out);
    OK(sim.memcpy_dtoh(sim.self, out, dst, sizeof out, s, s != NULL));
    OK(sim.stream_synchronize(sim.self, s));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], value, "word %d", i);
    OK(sim.mem_free(sim.self, dst));
}

Test(hip_sim, a_kernel_launches_and_writes_device_memory)
{
    gg__nctx ctx = enter(1);
    gg__nmodule m = NULL;
    OK(sim.module_load_file(sim.self, &m, CORE_KERNELS));
    launch_fill(m, NULL, 0xC0FFEEu);
    gg__nstream s = NULL;
    OK(sim.stream_create(sim.self, &s));
    launch_fill(m, s, 0x5EED5u);
    OK(sim.stream_destroy(sim.self, s));
    gg__nfunc f = (gg__nfunc)0x1;
    int rc = sim.module_get_function(sim.self, &f, m, "no_such_kernel");
    cr_expect_eq(sim.classify(rc).status, GG_INVALID_ARGUMENT, "%s", sim.code_name(rc));
    cr_expect_null(f);
    OK(sim.module_unload(sim.self, m));
    leave(1, ctx);
}

Test(hip_sim, a_faulting_kernel_is_sticky_until_the_device_is_reset)
{
    gg__nctx ctx = enter(1);
    gg__nmodule m = NULL;
    OK(sim.module_load_file(sim.self, &m, CORE_KERNELS));
    gg__nfunc touch = NULL;
    OK(sim.module_get_function(sim.self, &touch, m, "touch"));
    gg__dptr buf = 0;
    OK(sim.mem_alloc(sim.self, &buf, 64));
    uint64_t ptr = buf, bytes = 1 << 20; /* far past the allocation */
    void *params[] = { &ptr, &bytes };
    const gg_dim3 one = { 1, 1, 1 };
    int rc = sim.launch(sim.self, touch, &one, &one, 0, NULL, params);
    if (rc == 0)
        rc = sim.ctx_synchronize(sim.self);
    gg__code_class c = sim.classify(rc);
    cr_assert(c.sticky, "%s is sticky", sim.code_name(rc));
    cr_expect_eq(c.status, GG_ILLEGAL_ADDRESS, "%s", sim.code_name(rc));
    gg__dptr more = 0;
    rc = sim.mem_alloc(sim.self, &more, 64);
    cr_expect(sim.classify(rc).sticky, "the device stays dead: %s", sim.code_name(rc));

    OK(sim.ctx_reset_primary(sim.self, 1));
    OK(sim.mem_alloc(sim.self, &more, 64));
    OK(sim.mem_free(sim.self, more));
    leave(1, ctx);
}

/* ---- completion-timeline operations (host-mapped memory, write-value) -- */

Test(hip_sim, the_devices_report_write_value_support_and_the_shared_memory_limit)
{
    gg__device_props p;
    OK(sim.device_props(sim.self, 1, &p));
    cr_expect(p.stream_write_value_32, "the simulator's default device supports them");
    cr_expect(p.stream_write_value_64);
    /* SIM_MAX_SHARED_PER_BLOCK (48 KiB), through hipDeviceGetAttribute 74;
     * HIP has no opt-in, so both limits are the one. */
    cr_expect_eq(p.max_shared_per_block, 48 * 1024);
    cr_expect_eq(p.max_shared_per_block_optin, p.max_shared_per_block);
}

/* The simulator reads its configuration once, at its first call: this
 * suite opens it with device 1 configured without stream memory operations. */
static void open_sim_without_memops_on_device_1(void)
{
    need_sim();
    setenv("GPUGUARD_SIM_CONFIG",
           "{\"devices\":[{},{\"stream_mem_ops\":false,\"stream_mem_ops_64\":false}]}", 1);
    gg__backend_open_result r = gg__hip_backend_open(GG_TEST_SIM_HIP, &sim);
    cr_assert_eq(r.status, GG_OK, "open: %s: %s", gg_status_name(r.status), r.message);
}

Test(hip_sim_configured, a_device_configured_without_stream_memory_operations_reports_none,
     .init = open_sim_without_memops_on_device_1, .fini = close_sim)
{
    gg__device_props p0, p1;
    OK(sim.device_props(sim.self, 0, &p0));
    OK(sim.device_props(sim.self, 1, &p1));
    cr_expect(p0.stream_write_value_32 && p0.stream_write_value_64);
    cr_expect_not(p1.stream_write_value_32, "CanUseStreamWaitValue is 0 on device 1");
    cr_expect_not(p1.stream_write_value_64);
    /* The call itself is refused there, as HIP's hipErrorNotSupported. */
    gg__nctx ctx = enter(1);
    void *host = NULL;
    gg__dptr dev = 0;
    OK(sim.host_alloc_mapped(sim.self, &host, &dev, 64));
    int rc = sim.stream_write_value(sim.self, NULL, dev, 1, true);
    cr_expect_eq(sim.classify(rc).status, GG_UNSUPPORTED, "%s", sim.code_name(rc));
    OK(sim.host_free_mapped(sim.self, host));
    leave(1, ctx);
}

/* The slot as the core reads it: an atomic load of host memory. */
static uint64_t slot64(const void *host)
{
    return __atomic_load_n((const uint64_t *)host, __ATOMIC_ACQUIRE);
}

Test(hip_sim, write_values_land_in_mapped_memory_after_the_work_before_them)
{
    gg__nctx ctx = enter(1);
    void *host = NULL;
    gg__dptr dev = 0;
    OK(sim.host_alloc_mapped(sim.self, &host, &dev, 64));
    cr_assert_not_null(host);
    cr_assert_neq(dev, 0);
    memset(host, 0, 64);
    gg__nmodule m = NULL;
    OK(sim.module_load_file(sim.self, &m, CORE_KERNELS));
    gg__nstream s = NULL;
    OK(sim.stream_create(sim.self, &s));
    launch_fill(m, s, 7u); /* synchronizes s */
    OK(sim.stream_write_value(sim.self, s, dev, UINT64_C(0x100000002), true));
    OK(sim.stream_write_value(sim.self, s, dev + 8, UINT64_C(0xAB00000005), false));
    OK(sim.stream_synchronize(sim.self, s));
    cr_expect_eq(slot64(host), UINT64_C(0x100000002), "64-bit store");
    uint32_t narrow = __atomic_load_n((const uint32_t *)((char *)host + 8), __ATOMIC_ACQUIRE);
    cr_expect_eq(narrow, 5u, "the 32-bit store keeps the low word only");
    /* The default stream too. */
    OK(sim.stream_write_value(sim.self, NULL, dev + 16, 9, true));
    OK(sim.ctx_synchronize(sim.self));
    cr_expect_eq(slot64((char *)host + 16), 9u);
    /* Misaligned and foreign addresses are refused. */
    int rc = sim.stream_write_value(sim.self, s, dev + 4, 1, true);
    cr_expect_eq(sim.classify(rc).status, GG_INVALID_ARGUMENT, "%s", sim.code_name(rc));
    uint64_t not_mapped = 0;
    rc = sim.stream_write_value(sim.self, s, (gg__dptr)(uintptr_t)&not_mapped, 1, true);
    cr_expect_eq(sim.classify(rc).status, GG_INVALID_ARGUMENT, "%s", sim.code_name(rc));
    OK(sim.stream_destroy(sim.self, s));
    OK(sim.module_unload(sim.self, m));
    OK(sim.host_free_mapped(sim.self, host));
    leave(1, ctx);
}

Test(hip_sim, a_write_value_queued_behind_a_faulting_kernel_never_lands)
{
    gg__nctx ctx = enter(1);
    void *host = NULL;
    gg__dptr dev = 0;
    OK(sim.host_alloc_mapped(sim.self, &host, &dev, 64));
    memset(host, 0, 64);
    gg__nmodule m = NULL;
    OK(sim.module_load_file(sim.self, &m, CORE_KERNELS));
    gg__nfunc touch = NULL;
    OK(sim.module_get_function(sim.self, &touch, m, "touch"));
    gg__dptr buf = 0;
    OK(sim.mem_alloc(sim.self, &buf, 64));
    gg__nstream s = NULL;
    OK(sim.stream_create(sim.self, &s));

    uint64_t ptr = buf, small = 64, huge = 1 << 20;
    const gg_dim3 one = { 1, 1, 1 };
    void *fine[] = { &ptr, &small };
    OK(sim.launch(sim.self, touch, &one, &one, 0, s, fine));
    OK(sim.stream_write_value(sim.self, s, dev, 1, true));
    void *faulting[] = { &ptr, &huge }; /* far past the allocation */
    int rc = sim.launch(sim.self, touch, &one, &one, 0, s, faulting);
    if (rc == 0)
        rc = sim.stream_write_value(sim.self, s, dev, 2, true);
    if (rc == 0)
        rc = sim.stream_synchronize(sim.self, s);
    cr_assert(sim.classify(rc).sticky, "%s is sticky", sim.code_name(rc));
    /* The host still reads the slot of the dead device: launch 1 finished,
     * the write after the fault was discarded. */
    cr_expect_eq(slot64(host), 1u);

    OK(sim.ctx_reset_primary(sim.self, 1));
    leave(1, ctx);
}

/* ------------------------------------------------------------------------ */
/* Through the public API ("sim-hip")                                       */
/* ------------------------------------------------------------------------ */

static void init_sim_hip(void)
{
    need_sim();
    unsetenv("GPUGUARD_BACKEND");
    unsetenv("GPUGUARD_HIP_LIBRARY");
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim-hip", .hip_library = GG_TEST_SIM_HIP };
    gg_status s = gg_init(&desc);
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    cr_assert_eq(s, GG_OK, "gg_init: %s: %s", gg_status_name(s), e.message);
}

static void shutdown_sim_hip(void)
{
    gg_shutdown();
}

#define GG_OK_(call)                                                                          \
    do {                                                                                      \
        gg_status gg__s = (call);                                                             \
        if (gg__s != GG_OK) {                                                                 \
            gg_error_info gg__e = GG_ERROR_INFO_INIT;                                                              \
            gg_last_error(&gg__e);                                                            \
            cr_assert_fail("%s returned %s: %s", #call, gg_status_name(gg__s), gg__e.message); \
        }                                                                                     \
    } while (0)

TestSuite(hip_sim_api, .init = init_sim_hip, .fini = shutdown_sim_hip);

Test(hip_sim_api, the_library_reports_the_hip_backend_and_its_devices)
{
    cr_expect_str_eq(gg_backend_name(), "hip");
    int count = 0;
    GG_OK_(gg_device_count(&count));
    cr_assert_eq(count, 2);
    gg_device_info info = GG_DEVICE_INFO_INIT;
    GG_OK_(gg_device_properties(0, &info));
    cr_expect_str_eq(info.backend, "hip");
    cr_expect(info.simulated);
    cr_expect(info.watchdog);
}

/* A context, a buffer filled by fill_u32 and read back. */
static void fill_and_check(gg_context ctx, uint32_t value)
{
    enum { N = 512 };
    gg_module m;
    GG_OK_(gg_module_create_from_file(ctx, CORE_KERNELS, NULL, &m));
    gg_kernel k;
    GG_OK_(gg_kernel_create(m, "fill_u32", &k));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(ctx, N * 4, NULL, &buf));
    uint64_t dptr = 0;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    uint32_t n = N;
    void *params[] = { &dptr, &value, &n };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .grid = { 2, 1, 1 }, .block = { 256, 1, 1 },
                         .params = params, .param_count = 3 };
    GG_OK_(gg_launch(&d));
    uint32_t out[N];
    GG_OK_(gg_memcpy_dtoh(out, buf, 0, sizeof out, GG_NO_STREAM));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], value, "word %d", i);
    GG_OK_(gg_buffer_destroy(buf));
    GG_OK_(gg_module_destroy(m));
}

Test(hip_sim_api, a_kernel_runs_through_the_public_api)
{
    gg_context ctx;
    GG_OK_(gg_context_create(1, NULL, &ctx));
    fill_and_check(ctx, 42);
    GG_OK_(gg_context_destroy(ctx));
}

/* An out-of-bounds touch kills the context; recovery brings it back. */
static void kill_and_recover(bool use_primary)
{
    gg_context_desc cd = { .struct_size = sizeof(gg_context_desc), .use_primary = use_primary };
    gg_context ctx;
    GG_OK_(gg_context_create(1, &cd, &ctx));
    gg_module m;
    GG_OK_(gg_module_create_from_file(ctx, CORE_KERNELS, NULL, &m));
    gg_kernel touch;
    GG_OK_(gg_kernel_create(m, "touch", &touch));
    gg_buffer buf;
    GG_OK_(gg_buffer_create(ctx, 64, NULL, &buf));
    uint64_t ptr = 0, bytes = 1 << 20;
    GG_OK_(gg_buffer_device_ptr(buf, &ptr));
    void *params[] = { &ptr, &bytes };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = touch, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
                         .params = params, .param_count = 2 };
    gg_status s = gg_launch(&d);
    if (s == GG_OK)
        s = gg_context_synchronize(ctx, GG_WAIT_MS(5000));
    cr_assert_eq(s, GG_ILLEGAL_ADDRESS, "%s", gg_status_name(s));
    cr_assert_eq(gg_context_state(ctx), GG_STATE_DEAD);
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(ctx, &death));
    cr_expect_str_eq(death.native_name, "hipErrorIllegalAddress");

    GG_OK_(gg_context_recover(ctx));
    cr_expect_eq(gg_context_state(ctx), GG_STATE_ALIVE);
    fill_and_check(ctx, 7);
    GG_OK_(gg_context_destroy(ctx));
}

Test(hip_sim_api, a_dead_primary_context_recovers)
{
    kill_and_recover(true);
}

Test(hip_sim_api, a_dead_own_context_recovers)
{
    /* On HIP both kinds are the primary context: recovery must reset it. */
    kill_and_recover(false);
}
