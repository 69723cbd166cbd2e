/* Interop: the driver's own objects behind gg objects, and contexts,
 * streams, buffers and kernels made with the simulated driver's own calls
 * (behind gpuguard's back, as another library would) adopted as gg
 * objects. The native objects are checked afterwards with direct driver
 * calls: what gpuguard did not own must still work. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/launches.h"

/* ---- the simulated driver, called directly -------------------------------- */

static bool hip(void)
{
    return gg_test_backend_in_use()->hip;
}

/* The device raw contexts go on: a fresh CUDA context on device 1; on HIP
 * (one context per device) device 0's primary context. */
static int raw_device(void)
{
    return hip() ? 0 : 1;
}

#define SYM(T, name) ((T)gg_test_sim_symbol(name))

static void *raw_context(void)
{
    void *ctx = NULL;
    if (hip()) {
        cr_assert_eq(SYM(int (*)(void **, int), "hipDevicePrimaryCtxRetain")(&ctx, raw_device()), 0);
    } else {
        cr_assert_eq(SYM(int (*)(void **, unsigned, int), "cuCtxCreate_v2")(&ctx, 0, raw_device()), 0);
        void *popped = NULL; /* cuCtxCreate pushed it */
        cr_assert_eq(SYM(int (*)(void **), "cuCtxPopCurrent_v2")(&popped), 0);
        cr_assert_eq(popped, ctx);
    }
    return ctx;
}

/* Destroys a raw context: the driver's answer (0 only if it was still alive
 * to destroy, on CUDA; HIP's primary context is never destroyed). */
static int raw_context_destroy(void *ctx)
{
    if (hip())
        return SYM(int (*)(int), "hipDevicePrimaryCtxRelease")(raw_device());
    return SYM(int (*)(void *), "cuCtxDestroy_v2")(ctx);
}

static int raw_push(void *ctx)
{
    return SYM(int (*)(void *), hip() ? "hipCtxPushCurrent" : "cuCtxPushCurrent_v2")(ctx);
}

static void raw_pop(void)
{
    void *popped = NULL;
    cr_assert_eq(SYM(int (*)(void **), hip() ? "hipCtxPopCurrent" : "cuCtxPopCurrent_v2")(&popped), 0);
}

/* The calls below work in the current context (raw_push first). */
static void *raw_stream(void)
{
    void *s = NULL;
    cr_assert_eq(SYM(int (*)(void **, unsigned), hip() ? "hipStreamCreateWithFlags" : "cuStreamCreate")(&s, 1), 0);
    return s;
}

static int raw_stream_query(void *s)
{
    return SYM(int (*)(void *), hip() ? "hipStreamQuery" : "cuStreamQuery")(s);
}

static int raw_stream_destroy(void *s)
{
    return SYM(int (*)(void *), hip() ? "hipStreamDestroy" : "cuStreamDestroy_v2")(s);
}

static int raw_stream_sync(void *s)
{
    return SYM(int (*)(void *), hip() ? "hipStreamSynchronize" : "cuStreamSynchronize")(s);
}

static uint64_t raw_alloc(size_t bytes)
{
    if (hip()) {
        void *p = NULL;
        cr_assert_eq(SYM(int (*)(void **, size_t), "hipMalloc")(&p, bytes), 0);
        return (uint64_t)(uintptr_t)p;
    }
    uint64_t p = 0;
    cr_assert_eq(SYM(int (*)(uint64_t *, size_t), "cuMemAlloc_v2")(&p, bytes), 0);
    return p;
}

static int raw_free(uint64_t p)
{
    if (hip())
        return SYM(int (*)(void *), "hipFree")((void *)(uintptr_t)p);
    return SYM(int (*)(uint64_t), "cuMemFree_v2")(p);
}

