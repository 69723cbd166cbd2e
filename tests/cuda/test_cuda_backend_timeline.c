/*
 * The CUDA backend's entries for launch validation and completion
 * timelines, over the simulated driver: device limits, stream memory
 * operation support (as the device's attributes say, configurable in the
 * simulator), mapped host memory, stream write-values in stream order
 * around a faulting kernel, and kernel parameter info where the driver has
 * cuFuncGetParamInfo (12.4) and not below.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/backend.h"

#define SIM_LIBRARY GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so"
#define KERNELS GG_TEST_KERNEL_DIR "/sim_test_kernels.so"

#define OK(call) cr_assert_eq((call), 0, "%s", #call)

static gg__backend b;

/* Opens the backend over the simulator configured with `config` (NULL:
 * its defaults). Each test runs in a process of its own, so the
 * simulator's first configuration is this one. */
static void open_with(const char *config)
{
    if (access(SIM_LIBRARY, R_OK) != 0)
        cr_skip_test("the simulated driver is not built (" SIM_LIBRARY ")");
    if (config)
        setenv("GPUGUARD_SIM_CONFIG", config, 1);
    else
        unsetenv("GPUGUARD_SIM_CONFIG");
    gg__backend_open_result r = gg__cuda_backend_open(SIM_LIBRARY, &b);
    cr_assert_eq(r.status, GG_OK, "open: %s: %s", gg_status_name(r.status), r.message);
}

static void close_backend(void)
{
    if (b.close != NULL)
        b.close(b.self, true);
    memset(&b, 0, sizeof b);
}

TestSuite(cuda_sim_timeline, .fini = close_backend);

/* A context on device 1 (no watchdog), pushed. */
static gg__nctx enter_context(void)
{
    gg__nctx ctx = NULL;
    OK(b.ctx_create(b.self, 1, false, &ctx));
    OK(b.ctx_push(b.self, ctx));
    return ctx;
}

