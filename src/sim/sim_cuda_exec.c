/*
 * CUDA face: streams, events, modules and launches.
 *
 * Stream and event calls work on the object's own context (current or not);
 * the NULL stream (and CU_STREAM_LEGACY / CU_STREAM_PER_THREAD, which the
 * simulator does not distinguish) means the current context's null stream.
 */
#include "sim_cuda.h"

#define CU_STREAM_LEGACY_HANDLE 0x1u
#define CU_STREAM_PER_THREAD_HANDLE 0x2u
#define CU_EVENT_KNOWN_FLAGS 0x7u      /* BLOCKING_SYNC | DISABLE_TIMING | INTERPROCESS */
#define CU_EVENT_INTERPROCESS 0x4u

static bool is_null_stream(CUstream h)
{
    uint64_t v = SIM_HANDLE(h);
    return v == 0 || v == CU_STREAM_LEGACY_HANDLE || v == CU_STREAM_PER_THREAD_HANDLE;
}

sim_status sim_cuda_stream(CUstream h, sim_ctx *cur, sim_stream **out)
{
    if (is_null_stream(h)) {
        *out = sim_ctx_null_stream(cur);
        return *out ? SIM_OK : SIM_ERR_CONTEXT_DESTROYED;
    }
    sim_stream *s = (sim_stream *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_STREAM);
    if (!s) {
        sim_detail("stream %p is not a live stream", (void *)h);
        return SIM_ERR_INVALID_HANDLE;
    }
    if (s->ctx != cur) {
        sim_obj_release(&s->obj);
        sim_detail("stream %p belongs to another context", (void *)h);
        return SIM_ERR_INVALID_HANDLE;
    }
    *out = s;
    return SIM_OK;
}

/* The stream behind h, retained: a user stream from its own context, the
 * null stream from the current one. */
static CUresult any_stream(CUstream h, sim_stream **out)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!is_null_stream(h)) {
        *out = (sim_stream *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_STREAM);
        return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    }
    sim_ctx *c;
    sim_status st = sim_ctx_current(&c);
    if (st)
        return sim_cuda_result(st);
    st = sim_cuda_stream(h, c, out);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