static int raw_memset_async(uint64_t p, unsigned char value, size_t bytes, void *s)
{
    if (hip())
        return SYM(int (*)(void *, unsigned char, size_t, void *), "hipMemsetD8Async")((void *)(uintptr_t)p, value,
                                                                                      bytes, s);
    return SYM(int (*)(uint64_t, unsigned char, size_t, void *), "cuMemsetD8Async")(p, value, bytes, s);
}

static int raw_dtoh(void *dst, uint64_t src, size_t bytes)
{
    if (hip())
        return SYM(int (*)(void *, void *, size_t), "hipMemcpyDtoH")(dst, (void *)(uintptr_t)src, bytes);
    return SYM(int (*)(void *, uint64_t, size_t), "cuMemcpyDtoH_v2")(dst, src, bytes);
}

static void *raw_function(void *module, const char *name)
{
    void *f = NULL;
    cr_assert_eq(SYM(int (*)(void **, void *, const char *), hip() ? "hipModuleGetFunction" : "cuModuleGetFunction")(
                     &f, module, name), 0);
    return f;
}

typedef int (*raw_launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                             void **, void **);
static int raw_launch(void *f, void *stream, void **params)
{
    return SYM(raw_launch_fn, hip() ? "hipModuleLaunchKernel" : "cuLaunchKernel")(f, 1, 1, 1, 1, 1, 1, 0, stream,
                                                                                   params, NULL);
}

/* The test kernels loaded in ctx (adopted or not). */
static void load_kernels(gg_context ctx, gg_test_rig *rig)
{
    memset(rig, 0, sizeof *rig);
    rig->ctx = ctx;
    GG_OK_(gg_module_create_from_file(ctx, gg_test_kernel_module("core_kernels"), NULL, &rig->module));
    GG_OK_(gg_kernel_create(rig->module, "fill_u32", &rig->fill_u32));
    GG_OK_(gg_kernel_create(rig->module, "add_one_u32", &rig->add_one_u32));
    GG_OK_(gg_kernel_create(rig->module, "touch", &rig->touch));
    GG_OK_(gg_kernel_create(rig->module, "sleep_ms", &rig->sleep_ms));
}

static void expect_message(const char *needle)
{
    const char *m = gg_test_last_message();
    cr_assert(strstr(m, needle) != NULL, "expected \"%s\" in the message: %s", needle, m);
}

/* Recovering adopted contexts is among the subjects: the simulator keeps
 * errors per context here (launches.h, PER_CONTEXT_STICKY). */
static void setup(void)
{
    gg_test_init_sim("{" PER_CONTEXT_STICKY "}");
}

TestSuite(interop, .init = setup);

/* ---- adopted objects work, and outlive their gg objects -------------------- */

