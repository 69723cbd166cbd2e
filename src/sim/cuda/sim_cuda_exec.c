/*
 * CUDA face: streams, events, modules and launches.
 *
 * Stream and event calls work on the object's own context (current or not);
 * the NULL stream and CU_STREAM_LEGACY mean the current context's null
 * stream, CU_STREAM_PER_THREAD (and NULL in the _ptsz / _ptds exports) the
 * calling thread's per-thread default stream of it (sim_cuda_per_thread.c).
 */
#include "sim_cuda.h"
#include "sim_cuda_per_thread.h"

#define CU_STREAM_LEGACY_HANDLE 0x1u
#define CU_STREAM_PER_THREAD_HANDLE 0x2u
#define CU_EVENT_KNOWN_FLAGS 0x7u      /* BLOCKING_SYNC | DISABLE_TIMING | INTERPROCESS */
#define CU_EVENT_INTERPROCESS 0x4u

static sim_status ready(void)
{
    return sim_is_initialized() ? SIM_OK : SIM_ERR_NOT_INITIALIZED;
}

static sim_status current(sim_ctx **c)
{
    sim_status st = ready();
    return st ? st : sim_ctx_current(c);
}

static sim_status enter(sim_ctx **c)
{
    sim_status st = ready();
    return st ? st : sim_ctx_enter(c);
}

static bool is_null_stream(uint64_t v)
{
    return v == 0 || v == CU_STREAM_LEGACY_HANDLE || v == CU_STREAM_PER_THREAD_HANDLE;
}

/* Explicit contexts, cuInit first, terse details. */
const sim_face sim_cuda_face = {
    .ready = ready,
    .current = current,
    .enter = enter,
    .is_null_stream = is_null_stream,
    .is_per_thread_stream = sim_cuda_is_per_thread_stream,
    .per_thread_stream = sim_cuda_per_thread_stream,
    .by_device = false,
};

#define FACE (&sim_cuda_face)

sim_status sim_cuda_stream(CUstream h, sim_ctx *cur, sim_stream **out)
{
    return sim_face_stream_of(FACE, SIM_HANDLE(h), cur, out);
}

SIM_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int flags)
{
    SIM_COUNT(cuStreamCreate);
    uint64_t h;
    bool valid = phStream && (flags & ~SIM_STREAM_NON_BLOCKING) == 0;
    sim_status st = sim_face_stream_create(FACE, valid, flags, &h);
    if (!st)
        *phStream = (CUstream)(uintptr_t)h;
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream)
{
    SIM_COUNT(cuStreamDestroy_v2);
    return sim_cuda_result(sim_face_stream_destroy(FACE, SIM_HANDLE(hStream)));
}

SIM_EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    SIM_COUNT(cuStreamQuery);
    return sim_cuda_result(sim_face_stream_query(FACE, SIM_HANDLE(hStream)));
}

SIM_EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    SIM_COUNT(cuStreamSynchronize);
    return sim_cuda_result(sim_face_stream_sync(FACE, SIM_HANDLE(hStream)));
}

SIM_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int flags)
{
    SIM_COUNT(cuStreamWaitEvent);
    return sim_cuda_result(
        sim_face_stream_wait_event(FACE, SIM_HANDLE(hStream), SIM_HANDLE(hEvent), flags));
}

SIM_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int flags)
{
    SIM_COUNT(cuEventCreate);
    uint64_t h;
    bool ipc_ok = !(flags & CU_EVENT_INTERPROCESS) || (flags & SIM_EVENT_DISABLE_TIMING);
    bool valid = phEvent && !(flags & ~CU_EVENT_KNOWN_FLAGS) && ipc_ok;
    sim_status st = sim_face_event_create(FACE, valid, flags, &h);
    if (!st)
        *phEvent = (CUevent)(uintptr_t)h;
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventDestroy_v2(CUevent hEvent)
{
    SIM_COUNT(cuEventDestroy_v2);
    return sim_cuda_result(sim_face_event_destroy(FACE, SIM_HANDLE(hEvent)));
}

/* NULL: the event's context's null stream. */
SIM_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    SIM_COUNT(cuEventRecord);
    return sim_cuda_result(sim_face_event_record(FACE, SIM_HANDLE(hEvent), SIM_HANDLE(hStream)));
}

SIM_EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    SIM_COUNT(cuEventQuery);
    return sim_cuda_result(sim_face_event_query(FACE, SIM_HANDLE(hEvent)));
}

SIM_EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    SIM_COUNT(cuEventSynchronize);
    return sim_cuda_result(sim_face_event_sync(FACE, SIM_HANDLE(hEvent)));
}

SIM_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent hStart, CUevent hEnd)
{
    SIM_COUNT(cuEventElapsedTime);
    return sim_cuda_result(sim_face_event_elapsed(FACE, ms, SIM_HANDLE(hStart), SIM_HANDLE(hEnd)));
}

SIM_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent hStart, CUevent hEnd)
{
    SIM_COUNT(cuEventElapsedTime_v2);
    return sim_cuda_result(sim_face_event_elapsed(FACE, ms, SIM_HANDLE(hStart), SIM_HANDLE(hEnd)));
}

/* ---- modules and launches ----------------------------------------------- */

static CUresult load(CUmodule *module, const void *what, bool is_path)
{
    uint64_t h;
    sim_status st = sim_face_module_load(FACE, module != NULL, what, is_path, 0, &h);
    if (!st)
        *module = (CUmodule)(uintptr_t)h;
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    SIM_COUNT(cuModuleLoad);
    return load(module, fname, true);
}

