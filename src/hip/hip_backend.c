/*
 * The HIP backend: gg__backend over the HIP runtime (libamdhip64), through
 * the pointers of a gghip_runtime (hip_loader.c). Each function is one
 * runtime call, or a few when the portable operation needs them. Every
 * function returns the runtime's hipError_t; src/common classifies it.
 *
 * The context model, and how it differs from CUDA's
 * ---------------------------------------------------
 * HIP has no contexts of its own. Each device has exactly one context, its
 * primary context (a hipCtx_t is the device itself), and each thread has a
 * current device (hipSetDevice), device 0 until it sets another. The
 * deprecated hipCtx* calls (still exported by ROCm 5 and 6) are thin layers
 * over that: hipCtxGetCurrent returns the current device's context, so it is
 * never NULL while the runtime has a device; hipCtxSetCurrent and
 * hipCtxPushCurrent make the context's device current and replace, or push
 * onto, a per-thread stack; hipCtxPopCurrent pops that stack but leaves the
 * current device as it was. The backend maps gpuguard's operations so:
 *
 *   ctx_create(device, use_primary)  hipDevicePrimaryCtxRetain; use_primary
 *       makes no difference. Two gpuguard contexts on one HIP device are the
 *       same native context and share fate: a sticky error in one is there
 *       in the other (each turns DEAD when one of its own calls sees it),
 *       and recovering one resets the device under the other.
 *       If a call on the device returned a sticky code since its last reset
 *       (the backend notes it: see watch()), the device is reset first
 *       (as ctx_reset_primary does): on CUDA a new context is a fresh one,
 *       and on HIP only a reset makes it so. This is what lets
 *       gg_context_recover of a use_primary = false context (destroy, then
 *       create) come back ALIVE. A context killed without a sticky code (a
 *       host wait deadline) is not reset this way.
 *   ctx_destroy                      hipDevicePrimaryCtxRelease, which by
 *       design releases nothing. Destroying a gpuguard context frees what
 *       gpuguard frees explicitly (its children, while it is ALIVE); what a
 *       DEAD context held stays allocated until the device is reset.
 *   ctx_reset_primary(device)        hipDeviceReset, with `device` made
 *       current by hipSetDevice and the caller's device restored after.
 *       Not hipDevicePrimaryCtxReset: in ROCm 5 and 6 it returns hipSuccess
 *       and does nothing. hipDeviceReset destroys every stream, event and
 *       allocation of the device, including those that code outside
 *       gpuguard made on it in the same process.
 *   ctx_get_current                  hipCtxGetCurrent (the current device's
 *       context; NULL only from a runtime that has none).
 *   ctx_set_current                  hipCtxSetCurrent: sets the current
 *       device (as hipSetDevice does) and replaces the top of the stack;
 *       NULL pops the top and keeps the current device.
 *   ctx_push                         hipCtxPushCurrent.
 *   ctx_pop                          hipCtxPopCurrent, then the device of
 *       the new top of the stack is made current again (HIP's pop leaves the
 *       popped context's device current; CUDA's makes the new top current).
 *       With the stack empty the popped device stays current: HIP always
 *       has one.
 *   ctx_synchronize                  hipDeviceSynchronize (all streams of
 *       the current device).
 *
 * On ROCm a GPU memory fault usually aborts the whole process inside ROCr
 * before any error is returned; gpuguard cannot prevent that.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "common/backend.h"
#include "hip/hip_abi.h"
#include "hip/hip_errors.h"
#include "hip/hip_loader.h"

/* The backend's self: the loaded runtime (read-only after open) and the one
 * thing HIP does not keep for us, which devices' primary contexts died. */
typedef struct hip_backend {
    gghip_runtime rt;
    /* Bit d set: a call on device d returned a sticky code, and the device
     * has not been reset since. Devices 64 and up are not tracked (their new
     * contexts are never reset). */
    _Atomic uint64_t dead_devices;
    /* Resets of each device (reset_device), for backend.h's device_resets;
     * devices 64 and up are not counted. */
    _Atomic unsigned resets[64];
} hip_backend;

static inline hip_backend *backend_of(void *self)
{
    return (hip_backend *)self;
}

/* Recovers the runtime from the backend's opaque self. */
static inline const gghip_runtime *rt_of(void *self)
{
    return &backend_of(self)->rt;
}

static inline uint64_t device_bit(int device)
{
    return device >= 0 && device < 64 ? UINT64_C(1) << device : 0;
}

/* Passes a work call's result through, noting the current device as dead
 * when the code is sticky. Calls run with the gpuguard context's device
 * current, so the current device is the one that died. Only failures pay
 * for the check (NOT_READY, the polling answer, is never sticky). */
