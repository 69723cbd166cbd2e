/*
 * CUDA face: what kernels look like to clients beyond gpuguard.
 *
 *  - cuLaunchKernel's `extra` form (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE
 *    / _END), which PyCUDA uses for every launch: one buffer holding the
 *    parameters laid out as the kernel's ABI lays them out.
 *  - The pre-4.0 launch interface PyCUDA still binds: cuFuncSetBlockShape,
 *    cuFuncSetSharedSize, cuParamSetSize/i/f/v, cuLaunch, cuLaunchGrid,
 *    cuLaunchGridAsync. Each function keeps its shape, shared size and
 *    parameter buffer (CUDA keeps them per function too).
 *  - Function attributes and cache configuration.
 *
 * Layout of a parameter buffer (sim_function_param_offset). A PTX kernel's
 * parameters sit at their declared alignments (.param .align N), as on a
 * GPU: a complex<double> declared .align 8 follows a pointer at offset 8.
 * For a host C kernel the simulator knows each parameter's size only
 * (GG_SIM_KERNEL_PARAMS), not its type, so it places parameter i at
 * the next offset aligned to the natural alignment of a scalar or vector
 * of that size: the largest power of two dividing the size, at most 16
 * (char 1, short 2, int/float 4, pointer/double/long 8, float4 16; a
 * 12-byte float3 4). That is what a C compiler, Python's struct module in
 * native mode (PyCUDA packs with it) and nvcc agree on for those types; a
 * struct parameter whose alignment is smaller than its size's (say, two
 * ints: 4, not 8) must be declared with the size padded accordingly or
 * passed through kernelParams.
 */
#include "sim_alloc.h"
#include "sim_cuda.h"

#include <stdlib.h>
#include <string.h>

#define CU_LAUNCH_PARAM_END_AS_INT 0x00
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT 0x02
#define LEGACY_PARAM_BYTES 4096u    /* cuParamSetSize's limit (CUDA: 4 KB) */
#define FUNC_ATTRIBUTE_COUNT 16     /* CU_FUNC_ATTRIBUTE_MAX in CUDA 13.0 */

/* Points slots[i] at parameter i inside buf (bytes long); false, with a
 * detail, if the declared parameters do not fit. */
static bool unpack_buffer(const sim_function *fn, const unsigned char *buf, size_t bytes,
                          void **slots, const char *what)
{
    if (fn->nparams > SIM_CUDA_MAX_PARAMS) {
        sim_detail("%s of %s: the kernel declares %u parameters, the simulator takes %u", what,
                   fn->name, fn->nparams, SIM_CUDA_MAX_PARAMS);
        return false;
    }
    for (unsigned i = 0; i < fn->nparams; i++) {
        size_t off = sim_function_param_offset(fn, i);
        if (off + fn->sizes[i] > bytes) {
            sim_detail("%s of %s: parameter %u (%u bytes at offset %zu) runs past the %zu-byte "
                       "parameter buffer",
                       what, fn->name, i, fn->sizes[i], off, bytes);
            return false;
        }
        slots[i] = (void *)(uintptr_t)(buf + off);
    }
    return true;
}

sim_status sim_cuda_unpack_extra(const sim_function *fn, void **kernelParams, void **extra,
                                 void **slots)
{
    if (kernelParams) {
        sim_detail("cuLaunchKernel of %s: kernelParams and extra are both given; CUDA takes one",
                   fn->name);
        return SIM_ERR_INVALID_VALUE;
    }
    const unsigned char *buf = NULL;
    const size_t *size = NULL;
    for (size_t i = 0;; i += 2) {
        uintptr_t key = (uintptr_t)extra[i];
        if (key == CU_LAUNCH_PARAM_END_AS_INT)
            break;
        if (key == CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT) {
            buf = extra[i + 1];
        } else if (key == CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT) {
            size = extra[i + 1];
        } else {
            sim_detail("cuLaunchKernel of %s: extra[%zu] is %p, not CU_LAUNCH_PARAM_BUFFER_POINTER, "
                       "CU_LAUNCH_PARAM_BUFFER_SIZE or CU_LAUNCH_PARAM_END",
                       fn->name, i, extra[i]);
            return SIM_ERR_INVALID_VALUE;
        }
    }
    if (fn->nparams == 0)
        return SIM_OK;
    if (!buf || !size) {
        sim_detail("cuLaunchKernel of %s: extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER and "
                   "CU_LAUNCH_PARAM_BUFFER_SIZE for a kernel with %u parameters",
                   fn->name, fn->nparams);
        return SIM_ERR_INVALID_VALUE;
    }
    return unpack_buffer(fn, buf, *size, slots, "cuLaunchKernel") ? SIM_OK : SIM_ERR_INVALID_VALUE;
}

/* ---- per-function settings ------------------------------------------------ */