Test(interop, adopted_context_stream_and_buffer_run_launches_and_copies_and_stay_the_owners)
{
    enum { N = 1024 };
    void *native_ctx = raw_context();
    cr_assert_eq(raw_push(native_ctx), 0);
    void *native_stream = raw_stream();
    uint64_t native_mem = raw_alloc(N * 4);
    raw_pop();

    gg_context ctx;
    gg_stream stream;
    gg_buffer buf;
    GG_OK_(gg_context_adopt(native_ctx, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = "theirs" }, &ctx));
    GG_OK_(gg_stream_adopt(ctx, native_stream, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = "their stream" }, &stream));
    GG_OK_(gg_buffer_adopt(ctx, native_mem, N * 4, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = "their memory" }, &buf));
    void *back = NULL;
    GG_OK_(gg_context_native(ctx, &back));
    cr_assert_eq(back, native_ctx);
    GG_OK_(gg_stream_native(stream, &back));
    cr_assert_eq(back, native_stream);
    int device = -1;
    GG_OK_(gg_context_device(ctx, &device));
    cr_assert_eq(device, raw_device());

    gg_test_rig rig;
    load_kernels(ctx, &rig);
    GG_OK_(launch_fill(&rig, stream, buf, 41, N));
    uint64_t dptr = 0;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    cr_assert_eq(dptr, native_mem);
    uint32_t n = N;
    void *params[] = { &dptr, &n };
    gg_launch_desc add = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.add_one_u32, .stream = stream, .grid = { N / 256, 1, 1 },
                           .block = { 256, 1, 1 }, .params = params, .param_count = 2 };
    GG_OK_(gg_launch(&add));
    static uint32_t host[N];
    GG_OK_(gg_memcpy_dtoh(host, buf, 0, sizeof host, stream));
    GG_OK_(gg_stream_synchronize(stream, NULL));
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], 42u, "host[%d] = %u", i, host[i]);
    /* Bounds come from the adopted size. */
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memcpy_dtoh(host, buf, 4, sizeof host, stream));

    unsigned long long used = gg_test_sim_device_memory_used(raw_device());
    GG_OK_(gg_buffer_destroy(buf));
    GG_OK_(gg_stream_destroy(stream));
    GG_OK_(gg_context_destroy(ctx));
    cr_assert_eq(gg_test_sim_device_memory_used(raw_device()), used, "gpuguard freed memory it did not own");

    /* The owner's objects still work: the memory holds what gpuguard's
     * kernels wrote, the stream takes work, the context can be used. */
    cr_assert_eq(raw_push(native_ctx), 0);
    memset(host, 0, sizeof host);
    cr_assert_eq(raw_memset_async(native_mem, 0, 4, native_stream), 0); /* first element only */
    cr_assert_eq(raw_stream_sync(native_stream), 0);
    cr_assert_eq(raw_dtoh(host, native_mem, sizeof host), 0);
    cr_assert_eq(host[0], 0u);
    cr_assert_eq(host[1], 42u);
    cr_assert_eq(host[N - 1], 42u);
    cr_assert_eq(raw_free(native_mem), 0);
    cr_assert_eq(raw_stream_destroy(native_stream), 0);
    raw_pop();
    cr_assert_eq(raw_context_destroy(native_ctx), 0, "the native context was destroyed by gpuguard");
    gg_test_finish();
}

Test(interop, owned_adoption_frees_and_destroys_the_native_objects)
{
    gg_context ctx;
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "ours" }, &ctx));
    void *native_ctx = NULL;
    GG_OK_(gg_context_native(ctx, &native_ctx));
    cr_assert_eq(raw_push(native_ctx), 0);
    unsigned long long before = gg_test_sim_device_memory_used(0);
    uint64_t mem = raw_alloc(8192);
    void *native_stream = raw_stream();
    raw_pop();
    cr_assert_eq(gg_test_sim_device_memory_used(0), before + 8192);

    gg_adopt_desc owned = { .struct_size = sizeof(gg_adopt_desc), .tag = "owned", .take_ownership = true };
    gg_buffer buf;
    gg_stream stream;
    GG_OK_(gg_buffer_adopt(ctx, mem, 8192, &owned, &buf));
    GG_OK_(gg_stream_adopt(ctx, native_stream, &owned, &stream));
    GG_OK_(gg_memset(buf, 0, 1, 8192, stream));
    GG_OK_(gg_stream_synchronize(stream, NULL));
    GG_OK_(gg_buffer_destroy(buf));
    cr_assert_eq(gg_test_sim_device_memory_used(0), before, "the owned buffer was not freed");
    GG_OK_(gg_stream_destroy(stream));
    cr_assert_eq(raw_push(native_ctx), 0);
    cr_assert_neq(raw_stream_query(native_stream), 0, "the owned stream was not destroyed");
    raw_pop();
    GG_OK_(gg_context_destroy(ctx));

    /* An owned context: destroyed with its gg context (CUDA; HIP's primary
     * context is released, which destroys nothing, so there is nothing to
     * see there). */
    if (!hip()) {
        void *raw = raw_context();
        gg_context adopted;
        GG_OK_(gg_context_adopt(raw, &owned, &adopted));
        GG_OK_(gg_context_destroy(adopted));
        cr_assert_neq(raw_push(raw), 0, "the owned native context is still alive");
    }
    gg_test_finish();
}

