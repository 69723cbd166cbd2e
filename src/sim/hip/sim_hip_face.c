/*
 * HIP face: initialisation, versions, devices, the per-thread current
 * device, primary contexts and the deprecated hipCtx* stack.
 *
 * As in ROCm, no call needs hipInit first: every entry point initialises the
 * simulator on first use, and while it cannot (bad GPUGUARD_SIM_CONFIG, no
 * device) returns the error hipInit would. What ROCm 5.2's runtime does on a
 * machine without a GPU is what the simulator does with "devices": []:
 * hipInit and the other calls return hipErrorInvalidDevice,
 * hipGetDeviceCount returns hipErrorNoDevice with a count of 0,
 * hipSetDevice hipErrorNoDevice, and the version queries still answer.
 *
 * The hipCtx* calls follow ROCm 5.2: the current context is always the
 * current device's primary context. hipCtxSetCurrent and hipCtxPushCurrent
 * make the context's device current; hipCtxPopCurrent and
 * hipCtxSetCurrent(NULL) only pop the stack and leave the current device
 * alone (restore it with hipSetDevice).
 */
#include "sim_hip.h"

#include <limits.h>
#include <stdio.h>

static _Thread_local int t_device;

/* "driver_version" picks which CUDA driver the CUDA face imitates; the HIP
 * face has no such choice, so the key is refused rather than ignored. */
static sim_status hip_config_check(sim_config *c, char *err, size_t errlen)
{
    /* The HIP face keeps a sticky error to its context, as it always has:
     * what ROCm does to the rest of the process is not measured. */
    if (c->sticky_scope == SIM_STICKY_PROCESS) {
        snprintf(err, errlen, "sticky_scope: the HIP face keeps a sticky error to its context "
                              "(\"context\"); \"process\" is the CUDA face's (libgpuguard_sim_cuda*.so)");
        return SIM_ERR_INVALID_VALUE;
    }
    c->sticky_scope = SIM_STICKY_CONTEXT;
    if (c->driver_version == 0)
        return SIM_OK;
    snprintf(err, errlen, "driver_version: only the CUDA face (libgpuguard_sim_cuda*.so) "
                          "simulates driver versions; remove the key for the HIP face");
    return SIM_ERR_INVALID_VALUE;
}

static sim_status ready(void)
{
    if (sim_is_initialized())
        return SIM_OK;
    sim_status st = sim_init(hip_config_check);
    /* No device: what ROCm's initialisation failure looks like. */
    return st == SIM_ERR_NO_DEVICE ? SIM_ERR_INVALID_DEVICE : st;
}

hipError_t sim_hip_init(void)
{
    return sim_hip_result(ready());
}

int sim_hip_current_device(void)
{
    return t_device;
}

sim_ctx *sim_hip_primary_if_any(sim_device *d)
{
    pthread_mutex_lock(&d->primary_lock);
    sim_ctx *c = d->primary;
    if (c)
        sim_obj_retain(&c->obj);
    pthread_mutex_unlock(&d->primary_lock);
    return c;
}

sim_status sim_hip_primary(sim_device *d, sim_ctx **out)
{
    sim_ctx *c = sim_hip_primary_if_any(d);
    if (c) {
        *out = c;
        return SIM_OK;
    }
    /* First use: the runtime's own reference, never released. Two threads
     * may both get here; the core creates one context and counts two
     * references, which is harmless as neither is ever dropped. */
    return sim_primary_retain(d, out);
}

static sim_status current(sim_ctx **c)
{
    sim_status st = ready();
    if (st)
        return st;
    sim_device *d = sim_device_get(t_device);
    if (!d) {
        sim_detail("the current device %d does not exist", t_device);
        return SIM_ERR_INVALID_DEVICE;
    }
    return sim_hip_primary(d, c);
}

hipError_t sim_hip_current(sim_ctx **c)
{
    return sim_hip_result(current(c));
}

static sim_status enter(sim_ctx **c)
{
    sim_status st = current(c);
    if (st)
        return st;
    st = sim_ctx_health(*c);
    if (st)
        sim_obj_release(&(*c)->obj);
    return st;
}

hipError_t sim_hip_enter(sim_ctx **c)
{
    return sim_hip_result(enter(c));
}

