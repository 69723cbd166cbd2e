/*
 * HIP face: streams, events, modules and launches.
 *
 * Streams and events belong to the primary context of the device that was
 * current when they were created. Stream and event calls work on the
 * object's own context, whichever device is current; the NULL stream (and
 * hipStreamPerThread, which the simulator does not tell apart) means the
 * current device's null stream. A launch goes to the stream's device, and
 * the kernel must come from a module loaded on that device.
 */
#include "sim_hip.h"

bool sim_hip_is_null_stream(hipStream_t h)
{
    uint64_t v = SIM_HANDLE(h);
    return v == 0 || v == SIM_HIP_STREAM_PER_THREAD;
}

sim_status sim_hip_stream_of(hipStream_t h, sim_ctx *c, sim_stream **out)
{
    if (sim_hip_is_null_stream(h)) {
        *out = sim_ctx_null_stream(c);
        return *out ? SIM_OK : SIM_ERR_CONTEXT_DESTROYED;
    }
    sim_stream *s = (sim_stream *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_STREAM);
    if (!s) {
        sim_detail("stream %p is not a live stream", (void *)h);
        return SIM_ERR_INVALID_HANDLE;
    }
    if (s->ctx != c) {
        sim_obj_release(&s->obj);
        sim_detail("stream %p belongs to device %d", (void *)h, s->ctx->dev->ordinal);
        return SIM_ERR_INVALID_HANDLE;
    }
    *out = s;
    return SIM_OK;
}

/* The stream behind h, retained: a user stream from its own context, the
 * null stream from the current device's. */
static hipError_t any_stream(hipStream_t h, sim_stream **out)
{
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!sim_hip_is_null_stream(h)) {
        *out = (sim_stream *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_STREAM);
        if (!*out)
            sim_detail("stream %p is not a live stream", (void *)h);
        return *out ? hipSuccess : hipErrorInvalidHandle;
    }
    sim_ctx *c;
    if ((r = sim_hip_current(&c)))
        return r;
    sim_status st = sim_hip_stream_of(h, c, out);
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

static hipError_t get_event(hipEvent_t h, sim_event **out)
{
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    *out = (sim_event *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_EVENT);
    if (!*out)
        sim_detail("event %p is not a live event", (void *)h);
    return *out ? hipSuccess : hipErrorInvalidHandle;
}

/* ---- streams ------------------------------------------------------------ */