/* ---- dead adopted contexts ------------------------------------------------- */

Test(interop, a_fault_in_an_adopted_context_is_attributed_and_recover_is_refused)
{
    void *native_ctx = raw_context();
    cr_assert_eq(raw_push(native_ctx), 0);
    uint64_t mem = raw_alloc(4096);
    raw_pop();
    gg_context ctx;
    gg_buffer buf;
    GG_OK_(gg_context_adopt(native_ctx, NULL, &ctx));
    GG_OK_(gg_buffer_adopt(ctx, mem, 4096, NULL, &buf));
    gg_test_rig rig;
    load_kernels(ctx, &rig);
    kill_with_illegal_address(&rig, buf);
    gg_error_info e = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(ctx, &e));
    cr_assert_eq(e.status, GG_ILLEGAL_ADDRESS);
    cr_assert_eq(e.culprit.certainty, GG_ATTRIBUTION_EXACT);
    cr_assert_str_eq(e.culprit.kernel_name, "touch");
    cr_assert_eq(gg_context_state(ctx), GG_STATE_DEAD);
    /* Fail-fast as for gpuguard's own contexts; the native handle is still given. */
    GG_EXPECT(GG_CONTEXT_DEAD, gg_memset(buf, 0, 0, 16, GG_NO_STREAM));
    void *back = NULL;
    GG_OK_(gg_context_native(ctx, &back));
    cr_assert_eq(back, native_ctx);

    GG_EXPECT(GG_UNSUPPORTED, gg_context_recover(ctx));
    expect_message("allow_reset");
    expect_message("its owner holds");
    cr_assert_eq(gg_context_state(ctx), GG_STATE_DEAD);
    GG_OK_(gg_context_destroy(ctx));
    if (!hip())
        cr_assert_eq(raw_context_destroy(native_ctx), 0, "gpuguard destroyed the dead native context");
    gg_test_finish();
}

Test(interop, recover_with_allow_reset_replaces_the_adopted_context)
{
    void *native_ctx = raw_context();
    gg_context ctx;
    GG_OK_(gg_context_adopt(native_ctx, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .allow_reset = true }, &ctx));
    gg_test_rig rig;
    load_kernels(ctx, &rig);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(ctx, 4096, NULL, &buf));
    kill_with_illegal_address(&rig, buf);
    GG_OK_(gg_context_recover(ctx));
    cr_assert_eq(gg_context_state(ctx), GG_STATE_ALIVE);
    GG_OK_(gg_buffer_create(ctx, 4096, NULL, &buf));
    GG_OK_(gg_memset(buf, 0, 7, 4096, GG_NO_STREAM));
    if (!hip()) /* recovery destroyed the adopted native context */
        cr_assert_neq(raw_push(native_ctx), 0, "the dead native context was not destroyed by the recover");
    GG_OK_(gg_context_destroy(ctx));
    gg_test_finish();
}

/* ---- someone's primary context (PyTorch's, CuPy's) ------------------------ */

static void *raw_primary_retain(void)
{
    void *p = NULL;
    cr_assert_eq(SYM(int (*)(void **, int), hip() ? "hipDevicePrimaryCtxRetain" : "cuDevicePrimaryCtxRetain")(
                     &p, raw_device()), 0);
    return p;
}

static int raw_primary_release(void)
{
    return SYM(int (*)(int), hip() ? "hipDevicePrimaryCtxRelease" : "cuDevicePrimaryCtxRelease_v2")(raw_device());
}

/* Whether the device's primary context is retained by anyone. HIP keeps a
 * primary context for the life of the process (ROCm, and the simulator's
 * HIP face, never release it): always active there. */