static uint64_t read_slot(const void *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

Test(cuda_sim_timeline, device_limits_and_stream_memory_operations_are_reported)
{
    open_with(NULL);
    cr_assert_not_null(b.kernel_params);
    cr_assert_not_null(b.host_alloc_mapped);
    cr_assert_not_null(b.host_free_mapped);
    cr_assert_not_null(b.stream_write_value);
    cr_expect_str_eq(b.op_names[GG__OP_STREAM_WRITE_VALUE], "cuStreamWriteValue64_v2");
    cr_expect_str_eq(b.op_names[GG__OP_KERNEL_PARAMS], "cuFuncGetParamInfo");
    cr_expect_str_eq(b.op_names[GG__OP_HOST_ALLOC_MAPPED], "cuMemHostAlloc");
    for (int dev = 0; dev < 2; dev++) {
        gg__device_props p;
        OK(b.device_props(b.self, dev, &p));
        cr_expect_eq(p.max_shared_per_block, 49152);
        cr_expect_eq(p.max_shared_per_block_optin, 166912);
        cr_expect(p.stream_write_value_32 && p.stream_write_value_64, "device %d", dev);
    }
}

Test(cuda_sim_timeline, support_follows_the_device_attributes)
{
    open_with("{\"devices\":[{\"name\":\"none\",\"stream_mem_ops\":false},"
              "{\"name\":\"narrow\",\"stream_mem_ops_64\":false}]}");
    gg__device_props p;
    OK(b.device_props(b.self, 0, &p));
    cr_expect(!p.stream_write_value_32 && !p.stream_write_value_64);
    /* With the _v2 API, 32-bit support is claimed only where the device
     * claims 64-bit operations (cuda.h has no attribute for 32-bit ones). */
    OK(b.device_props(b.self, 1, &p));
    cr_expect(!p.stream_write_value_32 && !p.stream_write_value_64);
}

/* Below CUDA 11.7 the 8.0/9.0 API is used, with its own two attributes: a
 * device may then have 32-bit operations only. */
Test(cuda_sim_timeline, a_driver_before_11_7_uses_the_first_api_and_its_attributes)
{
    if (access(GG_TEST_LIB_DIR "/libgpuguard_sim_cuda11.so", R_OK) != 0)
        cr_skip_test("libgpuguard_sim_cuda11.so is not built");
    setenv("GPUGUARD_SIM_CONFIG",
           "{\"driver_version\":11040,\"devices\":[{\"name\":\"a\"},"
           "{\"name\":\"narrow\",\"stream_mem_ops_64\":false}]}", 1);
    gg__backend_open_result r =
        gg__cuda_backend_open(GG_TEST_LIB_DIR "/libgpuguard_sim_cuda11.so", &b);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    cr_expect_str_eq(b.op_names[GG__OP_STREAM_WRITE_VALUE], "cuStreamWriteValue64");
    gg__device_props p;
    OK(b.device_props(b.self, 0, &p));
    cr_expect(p.stream_write_value_32 && p.stream_write_value_64);
    OK(b.device_props(b.self, 1, &p));
    cr_expect(p.stream_write_value_32 && !p.stream_write_value_64);
    gg__nctx ctx = enter_context();
    void *h = NULL;
    gg__dptr d = 0;
    OK(b.host_alloc_mapped(b.self, &h, &d, 16));
    memset(h, 0, 16);
    int rc = b.stream_write_value(b.self, NULL, d, 5, true);
    cr_expect_eq(b.classify(rc).status, GG_UNSUPPORTED, "%s", b.code_name(rc));
    OK(b.stream_write_value(b.self, NULL, d, 6, false));
    OK(b.ctx_synchronize(b.self));
    cr_expect_eq(__atomic_load_n((const uint32_t *)h, __ATOMIC_ACQUIRE), 6u);
    /* No cuFuncGetParamInfo on 11.4. */
    gg__nmodule m = NULL;
    gg__nfunc f = NULL;
    OK(b.module_load_file(b.self, &m, KERNELS));
    OK(b.module_get_function(b.self, &f, m, "fill"));
    bool known = true;
    size_t count = 99;
    OK(b.kernel_params(b.self, f, &known, &count, NULL, 0));
    cr_expect(!known);
    cr_expect_eq(count, 0u);
    OK(b.host_free_mapped(b.self, h));
    OK(b.ctx_pop(b.self, NULL));
    OK(b.ctx_destroy(b.self, 1, false, ctx));
}

Test(cuda_sim_timeline, a_write_value_after_a_completed_kernel_is_visible_on_the_host)
{
    open_with(NULL);
    gg__nctx ctx = enter_context();
    void *h = NULL;
    gg__dptr d = 0;
    OK(b.host_alloc_mapped(b.self, &h, &d, 64));
    cr_assert_not_null(h);
    cr_assert_neq(d, 0u);
    memset(h, 0, 64);
    gg__nstream s = NULL;
    OK(b.stream_create(b.self, &s));
    gg__nmodule m = NULL;
    gg__nfunc noop = NULL;
    OK(b.module_load_file(b.self, &m, KERNELS));
    OK(b.module_get_function(b.self, &noop, m, "noop"));
    const gg_dim3 one = { 1, 1, 1 };
    for (uint64_t seq = 1; seq <= 3; seq++) {
        OK(b.launch(b.self, noop, &one, &one, 0, s, NULL));
        OK(b.stream_write_value(b.self, s, d, seq, true));
    }
    OK(b.stream_write_value(b.self, s, d + 8, 77, false));
    OK(b.stream_synchronize(b.self, s));
    cr_expect_eq(read_slot(h), 3u);
    cr_expect_eq(__atomic_load_n((const uint32_t *)((char *)h + 8), __ATOMIC_ACQUIRE), 77u);
    /* Misaligned and foreign addresses are refused at the call. */
    cr_expect_eq(b.classify(b.stream_write_value(b.self, s, d + 4, 1, true)).status,
                 GG_INVALID_ARGUMENT);
    OK(b.stream_destroy(b.self, s));
    OK(b.module_unload(b.self, m));
    OK(b.host_free_mapped(b.self, h));
    OK(b.ctx_pop(b.self, NULL));
    OK(b.ctx_destroy(b.self, 1, false, ctx));
}

/* On each stream, the slot holds the value of the last launch that
 * completed: the one queued behind the faulting launch never lands, and
 * the slot stays readable in the dead context. */
Test(cuda_sim_timeline, values_queued_behind_a_faulting_kernel_never_land)
{
    open_with("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"fault\",\"launch\":3,"
              "\"error\":\"illegal_address\"}]}");
    gg__nctx ctx = enter_context();
    void *h = NULL;
    gg__dptr d = 0;
    OK(b.host_alloc_mapped(b.self, &h, &d, 16));
    memset(h, 0, 16);
    gg__nstream s = NULL, quiet = NULL;
    OK(b.stream_create(b.self, &s));
    OK(b.stream_create(b.self, &quiet));
    gg__nmodule m = NULL;
    gg__nfunc noop = NULL, spin = NULL;
    OK(b.module_load_file(b.self, &m, KERNELS));
    OK(b.module_get_function(b.self, &noop, m, "noop"));
    OK(b.module_get_function(b.self, &spin, m, "spin"));
    const gg_dim3 one = { 1, 1, 1 };
    /* The quiet stream's launch completes before anything faults. */
    OK(b.stream_write_value(b.self, quiet, d + 8, 10, true));
    OK(b.stream_synchronize(b.self, quiet));
    /* spin keeps the stream busy so that what follows is queued before
     * the fault runs (if not, the later calls fail with the sticky error:
     * the slot's value is the same). */
    unsigned ms = 50;
    void *spin_params[] = { &ms };
    OK(b.launch(b.self, spin, &one, &one, 0, s, spin_params));
    int last_rc = 0;
    for (uint64_t seq = 1; seq <= 5 && last_rc == 0; seq++) {
        last_rc = b.launch(b.self, noop, &one, &one, 0, s, NULL); /* #3 faults */
        if (last_rc == 0)
            last_rc = b.stream_write_value(b.self, s, d, seq, true);
    }
    int rc = b.stream_synchronize(b.self, s);
    cr_expect_eq(b.classify(rc).status, GG_ILLEGAL_ADDRESS, "%s", b.code_name(rc));
    cr_expect(b.classify(rc).sticky);
    cr_expect(last_rc == 0 || b.classify(last_rc).sticky, "%s", b.code_name(last_rc));
    cr_expect_eq(read_slot(h), 2u, "launch 3 faulted: the last value written is launch 2's");
    cr_expect_eq(read_slot((char *)h + 8), 10u);
    OK(b.ctx_pop(b.self, NULL));
    OK(b.ctx_destroy(b.self, 1, false, ctx));
}

Test(cuda_sim_timeline, fast_mode_writes_when_the_call_returns)
{
    open_with("{\"fast\":true}");
    gg__nctx ctx = enter_context();
    void *h = NULL;
    gg__dptr d = 0;
    OK(b.host_alloc_mapped(b.self, &h, &d, 8));
    OK(b.stream_write_value(b.self, NULL, d, 42, true));
    cr_expect_eq(read_slot(h), 42u);
    OK(b.host_free_mapped(b.self, h));
    OK(b.ctx_pop(b.self, NULL));
    OK(b.ctx_destroy(b.self, 1, false, ctx));
}

Test(cuda_sim_timeline, param_info_gives_the_declared_count_and_sizes)
{
    open_with(NULL);
    gg__nctx ctx = enter_context();
    gg__nmodule m = NULL;
    gg__nfunc fill = NULL, store = NULL, noop = NULL;
    OK(b.module_load_file(b.self, &m, KERNELS));
    OK(b.module_get_function(b.self, &fill, m, "fill"));
    OK(b.module_get_function(b.self, &store, m, "store_params"));
    OK(b.module_get_function(b.self, &noop, m, "noop"));
    bool known = false;
    size_t count = 0, sizes[8];
    OK(b.kernel_params(b.self, fill, &known, &count, sizes, 8));
    cr_expect(known);
    cr_expect_eq(count, 3u); /* fill(uint64_t, unsigned, unsigned) */
    cr_expect(sizes[0] == 8 && sizes[1] == 4 && sizes[2] == 4, "%zu %zu %zu", sizes[0],
              sizes[1], sizes[2]);
    memset(sizes, 0, sizeof sizes);
    OK(b.kernel_params(b.self, store, &known, &count, sizes, 2)); /* room for 2 of 3 */
    cr_expect(known);
    cr_expect_eq(count, 3u);
    cr_expect(sizes[0] == 8 && sizes[1] == 1 && sizes[2] == 0);
    OK(b.kernel_params(b.self, noop, &known, &count, NULL, 0));
    cr_expect(known);
    cr_expect_eq(count, 0u);
    OK(b.ctx_pop(b.self, NULL));
    OK(b.ctx_destroy(b.self, 1, false, ctx));
}

/* A 12.2 driver has no cuFuncGetParamInfo (12.4): unknown, not an error. */
Test(cuda_sim_timeline, param_info_is_unknown_below_12_4)
{
    open_with("{\"driver_version\":12020}");
    cr_expect_str_eq(b.op_names[GG__OP_KERNEL_PARAMS], "cuFuncGetParamInfo");
    gg__nctx ctx = enter_context();
    gg__nmodule m = NULL;
    gg__nfunc fill = NULL;
    OK(b.module_load_file(b.self, &m, KERNELS));
    OK(b.module_get_function(b.self, &fill, m, "fill"));
    bool known = true;
    size_t count = 7, sizes[4];
    OK(b.kernel_params(b.self, fill, &known, &count, sizes, 4));
    cr_expect(!known);
    cr_expect_eq(count, 0u);
    /* The write-value path is the _v2 one there. */
    cr_expect_str_eq(b.op_names[GG__OP_STREAM_WRITE_VALUE], "cuStreamWriteValue64_v2");
    OK(b.ctx_pop(b.self, NULL));
    OK(b.ctx_destroy(b.self, 1, false, ctx));
}