static bool is_null_stream(uint64_t v)
{
    return v == 0 || v == GG_ABI_HIP_STREAM_PER_THREAD;
}

/* Implicit initialisation, the current device's primary context, details
 * that name devices. */
const sim_face sim_hip_face = {
    .ready = ready,
    .current = current,
    .enter = enter,
    .is_null_stream = is_null_stream,
    .by_device = true,
};

static hipError_t get_device(int dev, sim_device **out)
{
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    *out = sim_device_get(dev);
    if (!*out) {
        sim_detail("device ordinal %d does not exist", dev);
        return hipErrorInvalidDevice;
    }
    return hipSuccess;
}

/* ---- initialisation and versions ---------------------------------------- */

SIM_EXPORT hipError_t hipInit(unsigned int flags)
{
    SIM_HIP_COUNT(hipInit);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    return flags == 0 ? hipSuccess : hipErrorInvalidValue;
}

/* Both answer without initialisation, as Debian's runtime does on a machine
 * without a GPU. */
SIM_EXPORT hipError_t hipDriverGetVersion(int *driverVersion)
{
    SIM_HIP_COUNT(hipDriverGetVersion);
    if (!driverVersion)
        return hipErrorInvalidValue;
    *driverVersion = GG_ABI_HIP_VERSION;
    return hipSuccess;
}

SIM_EXPORT hipError_t hipRuntimeGetVersion(int *runtimeVersion)
{
    SIM_HIP_COUNT(hipRuntimeGetVersion);
    if (!runtimeVersion)
        return hipErrorInvalidValue;
    *runtimeVersion = GG_ABI_HIP_VERSION;
    return hipSuccess;
}

/* ---- devices ------------------------------------------------------------ */

SIM_EXPORT hipError_t hipGetDeviceCount(int *count)
{
    SIM_HIP_COUNT(hipGetDeviceCount);
    if (!count)
        return hipErrorInvalidValue;
    /* Never the initialisation error: no runtime means no device. */
    *count = sim_hip_init() == hipSuccess ? sim_device_count() : 0;
    return *count > 0 ? hipSuccess : hipErrorNoDevice;
}

SIM_EXPORT hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
    SIM_HIP_COUNT(hipDeviceGet);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!device)
        return hipErrorInvalidValue;
    sim_device *d;
    if ((r = get_device(ordinal, &d)))
        return r;
    *device = ordinal;
    return hipSuccess;
}

SIM_EXPORT hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
    SIM_HIP_COUNT(hipDeviceGetName);
    sim_device *d;
    hipError_t r = get_device(device, &d);
    if (r)
        return r;
    if (!name || len <= 0)
        return hipErrorInvalidValue;
    snprintf(name, (size_t)len, "%s", d->cfg->name);
    return hipSuccess;
}

SIM_EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device)
{
    SIM_HIP_COUNT(hipDeviceTotalMem);
    sim_device *d;
    hipError_t r = get_device(device, &d);
    if (r)
        return r;
    if (!bytes)
        return hipErrorInvalidValue;
    *bytes = (size_t)d->cfg->memory_bytes;
    return hipSuccess;
}