static bool raw_primary_active(void)
{
    if (hip())
        return true;
    unsigned flags = 0;
    int active = -1;
    cr_assert_eq(SYM(int (*)(int, unsigned *, int *), "cuDevicePrimaryCtxGetState")(raw_device(), &flags, &active),
                 0);
    return active != 0;
}

static unsigned long long ctx_destroys(void)
{
    return hip() ? 0 : gg_test_sim_call_count("cuCtxDestroy_v2");
}

Test(interop, a_primary_context_is_released_never_destroyed)
{
    void *primary = raw_primary_retain(); /* the owner's reference */
    unsigned long long destroys = ctx_destroys();
    /* Borrowed: destroying the gg context leaves it as it was. */
    gg_context ctx;
    GG_OK_(gg_context_adopt(primary, NULL, &ctx));
    GG_OK_(gg_context_destroy(ctx));
    cr_assert(raw_primary_active(), "the borrowed primary context was released");
    cr_assert_eq(raw_push(primary), 0);
    raw_pop();

    /* Owned: gpuguard takes over one reference and releases it, once. */
    void *again = raw_primary_retain(); /* a second reference, handed over */
    cr_assert_eq(again, primary);
    gg_adopt_desc owned = { .struct_size = sizeof(gg_adopt_desc), .tag = "torch's", .take_ownership = true };
    GG_OK_(gg_context_adopt(primary, &owned, &ctx));
    GG_OK_(gg_context_destroy(ctx));
    cr_assert_eq(ctx_destroys(), destroys, "a primary context was cuCtxDestroy'ed");
    cr_assert(raw_primary_active(), "gpuguard released more than the one reference it was given");
    cr_assert_eq(raw_primary_release(), 0, "the owner's own reference is gone");
    cr_assert(hip() || !raw_primary_active(), "the reference handed to gpuguard was never released");
    gg_test_finish();
}

Test(interop, recovering_a_primary_context_resets_it_and_leaves_the_owner_its_reference)
{
    void *primary = raw_primary_retain();
    unsigned long long destroys = ctx_destroys();
    unsigned long long resets = gg_test_sim_call_count(hip() ? "hipDeviceReset" : "cuDevicePrimaryCtxReset_v2");
    gg_context ctx;
    GG_OK_(gg_context_adopt(primary, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .allow_reset = true }, &ctx));
    gg_test_rig rig;
    load_kernels(ctx, &rig);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(ctx, 4096, NULL, &buf));
    kill_with_illegal_address(&rig, buf);
    GG_OK_(gg_context_recover(ctx));
    cr_assert_eq(gg_context_state(ctx), GG_STATE_ALIVE);
    cr_assert_eq(gg_test_sim_call_count(hip() ? "hipDeviceReset" : "cuDevicePrimaryCtxReset_v2"), resets + 1,
                 "the dead primary context was not reset");
    cr_assert_eq(ctx_destroys(), destroys, "a primary context was cuCtxDestroy'ed");
    GG_OK_(gg_buffer_create(ctx, 4096, NULL, &buf));
    GG_OK_(gg_memset(buf, 0, 7, 4096, GG_NO_STREAM));
    GG_OK_(gg_context_destroy(ctx)); /* releases gpuguard's own retain of the fresh one */
    cr_assert(raw_primary_active(), "the owner's reference went with gpuguard's");
    cr_assert_eq(raw_primary_release(), 0, "the owner's reference is gone");
    gg_test_finish();
}