static int watch(void *self, gghip_error rc)
{
    if (rc != GGHIP_Success && rc != GGHIP_ErrorNotReady && gg__hip_classify((int)rc).sticky) {
        hip_backend *b = backend_of(self);
        int device = -1;
        if (b->rt.hipGetDevice(&device) == GGHIP_Success)
            atomic_fetch_or(&b->dead_devices, device_bit(device));
    }
    return (int)rc;
}

/* hipDeviceptr_t is a pointer on the AMD platform; gpuguard's device
 * addresses are 64-bit integers. */
static inline gghip_deviceptr dptr_in(gg__dptr p)
{
    return (gghip_deviceptr)(uintptr_t)p;
}

/* The HIP device for an ordinal: hipDevice_t is the ordinal itself in ROCm,
 * but hipDeviceGet is the documented way to get one (and checks the range). */
static int device_of(const gghip_runtime *rt, int ordinal, gghip_device *dev)
{
    *dev = 0;
    return (int)rt->hipDeviceGet(dev, ordinal);
}

/* hipDeviceReset resets the calling thread's current device. The caller's
 * device is saved and restored with hipGetDevice/hipSetDevice, which leave
 * the context stack alone (hipCtxSetCurrent would not). */
static int reset_device(void *self, int device)
{
    hip_backend *b = backend_of(self);
    const gghip_runtime *rt = &b->rt;
    int saved = 0;
    int rc = (int)rt->hipGetDevice(&saved);
    if (rc != GGHIP_Success)
        return rc;
    rc = (int)rt->hipSetDevice(device);
    if (rc != GGHIP_Success)
        return rc;
    rc = (int)rt->hipDeviceReset();
    if (device >= 0 && device < 64)
        atomic_fetch_add(&b->resets[device], 1);
    int restored = (int)rt->hipSetDevice(saved);
    if (rc == GGHIP_Success)
        atomic_fetch_and(&b->dead_devices, ~device_bit(device));
    return rc != GGHIP_Success ? rc : restored;
}

/* ---- devices ---------------------------------------------------------- */

/* Entry points in GGHIP_SYMBOL_LIST order: unversioned (plain dlsym of the
 * name the loaded ABI's table gives). */
static const bool hip_entry_required[GGHIP_SYMBOL_COUNT] = {
#define GGHIP__REQUIRED(name, need) [GGHIP_SYM_##name] = GGHIP__NEED_IS_REQUIRED_##need,
    GGHIP_SYMBOL_LIST(GGHIP__REQUIRED)
#undef GGHIP__REQUIRED
};

static bool hip_entry_point(void *self, size_t index, gg_entry_point_info *out)
{
    static const char *const names[GGHIP_SYMBOL_COUNT] = {
#define GGHIP__NAME(name, need) [GGHIP_SYM_##name] = #name,
        GGHIP_SYMBOL_LIST(GGHIP__NAME)
#undef GGHIP__NAME
    };
    const gghip_runtime *rt = rt_of(self);
    if (index >= GGHIP_SYMBOL_COUNT)
        return false;
    /* Which members are set is known by name only: look it up again (cheap,
     * and this is a diagnostics call). */
    void *fn = dlsym(rt->handle, rt->abi->symbols[index]);
    out->name = names[index];
    out->variant = fn != NULL ? rt->abi->symbols[index] : NULL;
    out->abi_version = 0;
    out->resolved_by = "dlsym";
    out->required = hip_entry_required[index];
    return true;
}

static int hip_driver_version(void *self, int *version)
{
    return (int)rt_of(self)->hipDriverGetVersion(version);
}

static int hip_device_count(void *self, int *count)
{
    return (int)rt_of(self)->hipGetDeviceCount(count);
}

/* Whether the device runs stream write-value operations into mapped host
 * memory (props.stream_write_value_32/64), from what the device reports.
 *
 * HIP has no attribute that says "stream write-value supported" (CUDA's
 * CAN_USE_STREAM_MEM_OPS has no HIP twin in 5.0-6.2). What it has, and what
 * this takes as the answer, all three required:
 *  - the entry points: hipStreamWriteValue32 / 64 (node hip_4.4) and
 *    hipHostGetDevicePointer resolved (per width);
 *  - hipDeviceAttributeCanMapHostMemory != 0: the timeline's slot is
 *    mapped host memory (hipHostMalloc(mapped));
 *  - hipDeviceAttributeCanUseStreamWaitValue != 0: HIP's only attribute
 *    about stream memory operations. Its header speaks of
 *    hipStreamWaitValue32/64 only (one attribute for both widths). In ROCm's
 *    own runtime (ROCm/clr rocm-5.6.0 .. rocm-6.2.2) it reports the device
 *    info aqlBarrierValue_, which ROCclr sets true for every device under
 *    the comment "Enable StreamWrite and StreamWait for all devices", and
 *    the write path (ihipStreamOperation) checks no capability. So on ROCm
 *    it says yes wherever writes run; taking it is the conservative
 *    choice: a runtime that said no would lose the timeline, never get one
 *    it cannot run.
 * Limits: this is not a query of the write operation itself; a runtime
 * whose writes fail anyway is found at the first write (the core then
 * gets hipErrorNotSupported or the runtime's code from stream_write_value).
 * An attribute the runtime does not know (hipErrorInvalidValue) counts as
 * "not supported"; any other failure of the query is returned. */
