/*
 * The CUDA backend: gg__backend over the CUDA Driver API, through the
 * pointers of a ggcu_driver (cuda_loader.c). Each function is one driver
 * call, or a few when the portable operation needs them (ctx_create restores
 * the caller's current context; device_props gathers attributes). Every
 * function returns the driver's CUresult; src/common classifies it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "common/backend.h"
#include "cuda/cuda_abi.h"
#include "cuda/cuda_errors.h"
#include "cuda/cuda_loader.h"

/* Recovers the driver from the backend's opaque self. */
static inline const ggcu_driver *drv_of(void *self)
{
    return (const ggcu_driver *)self;
}

/* The CUDA device for an ordinal: CUdevice is an opaque handle in the API,
 * even though drivers use the ordinal itself. */
static int device_of(const ggcu_driver *d, int ordinal, ggcu_device *dev)
{
    *dev = 0;
    return (int)d->cuDeviceGet(dev, ordinal);
}

/* ---- devices ---------------------------------------------------------- */

/* The attribute's value, or 0 when the driver refuses it (too old to know it). */
static int optional_attr(const ggcu_driver *d, ggcu_device_attribute attr, ggcu_device dev)
{
    int v = 0;
    if (d->cuDeviceGetAttribute(&v, attr, dev) != GGCU_SUCCESS)
        return 0;
    return v;
}

/* Whether the device runs the write-value variant the loader resolved,
 * from the attributes that govern that variant (cuda.h):
 *  - the 11.7 _v2 API: 64-bit operations by CAN_USE_64_BIT_STREAM_MEM_OPS
 *    (122). cuda.h has no attribute for its 32-bit ones; gpuguard claims
 *    them only where the device claims the 64-bit ones, so that support is
 *    always something the device said;
 *  - the 8.0/9.0 API (drivers before 11.7): CAN_USE_STREAM_MEM_OPS_V1 (92)
 *    and CAN_USE_64_BIT_STREAM_MEM_OPS_V1 (93); on Linux these are 0 unless
 *    the nvidia module was loaded with NVreg_EnableStreamMemOPs=1.
 * Mapped host memory (cuMemHostAlloc, cuMemHostGetDevicePointer) is needed
 * to read what was written: without it, neither. */
static void stream_mem_ops(const ggcu_driver *d, ggcu_device dev, gg__device_props *out)
{
    out->stream_write_value_32 = out->stream_write_value_64 = false;
    if (d->cuMemHostAlloc == NULL || d->cuMemHostGetDevicePointer_v2 == NULL)
        return;
    if (d->cuStreamWriteValue64_v2 != NULL) {
        bool wide = optional_attr(d, GGCU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev) != 0;
        out->stream_write_value_64 = wide;
        out->stream_write_value_32 = wide && d->cuStreamWriteValue32_v2 != NULL;
        return;
    }
    bool v1 = optional_attr(d, GGCU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev) != 0;
    out->stream_write_value_32 = v1 && d->cuStreamWriteValue32 != NULL;
    out->stream_write_value_64 =
        v1 && d->cuStreamWriteValue64 != NULL &&
        optional_attr(d, GGCU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1, dev) != 0;
}

static bool cuda_entry_point(void *self, size_t index, gg_entry_point_info *out)
{
    const ggcu_driver *d = drv_of(self);
    if (index >= d->entry_count)
        return false;
    const ggcu_entry_point *e = &d->entries[index];
    out->name = e->base;
    out->variant = e->variant;
    out->abi_version = e->version;
    out->resolved_by = e->resolved_by;
    out->required = e->required;
    return true;
}

static int cuda_driver_version(void *self, int *version)
{
    return (int)drv_of(self)->cuDriverGetVersion(version);
}

static int cuda_device_count(void *self, int *count)
{
    return (int)drv_of(self)->cuDeviceGetCount(count);
}

