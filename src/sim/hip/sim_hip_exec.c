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

#define FACE (&sim_hip_face)

bool sim_hip_is_null_stream(hipStream_t h)
{
    return FACE->is_null_stream(SIM_HANDLE(h));
}

sim_status sim_hip_stream_of(hipStream_t h, sim_ctx *c, sim_stream **out)
{
    return sim_face_stream_of(FACE, SIM_HANDLE(h), c, out);
}

/* ---- streams ------------------------------------------------------------ */

SIM_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    SIM_HIP_COUNT(hipStreamCreateWithFlags);
    uint64_t h;
    bool valid = stream && (flags & ~GG_ABI_HIP_STREAM_NON_BLOCKING) == 0;
    unsigned int core_flags = flags & GG_ABI_HIP_STREAM_NON_BLOCKING ? SIM_STREAM_NON_BLOCKING : 0;
    sim_status st = sim_face_stream_create(FACE, valid, core_flags, &h);
    if (!st)
        *stream = (hipStream_t)(uintptr_t)h;
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipStreamDestroy(hipStream_t stream)
{
    SIM_HIP_COUNT(hipStreamDestroy);
    return sim_hip_result(sim_face_stream_destroy(FACE, SIM_HANDLE(stream)));
}

SIM_EXPORT hipError_t hipStreamQuery(hipStream_t stream)
{
    SIM_HIP_COUNT(hipStreamQuery);
    return sim_hip_result(sim_face_stream_query(FACE, SIM_HANDLE(stream)));
}

/* A live stream's flags (hipStreamNonBlocking or 0); the null stream's
 * are 0. Any other handle: hipErrorInvalidHandle. */
SIM_EXPORT hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
    SIM_HIP_COUNT(hipStreamGetFlags);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!flags) {
        sim_detail("hipStreamGetFlags: flags is NULL");
        return hipErrorInvalidValue;
    }
    if (sim_hip_is_null_stream(stream)) {
        *flags = 0;
        return hipSuccess;
    }
    sim_stream *s = (sim_stream *)sim_registry_get(SIM_HANDLE(stream), SIM_KIND_STREAM);
    if (!s) {
        sim_detail("hipStreamGetFlags: stream %p is not a live stream", (void *)stream);
        return hipErrorInvalidHandle;
    }
    *flags = s->blocking ? 0u : SIM_STREAM_NON_BLOCKING;
    sim_obj_release(&s->obj);
    return hipSuccess;
}

SIM_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream)
{
    SIM_HIP_COUNT(hipStreamSynchronize);
    return sim_hip_result(sim_face_stream_sync(FACE, SIM_HANDLE(stream)));
}

SIM_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    SIM_HIP_COUNT(hipStreamWaitEvent);
    return sim_hip_result(
        sim_face_stream_wait_event(FACE, SIM_HANDLE(stream), SIM_HANDLE(event), flags));
}

/* ---- events ------------------------------------------------------------- */

SIM_EXPORT hipError_t hipEventCreate(hipEvent_t *event)
{
    SIM_HIP_COUNT(hipEventCreate);
    uint64_t h;
    sim_status st = sim_face_event_create(FACE, event != NULL, 0, &h);
    if (!st)
        *event = (hipEvent_t)(uintptr_t)h;
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipEventDestroy(hipEvent_t event)
{
    SIM_HIP_COUNT(hipEventDestroy);
    return sim_hip_result(sim_face_event_destroy(FACE, SIM_HANDLE(event)));
}

/* The stream must be of the event's device (NULL: that device's null
 * stream): a record the event could not observe would never complete. */
SIM_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    SIM_HIP_COUNT(hipEventRecord);
    return sim_hip_result(sim_face_event_record(FACE, SIM_HANDLE(event), SIM_HANDLE(stream)));
}

SIM_EXPORT hipError_t hipEventQuery(hipEvent_t event)
{
    SIM_HIP_COUNT(hipEventQuery);
    return sim_hip_result(sim_face_event_query(FACE, SIM_HANDLE(event)));
}

SIM_EXPORT hipError_t hipEventSynchronize(hipEvent_t event)
{
    SIM_HIP_COUNT(hipEventSynchronize);
    return sim_hip_result(sim_face_event_sync(FACE, SIM_HANDLE(event)));
}

SIM_EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    SIM_HIP_COUNT(hipEventElapsedTime);
    return sim_hip_result(sim_face_event_elapsed(FACE, ms, SIM_HANDLE(start), SIM_HANDLE(stop)));
}

/* ---- modules ------------------------------------------------------------ */

static hipError_t load(hipModule_t *module, const void *what, bool is_path)
{
    uint64_t h;
    sim_status st = sim_face_module_load(FACE, module != NULL, what, is_path, 0, &h);
    if (!st)
        *module = (hipModule_t)(uintptr_t)h;
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
    return sim_hip_result(sim_face_module_unload(FACE, SIM_HANDLE(module)));
}

SIM_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                           const char *kname)
{
    SIM_HIP_COUNT(hipModuleGetFunction);
    uint64_t h;
    sim_status st = sim_face_module_function(FACE, SIM_HANDLE(module), function != NULL, kname, &h);
    if (!st)
        *function = (hipFunction_t)(uintptr_t)h;
    return sim_hip_result(st);
}

/* A PTX module's .global or .const variable (sim_module.c): its device
 * address and size; either output may be NULL. */
SIM_EXPORT hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t hmod,
                                         const char *name)
{
    SIM_HIP_COUNT(hipModuleGetGlobal);
    uint64_t d;
    sim_status st = sim_face_module_global(FACE, SIM_HANDLE(hmod), name, &d, bytes);
    if (!st && dptr)
        *dptr = (hipDeviceptr_t)(uintptr_t)d;
    return sim_hip_result(st);
}

/* ---- launches ----------------------------------------------------------- */

hipError_t sim_hip_target(hipStream_t h, hipError_t (*null_ctx)(uint64_t arg, sim_ctx **c),
                          uint64_t arg, sim_ctx **c, sim_stream **s)
{
    hipError_t r;
    if (sim_hip_is_null_stream(h)) {
        if ((r = null_ctx(arg, c)))
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

/* A launch on the null stream goes to the current device. */
static hipError_t current_ctx(uint64_t unused, sim_ctx **c)
{
    (void)unused;
    return sim_hip_enter(c);
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
    hipError_t r = sim_hip_target(stream, current_ctx, 0, &c, &s);
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
        st = sim_face_launch(s, fn, (const unsigned int[3]){ gridDimX, gridDimY, gridDimZ },
                             (const unsigned int[3]){ blockDimX, blockDimY, blockDimZ },
                             sharedMemBytes, kernelParams);
    }
    if (fn)
        sim_obj_release(&fn->obj);
    sim_obj_release(&s->obj);
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}