typedef struct func_settings {
    int block[3];                   /* cuFuncSetBlockShape; 0: not set */
    unsigned shared_bytes;          /* cuFuncSetSharedSize */
    unsigned param_size;            /* cuParamSetSize */
    unsigned char params[LEGACY_PARAM_BYTES];
    int cache_config;               /* cuFuncSetCacheConfig */
    int max_dynamic_shared;         /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int carveout;                   /* CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT */
} func_settings;

/* One lock for every function's settings: these calls are rare, and a
 * launch copies what it needs out under it. */
static pthread_mutex_t g_settings_lock = PTHREAD_MUTEX_INITIALIZER;

/* The live function behind f, retained, with its settings (created on
 * first use); the settings lock is held on success. */
static CUresult lock_function(CUfunction f, sim_function **out, func_settings **settings)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_function *fn = (sim_function *)sim_registry_get(SIM_HANDLE(f), SIM_KIND_FUNCTION);
    if (!fn) {
        sim_detail("function %p is not a live kernel", (void *)f);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&g_settings_lock);
    if (!fn->face_state) {
        func_settings *s = sim_calloc(1, sizeof *s);
        if (!s) {
            pthread_mutex_unlock(&g_settings_lock);
            sim_obj_release(&fn->obj);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        sim_function_info info;
        sim_function_get_info(fn, &info);
        /* What the per-block limit leaves beside the static .shared. */
        s->max_dynamic_shared = info.static_shared < SIM_MAX_SHARED_PER_BLOCK
                                    ? (int)(SIM_MAX_SHARED_PER_BLOCK - info.static_shared)
                                    : 0;
        s->carveout = -1;
        fn->face_state = s;
    }
    *out = fn;
    *settings = fn->face_state;
    return CUDA_SUCCESS;
}

static void unlock_function(sim_function *fn)
{
    pthread_mutex_unlock(&g_settings_lock);
    sim_obj_release(&fn->obj);
}

SIM_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    SIM_COUNT(cuFuncGetAttribute);
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    /* A host C kernel: no static shared, constant or local memory;
     * registers and versions as an sm_80 build reports them. A PTX
     * kernel: what its declarations say, and the binary version of the
     * device the driver compiles it for. */
    const sim_device_config *cfg = fn->obj.owner->dev->cfg;
    sim_function_info info;
    sim_function_get_info(fn, &info);
    int values[FUNC_ATTRIBUTE_COUNT] = {
        [0] = (int)cfg->max_threads_per_block,
        [4] = 32,                       /* NUM_REGS */
        [5] = 80, [6] = 80,             /* PTX_VERSION, BINARY_VERSION */
        [8] = s->max_dynamic_shared,
        [9] = s->carveout,
    };
    if (info.is_ptx) {
        int major = 0, minor = 0;
        sim_device_attr(fn->obj.owner->dev, SIM_ATTR_COMPUTE_CAPABILITY_MAJOR, &major);
        sim_device_attr(fn->obj.owner->dev, SIM_ATTR_COMPUTE_CAPABILITY_MINOR, &minor);
        if (info.max_threads && info.max_threads < cfg->max_threads_per_block)
            values[0] = (int)info.max_threads;
        values[1] = (int)info.static_shared;   /* SHARED_SIZE_BYTES */
        values[2] = (int)info.const_bytes;     /* CONST_SIZE_BYTES */
        values[3] = (int)info.local_bytes;     /* LOCAL_SIZE_BYTES */
        values[4] = (int)info.nregs;
        values[5] = info.ptx_version;
        values[6] = major * 10 + minor;
    }
    unlock_function(fn);
    if (!pi || (unsigned)attrib >= FUNC_ATTRIBUTE_COUNT) {
        sim_detail("cuFuncGetAttribute: attribute %d is not a CUfunction_attribute", (int)attrib);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pi = values[attrib];
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    SIM_COUNT(cuFuncSetAttribute);
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    r = CUDA_SUCCESS;
    /* Dynamic shared memory can have what the static leaves of the limit. */
    sim_function_info info;
    sim_function_get_info(fn, &info);
    unsigned dynamic_max = info.static_shared < SIM_MAX_SHARED_PER_BLOCK
                               ? SIM_MAX_SHARED_PER_BLOCK - info.static_shared
                               : 0;
    if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
        value >= 0 && (unsigned)value <= dynamic_max) {
        s->max_dynamic_shared = value;
    } else if (attrib == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT &&
               value >= -1 && value <= 100) {
        s->carveout = value;
    } else {
        sim_detail("cuFuncSetAttribute: attribute %d cannot be set to %d (settable: maximum dynamic "
                   "shared memory up to %u bytes, shared memory carveout -1 to 100)",
                   (int)attrib, value, dynamic_max);
        r = CUDA_ERROR_INVALID_VALUE;
    }
    unlock_function(fn);
    return r;
}