SIM_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    SIM_COUNT(cuModuleLoadData);
    return load(module, image, false);
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    SIM_COUNT(cuModuleUnload);
    return sim_cuda_result(sim_face_module_unload(FACE, SIM_HANDLE(hmod)));
}

SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    SIM_COUNT(cuModuleGetFunction);
    uint64_t h;
    sim_status st = sim_face_module_function(FACE, SIM_HANDLE(hmod), hfunc != NULL, name, &h);
    if (!st)
        *hfunc = (CUfunction)(uintptr_t)h;
    return sim_cuda_result(st);
}

/* A fatbin, as nvcc embeds it (the wrapper __cudaRegisterFatBinary gets, or
 * the bare container); the loader tells the kinds apart (sim_module.c). */
SIM_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    SIM_COUNT(cuModuleLoadFatBinary);
    return load(module, fatCubin, false);
}

/* A PTX module's .global or .const variable (sim_module.c keeps them in a
 * device allocation): a device pointer for copies, memsets and kernel
 * parameters. Either output may be NULL. */
SIM_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                         const char *name)
{
    SIM_COUNT(cuModuleGetGlobal_v2);
    uint64_t d;
    sim_status st = sim_face_module_global(FACE, SIM_HANDLE(hmod), name, &d, bytes);
    if (!st && dptr)
        *dptr = (CUdeviceptr)d;
    return sim_cuda_result(st);
}

CUresult sim_cuda_launch(CUfunction f, const unsigned int grid[3], const unsigned int block[3],
                         unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
                         void **extra)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_function *fn = (sim_function *)sim_registry_get(SIM_HANDLE(f), SIM_KIND_FUNCTION);
    sim_stream *s = NULL;
    sim_status st = SIM_OK;
    void *unpacked[SIM_CUDA_MAX_PARAMS];
    if (!fn || fn->obj.owner != c) {
        sim_detail("function %p is not a live kernel of the current context", (void *)f);
        st = SIM_ERR_INVALID_HANDLE;
    } else if (extra && (st = sim_cuda_unpack_extra(fn, kernelParams, extra, unpacked)) == SIM_OK) {
        kernelParams = unpacked;
    }
    if (!st)
        st = sim_cuda_stream(hStream, c, &s);
    if (!st)
        st = sim_face_launch(s, fn, grid, block, sharedMemBytes, kernelParams);
    if (s)
        sim_obj_release(&s->obj);
    if (fn)
        sim_obj_release(&fn->obj);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* CUDA 12.4: offsets as the kernel's parameter buffer lays them out
 * (sim_function_param_offset: a PTX kernel's exactly, from its .param
 * declarations). paramIndex at or past the kernel's parameter count is
 * CUDA_ERROR_INVALID_VALUE ("paramIndex must be less than the number of
 * parameters"): callers learn the count by asking until it fails. */
SIM_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                       size_t *paramSize)
{
    SIM_COUNT(cuFuncGetParamInfo);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_function *fn = (sim_function *)sim_registry_get(SIM_HANDLE(func), SIM_KIND_FUNCTION);
    if (!fn) {
        sim_detail("function %p is not a live kernel", (void *)func);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    CUresult r = CUDA_SUCCESS;
    if (!paramOffset) {
        sim_detail("cuFuncGetParamInfo: paramOffset is NULL");
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (paramIndex >= fn->nparams) {
        sim_detail("cuFuncGetParamInfo: kernel \"%s\" has %u parameters, index %zu asked",
                   fn->name, fn->nparams, paramIndex);
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        *paramOffset = sim_function_param_offset(fn, (unsigned)paramIndex);
        if (paramSize)
            *paramSize = fn->sizes[paramIndex];
    }
    sim_obj_release(&fn->obj);
    return r;
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams, void **extra)
{
    SIM_COUNT(cuLaunchKernel);
    return sim_cuda_launch(f, (const unsigned int[3]){ gridDimX, gridDimY, gridDimZ },
                           (const unsigned int[3]){ blockDimX, blockDimY, blockDimZ },
                           sharedMemBytes, hStream, kernelParams, extra);
}

/* The context of a stream: a user stream's own; the null stream's (NULL,
 * legacy or per-thread handle) is the current context's, as in CUDA. */
SIM_EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    SIM_COUNT(cuStreamGetCtx);
    sim_status st = ready();
    if (st)
        return sim_cuda_result(st);
    if (!pctx) {
        sim_detail("cuStreamGetCtx: pctx is NULL");
        return CUDA_ERROR_INVALID_VALUE;
    }
    uint64_t h = SIM_HANDLE(hStream);
    if (is_null_stream(h)) {
        sim_ctx *c;
        st = current(&c);
        if (st)
            return sim_cuda_result(st);
        *pctx = (CUcontext)(uintptr_t)c->obj.handle;
        sim_obj_release(&c->obj);
        return CUDA_SUCCESS;
    }
    sim_stream *s = (sim_stream *)sim_registry_get(h, SIM_KIND_STREAM);
    if (!s) {
        sim_detail("cuStreamGetCtx: stream %p is not a live stream", hStream);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    *pctx = (CUcontext)(uintptr_t)s->ctx->obj.handle;
    sim_obj_release(&s->obj);
    return CUDA_SUCCESS;
}