/* hipDeviceAttribute_t -> the core's attribute. */
static bool core_attr(int attr, sim_attr *a)
{
    switch (attr) {
    case hipDeviceAttributeMaxThreadsPerBlock: *a = SIM_ATTR_MAX_THREADS_PER_BLOCK; break;
    case hipDeviceAttributeMaxBlockDimX: *a = SIM_ATTR_MAX_BLOCK_X; break;
    case hipDeviceAttributeMaxBlockDimY: *a = SIM_ATTR_MAX_BLOCK_Y; break;
    case hipDeviceAttributeMaxBlockDimZ: *a = SIM_ATTR_MAX_BLOCK_Z; break;
    case hipDeviceAttributeMaxGridDimX: *a = SIM_ATTR_MAX_GRID_X; break;
    case hipDeviceAttributeMaxGridDimY: *a = SIM_ATTR_MAX_GRID_Y; break;
    case hipDeviceAttributeMaxGridDimZ: *a = SIM_ATTR_MAX_GRID_Z; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *a = SIM_ATTR_MAX_SHARED_PER_BLOCK; break;
    case hipDeviceAttributeTotalConstantMemory: *a = SIM_ATTR_TOTAL_CONSTANT_MEMORY; break;
    case hipDeviceAttributeMaxRegistersPerBlock: *a = SIM_ATTR_MAX_REGISTERS_PER_BLOCK; break;
    case hipDeviceAttributeClockRate: *a = SIM_ATTR_CLOCK_RATE_KHZ; break;
    case hipDeviceAttributeMultiprocessorCount: *a = SIM_ATTR_MULTIPROCESSORS; break;
    case hipDeviceAttributeKernelExecTimeout: *a = SIM_ATTR_KERNEL_EXEC_TIMEOUT; break;
    case hipDeviceAttributeIntegrated: *a = SIM_ATTR_INTEGRATED; break;
    case hipDeviceAttributeCanMapHostMemory: *a = SIM_ATTR_CAN_MAP_HOST_MEMORY; break;
    case hipDeviceAttributeComputeMode: *a = SIM_ATTR_COMPUTE_MODE; break;
    case hipDeviceAttributeConcurrentKernels: *a = SIM_ATTR_CONCURRENT_KERNELS; break;
    case hipDeviceAttributePciBusId: *a = SIM_ATTR_PCI_BUS_ID; break;
    case hipDeviceAttributePciDeviceId: *a = SIM_ATTR_PCI_DEVICE_ID; break;
    case hipDeviceAttributePciDomainID: *a = SIM_ATTR_PCI_DOMAIN_ID; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
        *a = SIM_ATTR_MAX_THREADS_PER_MULTIPROCESSOR;
        break;
    case hipDeviceAttributeAsyncEngineCount: *a = SIM_ATTR_ASYNC_ENGINE_COUNT; break;
    case hipDeviceAttributeUnifiedAddressing: *a = SIM_ATTR_UNIFIED_ADDRESSING; break;
    case hipDeviceAttributeComputeCapabilityMajor: *a = SIM_ATTR_COMPUTE_CAPABILITY_MAJOR; break;
    case hipDeviceAttributeComputeCapabilityMinor: *a = SIM_ATTR_COMPUTE_CAPABILITY_MINOR; break;
    default: return false;
    }
    return true;
}

SIM_EXPORT hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
    SIM_HIP_COUNT(hipDeviceGetAttribute);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!pi)
        return hipErrorInvalidValue;
    sim_device *d;
    if ((r = get_device(deviceId, &d)))
        return r;
    int a = (int)attr;
    sim_attr core;
    switch (a) {
    case hipDeviceAttributeWarpSize:
        *pi = 64; /* an AMD wavefront */
        return hipSuccess;
    case hipDeviceAttributeTotalGlobalMem: /* an int: saturates past 2 GiB */
        *pi = d->cfg->memory_bytes > INT_MAX ? INT_MAX : (int)d->cfg->memory_bytes;
        return hipSuccess;
    case hipDeviceAttributeEccEnabled:
        *pi = 0;
        return hipSuccess;
    case hipDeviceAttributeCanUseStreamWaitValue: {
        /* HIP's one attribute about stream memory operations; its header
         * says it covers both widths, so it is 1 only when the device's
         * configuration has both (stream_mem_ops and stream_mem_ops_64). */
        int narrow = 0, wide = 0;
        sim_status st = sim_device_attr(d, SIM_ATTR_STREAM_MEM_OPS, &narrow);
        if (!st)
            st = sim_device_attr(d, SIM_ATTR_STREAM_MEM_OPS_64, &wide);
        if (!st)
            *pi = narrow && wide ? 1 : 0;
        return sim_hip_result(st);
    }
    default:
        if (core_attr(a, &core))
            return sim_hip_result(sim_device_attr(d, core, pi));
        sim_detail("device attribute %d is not simulated", a);
        return hipErrorInvalidValue;
    }
}

/* ---- the current device ------------------------------------------------- */