Test(interop, a_fault_of_work_gpuguard_did_not_submit_is_reported_with_no_culprit)
{
    void *native_ctx = raw_context();
    cr_assert_eq(raw_push(native_ctx), 0);
    void *native_stream = raw_stream();
    uint64_t mem = raw_alloc(4096);
    raw_pop();
    gg_context ctx;
    GG_OK_(gg_context_adopt(native_ctx, NULL, &ctx));
    gg_test_rig rig;
    load_kernels(ctx, &rig);
    void *module = NULL;
    GG_OK_(gg_module_native(rig.module, &module));
    void *touch = raw_function(module, "touch");

    /* The owner launches on its own stream, out of bounds. */
    cr_assert_eq(raw_push(native_ctx), 0);
    uint64_t bytes = 1u << 30;
    void *params[] = { &mem, &bytes };
    cr_assert_eq(raw_launch(touch, native_stream, params), 0);
    cr_assert_neq(raw_stream_sync(native_stream), 0);
    raw_pop();

    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(ctx, NULL));
    gg_error_info e = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(ctx, &e));
    cr_assert_eq(e.culprit.certainty, GG_ATTRIBUTION_NONE, "culprit %s for work gpuguard never launched",
                 e.culprit.kernel_name);
    GG_OK_(gg_context_destroy(ctx));
    if (!hip())
        cr_assert_eq(raw_context_destroy(native_ctx), 0);
    gg_test_finish();
}

/* ---- kernels ---------------------------------------------------------------- */

Test(interop, an_adopted_kernel_launches_and_is_named_as_the_culprit)
{
    gg_test_rig rig = { 0 };
    GG_OK_(gg_context_create(0, NULL, &rig.ctx));
    GG_OK_(gg_module_create_from_file(rig.ctx, gg_test_kernel_module("core_kernels"), NULL, &rig.module));
    void *module = NULL;
    GG_OK_(gg_module_native(rig.module, &module));
    void *native_touch = raw_function(module, "touch"); /* looked up outside gpuguard */
    gg_kernel adopted;
    GG_OK_(gg_kernel_adopt(rig.ctx, native_touch, "their_touch", NULL, &adopted));
    void *back = NULL;
    GG_OK_(gg_kernel_native(adopted, &back));
    cr_assert_eq(back, native_touch);
    const char *name = NULL;
    GG_OK_(gg_kernel_name(adopted, &name));
    cr_assert_str_eq(name, "their_touch");

    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr = 0;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    uint64_t bytes = 4096;
    void *params[] = { &dptr, &bytes };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = adopted, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                         .param_count = 2 };
    GG_OK_(gg_launch(&d));
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    bytes = 1u << 30;
    GG_OK_(gg_launch(&d));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(rig.ctx, NULL));
    gg_error_info e = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &e));
    cr_assert_str_eq(e.culprit.kernel_name, "their_touch");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- refusals --------------------------------------------------------------- */