static CUresult get_event(CUevent h, sim_event **out)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    *out = (sim_event *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_EVENT);
    return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int flags)
{
    SIM_COUNT(cuStreamCreate);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_stream *s = NULL;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (phStream && (flags & ~SIM_STREAM_NON_BLOCKING) == 0)
        st = sim_stream_create(c, flags, false, &s);
    if (!st) {
        *phStream = SIM_AS(CUstream, &s->obj);
        sim_obj_release(&s->obj);
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream)
{
    SIM_COUNT(cuStreamDestroy_v2);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (is_null_stream(hStream))
        return CUDA_ERROR_INVALID_HANDLE;
    sim_stream *s = (sim_stream *)sim_registry_get(SIM_HANDLE(hStream), SIM_KIND_STREAM);
    if (!s)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_status st = sim_ctx_health(s->ctx);
    if (!st) {
        if (sim_registry_remove(&s->obj))
            sim_stream_close(s); /* pending work still runs, then the worker exits */
        else
            st = SIM_ERR_INVALID_HANDLE;
    }
    sim_obj_release(&s->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    SIM_COUNT(cuStreamQuery);
    sim_stream *s;
    CUresult r = any_stream(hStream, &s);
    if (r)
        return r;
    sim_status st = sim_stream_query(s);
    sim_obj_release(&s->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    SIM_COUNT(cuStreamSynchronize);
    sim_stream *s;
    CUresult r = any_stream(hStream, &s);
    if (r)
        return r;
    sim_status st = sim_stream_sync(s);
    sim_obj_release(&s->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int flags)
{
    SIM_COUNT(cuStreamWaitEvent);
    sim_stream *s;
    CUresult r = any_stream(hStream, &s);
    if (r)
        return r;
    sim_event *e;
    if ((r = get_event(hEvent, &e))) {
        sim_obj_release(&s->obj);
        return r;
    }
    sim_status st = flags ? SIM_ERR_INVALID_VALUE : sim_ctx_health(s->ctx);
    if (!st)
        st = sim_stream_wait_event(s, e);
    sim_obj_release(&e->obj);
    sim_obj_release(&s->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int flags)
{
    SIM_COUNT(cuEventCreate);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_ERR_INVALID_VALUE;
    sim_event *e = NULL;
    bool ipc_ok = !(flags & CU_EVENT_INTERPROCESS) || (flags & SIM_EVENT_DISABLE_TIMING);
    if (phEvent && !(flags & ~CU_EVENT_KNOWN_FLAGS) && ipc_ok)
        st = sim_event_create(c, flags, &e);
    if (!st) {
        *phEvent = SIM_AS(CUevent, &e->obj);
        sim_obj_release(&e->obj);
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventDestroy_v2(CUevent hEvent)
{
    SIM_COUNT(cuEventDestroy_v2);
    sim_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r)
        return r;
    sim_status st = sim_ctx_health(e->ctx);
    if (!st && !sim_registry_remove(&e->obj))
        st = SIM_ERR_INVALID_HANDLE;
    sim_obj_release(&e->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    SIM_COUNT(cuEventRecord);
    sim_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r)
        return r;
    sim_stream *s = NULL;
    sim_status st = sim_ctx_health(e->ctx);
    if (!st)
        st = sim_cuda_stream(hStream, e->ctx, &s); /* NULL: the event's context's null stream */
    if (!st)
        st = sim_event_record(e, s);
    if (s)
        sim_obj_release(&s->obj);
    sim_obj_release(&e->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    SIM_COUNT(cuEventQuery);
    sim_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r)
        return r;
    sim_status st = sim_event_query(e);
    sim_obj_release(&e->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    SIM_COUNT(cuEventSynchronize);
    sim_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r)
        return r;
    sim_status st = sim_event_sync(e);
    sim_obj_release(&e->obj);
    return sim_cuda_result(st);
}

static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
    sim_event *ea, *eb;
    CUresult r = get_event(a, &ea);
    if (r)
        return r;
    if ((r = get_event(b, &eb))) {
        sim_obj_release(&ea->obj);
        return r;
    }
    sim_status st = ms ? sim_event_elapsed(ea, eb, ms) : SIM_ERR_INVALID_VALUE;
    sim_obj_release(&ea->obj);
    sim_obj_release(&eb->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent hStart, CUevent hEnd)
{
    SIM_COUNT(cuEventElapsedTime);
    return elapsed(ms, hStart, hEnd);
}

SIM_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent hStart, CUevent hEnd)
{
    SIM_COUNT(cuEventElapsedTime_v2);
    return elapsed(ms, hStart, hEnd);
}

/* ---- modules and launches ----------------------------------------------- */

static CUresult get_module(CUmodule h, sim_module **out)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    *out = (sim_module *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_MODULE);
    return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    SIM_COUNT(cuModuleLoad);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_module *m = NULL;
    sim_status st = module && fname ? sim_module_load_path(c, fname, &m) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *module = SIM_AS(CUmodule, &m->obj);
        sim_obj_release(&m->obj);
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    SIM_COUNT(cuModuleLoadData);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_module *m = NULL;
    sim_status st = module && image ? sim_module_load_data(c, image, &m) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *module = SIM_AS(CUmodule, &m->obj);
        sim_obj_release(&m->obj);
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    SIM_COUNT(cuModuleUnload);
    sim_module *m;
    CUresult r = get_module(hmod, &m);
    if (r)
        return r;
    sim_status st = sim_ctx_health(m->obj.owner);
    if (!st)
        st = sim_module_unload(m);
    sim_obj_release(&m->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    SIM_COUNT(cuModuleGetFunction);
    sim_module *m;
    CUresult r = get_module(hmod, &m);
    if (r)
        return r;
    sim_function *f = NULL;
    sim_status st = sim_ctx_health(m->obj.owner);
    if (!st)
        st = hfunc && name ? sim_module_function(m, name, &f) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *hfunc = SIM_AS(CUfunction, &f->obj);
        sim_obj_release(&f->obj);
    }
    sim_obj_release(&m->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams, void **extra)
{
    SIM_COUNT(cuLaunchKernel);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_function *fn = (sim_function *)sim_registry_get(SIM_HANDLE(f), SIM_KIND_FUNCTION);
    sim_stream *s = NULL;
    sim_status st = SIM_OK;
    if (!fn || fn->obj.owner != c) {
        sim_detail("function %p is not a live kernel of the current context", (void *)f);
        st = SIM_ERR_INVALID_HANDLE;
    } else if (extra) {
        sim_detail("cuLaunchKernel: the `extra` form is not simulated; use kernelParams");
        st = SIM_ERR_INVALID_VALUE;
    } else {
        st = sim_cuda_stream(hStream, c, &s);
    }
    if (!st) {
        sim_launch_desc d = {
            .fn = fn,
            .grid = { gridDimX, gridDimY, gridDimZ },
            .block = { blockDimX, blockDimY, blockDimZ },
            .shared_bytes = sharedMemBytes,
            .params = kernelParams,
        };
        st = sim_launch_submit(s, &d);
    }
    if (s)
        sim_obj_release(&s->obj);
    if (fn)
        sim_obj_release(&fn->obj);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}