static int write_value_support(const gghip_runtime *rt, gghip_device dev, gg__device_props *out)
{
    out->stream_write_value_32 = false;
    out->stream_write_value_64 = false;
    bool entry_32 = rt->hipStreamWriteValue32 != NULL;
    bool entry_64 = rt->hipStreamWriteValue64 != NULL;
    if ((!entry_32 && !entry_64) || rt->hipHostGetDevicePointer == NULL)
        return GGHIP_Success;
    const gghip_device_attribute attrs[] = { rt->abi->attr_can_map_host_memory,
                                             rt->abi->attr_can_use_stream_wait_value };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int value = 0;
        gghip_error rc = rt->hipDeviceGetAttribute(&value, attrs[i], dev);
        if (rc == GGHIP_ErrorInvalidValue)
            return GGHIP_Success;
        if (rc != GGHIP_Success)
            return (int)rc;
        if (value == 0)
            return GGHIP_Success;
    }
    out->stream_write_value_32 = entry_32;
    out->stream_write_value_64 = entry_64;
    return GGHIP_Success;
}

static int hip_device_props(void *self, int device, gg__device_props *out)
{
    const gghip_runtime *rt = rt_of(self);
    memset(out, 0, sizeof *out);
    out->simulated = rt->simulated;

    gghip_device dev;
    int rc = device_of(rt, device, &dev);
    if (rc != GGHIP_Success)
        return rc;
    rc = (int)rt->hipDeviceGetName(out->name, (int)sizeof out->name, dev);
    if (rc != GGHIP_Success)
        return rc;
    out->name[sizeof out->name - 1] = '\0';

    size_t total = 0;
    rc = (int)rt->hipDeviceTotalMem(&total, dev);
    if (rc != GGHIP_Success)
        return rc;
    out->total_memory = (uint64_t)total;

    /* ROCm reports KernelExecTimeout as 0 on every device (no watchdog on
     * Linux compute queues); the simulator reports its configured value. */
    int watchdog = 0;
    const struct { gghip_device_attribute attr; int *dst; } attrs[] = {
        { rt->abi->attr_max_threads_per_block, &out->max_threads_per_block },
        { rt->abi->attr_max_block_dim[0], &out->max_block[0] },
        { rt->abi->attr_max_block_dim[1], &out->max_block[1] },
        { rt->abi->attr_max_block_dim[2], &out->max_block[2] },
        { rt->abi->attr_max_grid_dim[0], &out->max_grid[0] },
        { rt->abi->attr_max_grid_dim[1], &out->max_grid[1] },
        { rt->abi->attr_max_grid_dim[2], &out->max_grid[2] },
        { rt->abi->attr_multiprocessor_count, &out->multiprocessors },
        { rt->abi->attr_kernel_exec_timeout, &watchdog },
        { rt->abi->attr_max_shared_per_block, &out->max_shared_per_block },
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        rc = (int)rt->hipDeviceGetAttribute(attrs[i].dst, attrs[i].attr, dev);
        if (rc != GGHIP_Success)
            return rc;
    }
    out->watchdog = watchdog != 0;
    /* One limit: HIP has no opt-in for dynamic shared memory. Its
     * SharedMemPerBlockOptin attribute (75) is "Cuda only" in 5.2.3's
     * header and 0 on every AMD device in ROCm 6 (clr hip_device.cpp sets
     * sharedMemPerBlockOptin = 0), so it would forbid every launch. */
    out->max_shared_per_block_optin = out->max_shared_per_block;
    return write_value_support(rt, dev, out);
}

/* ---- contexts (see the model at the top) ------------------------------ */

static int hip_ctx_create(void *self, int device, bool use_primary, gg__nctx *out)
{
    /* HIP has only primary contexts: both kinds retain the same one. */
    (void)use_primary;
    const gghip_runtime *rt = rt_of(self);
    *out = NULL;
    gghip_device dev;
    int rc = device_of(rt, device, &dev);
    if (rc != GGHIP_Success)
        return rc;
    /* A new context must not inherit a dead one: on CUDA it would be a
     * fresh context; on HIP that takes a reset of the device. This is also
     * how gg_context_recover of a non-primary context (destroy + create)
     * gets a usable context here. */
    if (atomic_load(&backend_of(self)->dead_devices) & device_bit(device)) {
        rc = reset_device(self, device);
        if (rc != GGHIP_Success)
            return rc;
    }
    /* Retain neither pushes nor changes the current device: nothing to restore. */
    gghip_ctx ctx = NULL;
    rc = (int)rt->hipDevicePrimaryCtxRetain(&ctx, dev);
    if (rc == GGHIP_Success)
        *out = ctx;
    return rc;
}