SIM_EXPORT hipError_t hipSetDevice(int deviceId)
{
    SIM_HIP_COUNT(hipSetDevice);
    if (sim_hip_init() != hipSuccess)
        return hipErrorNoDevice; /* as ROCm: no runtime, no device to set */
    if (!sim_device_get(deviceId)) {
        sim_detail("device ordinal %d does not exist", deviceId);
        return hipErrorInvalidDevice;
    }
    t_device = deviceId;
    return hipSuccess;
}

SIM_EXPORT hipError_t hipGetDevice(int *deviceId)
{
    SIM_HIP_COUNT(hipGetDevice);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!deviceId)
        return hipErrorInvalidValue;
    *deviceId = t_device;
    return hipSuccess;
}

SIM_EXPORT hipError_t hipDeviceSynchronize(void)
{
    SIM_HIP_COUNT(hipDeviceSynchronize);
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    sim_status st = sim_ctx_sync(c);
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipDeviceReset(void)
{
    SIM_HIP_COUNT(hipDeviceReset);
    sim_device *d;
    hipError_t r = get_device(t_device, &d);
    return r ? r : sim_hip_result(sim_primary_reset(d));
}

/* ---- primary contexts --------------------------------------------------- */

SIM_EXPORT hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
    SIM_HIP_COUNT(hipDevicePrimaryCtxRetain);
    sim_device *d;
    hipError_t r = get_device(dev, &d);
    if (r)
        return r;
    if (!pctx)
        return hipErrorInvalidValue;
    sim_ctx *c;
    sim_status st = sim_hip_primary(d, &c);
    if (st)
        return sim_hip_result(st);
    *pctx = SIM_AS(hipCtx_t, &c->obj);
    sim_obj_release(&c->obj);
    return hipSuccess;
}

/* Does not release: ROCm keeps a device's primary context for the life of
 * the process. */
SIM_EXPORT hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
    SIM_HIP_COUNT(hipDevicePrimaryCtxRelease);
    sim_device *d;
    return get_device(dev, &d);
}

/* Frees every stream, event, module and allocation of the context and
 * clears its sticky error; its handle stays valid. */
SIM_EXPORT hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)
{
    SIM_HIP_COUNT(hipDevicePrimaryCtxReset);
    sim_device *d;
    hipError_t r = get_device(dev, &d);
    return r ? r : sim_hip_result(sim_primary_reset(d));
}

/* ---- the hipCtx* stack (deprecated in ROCm, still exported) -------------- */

/* The live context behind h, retained, or NULL. */
static sim_ctx *context_of(hipCtx_t h)
{
    sim_ctx *c = h ? sim_ctx_from_handle(SIM_HANDLE(h)) : NULL;
    if (!c)
        sim_detail("%p is not a context", (void *)h);
    return c;
}

SIM_EXPORT hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
    SIM_HIP_COUNT(hipCtxGetCurrent);
    sim_ctx *c;
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!ctx)
        return hipErrorInvalidValue;
    if ((r = sim_hip_current(&c)))
        return r;
    *ctx = SIM_AS(hipCtx_t, &c->obj);
    sim_obj_release(&c->obj);
    return hipSuccess;
}

SIM_EXPORT hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
    SIM_HIP_COUNT(hipCtxSetCurrent);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!ctx) {
        uint64_t popped;
        (void)sim_stack_pop(&popped); /* an empty stack stays empty */
        return hipSuccess;
    }
    sim_ctx *c = context_of(ctx);
    if (!c)
        return hipErrorInvalidContext;
    t_device = c->dev->ordinal;
    sim_stack_set_top(SIM_HANDLE(ctx));
    sim_obj_release(&c->obj);
    return hipSuccess;
}

SIM_EXPORT hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
    SIM_HIP_COUNT(hipCtxPushCurrent);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    sim_ctx *c = context_of(ctx);
    if (!c)
        return hipErrorInvalidContext;
    sim_status st = sim_stack_push(SIM_HANDLE(ctx));
    if (!st)
        t_device = c->dev->ordinal;
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
    SIM_HIP_COUNT(hipCtxPopCurrent);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    uint64_t h;
    sim_status st = sim_stack_pop(&h);
    if (st) {
        sim_detail("the context stack of this thread is empty");
        return sim_hip_result(st);
    }
    if (ctx)
        *ctx = (hipCtx_t)(uintptr_t)h;
    return hipSuccess;
}