SIM_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    SIM_COUNT(cuFuncSetCacheConfig);
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    if ((unsigned)config <= CU_FUNC_CACHE_PREFER_EQUAL) {
        s->cache_config = (int)config; /* a preference: nothing to simulate */
    } else {
        sim_detail("cuFuncSetCacheConfig: %d is not a CUfunc_cache", (int)config);
        r = CUDA_ERROR_INVALID_VALUE;
    }
    unlock_function(fn);
    return r;
}

/* ---- the pre-4.0 launch interface ------------------------------------------ */

SIM_EXPORT CUresult cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z)
{
    SIM_COUNT(cuFuncSetBlockShape);
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    if (x <= 0 || y <= 0 || z <= 0) {
        sim_detail("cuFuncSetBlockShape of %s: block (%d,%d,%d) is not positive", fn->name, x, y, z);
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        /* The device limits are checked at launch, as with cuLaunchKernel. */
        s->block[0] = x;
        s->block[1] = y;
        s->block[2] = z;
    }
    unlock_function(fn);
    return r;
}

SIM_EXPORT CUresult cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes)
{
    SIM_COUNT(cuFuncSetSharedSize);
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    s->shared_bytes = bytes; /* checked at launch */
    unlock_function(fn);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuParamSetSize(CUfunction hfunc, unsigned int numbytes)
{
    SIM_COUNT(cuParamSetSize);
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    if (numbytes > LEGACY_PARAM_BYTES) {
        sim_detail("cuParamSetSize of %s: %u bytes, the limit is %u", fn->name, numbytes,
                   LEGACY_PARAM_BYTES);
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        s->param_size = numbytes;
    }
    unlock_function(fn);
    return r;
}

/* Writes bytes at offset of hfunc's parameter buffer. */
static CUresult param_set(CUfunction hfunc, int offset, const void *value, unsigned int bytes,
                          const char *call)
{
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    if (!value || offset < 0 || (size_t)offset + bytes > LEGACY_PARAM_BYTES) {
        sim_detail("%s of %s: %u bytes at offset %d do not fit the %u-byte parameter buffer",
                   call, fn->name, bytes, offset, LEGACY_PARAM_BYTES);
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        memcpy(s->params + offset, value, bytes);
    }
    unlock_function(fn);
    return r;
}

SIM_EXPORT CUresult cuParamSeti(CUfunction hfunc, int offset, unsigned int value)
{
    SIM_COUNT(cuParamSeti);
    return param_set(hfunc, offset, &value, sizeof value, "cuParamSeti");
}

SIM_EXPORT CUresult cuParamSetf(CUfunction hfunc, int offset, float value)
{
    SIM_COUNT(cuParamSetf);
    return param_set(hfunc, offset, &value, sizeof value, "cuParamSetf");
}

SIM_EXPORT CUresult cuParamSetv(CUfunction hfunc, int offset, void *ptr, unsigned int numbytes)
{
    SIM_COUNT(cuParamSetv);
    return param_set(hfunc, offset, ptr, numbytes, "cuParamSetv");
}

/* Launches hfunc with its block shape, shared size and parameter buffer, on
 * stream h of the current context. */
static CUresult legacy_launch(CUfunction hfunc, int grid_width, int grid_height, CUstream h,
                              const char *call)
{
    sim_function *fn;
    func_settings *s;
    CUresult r = lock_function(hfunc, &fn, &s);
    if (r)
        return r;
    /* Copied out, so that the launch runs without the settings lock. */
    unsigned char params[LEGACY_PARAM_BYTES];
    unsigned size = s->param_size, shared = s->shared_bytes;
    unsigned block[3] = { (unsigned)s->block[0], (unsigned)s->block[1], (unsigned)s->block[2] };
    memcpy(params, s->params, size);
    unlock_function(fn);
    if (block[0] == 0) {
        sim_detail("%s: no block shape set for the function (cuFuncSetBlockShape)", call);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (grid_width <= 0 || grid_height <= 0) {
        sim_detail("%s: grid (%d,%d) is not positive", call, grid_width, grid_height);
        return CUDA_ERROR_INVALID_VALUE;
    }
    size_t bytes = size;
    void *extra[] = { (void *)(uintptr_t)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, params,
                      (void *)(uintptr_t)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, &bytes,
                      (void *)(uintptr_t)CU_LAUNCH_PARAM_END_AS_INT };
    return sim_cuda_launch(hfunc, (const unsigned int[3]){ (unsigned)grid_width, (unsigned)grid_height, 1 },
                           block, shared, h, NULL, extra);
}

SIM_EXPORT CUresult cuLaunch(CUfunction f)
{
    SIM_COUNT(cuLaunch);
    return legacy_launch(f, 1, 1, NULL, "cuLaunch");
}

SIM_EXPORT CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
    SIM_COUNT(cuLaunchGrid);
    return legacy_launch(f, grid_width, grid_height, NULL, "cuLaunchGrid");
}

SIM_EXPORT CUresult cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream hStream)
{
    SIM_COUNT(cuLaunchGridAsync);
    return legacy_launch(f, grid_width, grid_height, hStream, "cuLaunchGridAsync");
}
