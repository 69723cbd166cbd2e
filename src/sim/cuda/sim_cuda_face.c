/*
 * CUDA face: initialisation, devices and contexts. Each export validates
 * its arguments, translates handles and numbers, and calls the core; CUDA
 * numbering lives only in the face.
 */
#include "sim_cuda.h"

#include <stdio.h>
#include <stdlib.h>

/* Calls made before a successful cuInit fail like the real driver's. */
#define REQUIRE_INIT()                         \
    do {                                       \
        if (!sim_is_initialized())             \
            return CUDA_ERROR_NOT_INITIALIZED; \
    } while (0)

CUresult sim_cuda_enter(sim_ctx **c)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return sim_cuda_result(sim_ctx_enter(c));
}

static CUresult get_device(CUdevice dev, sim_device **out)
{
    *out = sim_device_get(dev);
    if (!*out) {
        sim_detail("device ordinal %d does not exist", dev);
        return CUDA_ERROR_INVALID_DEVICE;
    }
    return CUDA_SUCCESS;
}

sim_status sim_cuda_config_check(sim_config *c, char *err, size_t errlen)
{
    /* A CUDA driver's sticky error reaches the whole process (measured:
     * docs/DRIVER-FACTS.md); "context" is the simulator's older model. */
    if (c->sticky_scope == SIM_STICKY_UNSET)
        c->sticky_scope = SIM_STICKY_PROCESS;
    const sim_cuda_line *line = &sim_cuda_line_in_use;
    int v = c->driver_version;
    if (v == 0 || (v >= line->min_version && v <= line->max_version))
        return sim_cuda_visible_devices(c, getenv("CUDA_VISIBLE_DEVICES"), err, errlen);
    snprintf(err, errlen, "driver_version: %s simulates CUDA %d.%d to %d.%d drivers, not %d; %s",
             line->library, line->min_version / 1000, line->min_version % 1000 / 10,
             line->max_version / 1000, line->max_version % 1000 / 10, v, line->other);
    return SIM_ERR_INVALID_VALUE;
}

int sim_cuda_driver_version(void)
{
    const sim_cuda_line *line = &sim_cuda_line_in_use;
    const sim_config *c = sim_get_config();
    int v = c ? c->driver_version : sim_config_peek_driver_version();
    /* Absent, or a value cuInit refuses: the library's own version. */
    return v >= line->min_version && v <= line->max_version ? v : line->default_version;
}

SIM_EXPORT CUresult cuInit(unsigned int flags)
{
    SIM_COUNT(cuInit);
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return sim_cuda_result(sim_init(sim_cuda_config_check));
}

/* Works before cuInit, as the real driver's does. */
SIM_EXPORT CUresult cuDriverGetVersion(int *version)
{
    SIM_COUNT(cuDriverGetVersion);
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = sim_cuda_driver_version();
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetCount(int *count)
{
    SIM_COUNT(cuDeviceGetCount);
    REQUIRE_INIT();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = sim_device_count();
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    SIM_COUNT(cuDeviceGet);
    REQUIRE_INIT();
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    sim_device *d;
    CUresult r = get_device(ordinal, &d);
    if (r == CUDA_SUCCESS)
        *device = ordinal;
    return r;
}

SIM_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    SIM_COUNT(cuDeviceGetName);
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", d->cfg->name);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    SIM_COUNT(cuDeviceTotalMem_v2);
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = (size_t)d->cfg->memory_bytes;
    return CUDA_SUCCESS;
}

/* CU_DEVICE_ATTRIBUTE_* numbers from cuda.h. */
static bool cuda_attr(int attrib, sim_attr *a)
{
    static const struct { int cu; sim_attr a; } map[] = {
        { 1, SIM_ATTR_MAX_THREADS_PER_BLOCK },
        { 2, SIM_ATTR_MAX_BLOCK_X }, { 3, SIM_ATTR_MAX_BLOCK_Y }, { 4, SIM_ATTR_MAX_BLOCK_Z },
        { 5, SIM_ATTR_MAX_GRID_X }, { 6, SIM_ATTR_MAX_GRID_Y }, { 7, SIM_ATTR_MAX_GRID_Z },
        { 8, SIM_ATTR_MAX_SHARED_PER_BLOCK },
        { 9, SIM_ATTR_TOTAL_CONSTANT_MEMORY },
        { 10, SIM_ATTR_WARP_SIZE },
        { 12, SIM_ATTR_MAX_REGISTERS_PER_BLOCK },
        { 13, SIM_ATTR_CLOCK_RATE_KHZ },
        { 16, SIM_ATTR_MULTIPROCESSORS },
        { 17, SIM_ATTR_KERNEL_EXEC_TIMEOUT },
        { 18, SIM_ATTR_INTEGRATED },
        { 19, SIM_ATTR_CAN_MAP_HOST_MEMORY },
        { 20, SIM_ATTR_COMPUTE_MODE },
        { 31, SIM_ATTR_CONCURRENT_KERNELS },
        { 33, SIM_ATTR_PCI_BUS_ID }, { 34, SIM_ATTR_PCI_DEVICE_ID },
        { 39, SIM_ATTR_MAX_THREADS_PER_MULTIPROCESSOR },
        { 40, SIM_ATTR_ASYNC_ENGINE_COUNT },
        { 41, SIM_ATTR_UNIFIED_ADDRESSING },
        { 50, SIM_ATTR_PCI_DOMAIN_ID },
        { 75, SIM_ATTR_COMPUTE_CAPABILITY_MAJOR }, { 76, SIM_ATTR_COMPUTE_CAPABILITY_MINOR },
        /* CAN_USE_STREAM_MEM_OPS(_V1) and CAN_USE_64_BIT_STREAM_MEM_OPS(_V1):
         * the 8.0/9.0 write-value API; CAN_USE_64_BIT_STREAM_MEM_OPS (122,
         * "_V2" in 11.7-11.8): the _v2 API. The simulator has one answer for
         * both APIs. */
        { 92, SIM_ATTR_STREAM_MEM_OPS }, { 93, SIM_ATTR_STREAM_MEM_OPS_64 },
        { 97, SIM_ATTR_MAX_SHARED_PER_BLOCK_OPTIN },
        { 122, SIM_ATTR_STREAM_MEM_OPS_64 },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].cu == attrib) {
            *a = map[i].a;
            return true;
        }
    return false;
}