SIM_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    SIM_HIP_COUNT(hipStreamCreateWithFlags);
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    sim_stream *s = NULL;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (stream && (flags & ~SIM_HIP_STREAM_NON_BLOCKING) == 0)
        st = sim_stream_create(c, flags & SIM_HIP_STREAM_NON_BLOCKING ? SIM_STREAM_NON_BLOCKING : 0,
                               false, &s);
    if (!st) {
        *stream = SIM_AS(hipStream_t, &s->obj);
        sim_obj_release(&s->obj);
    }
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipStreamDestroy(hipStream_t stream)
{
    SIM_HIP_COUNT(hipStreamDestroy);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (sim_hip_is_null_stream(stream))
        return hipErrorInvalidHandle;
    sim_stream *s = (sim_stream *)sim_registry_get(SIM_HANDLE(stream), SIM_KIND_STREAM);
    if (!s)
        return hipErrorInvalidHandle;
    sim_status st = sim_ctx_health(s->ctx);
    if (!st) {
        if (sim_registry_remove(&s->obj))
            sim_stream_close(s); /* pending work still runs, then the worker exits */
        else
            st = SIM_ERR_INVALID_HANDLE;
    }
    sim_obj_release(&s->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipStreamQuery(hipStream_t stream)
{
    SIM_HIP_COUNT(hipStreamQuery);
    sim_stream *s;
    hipError_t r = any_stream(stream, &s);
    if (r)
        return r;
    sim_status st = sim_stream_query(s);
    sim_obj_release(&s->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream)
{
    SIM_HIP_COUNT(hipStreamSynchronize);
    sim_stream *s;
    hipError_t r = any_stream(stream, &s);
    if (r)
        return r;
    sim_status st = sim_stream_sync(s);
    sim_obj_release(&s->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    SIM_HIP_COUNT(hipStreamWaitEvent);
    sim_stream *s;
    hipError_t r = any_stream(stream, &s);
    if (r)
        return r;
    sim_event *e;
    if ((r = get_event(event, &e))) {
        sim_obj_release(&s->obj);
        return r;
    }
    sim_status st = flags ? SIM_ERR_INVALID_VALUE : sim_ctx_health(s->ctx);
    if (!st)
        st = sim_stream_wait_event(s, e);
    sim_obj_release(&e->obj);
    sim_obj_release(&s->obj);
    return sim_hip_result(st);
}

/* ---- events ------------------------------------------------------------- */

SIM_EXPORT hipError_t hipEventCreate(hipEvent_t *event)
{
    SIM_HIP_COUNT(hipEventCreate);
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_ERR_INVALID_VALUE;
    sim_event *e = NULL;
    if (event)
        st = sim_event_create(c, 0, &e);
    if (!st) {
        *event = SIM_AS(hipEvent_t, &e->obj);
        sim_obj_release(&e->obj);
    }
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipEventDestroy(hipEvent_t event)
{
    SIM_HIP_COUNT(hipEventDestroy);
    sim_event *e;
    hipError_t r = get_event(event, &e);
    if (r)
        return r;
    sim_status st = sim_ctx_health(e->ctx);
    if (!st && !sim_registry_remove(&e->obj))
        st = SIM_ERR_INVALID_HANDLE;
    sim_obj_release(&e->obj);
    return sim_hip_result(st);
}

/* The stream must be of the event's device (NULL: that device's null
 * stream): a record the event could not observe would never complete. */
SIM_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    SIM_HIP_COUNT(hipEventRecord);
    sim_event *e;
    hipError_t r = get_event(event, &e);
    if (r)
        return r;
    sim_stream *s = NULL;
    sim_status st = sim_ctx_health(e->ctx);
    if (!st)
        st = sim_hip_stream_of(stream, e->ctx, &s);
    if (!st)
        st = sim_event_record(e, s);
    if (s)
        sim_obj_release(&s->obj);
    sim_obj_release(&e->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipEventQuery(hipEvent_t event)
{
    SIM_HIP_COUNT(hipEventQuery);
    sim_event *e;
    hipError_t r = get_event(event, &e);
    if (r)
        return r;
    sim_status st = sim_event_query(e);
    sim_obj_release(&e->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipEventSynchronize(hipEvent_t event)
{
    SIM_HIP_COUNT(hipEventSynchronize);
    sim_event *e;
    hipError_t r = get_event(event, &e);
    if (r)
        return r;
    sim_status st = sim_event_sync(e);
    sim_obj_release(&e->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    SIM_HIP_COUNT(hipEventElapsedTime);
    sim_event *a, *b;
    hipError_t r = get_event(start, &a);
    if (r)
        return r;
    if ((r = get_event(stop, &b))) {
        sim_obj_release(&a->obj);
        return r;
    }
    sim_status st = ms ? sim_event_elapsed(a, b, ms) : SIM_ERR_INVALID_VALUE;
    sim_obj_release(&a->obj);
    sim_obj_release(&b->obj);
    return sim_hip_result(st);
}

/* ---- modules ------------------------------------------------------------ */

static hipError_t get_module(hipModule_t h, sim_module **out)
{
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    *out = (sim_module *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_MODULE);
    if (!*out)
        sim_detail("module %p is not a loaded module", (void *)h);
    return *out ? hipSuccess : hipErrorInvalidHandle;
}

static hipError_t load(hipModule_t *module, const void *what, bool is_path)
{
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    sim_module *m = NULL;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (module && what)
        st = is_path ? sim_module_load_path(c, what, &m) : sim_module_load_data(c, what, &m);
    if (!st) {
        *module = SIM_AS(hipModule_t, &m->obj);
        sim_obj_release(&m->obj);
    }
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
    SIM_HIP_COUNT(hipModuleLoad);
    return load(module, fname, true);
}

SIM_EXPORT hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    SIM_HIP_COUNT(hipModuleLoadData);
    return load(module, image, false);
}

SIM_EXPORT hipError_t hipModuleUnload(hipModule_t module)
{
    SIM_HIP_COUNT(hipModuleUnload);
    sim_module *m;
    hipError_t r = get_module(module, &m);
    if (r)
        return r;
    sim_status st = sim_ctx_health(m->obj.owner);
    if (!st)
        st = sim_module_unload(m);
    sim_obj_release(&m->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                           const char *kname)
{
    SIM_HIP_COUNT(hipModuleGetFunction);
    sim_module *m;
    hipError_t r = get_module(module, &m);
    if (r)
        return r;
    sim_function *f = NULL;
    sim_status st = sim_ctx_health(m->obj.owner);
    if (!st)
        st = function && kname ? sim_module_function(m, kname, &f) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *function = SIM_AS(hipFunction_t, &f->obj);
        sim_obj_release(&f->obj);
    }
    sim_obj_release(&m->obj);
    return sim_hip_result(st);
}

/* ---- launches ----------------------------------------------------------- */

/* The context a launch on h goes to, retained and healthy, and the stream. */
static hipError_t launch_target(hipStream_t h, sim_ctx **c, sim_stream **s)
{
    hipError_t r;
    if (sim_hip_is_null_stream(h)) {
        if ((r = sim_hip_enter(c)))
            return r;
    } else {
        if ((r = sim_hip_init()))
            return r;
        sim_stream *us = (sim_stream *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_STREAM);
        if (!us) {
            sim_detail("stream %p is not a live stream", (void *)h);
            return hipErrorInvalidHandle;
        }
        *c = us->ctx;
        sim_obj_retain(&(*c)->obj);
        sim_obj_release(&us->obj);
        sim_status st = sim_ctx_health(*c);
        if (st) {
            sim_obj_release(&(*c)->obj);
            return sim_hip_result(st);
        }
    }
    sim_status st = sim_hip_stream_of(h, *c, s);
    if (st)
        sim_obj_release(&(*c)->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            hipStream_t stream, void **kernelParams,
                                            void **extra)
{
    SIM_HIP_COUNT(hipModuleLaunchKernel);
    sim_ctx *c;
    sim_stream *s;
    hipError_t r = launch_target(stream, &c, &s);
    if (r)
        return r;
    sim_function *fn = (sim_function *)sim_registry_get(SIM_HANDLE(f), SIM_KIND_FUNCTION);
    sim_status st = SIM_OK;
    if (!fn || fn->obj.owner != c) {
        sim_detail("function %p is not a live kernel of device %d", (void *)f, c->dev->ordinal);
        st = SIM_ERR_INVALID_HANDLE;
    } else if (extra) {
        sim_detail("hipModuleLaunchKernel: the `extra` form is not simulated; use kernelParams");
        st = SIM_ERR_INVALID_VALUE;
    } else {
        sim_launch_desc d = {
            .fn = fn,
            .grid = { gridDimX, gridDimY, gridDimZ },
            .block = { blockDimX, blockDimY, blockDimZ },
            .shared_bytes = sharedMemBytes,
            .params = kernelParams,
        };
        st = sim_launch_submit(s, &d);
    }
    if (fn)
        sim_obj_release(&fn->obj);
    sim_obj_release(&s->obj);
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}