static int hip_ctx_destroy(void *self, int device, bool use_primary, gg__nctx ctx)
{
    (void)use_primary;
    (void)ctx;
    const gghip_runtime *rt = rt_of(self);
    gghip_device dev;
    int rc = device_of(rt, device, &dev);
    if (rc != GGHIP_Success)
        return rc;
    return (int)rt->hipDevicePrimaryCtxRelease(dev);
}

/* A HIP context is its device's primary context: the device whose primary
 * context it is (each retain is released at once; HIP's release releases
 * nothing anyway). Not one of them: hipErrorInvalidContext. */
static int hip_ctx_device(void *self, gg__nctx ctx, int *device)
{
    const gghip_runtime *rt = rt_of(self);
    *device = -1;
    int count = 0;
    int rc = (int)rt->hipGetDeviceCount(&count);
    for (int i = 0; rc == GGHIP_Success && i < count; i++) {
        gghip_device dev;
        gghip_ctx primary = NULL;
        rc = device_of(rt, i, &dev);
        if (rc == GGHIP_Success)
            rc = (int)rt->hipDevicePrimaryCtxRetain(&primary, dev);
        if (rc != GGHIP_Success)
            break;
        (void)rt->hipDevicePrimaryCtxRelease(dev);
        if (primary == (gghip_ctx)ctx) {
            *device = i;
            return GGHIP_Success;
        }
    }
    return rc != GGHIP_Success ? rc : GGHIP_ErrorInvalidContext;
}

/* The native context of device ordinal `ordinal`: its primary context
 * (retained and released at once: HIP's release releases nothing). */
static int primary_of_ordinal(const gghip_runtime *rt, int ordinal, gg__nctx *out)
{
    gghip_device dev;
    gghip_ctx primary = NULL;
    int rc = device_of(rt, ordinal, &dev);
    if (rc == GGHIP_Success)
        rc = (int)rt->hipDevicePrimaryCtxRetain(&primary, dev);
    if (rc != GGHIP_Success)
        return rc;
    (void)rt->hipDevicePrimaryCtxRelease(dev);
    *out = primary;
    return GGHIP_Success;
}

/* HIP 5.2.3 cannot tell a stream's device: hipStreamGetFlags only tells
 * that the runtime knows the stream; *out stays NULL, "known, device not
 * checked" (interop.c says so in its log). */
static int hip_stream_context(void *self, gg__nstream s, gg__nctx *out)
{
    const gghip_runtime *rt = rt_of(self);
    *out = NULL;
    if (rt->hipStreamGetFlags == NULL)
        return GGHIP_ErrorNotSupported;
    unsigned flags = 0;
    return (int)rt->hipStreamGetFlags((gghip_stream)s, &flags);
}

/* The allocation around p: hipPointerGetAttribute's range and device
 * ordinal (HIP does not support HIP_POINTER_ATTRIBUTE_CONTEXT); the
 * context is that device's primary one. */