SIM_EXPORT CUresult cuDeviceGetAttribute(int *pi, GG_ABI_CU_DEVICE_ATTRIBUTE attrib, CUdevice dev)
{
    SIM_COUNT(cuDeviceGetAttribute);
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    sim_attr a;
    /* Attribute 122 came with the _v2 memory operations of CUDA 11.7: an
     * older driver does not know the number. */
    bool too_new = attrib == 122 && sim_cuda_driver_version() < 11070;
    bool known = !too_new && cuda_attr(attrib, &a);
    if (pi && !known && !too_new && sim_cuda_client_attr(d, attrib, pi))
        return CUDA_SUCCESS;
    if (!pi || !known) {
        sim_detail("device attribute %d is not simulated", attrib);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return sim_cuda_result(sim_device_attr(d, a, pi));
}

/* ---- contexts ----------------------------------------------------------- */

/* cuCtxCreate in every version: create, then push on this thread's stack. */
static CUresult ctx_create(CUcontext *pctx, CUdevice dev)
{
    REQUIRE_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    sim_ctx *c;
    sim_status st = sim_ctx_create(d, false, &c);
    if (st)
        return sim_cuda_result(st);
    st = sim_stack_push(c->obj.handle);
    if (st) {
        sim_ctx_destroy(c, false);
        sim_obj_release(&c->obj);
        return sim_cuda_result(st);
    }
    *pctx = SIM_AS(CUcontext, &c->obj);
    sim_obj_release(&c->obj);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    SIM_COUNT(cuCtxCreate_v2);
    (void)flags; /* scheduling flags do not change the simulation */
    return ctx_create(pctx, dev);
}

SIM_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *params, int numParams,
                                   unsigned int flags, CUdevice dev)
{
    SIM_COUNT(cuCtxCreate_v3);
    (void)params; /* execution affinity is not simulated */
    (void)flags;
    if (numParams < 0)
        return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, dev);
}

SIM_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                                   CUdevice dev)
{
    SIM_COUNT(cuCtxCreate_v4);
    (void)params; /* affinity and CIG parameters are not simulated */
    (void)flags;
    return ctx_create(pctx, dev);
}

SIM_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    SIM_COUNT(cuCtxDestroy_v2);
    REQUIRE_INIT();
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    sim_ctx *c = sim_ctx_from_handle(SIM_HANDLE(ctx));
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_status st = SIM_ERR_INVALID_CONTEXT;
    if (c->primary)
        sim_detail("a primary context is released with cuDevicePrimaryCtxRelease, not destroyed");
    else
        st = sim_ctx_destroy(c, true);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    SIM_COUNT(cuCtxPushCurrent_v2);
    REQUIRE_INIT();
    sim_ctx *c = sim_ctx_from_handle(SIM_HANDLE(ctx));
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_obj_release(&c->obj);
    return sim_cuda_result(sim_stack_push(SIM_HANDLE(ctx)));
}

SIM_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    SIM_COUNT(cuCtxPopCurrent_v2);
    REQUIRE_INIT();
    uint64_t h;
    sim_status st = sim_stack_pop(&h);
    if (st)
        return sim_cuda_result(st);
    if (pctx)
        *pctx = (CUcontext)(uintptr_t)h;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    /* gpuguard asks on every call: both fields read after one TLS lookup. */
    uint64_t top = sim_t.top;
    sim_cuda_count(sim_t.counts, SIM_FN_cuCtxGetCurrent);
    REQUIRE_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)(uintptr_t)top;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    SIM_COUNT(cuCtxSetCurrent);
    REQUIRE_INIT();
    if (ctx) {
        sim_ctx *c = sim_ctx_from_handle(SIM_HANDLE(ctx));
        if (!c)
            return CUDA_ERROR_INVALID_CONTEXT;
        sim_obj_release(&c->obj);
    }
    sim_stack_set_top(SIM_HANDLE(ctx));
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    SIM_COUNT(cuCtxGetDevice);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    if (device)
        *device = c->dev->ordinal;
    sim_obj_release(&c->obj);
    return device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The CUDA 13.0 forms name their context; NULL means the current one. A
 * named context is checked as the current one is (live, not poisoned). */