Test(interop, bad_adoptions_are_refused_with_messages)
{
    gg_context ctx, out_ctx;
    gg_stream out_stream;
    gg_buffer out_buf;
    gg_kernel out_kernel;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_adopt(NULL, NULL, &out_ctx));
    expect_message("native_ctx is NULL");
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_adopt((void *)0x1, NULL, NULL));
    GG_EXPECT(GG_INVALID_HANDLE, gg_context_adopt((void *)(uintptr_t)0x7777000, NULL, &out_ctx));
    expect_message("is not a context the driver knows");
    cr_assert_eq(out_ctx.id, 0);

    void *native_ctx = raw_context();
    GG_OK_(gg_context_adopt(native_ctx, NULL, &ctx));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_adopt(native_ctx, NULL, &out_ctx));
    expect_message("already");

    /* Streams. */
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_stream_adopt(ctx, NULL, NULL, &out_stream));
    expect_message("default stream");
    cr_assert_eq(raw_push(native_ctx), 0);
    void *native_stream = raw_stream();
    uint64_t mem = raw_alloc(4096);
    raw_pop();
    gg_stream stream;
    GG_OK_(gg_stream_adopt(ctx, native_stream, NULL, &stream));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_stream_adopt(ctx, native_stream, NULL, &out_stream));
    expect_message("already");
    cr_assert_eq(out_stream.id, 0);

    /* Buffers. */
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_adopt(ctx, 0, 16, NULL, &out_buf));
    expect_message("device_ptr is 0");
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_adopt(ctx, mem, 0, NULL, &out_buf));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_adopt(ctx, UINT64_MAX - 8, 16, NULL, &out_buf));
    gg_buffer buf;
    GG_OK_(gg_buffer_adopt(ctx, mem, 4096, NULL, &buf));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_adopt(ctx, mem, 64, NULL, &out_buf));
    expect_message("already");

    /* Kernels. */
    gg_test_rig rig;
    load_kernels(ctx, &rig);
    void *native_kernel = NULL;
    GG_OK_(gg_kernel_native(rig.touch, &native_kernel));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_adopt(ctx, NULL, "k", NULL, &out_kernel));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_adopt(ctx, native_kernel, "", NULL, &out_kernel));
    expect_message("name is empty");
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_adopt(ctx, native_kernel, "again", NULL, &out_kernel));
    expect_message("already");

    /* Native handles of gone ids, and NULL outs. */
    void *native = NULL;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_stream_native(stream, NULL));
    GG_EXPECT(GG_INVALID_HANDLE, gg_stream_native((gg_stream){ 0 }, &native));
    GG_EXPECT(GG_INVALID_HANDLE, gg_context_native((gg_context){ stream.id }, &native));
    gg_event event;
    GG_OK_(gg_event_create(ctx, NULL, &event));
    GG_OK_(gg_event_native(event, &native));
    cr_assert_not_null(native);
    GG_OK_(gg_event_destroy(event));
    GG_EXPECT(GG_INVALID_HANDLE, gg_event_native(event, &native));
    cr_assert_null(native);

    GG_OK_(gg_context_destroy(ctx));
    cr_assert_eq(raw_push(native_ctx), 0);
    cr_assert_eq(raw_free(mem), 0);
    cr_assert_eq(raw_stream_destroy(native_stream), 0);
    raw_pop();
    if (!hip())
        cr_assert_eq(raw_context_destroy(native_ctx), 0);
    gg_test_finish();
}

/* A context on another device than gpuguard's context below (device 0):
 * CUDA's raw context is on device 1; on HIP, device 1's primary context. */
static void *raw_other_device_context(void)
{
    if (!hip())
        return raw_context();
    void *ctx = NULL;
    cr_assert_eq(SYM(int (*)(void **, int), "hipDevicePrimaryCtxRetain")(&ctx, 1), 0);
    return ctx;
}

Test(interop, memory_and_streams_the_driver_places_elsewhere_are_refused)
{
    void *other = raw_other_device_context();
    cr_assert_eq(raw_push(other), 0);
    void *other_stream = raw_stream();
    uint64_t other_mem = raw_alloc(4096);
    raw_pop();
    gg_context ctx;
    GG_OK_(gg_context_create(0, NULL, &ctx));
    void *native_ctx = NULL;
    GG_OK_(gg_context_native(ctx, &native_ctx));
    cr_assert_eq(raw_push(native_ctx), 0);
    uint64_t mem = raw_alloc(4096);
    raw_pop();

    gg_stream out_stream;
    gg_buffer out_buf;
    if (hip()) {
        /* HIP 5.2.3 has no query for a stream's device: accepted (the
         * contract of gg_stream_adopt says so); only known streams are. */
        GG_OK_(gg_stream_adopt(ctx, other_stream, NULL, &out_stream));
        GG_OK_(gg_stream_destroy(out_stream));
    } else {
        GG_EXPECT(GG_WRONG_CONTEXT, gg_stream_adopt(ctx, other_stream, NULL, &out_stream));
        expect_message("belongs to native context");
    }
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_stream_adopt(ctx, (void *)(uintptr_t)0x7777000, NULL, &out_stream));
    expect_message("not a stream the driver knows");
    GG_EXPECT(GG_WRONG_CONTEXT, gg_buffer_adopt(ctx, other_mem, 4096, NULL, &out_buf));
    expect_message("memory of native context");
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_adopt(ctx, 0x10, 16, NULL, &out_buf));
    expect_message("not in any allocation the driver knows");
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_adopt(ctx, mem + 16, 4096, NULL, &out_buf));
    expect_message("runs past its allocation");
    GG_EXPECT(GG_INVALID_ARGUMENT,
              gg_buffer_adopt(ctx, mem + 16, 64, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .take_ownership = true }, &out_buf));
    expect_message("take_ownership needs a whole allocation");
    /* Part of an allocation, not owned, is fine (a caching allocator's block). */
    GG_OK_(gg_buffer_adopt(ctx, mem + 16, 64, NULL, &out_buf));
    cr_assert_eq(gg_test_sim_call_count(hip() ? "hipPointerGetAttribute" : "cuPointerGetAttribute") > 0, true);

    GG_OK_(gg_context_destroy(ctx));
    cr_assert_eq(raw_push(other), 0);
    cr_assert_eq(raw_stream_destroy(other_stream), 0);
    cr_assert_eq(raw_free(other_mem), 0);
    raw_pop();
    if (!hip()) /* HIP's primary context of device 1 stays, as ROCm keeps it */
        cr_assert_eq(raw_context_destroy(other), 0);
    gg_test_finish();
}