static int cuda_device_props(void *self, int device, gg__device_props *out)
{
    const ggcu_driver *d = drv_of(self);
    memset(out, 0, sizeof *out);
    out->simulated = d->simulated;

    ggcu_device dev;
    int rc = device_of(d, device, &dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    rc = (int)d->cuDeviceGetName(out->name, (int)sizeof out->name, dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    out->name[sizeof out->name - 1] = '\0';

    size_t total = 0;
    rc = (int)d->cuDeviceTotalMem_v2(&total, dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    out->total_memory = (uint64_t)total;

    int watchdog = 0;
    const struct { ggcu_device_attribute attr; int *dst; } attrs[] = {
        { GGCU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &out->max_threads_per_block },
        { GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &out->max_block[0] },
        { GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &out->max_block[1] },
        { GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &out->max_block[2] },
        { GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &out->max_grid[0] },
        { GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &out->max_grid[1] },
        { GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &out->max_grid[2] },
        { GGCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &out->multiprocessors },
        { GGCU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, &watchdog },
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        rc = (int)d->cuDeviceGetAttribute(attrs[i].dst, attrs[i].attr, dev);
        if (rc != GGCU_SUCCESS)
            return rc;
    }
    out->watchdog = watchdog != 0;

    /* Optional facts: an attribute this driver does not know leaves the
     * limit unknown (0) or the feature off, never fails the query. */
    out->max_shared_per_block = optional_attr(d, GGCU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev);
    out->max_shared_per_block_optin =
        optional_attr(d, GGCU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    stream_mem_ops(d, dev, out);
    return GGCU_SUCCESS;
}

/* ---- contexts --------------------------------------------------------- */

static int cuda_ctx_create(void *self, int device, bool use_primary, gg__nctx *out)
{
    const ggcu_driver *d = drv_of(self);
    *out = NULL;
    ggcu_device dev;
    int rc = device_of(d, device, &dev);
    if (rc != GGCU_SUCCESS)
        return rc;

    ggcu_context ctx = NULL;
    if (use_primary) {
        /* Retain does not touch the current context: nothing to restore. */
        if (d->cuDevicePrimaryCtxRetain == NULL)
            return GGCU_ERROR_NOT_SUPPORTED;
        rc = (int)d->cuDevicePrimaryCtxRetain(&ctx, dev);
        if (rc == GGCU_SUCCESS)
            *out = ctx;
        return rc;
    }

    /* cuCtxCreate makes the new context current (pushes it); pop it so the
     * caller's current context is what it was. */
    /* Each variant through its own signature: the loader set exactly one. */
    if (d->cuCtxCreate_v4 != NULL)
        rc = (int)d->cuCtxCreate_v4(&ctx, NULL, GGCU_CTX_SCHED_AUTO, dev);
    else
        rc = (int)d->cuCtxCreate_v3(&ctx, NULL, 0, GGCU_CTX_SCHED_AUTO, dev);
    if (rc != GGCU_SUCCESS)
        return rc;

    ggcu_context popped = NULL;
    rc = (int)d->cuCtxPopCurrent_v2(&popped);
    if (rc != GGCU_SUCCESS || popped != ctx) {
        /* Cannot restore the caller's stack around a context we keep: give
         * it up. cuCtxDestroy also pops it if it is still current here. */
        if (rc == GGCU_SUCCESS && popped != NULL)
            (void)d->cuCtxPushCurrent_v2(popped);
        (void)d->cuCtxDestroy_v2(ctx);
        return rc != GGCU_SUCCESS ? rc : GGCU_ERROR_UNKNOWN;
    }
    *out = ctx;
    return GGCU_SUCCESS;
}

static int cuda_ctx_destroy(void *self, int device, bool use_primary, gg__nctx ctx)
{
    const ggcu_driver *d = drv_of(self);
    if (!use_primary)
        return (int)d->cuCtxDestroy_v2((ggcu_context)ctx);
    if (d->cuDevicePrimaryCtxRelease_v2 == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    ggcu_device dev;
    int rc = device_of(d, device, &dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    return (int)d->cuDevicePrimaryCtxRelease_v2(dev);
}

static int cuda_ctx_reset_primary(void *self, int device)
{
    const ggcu_driver *d = drv_of(self);
    if (d->cuDevicePrimaryCtxReset_v2 == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    ggcu_device dev;
    int rc = device_of(d, device, &dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    return (int)d->cuDevicePrimaryCtxReset_v2(dev);
}

/* Every gpuguard call asks this once, so it is a tail call: the driver
 * writes its CUcontext (an opaque pointer, the representation of a
 * gg__nctx) straight into *out. */
static int cuda_ctx_get_current(void *self, gg__nctx *out)
{
    *out = NULL;
    return (int)drv_of(self)->cuCtxGetCurrent((ggcu_context *)out);
}

static int cuda_ctx_set_current(void *self, gg__nctx ctx)
{
    return (int)drv_of(self)->cuCtxSetCurrent((ggcu_context)ctx);
}

static int cuda_ctx_push(void *self, gg__nctx ctx)
{
    return (int)drv_of(self)->cuCtxPushCurrent_v2((ggcu_context)ctx);
}

static int cuda_ctx_pop(void *self, gg__nctx *out)
{
    ggcu_context ctx = NULL;
    int rc = (int)drv_of(self)->cuCtxPopCurrent_v2(&ctx);
    if (out != NULL)
        *out = rc == GGCU_SUCCESS ? ctx : NULL;
    return rc;
}

static int cuda_ctx_synchronize(void *self)
{
    return (int)drv_of(self)->cuCtxSynchronize();
}

/* ---- streams and events ----------------------------------------------- */

static int cuda_stream_create(void *self, gg__nstream *out)
{
    ggcu_stream s = NULL;
    /* Non-blocking: gpuguard's streams must not serialise with the legacy
     * default stream that other code in the process may be using. */
    int rc = (int)drv_of(self)->cuStreamCreate(&s, GGCU_STREAM_NON_BLOCKING);
    *out = rc == GGCU_SUCCESS ? s : NULL;
    return rc;
}

static int cuda_stream_destroy(void *self, gg__nstream s)
{
    return (int)drv_of(self)->cuStreamDestroy_v2((ggcu_stream)s);
}

/* ---- adoption queries ------------------------------------------------ */

/* Whether ctx is the primary context of `device`. Only an active primary
 * context is retained to compare (a retain of an inactive one would create
 * it), and the reference is given back at once; the count it leaves is the
 * count it found. */
static int cuda_ctx_is_primary(void *self, int device, gg__nctx ctx, bool *primary)
{
    const ggcu_driver *d = drv_of(self);
    *primary = false;
    if (d->cuDevicePrimaryCtxGetState == NULL || d->cuDevicePrimaryCtxRetain == NULL ||
        d->cuDevicePrimaryCtxRelease_v2 == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    ggcu_device dev;
    int rc = device_of(d, device, &dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    unsigned flags = 0;
    int active = 0;
    rc = (int)d->cuDevicePrimaryCtxGetState(dev, &flags, &active);
    if (rc != GGCU_SUCCESS || !active)
        return rc;
    ggcu_context p = NULL;
    rc = (int)d->cuDevicePrimaryCtxRetain(&p, dev);
    if (rc != GGCU_SUCCESS)
        return rc;
    *primary = p == (ggcu_context)ctx;
    return (int)d->cuDevicePrimaryCtxRelease_v2(dev);
}

static int cuda_ctx_device(void *self, gg__nctx ctx, int *device)
{
    const ggcu_driver *d = drv_of(self);
    *device = -1;
    if (d->cuCtxGetDevice == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    /* cuCtxGetDevice asks the current context: push ctx for it and pop it
     * after, leaving the caller's stack as it was. */
    int rc = (int)d->cuCtxPushCurrent_v2((ggcu_context)ctx);
    if (rc != GGCU_SUCCESS)
        return rc;
    ggcu_device dev = 0;
    rc = (int)d->cuCtxGetDevice(&dev);
    ggcu_context popped = NULL;
    int pop = (int)d->cuCtxPopCurrent_v2(&popped);
    if (rc == GGCU_SUCCESS)
        rc = pop;
    if (rc != GGCU_SUCCESS)
        return rc;
    /* A CUdevice is not promised to be the ordinal: find the ordinal. */
    int count = 0;
    rc = (int)d->cuDeviceGetCount(&count);
    for (int i = 0; rc == GGCU_SUCCESS && i < count; i++) {
        ggcu_device di;
        rc = device_of(d, i, &di);
        if (rc == GGCU_SUCCESS && di == dev) {
            *device = i;
            return GGCU_SUCCESS;
        }
    }
    return rc != GGCU_SUCCESS ? rc : GGCU_ERROR_INVALID_DEVICE;
}

static int cuda_stream_context(void *self, gg__nstream s, gg__nctx *out)
{
    const ggcu_driver *d = drv_of(self);
    *out = NULL;
    if (d->cuStreamGetCtx == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    ggcu_context ctx = NULL;
    int rc = (int)d->cuStreamGetCtx((ggcu_stream)s, &ctx);
    if (rc == GGCU_SUCCESS)
        *out = ctx;
    return rc;
}

static int cuda_pointer_range(void *self, gg__dptr p, gg__nctx *ctx, gg__dptr *base, size_t *bytes)
{
    const ggcu_driver *d = drv_of(self);
    *ctx = NULL;
    *base = 0;
    *bytes = 0;
    if (d->cuPointerGetAttribute == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    ggcu_context owner = NULL;
    ggcu_deviceptr start = 0;
    size_t size = 0;
    int rc = (int)d->cuPointerGetAttribute(&owner, GGCU_POINTER_ATTRIBUTE_CONTEXT, p);
    if (rc == GGCU_SUCCESS)
        rc = (int)d->cuPointerGetAttribute(&start, GGCU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p);
    if (rc == GGCU_SUCCESS)
        rc = (int)d->cuPointerGetAttribute(&size, GGCU_POINTER_ATTRIBUTE_RANGE_SIZE, p);
    if (rc != GGCU_SUCCESS)
        return rc;
    *ctx = owner;
    *base = start;
    *bytes = size;
    return GGCU_SUCCESS;
}

static int cuda_stream_query(void *self, gg__nstream s)
{
    return (int)drv_of(self)->cuStreamQuery((ggcu_stream)s);
}

static int cuda_stream_synchronize(void *self, gg__nstream s)
{
    return (int)drv_of(self)->cuStreamSynchronize((ggcu_stream)s);
}

static int cuda_stream_wait_event(void *self, gg__nstream s, gg__nevent e)
{
    return (int)drv_of(self)->cuStreamWaitEvent((ggcu_stream)s, (ggcu_event)e, 0);
}

static int cuda_event_create(void *self, gg__nevent *out)
{
    ggcu_event e = NULL;
    /* Default flags keep timing on: chunked launches time slices with events. */
    int rc = (int)drv_of(self)->cuEventCreate(&e, GGCU_EVENT_DEFAULT);
    *out = rc == GGCU_SUCCESS ? e : NULL;
    return rc;
}

static int cuda_event_destroy(void *self, gg__nevent e)
{
    return (int)drv_of(self)->cuEventDestroy_v2((ggcu_event)e);
}

static int cuda_event_record(void *self, gg__nevent e, gg__nstream s)
{
    return (int)drv_of(self)->cuEventRecord((ggcu_event)e, (ggcu_stream)s);
}

static int cuda_event_query(void *self, gg__nevent e)
{
    return (int)drv_of(self)->cuEventQuery((ggcu_event)e);
}

static int cuda_event_synchronize(void *self, gg__nevent e)
{
    return (int)drv_of(self)->cuEventSynchronize((ggcu_event)e);
}

static int cuda_event_elapsed(void *self, float *ms, gg__nevent start, gg__nevent end)
{
    const ggcu_driver *d = drv_of(self);
    if (d->cuEventElapsedTime_v2 != NULL)
        return (int)d->cuEventElapsedTime_v2(ms, (ggcu_event)start, (ggcu_event)end);
    return (int)d->cuEventElapsedTime(ms, (ggcu_event)start, (ggcu_event)end);
}

/* ---- memory ----------------------------------------------------------- */

static int cuda_mem_alloc(void *self, gg__dptr *out, size_t bytes)
{
    ggcu_deviceptr p = 0;
    int rc = (int)drv_of(self)->cuMemAlloc_v2(&p, bytes);
    *out = rc == GGCU_SUCCESS ? (gg__dptr)p : 0;
    return rc;
}

static int cuda_mem_free(void *self, gg__dptr p)
{
    return (int)drv_of(self)->cuMemFree_v2((ggcu_deviceptr)p);
}

static int cuda_host_alloc(void *self, void **out, size_t bytes)
{
    const ggcu_driver *d = drv_of(self);
    *out = NULL;
    if (d->cuMemAllocHost_v2 == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    void *p = NULL;
    int rc = (int)d->cuMemAllocHost_v2(&p, bytes);
    if (rc == GGCU_SUCCESS)
        *out = p;
    return rc;
}

static int cuda_host_free(void *self, void *p)
{
    const ggcu_driver *d = drv_of(self);
    if (d->cuMemFreeHost == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    return (int)d->cuMemFreeHost(p);
}

static int cuda_memcpy_htod(void *self, gg__dptr dst, const void *src, size_t bytes,
                            gg__nstream s, bool async)
{
    const ggcu_driver *d = drv_of(self);
    if (async)
        return (int)d->cuMemcpyHtoDAsync_v2((ggcu_deviceptr)dst, src, bytes, (ggcu_stream)s);
    return (int)d->cuMemcpyHtoD_v2((ggcu_deviceptr)dst, src, bytes);
}

static int cuda_memcpy_dtoh(void *self, void *dst, gg__dptr src, size_t bytes, gg__nstream s,
                            bool async)
{
    const ggcu_driver *d = drv_of(self);
    if (async)
        return (int)d->cuMemcpyDtoHAsync_v2(dst, (ggcu_deviceptr)src, bytes, (ggcu_stream)s);
    return (int)d->cuMemcpyDtoH_v2(dst, (ggcu_deviceptr)src, bytes);
}

static int cuda_memcpy_dtod(void *self, gg__dptr dst, gg__dptr src, size_t bytes,
                            gg__nstream s, bool async)
{
    const ggcu_driver *d = drv_of(self);
    if (async)
        return (int)d->cuMemcpyDtoDAsync_v2((ggcu_deviceptr)dst, (ggcu_deviceptr)src, bytes,
                                            (ggcu_stream)s);
    return (int)d->cuMemcpyDtoD_v2((ggcu_deviceptr)dst, (ggcu_deviceptr)src, bytes);
}

static int cuda_memset_d8(void *self, gg__dptr dst, uint8_t value, size_t bytes, gg__nstream s,
                          bool async)
{
    const ggcu_driver *d = drv_of(self);
    if (async)
        return (int)d->cuMemsetD8Async((ggcu_deviceptr)dst, value, bytes, (ggcu_stream)s);
    return (int)d->cuMemsetD8_v2((ggcu_deviceptr)dst, value, bytes);
}

/* ---- modules and launches --------------------------------------------- */

static int cuda_module_load_file(void *self, gg__nmodule *out, const char *path)
{
    ggcu_module m = NULL;
    int rc = (int)drv_of(self)->cuModuleLoad(&m, path);
    *out = rc == GGCU_SUCCESS ? m : NULL;
    return rc;
}

/* cuModuleLoadData takes no size: the image (cubin, fatbin, NUL-terminated
 * PTX) describes its own length. `bytes` is for backends that need it. */
static int cuda_module_load_data(void *self, gg__nmodule *out, const void *image, size_t bytes)
{
    (void)bytes;
    ggcu_module m = NULL;
    int rc = (int)drv_of(self)->cuModuleLoadData(&m, image);
    *out = rc == GGCU_SUCCESS ? m : NULL;
    return rc;
}

static int cuda_module_unload(void *self, gg__nmodule m)
{
    return (int)drv_of(self)->cuModuleUnload((ggcu_module)m);
}

static int cuda_module_get_function(void *self, gg__nfunc *out, gg__nmodule m, const char *name)
{
    ggcu_function f = NULL;
    int rc = (int)drv_of(self)->cuModuleGetFunction(&f, (ggcu_module)m, name);
    *out = rc == GGCU_SUCCESS ? f : NULL;
    return rc;
}

static int cuda_launch(void *self, gg__nfunc f, const gg_dim3 *grid, const gg_dim3 *block,
                       unsigned shared_bytes, gg__nstream s, void **params)
{
    /* kernelParams only: cuLaunchKernel refuses params and `extra` together. */
    return (int)drv_of(self)->cuLaunchKernel((ggcu_function)f, grid->x, grid->y, grid->z,
                                             block->x, block->y, block->z, shared_bytes,
                                             (ggcu_stream)s, params, NULL);
}

/* More parameters than any kernel can have: CUDA 12.1 raised the
 * parameter space to 32764 bytes, and a parameter has at least one. */
#define GGCU_MAX_PARAMS 32768u

/* cuFuncGetParamInfo (12.4) at increasing indices: the first index it
 * refuses with CUDA_ERROR_INVALID_VALUE is the count ("paramIndex must be
 * less than the number of parameters that func takes"). */
static int cuda_kernel_params(void *self, gg__nfunc f, bool *known, size_t *count,
                              size_t *sizes, size_t max_sizes)
{
    const ggcu_driver *d = drv_of(self);
    *known = false;
    *count = 0;
    if (d->cuFuncGetParamInfo == NULL)
        return GGCU_SUCCESS;
    for (size_t i = 0; i < GGCU_MAX_PARAMS; i++) {
        size_t offset = 0, size = 0;
        int rc = (int)d->cuFuncGetParamInfo((ggcu_function)f, i, &offset, &size);
        if (rc == GGCU_ERROR_INVALID_VALUE) {
            *known = true;
            *count = i;
            return GGCU_SUCCESS;
        }
        if (rc == GGCU_ERROR_NOT_SUPPORTED)
            return GGCU_SUCCESS; /* e.g. a function the driver has no layout for */
        if (rc != GGCU_SUCCESS)
            return rc;
        if (i < max_sizes)
            sizes[i] = size;
    }
    return GGCU_SUCCESS; /* no end found: unknown */
}

static int cuda_host_alloc_mapped(void *self, void **host, gg__dptr *dev, size_t bytes)
{
    const ggcu_driver *d = drv_of(self);
    *host = NULL;
    *dev = 0;
    if (d->cuMemHostAlloc == NULL || d->cuMemHostGetDevicePointer_v2 == NULL)
        return GGCU_ERROR_NOT_SUPPORTED;
    void *p = NULL;
    int rc = (int)d->cuMemHostAlloc(&p, bytes, GGCU_MEMHOSTALLOC_DEVICEMAP);
    if (rc != GGCU_SUCCESS)
        return rc;
    ggcu_deviceptr dp = 0;
    rc = (int)d->cuMemHostGetDevicePointer_v2(&dp, p, 0);
    if (rc != GGCU_SUCCESS) {
        (void)d->cuMemFreeHost(p);
        return rc;
    }
    *host = p;
    *dev = (gg__dptr)dp;
    return GGCU_SUCCESS;
}

static int cuda_stream_write_value(void *self, gg__nstream s, gg__dptr addr, uint64_t value,
                                   bool wide)
{
    const ggcu_driver *d = drv_of(self);
    ggcu_stream st = (ggcu_stream)s;
    /* Each variant through its own row's pointer: the loader set one. */
    if (wide) {
        if (d->cuStreamWriteValue64_v2 != NULL)
            return (int)d->cuStreamWriteValue64_v2(st, addr, value, GGCU_STREAM_WRITE_VALUE_DEFAULT);
        if (d->cuStreamWriteValue64 != NULL)
            return (int)d->cuStreamWriteValue64(st, addr, value, GGCU_STREAM_WRITE_VALUE_DEFAULT);
        return GGCU_ERROR_NOT_SUPPORTED;
    }
    if (d->cuStreamWriteValue32_v2 != NULL)
        return (int)d->cuStreamWriteValue32_v2(st, addr, (uint32_t)value,
                                               GGCU_STREAM_WRITE_VALUE_DEFAULT);
    if (d->cuStreamWriteValue32 != NULL)
        return (int)d->cuStreamWriteValue32(st, addr, (uint32_t)value,
                                            GGCU_STREAM_WRITE_VALUE_DEFAULT);
    return GGCU_ERROR_NOT_SUPPORTED;
}

/* ---- lifetime --------------------------------------------------------- */

static const char *cuda_driver_error_detail(void *self)
{
    const char *detail = drv_of(self)->sim_error_detail();
    return detail != NULL ? detail : "";
}

static void cuda_close(void *self, bool driver_alive)
{
    ggcu_driver *d = self;
    /* driver_alive false: at process exit libcuda may be running its own
     * destructors (unloading it then can crash), and another thread may still
     * be returning through these pointers; in a forked child the driver state
     * is not ours. Do nothing: the OS reclaims it all. The struct stays
     * reachable from the caller's gg__backend, so leak checkers stay quiet. */
    if (d == NULL || !driver_alive)
        return;
    gg__cuda_driver_close(d);
    gg__free(d);
}

static const char *variant_or_base(const ggcu_driver *d, const char *base)
{
    const ggcu_entry_point *e = gg__cuda_entry_point(d, base);
    return e != NULL && e->variant != NULL ? e->variant : base;
}

/* The driver function named in error reports for each operation where it
 * depends on the driver: the entry point variant resolved (the rest are
 * cuda_operations' op_names). */
static void fill_op_names(gg__backend *b, const ggcu_driver *d)
{
    const char **n = b->op_names;
    n[GG__OP_CTX_CREATE] = gg__cuda_entry_point(d, "cuCtxCreate")->variant;
    n[GG__OP_EVENT_ELAPSED] = gg__cuda_entry_point(d, "cuEventElapsedTime")->variant;
    /* Optional entries: the variant in use, or the base name if none. */
    n[GG__OP_KERNEL_PARAMS] = variant_or_base(d, "cuFuncGetParamInfo");
    n[GG__OP_HOST_ALLOC_MAPPED] = variant_or_base(d, "cuMemHostAlloc");
    n[GG__OP_STREAM_WRITE_VALUE] = variant_or_base(d, "cuStreamWriteValue64");
}

/* The CUDA backend's operations and the names of the driver functions
 * behind them (the main one where an operation uses several): one constant
 * table, copied into the library's gg__backend by gg__cuda_backend_open,
 * which adds what depends on the driver loaded (its state, the library's
 * path, the entry point variants resolved, the simulator's detail call). */
static const gg__backend cuda_operations = {
    .name = "cuda",
    .classify = gg__cuda_classify,
    .code_name = gg__cuda_code_name,
    .native_for_status = gg__cuda_native_for_status,
    .entry_point = cuda_entry_point,
    .driver_version = cuda_driver_version,
    .device_count = cuda_device_count,
    .device_props = cuda_device_props,
    .ctx_create = cuda_ctx_create,
    .ctx_destroy = cuda_ctx_destroy,
    .ctx_reset_primary = cuda_ctx_reset_primary,
    .ctx_get_current = cuda_ctx_get_current,
    .ctx_set_current = cuda_ctx_set_current,
    .ctx_push = cuda_ctx_push,
    .ctx_pop = cuda_ctx_pop,
    .ctx_synchronize = cuda_ctx_synchronize,
    .ctx_device = cuda_ctx_device,
    .ctx_is_primary = cuda_ctx_is_primary,
    .stream_context = cuda_stream_context,
    .pointer_range = cuda_pointer_range,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_query = cuda_stream_query,
    .stream_synchronize = cuda_stream_synchronize,
    .stream_wait_event = cuda_stream_wait_event,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_query = cuda_event_query,
    .event_synchronize = cuda_event_synchronize,
    .event_elapsed = cuda_event_elapsed,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .memcpy_htod = cuda_memcpy_htod,
    .memcpy_dtoh = cuda_memcpy_dtoh,
    .memcpy_dtod = cuda_memcpy_dtod,
    .memset_d8 = cuda_memset_d8,
    .module_load_file = cuda_module_load_file,
    .module_load_data = cuda_module_load_data,
    .module_unload = cuda_module_unload,
    .module_get_function = cuda_module_get_function,
    .launch = cuda_launch,
    .kernel_params = cuda_kernel_params,
    .host_alloc_mapped = cuda_host_alloc_mapped,
    .host_free_mapped = cuda_host_free, /* cuMemFreeHost frees both kinds */
    .stream_write_value = cuda_stream_write_value,
    .module_load_data_call = "cuModuleLoadData",
    .close = cuda_close,
    .op_names = {
        [GG__OP_INIT] = "cuInit",
        [GG__OP_DRIVER_VERSION] = "cuDriverGetVersion",
        [GG__OP_DEVICE_COUNT] = "cuDeviceGetCount",
        [GG__OP_DEVICE_PROPS] = "cuDeviceGetAttribute",
        [GG__OP_CTX_DESTROY] = "cuCtxDestroy_v2",
        [GG__OP_CTX_GET_CURRENT] = "cuCtxGetCurrent",
        [GG__OP_CTX_SET_CURRENT] = "cuCtxSetCurrent",
        [GG__OP_CTX_PUSH] = "cuCtxPushCurrent_v2",
        [GG__OP_CTX_POP] = "cuCtxPopCurrent_v2",
        [GG__OP_CTX_SYNCHRONIZE] = "cuCtxSynchronize",
        [GG__OP_STREAM_CREATE] = "cuStreamCreate",
        [GG__OP_STREAM_DESTROY] = "cuStreamDestroy_v2",
        [GG__OP_STREAM_QUERY] = "cuStreamQuery",
        [GG__OP_STREAM_SYNCHRONIZE] = "cuStreamSynchronize",
        [GG__OP_STREAM_WAIT_EVENT] = "cuStreamWaitEvent",
        [GG__OP_EVENT_CREATE] = "cuEventCreate",
        [GG__OP_EVENT_DESTROY] = "cuEventDestroy_v2",
        [GG__OP_EVENT_RECORD] = "cuEventRecord",
        [GG__OP_EVENT_QUERY] = "cuEventQuery",
        [GG__OP_EVENT_SYNCHRONIZE] = "cuEventSynchronize",
        [GG__OP_MEM_ALLOC] = "cuMemAlloc_v2",
        [GG__OP_MEM_FREE] = "cuMemFree_v2",
        [GG__OP_HOST_ALLOC] = "cuMemAllocHost_v2",
        [GG__OP_HOST_FREE] = "cuMemFreeHost",
        [GG__OP_MEMCPY_HTOD] = "cuMemcpyHtoD_v2",
        [GG__OP_MEMCPY_DTOH] = "cuMemcpyDtoH_v2",
        [GG__OP_MEMCPY_DTOD] = "cuMemcpyDtoD_v2",
        [GG__OP_MEMSET] = "cuMemsetD8_v2",
        [GG__OP_MODULE_LOAD] = "cuModuleLoad",
        [GG__OP_MODULE_UNLOAD] = "cuModuleUnload",
        [GG__OP_MODULE_GET_FUNCTION] = "cuModuleGetFunction",
        [GG__OP_LAUNCH] = "cuLaunchKernel",
        [GG__OP_HOST_FREE_MAPPED] = "cuMemFreeHost",
        [GG__OP_CTX_DEVICE] = "cuCtxGetDevice",
        [GG__OP_STREAM_CONTEXT] = "cuStreamGetCtx",
        [GG__OP_POINTER_QUERY] = "cuPointerGetAttribute",
    },
};

gg__backend_open_result gg__cuda_backend_open(const char *library, gg__backend *out)
{
    memset(out, 0, sizeof *out);
    ggcu_driver *d = gg__calloc(1, sizeof *d);
    if (d == NULL) {
        gg__backend_open_result r;
        memset(&r, 0, sizeof r);
        r.status = GG_OUT_OF_MEMORY;
        strcpy(r.message, "out of host memory opening the CUDA backend");
        return r;
    }
    gg__backend_open_result r = gg__cuda_driver_open(d, library);
    if (r.status != GG_OK) {
        gg__free(d);
        return r;
    }

    *out = cuda_operations;
    out->self = d;
    out->sticky_process_wide = d->sticky_process_wide;
    out->library = d->library;
    fill_op_names(out, d);
    if (drv_of(out->self)->sim_error_detail != NULL)
        out->driver_error_detail = cuda_driver_error_detail;
    return r;
}