static CUresult ctx_named_or_current(CUcontext ctx, sim_ctx **out)
{
    if (!ctx)
        return sim_cuda_enter(out);
    REQUIRE_INIT();
    sim_ctx *c = sim_ctx_from_handle(SIM_HANDLE(ctx));
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_status st = sim_ctx_health(c);
    if (st) {
        sim_obj_release(&c->obj);
        return sim_cuda_result(st);
    }
    *out = c;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    SIM_COUNT(cuCtxGetDevice_v2);
    sim_ctx *c;
    CUresult r = ctx_named_or_current(ctx, &c);
    if (r)
        return r;
    if (device)
        *device = c->dev->ordinal;
    sim_obj_release(&c->obj);
    return device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult ctx_sync(CUcontext ctx)
{
    sim_ctx *c;
    CUresult r = ctx_named_or_current(ctx, &c);
    if (r)
        return r;
    sim_status st = sim_ctx_sync(c);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuCtxSynchronize(void)
{
    SIM_COUNT(cuCtxSynchronize);
    return ctx_sync(NULL);
}

SIM_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    SIM_COUNT(cuCtxSynchronize_v2);
    return ctx_sync(ctx);
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    SIM_COUNT(cuDevicePrimaryCtxRetain);
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    sim_ctx *c;
    sim_status st = sim_primary_retain(d, &c);
    if (st)
        return sim_cuda_result(st);
    *pctx = SIM_AS(CUcontext, &c->obj);
    sim_obj_release(&c->obj);
    return CUDA_SUCCESS;
}

/* Release or reset (op) of dev's primary context: the v1 and _v2 names. */
static CUresult on_primary(CUdevice dev, sim_status (*op)(sim_device *))
{
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    return r ? r : sim_cuda_result(op(d));
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    SIM_COUNT(cuDevicePrimaryCtxRelease_v2);
    return on_primary(dev, sim_primary_release);
}

/* flags: what cuDevicePrimaryCtxSetFlags set (0 by default: automatic
 * scheduling; the simulator keeps them only to report them); active:
 * retained by anyone. */
SIM_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    SIM_COUNT(cuDevicePrimaryCtxGetState);
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = atomic_load(&d->primary_flags);
    *active = sim_primary_active(d) ? 1 : 0;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    SIM_COUNT(cuDevicePrimaryCtxReset_v2);
    return on_primary(dev, sim_primary_reset);
}

/* The v1 names (CUDA 7.0 to 10.x; cuda.h maps them to _v2 since 11.0, and
 * the 535 driver serves them at cuGetProcAddress version 7000). Release and
 * Reset behave as _v2 here: how the old forms differed on a real driver is
 * not measured. */
SIM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    SIM_COUNT(cuDevicePrimaryCtxRelease);
    return on_primary(dev, sim_primary_release);
}

SIM_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    SIM_COUNT(cuDevicePrimaryCtxReset);
    return on_primary(dev, sim_primary_reset);
}

/* CU_CTX_FLAGS_MASK, and the scheduling values CU_CTX_SCHED_MASK allows:
 * AUTO 0, SPIN 1, YIELD 2, BLOCKING_SYNC 4. */
#define CU_CTX_FLAGS_KNOWN 0xFFu
#define CU_CTX_SCHED_BITS 0x07u

static CUresult primary_set_flags(CUdevice dev, unsigned int flags, bool refuse_if_active, const char *call)
{
    REQUIRE_INIT();
    sim_device *d;
    CUresult r = get_device(dev, &d);
    if (r)
        return r;
    unsigned sched = flags & CU_CTX_SCHED_BITS;
    if ((flags & ~CU_CTX_FLAGS_KNOWN) || sched == 3 || sched > 4) {
        sim_detail("%s: flags 0x%x: unknown bits or scheduling value (AUTO 0, SPIN 1, YIELD 2, "
                   "BLOCKING_SYNC 4, under CU_CTX_FLAGS_MASK 0xff)", call, flags);
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* Before 11.0 the flags could only be set while the context was not
     * active (the v1 contract); _v2 applies them to the active one too. */
    if (refuse_if_active && sim_primary_active(d)) {
        sim_detail("%s: device %d's primary context is active", call, dev);
        return CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
    }
    atomic_store(&d->primary_flags, flags);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    SIM_COUNT(cuDevicePrimaryCtxSetFlags);
    return primary_set_flags(dev, flags, true, "cuDevicePrimaryCtxSetFlags");
}

SIM_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    SIM_COUNT(cuDevicePrimaryCtxSetFlags_v2);
    return primary_set_flags(dev, flags, false, "cuDevicePrimaryCtxSetFlags_v2");
}