static int hip_pointer_range(void *self, gg__dptr p, gg__nctx *ctx, gg__dptr *base, size_t *bytes)
{
    const gghip_runtime *rt = rt_of(self);
    *ctx = NULL;
    *base = 0;
    *bytes = 0;
    if (rt->hipPointerGetAttribute == NULL)
        return GGHIP_ErrorNotSupported;
    void *start = NULL;
    size_t size = 0;
    int ordinal = -1;
    void *ptr = (void *)(uintptr_t)p;
    int rc = (int)rt->hipPointerGetAttribute(&start, GGHIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr);
    if (rc == GGHIP_Success)
        rc = (int)rt->hipPointerGetAttribute(&size, GGHIP_POINTER_ATTRIBUTE_RANGE_SIZE, ptr);
    if (rc == GGHIP_Success)
        rc = (int)rt->hipPointerGetAttribute(&ordinal, GGHIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
    if (rc == GGHIP_Success)
        rc = primary_of_ordinal(rt, ordinal, ctx);
    if (rc != GGHIP_Success)
        return rc;
    *base = (gg__dptr)(uintptr_t)start;
    *bytes = size;
    return GGHIP_Success;
}

static unsigned hip_device_resets(void *self, int device)
{
    return device >= 0 && device < 64 ? atomic_load(&backend_of(self)->resets[device]) : 0;
}

static int hip_ctx_reset_primary(void *self, int device)
{
    return reset_device(self, device);
}

static int hip_ctx_get_current(void *self, gg__nctx *out)
{
    gghip_ctx ctx = NULL;
    int rc = (int)rt_of(self)->hipCtxGetCurrent(&ctx);
    *out = rc == GGHIP_Success ? ctx : NULL;
    return rc;
}

static int hip_ctx_set_current(void *self, gg__nctx ctx)
{
    return (int)rt_of(self)->hipCtxSetCurrent((gghip_ctx)ctx);
}

static int hip_ctx_push(void *self, gg__nctx ctx)
{
    return (int)rt_of(self)->hipCtxPushCurrent((gghip_ctx)ctx);
}

static int hip_ctx_pop(void *self, gg__nctx *out)
{
    const gghip_runtime *rt = rt_of(self);
    gghip_ctx popped = NULL;
    int rc = (int)rt->hipCtxPopCurrent(&popped);
    if (out != NULL)
        *out = rc == GGHIP_Success ? popped : NULL;
    if (rc != GGHIP_Success)
        return rc;
    /* HIP cannot peek at its stack: pop the new top and push it back, which
     * makes its device current again. An empty stack answers
     * hipErrorInvalidContext: nothing to restore, and not an error here. */
    gghip_ctx below = NULL;
    if (rt->hipCtxPopCurrent(&below) == GGHIP_Success && below != NULL)
        return (int)rt->hipCtxPushCurrent(below);
    return GGHIP_Success;
}

static int hip_ctx_synchronize(void *self)
{
    return watch(self, rt_of(self)->hipDeviceSynchronize());
}

/* ---- streams and events ----------------------------------------------- */

static int hip_stream_create(void *self, gg__nstream *out)
{
    gghip_stream s = NULL;
    /* Non-blocking: gpuguard's streams must not serialise with the null
     * stream that other code in the process may be using. */
    const gghip_runtime *rt = rt_of(self);
    int rc = watch(self, rt->hipStreamCreateWithFlags(&s, rt->abi->stream_non_blocking));
    *out = rc == GGHIP_Success ? s : NULL;
    return rc;
}

static int hip_stream_destroy(void *self, gg__nstream s)
{
    return watch(self, rt_of(self)->hipStreamDestroy((gghip_stream)s));
}

static int hip_stream_query(void *self, gg__nstream s)
{
    return watch(self, rt_of(self)->hipStreamQuery((gghip_stream)s));
}

static int hip_stream_synchronize(void *self, gg__nstream s)
{
    return watch(self, rt_of(self)->hipStreamSynchronize((gghip_stream)s));
}

static int hip_stream_wait_event(void *self, gg__nstream s, gg__nevent e)
{
    return watch(self, rt_of(self)->hipStreamWaitEvent((gghip_stream)s, (gghip_event)e, 0));
}

static int hip_event_create(void *self, gg__nevent *out)
{
    gghip_event e = NULL;
    /* hipEventCreate uses hipEventDefault: timing on, which chunked launches need. */
    int rc = watch(self, rt_of(self)->hipEventCreate(&e));
    *out = rc == GGHIP_Success ? e : NULL;
    return rc;
}

static int hip_event_destroy(void *self, gg__nevent e)
{
    return watch(self, rt_of(self)->hipEventDestroy((gghip_event)e));
}

static int hip_event_record(void *self, gg__nevent e, gg__nstream s)
{
    return watch(self, rt_of(self)->hipEventRecord((gghip_event)e, (gghip_stream)s));
}

static int hip_event_query(void *self, gg__nevent e)
{
    return watch(self, rt_of(self)->hipEventQuery((gghip_event)e));
}

static int hip_event_synchronize(void *self, gg__nevent e)
{
    return watch(self, rt_of(self)->hipEventSynchronize((gghip_event)e));
}

static int hip_event_elapsed(void *self, float *ms, gg__nevent start, gg__nevent end)
{
    return watch(self, rt_of(self)->hipEventElapsedTime(ms, (gghip_event)start, (gghip_event)end));
}

/* ---- memory ----------------------------------------------------------- */

static int hip_mem_alloc(void *self, gg__dptr *out, size_t bytes)
{
    void *p = NULL;
    int rc = watch(self, rt_of(self)->hipMalloc(&p, bytes));
    *out = rc == GGHIP_Success ? (gg__dptr)(uintptr_t)p : 0;
    return rc;
}

static int hip_mem_free(void *self, gg__dptr p)
{
    return watch(self, rt_of(self)->hipFree(dptr_in(p)));
}

static int hip_host_alloc(void *self, void **out, size_t bytes)
{
    void *p = NULL;
    const gghip_runtime *rt = rt_of(self);
    int rc = watch(self, rt->hipHostMalloc(&p, bytes, rt->abi->host_malloc_default));
    *out = rc == GGHIP_Success ? p : NULL;
    return rc;
}

static int hip_host_free(void *self, void *p)
{
    return watch(self, rt_of(self)->hipHostFree(p));
}

/* hipHostMalloc(mapped) + hipHostGetDevicePointer. On ROCm the device
 * address equals the host one (unified addressing), but it is asked for, as
 * the API requires. On failure the allocation is freed again. */
static int hip_host_alloc_mapped(void *self, void **host, gg__dptr *dev, size_t bytes)
{
    const gghip_runtime *rt = rt_of(self);
    *host = NULL;
    *dev = 0;
    if (rt->hipHostGetDevicePointer == NULL)
        return GGHIP_ErrorNotSupported;
    void *p = NULL;
    int rc = watch(self, rt->hipHostMalloc(&p, bytes, rt->abi->host_malloc_mapped));
    if (rc != GGHIP_Success)
        return rc;
    void *d = NULL;
    rc = watch(self, rt->hipHostGetDevicePointer(&d, p, 0));
    if (rc != GGHIP_Success) {
        (void)rt->hipHostFree(p);
        return rc;
    }
    *host = p;
    *dev = (gg__dptr)(uintptr_t)d;
    return GGHIP_Success;
}

static int hip_host_free_mapped(void *self, void *host)
{
    return watch(self, rt_of(self)->hipHostFree(host));
}

/* hipStreamWriteValue32/64 with flags 0 ("reserved, ignored for now"). */
static int hip_stream_write_value(void *self, gg__nstream s, gg__dptr addr, uint64_t value,
                                  bool wide)
{
    const gghip_runtime *rt = rt_of(self);
    if (wide) {
        if (rt->hipStreamWriteValue64 == NULL)
            return GGHIP_ErrorNotSupported;
        return watch(self, rt->hipStreamWriteValue64((gghip_stream)s, dptr_in(addr), value, 0));
    }
    if (rt->hipStreamWriteValue32 == NULL)
        return GGHIP_ErrorNotSupported;
    return watch(self, rt->hipStreamWriteValue32((gghip_stream)s, dptr_in(addr),
                                                 (uint32_t)value, 0));
}

/* hipMemcpyHtoD(Async) declare their source `void *` but only read it. */
static int hip_memcpy_htod(void *self, gg__dptr dst, const void *src, size_t bytes,
                           gg__nstream s, bool async)
{
    const gghip_runtime *rt = rt_of(self);
    if (async)
        return watch(self, rt->hipMemcpyHtoDAsync(dptr_in(dst), (void *)src, bytes,
                                                  (gghip_stream)s));
    return watch(self, rt->hipMemcpyHtoD(dptr_in(dst), (void *)src, bytes));
}

static int hip_memcpy_dtoh(void *self, void *dst, gg__dptr src, size_t bytes, gg__nstream s,
                           bool async)
{
    const gghip_runtime *rt = rt_of(self);
    if (async)
        return watch(self, rt->hipMemcpyDtoHAsync(dst, dptr_in(src), bytes, (gghip_stream)s));
    return watch(self, rt->hipMemcpyDtoH(dst, dptr_in(src), bytes));
}

static int hip_memcpy_dtod(void *self, gg__dptr dst, gg__dptr src, size_t bytes, gg__nstream s,
                           bool async)
{
    const gghip_runtime *rt = rt_of(self);
    if (async)
        return watch(self, rt->hipMemcpyDtoDAsync(dptr_in(dst), dptr_in(src), bytes,
                                                  (gghip_stream)s));
    return watch(self, rt->hipMemcpyDtoD(dptr_in(dst), dptr_in(src), bytes));
}

static int hip_memset_d8(void *self, gg__dptr dst, uint8_t value, size_t bytes, gg__nstream s,
                         bool async)
{
    const gghip_runtime *rt = rt_of(self);
    if (async)
        return watch(self, rt->hipMemsetD8Async(dptr_in(dst), value, bytes, (gghip_stream)s));
    return watch(self, rt->hipMemsetD8(dptr_in(dst), value, bytes));
}

/* ---- modules and launches --------------------------------------------- */

static int hip_module_load_file(void *self, gg__nmodule *out, const char *path)
{
    gghip_module m = NULL;
    int rc = watch(self, rt_of(self)->hipModuleLoad(&m, path));
    *out = rc == GGHIP_Success ? m : NULL;
    return rc;
}

/* hipModuleLoadData takes no size: a code object describes its own length.
 * `bytes` is for backends that need it. */
static const char *hip_driver_error_detail(void *self)
{
    const char *detail = rt_of(self)->sim_error_detail();
    return detail != NULL ? detail : "";
}

static int hip_module_load_data(void *self, gg__nmodule *out, const void *image, size_t bytes)
{
    (void)bytes;
    gghip_module m = NULL;
    int rc = watch(self, rt_of(self)->hipModuleLoadData(&m, image));
    *out = rc == GGHIP_Success ? m : NULL;
    return rc;
}

static int hip_module_unload(void *self, gg__nmodule m)
{
    return watch(self, rt_of(self)->hipModuleUnload((gghip_module)m));
}

static int hip_module_get_function(void *self, gg__nfunc *out, gg__nmodule m, const char *name)
{
    gghip_function f = NULL;
    int rc = watch(self, rt_of(self)->hipModuleGetFunction(&f, (gghip_module)m, name));
    *out = rc == GGHIP_Success ? f : NULL;
    return rc;
}

static int hip_launch(void *self, gg__nfunc f, const gg_dim3 *grid, const gg_dim3 *block,
                      unsigned shared_bytes, gg__nstream s, void **params)
{
    /* kernelParams only, `extra` NULL: HIP, like CUDA, takes one or the other. */
    return watch(self, rt_of(self)->hipModuleLaunchKernel((gghip_function)f, grid->x, grid->y,
                                                          grid->z, block->x, block->y, block->z,
                                                          shared_bytes, (gghip_stream)s, params,
                                                          NULL));
}

/* ---- lifetime --------------------------------------------------------- */

static void hip_close(void *self, bool driver_alive)
{
    hip_backend *b = self;
    /* driver_alive false: at process exit the runtime may be running its own
     * destructors, and another thread may still be returning through these
     * pointers; in a forked child the runtime's state is not ours. Do
     * nothing: the OS reclaims it all. The struct stays reachable from the
     * caller's gg__backend, so leak checkers stay quiet. */
    if (b == NULL || !driver_alive)
        return;
    gg__hip_runtime_close(&b->rt);
    gg__free(b);
}


/* HIP 5.x and 6.0-6.2 have no per-parameter query: hipFuncGetAttributes
 * fills hipFuncAttributes (shared, constant and local sizes, registers,
 * max threads per block, binary and PTX versions), with no parameter count
 * or sizes; there is no hipFuncGetParamInfo. So: unknown, with no call. */
static int hip_kernel_params(void *self, gg__nfunc f, bool *known, size_t *count, size_t *sizes,
                             size_t max_sizes)
{
    (void)self;
    (void)f;
    (void)sizes;
    (void)max_sizes;
    *known = false;
    *count = 0;
    return 0;
}

/* The HIP backend's operations, and the runtime function named in error
 * reports for each operation (the main one where an operation uses
 * several: the synchronous copy and memset forms, hipDeviceGetAttribute
 * for the properties): one constant table, copied into the library's
 * gg__backend by gg__hip_backend_open, which adds what depends on the
 * runtime loaded (its state, the library's path, the simulator's detail
 * call). */
static const gg__backend hip_operations = {
    .name = "hip",
    .one_context_per_device = true, /* see the context model above */
    .classify = gg__hip_classify,
    .code_name = gg__hip_code_name,
    .native_for_status = gg__hip_native_for_status,
    .entry_point = hip_entry_point,
    .driver_version = hip_driver_version,
    .device_count = hip_device_count,
    .device_props = hip_device_props,
    .ctx_create = hip_ctx_create,
    .ctx_device = hip_ctx_device,
    .stream_context = hip_stream_context,
    .pointer_range = hip_pointer_range,
    .ctx_destroy = hip_ctx_destroy,
    .ctx_reset_primary = hip_ctx_reset_primary,
    .device_resets = hip_device_resets,
    .ctx_get_current = hip_ctx_get_current,
    .ctx_set_current = hip_ctx_set_current,
    .ctx_push = hip_ctx_push,
    .ctx_pop = hip_ctx_pop,
    .ctx_synchronize = hip_ctx_synchronize,
    .stream_create = hip_stream_create,
    .stream_destroy = hip_stream_destroy,
    .stream_query = hip_stream_query,
    .stream_synchronize = hip_stream_synchronize,
    .stream_wait_event = hip_stream_wait_event,
    .event_create = hip_event_create,
    .event_destroy = hip_event_destroy,
    .event_record = hip_event_record,
    .event_query = hip_event_query,
    .event_synchronize = hip_event_synchronize,
    .event_elapsed = hip_event_elapsed,
    .mem_alloc = hip_mem_alloc,
    .mem_free = hip_mem_free,
    .host_alloc = hip_host_alloc,
    .host_free = hip_host_free,
    .memcpy_htod = hip_memcpy_htod,
    .memcpy_dtoh = hip_memcpy_dtoh,
    .memcpy_dtod = hip_memcpy_dtod,
    .memset_d8 = hip_memset_d8,
    .module_load_file = hip_module_load_file,
    .module_load_data = hip_module_load_data,
    .module_unload = hip_module_unload,
    .module_get_function = hip_module_get_function,
    .launch = hip_launch,
    .kernel_params = hip_kernel_params,
    .host_alloc_mapped = hip_host_alloc_mapped,
    .host_free_mapped = hip_host_free_mapped,
    .stream_write_value = hip_stream_write_value,
    .module_load_data_call = "hipModuleLoadData",
    .close = hip_close,
    .op_names = {
        [GG__OP_INIT] = "hipInit",
        [GG__OP_DRIVER_VERSION] = "hipDriverGetVersion",
        [GG__OP_DEVICE_COUNT] = "hipGetDeviceCount",
        [GG__OP_DEVICE_PROPS] = "hipDeviceGetAttribute",
        [GG__OP_CTX_CREATE] = "hipDevicePrimaryCtxRetain",
        [GG__OP_CTX_DEVICE] = "hipDevicePrimaryCtxRetain",
        [GG__OP_CTX_DESTROY] = "hipDevicePrimaryCtxRelease",
        [GG__OP_CTX_GET_CURRENT] = "hipCtxGetCurrent",
        [GG__OP_CTX_SET_CURRENT] = "hipCtxSetCurrent",
        [GG__OP_CTX_PUSH] = "hipCtxPushCurrent",
        [GG__OP_CTX_POP] = "hipCtxPopCurrent",
        [GG__OP_CTX_SYNCHRONIZE] = "hipDeviceSynchronize",
        [GG__OP_STREAM_CREATE] = "hipStreamCreateWithFlags",
        [GG__OP_STREAM_DESTROY] = "hipStreamDestroy",
        [GG__OP_STREAM_QUERY] = "hipStreamQuery",
        [GG__OP_STREAM_SYNCHRONIZE] = "hipStreamSynchronize",
        [GG__OP_STREAM_WAIT_EVENT] = "hipStreamWaitEvent",
        [GG__OP_EVENT_CREATE] = "hipEventCreate",
        [GG__OP_EVENT_DESTROY] = "hipEventDestroy",
        [GG__OP_EVENT_RECORD] = "hipEventRecord",
        [GG__OP_EVENT_QUERY] = "hipEventQuery",
        [GG__OP_EVENT_SYNCHRONIZE] = "hipEventSynchronize",
        [GG__OP_EVENT_ELAPSED] = "hipEventElapsedTime",
        [GG__OP_MEM_ALLOC] = "hipMalloc",
        [GG__OP_MEM_FREE] = "hipFree",
        [GG__OP_HOST_ALLOC] = "hipHostMalloc",
        [GG__OP_HOST_FREE] = "hipHostFree",
        [GG__OP_MEMCPY_HTOD] = "hipMemcpyHtoD",
        [GG__OP_MEMCPY_DTOH] = "hipMemcpyDtoH",
        [GG__OP_MEMCPY_DTOD] = "hipMemcpyDtoD",
        [GG__OP_MEMSET] = "hipMemsetD8",
        [GG__OP_MODULE_LOAD] = "hipModuleLoad",
        [GG__OP_MODULE_UNLOAD] = "hipModuleUnload",
        [GG__OP_MODULE_GET_FUNCTION] = "hipModuleGetFunction",
        [GG__OP_LAUNCH] = "hipModuleLaunchKernel",
        /* HIP's nearest query; it reports no parameters (see hip_kernel_params). */
        [GG__OP_KERNEL_PARAMS] = "hipFuncGetAttributes",
        /* The completion timeline's calls (the 64-bit write-value named; the
         * 32-bit one is used where only it exists). */
        [GG__OP_HOST_ALLOC_MAPPED] = "hipHostMalloc",
        [GG__OP_HOST_FREE_MAPPED] = "hipHostFree",
        [GG__OP_STREAM_WRITE_VALUE] = "hipStreamWriteValue64",
        /* Not offered over HIP (stream_context and pointer_range are NULL):
         * adoption cannot check a stream's device or an address. */
        [GG__OP_STREAM_CONTEXT] = "hipStreamGetFlags",
        [GG__OP_POINTER_QUERY] = "hipPointerGetAttribute",
    },
};

gg__backend_open_result gg__hip_backend_open(const char *library, gg__backend *out)
{
    memset(out, 0, sizeof *out);
    hip_backend *b = gg__calloc(1, sizeof *b);
    if (b == NULL) {
        gg__backend_open_result r;
        memset(&r, 0, sizeof r);
        r.status = GG_OUT_OF_MEMORY;
        strcpy(r.message, "out of host memory opening the HIP backend");
        return r;
    }
    gg__backend_open_result r = gg__hip_runtime_open(&b->rt, library);
    if (r.status != GG_OK) {
        gg__free(b);
        return r;
    }
    atomic_init(&b->dead_devices, 0);

    *out = hip_operations;
    out->self = b;
    out->library = b->rt.library;
    if (rt_of(out->self)->sim_error_detail != NULL)
        out->driver_error_detail = hip_driver_error_detail;
    return r;
}