/* ---- native handles used outside gpuguard ------------------------------------ */

Test(interop, work_queued_on_a_native_stream_is_ordered_with_gpuguards)
{
    enum { N = 4096 };
    gg_test_rig rig;
    gg_test_rig_open(&rig, 0);
    gg_stream stream;
    gg_buffer buf;
    GG_OK_(gg_stream_create(rig.ctx, NULL, &stream));
    GG_OK_(gg_buffer_create(rig.ctx, N * 4, NULL, &buf));
    void *native_ctx = NULL, *native_stream = NULL;
    GG_OK_(gg_context_native(rig.ctx, &native_ctx));
    GG_OK_(gg_stream_native(stream, &native_stream));
    uint64_t dptr = 0;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));

    /* gpuguard: sleep, then fill with 7; outside: memset 0x11; gpuguard: +1.
     * The sleep keeps the stream busy while the rest is queued, so a memset
     * that ignored the stream's order would land before the fill. */
    GG_OK_(launch_sleep(&rig, stream, 20));
    GG_OK_(launch_fill(&rig, stream, buf, 7, N));
    cr_assert_eq(raw_push(native_ctx), 0);
    cr_assert_eq(raw_memset_async(dptr, 0x11, N * 4, native_stream), 0);
    raw_pop();
    uint32_t n = N;
    void *params[] = { &dptr, &n };
    gg_launch_desc add = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.add_one_u32, .stream = stream, .grid = { N / 256, 1, 1 },
                           .block = { 256, 1, 1 }, .params = params, .param_count = 2 };
    GG_OK_(gg_launch(&add));
    static uint32_t host[N];
    GG_OK_(gg_memcpy_dtoh(host, buf, 0, sizeof host, stream));
    GG_OK_(gg_stream_synchronize(stream, NULL));
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], 0x11111112u, "host[%d] = 0x%x", i, host[i]);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(interop, native_handles_are_given_in_a_forked_child)
{
    gg_test_rig rig;
    gg_test_rig_open(&rig, 0);
    void *native_ctx = NULL, *native_kernel = NULL;
    GG_OK_(gg_context_native(rig.ctx, &native_ctx));
    GG_OK_(gg_kernel_native(rig.touch, &native_kernel));
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        void *a = NULL, *b = NULL;
        bool ok = gg_context_state(rig.ctx) == GG_STATE_FORKED && gg_context_native(rig.ctx, &a) == GG_OK &&
                  a == native_ctx && gg_kernel_native(rig.touch, &b) == GG_OK && b == native_kernel;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child did not get the native handles");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
