/*
 * The HIP face of the simulated driver: the list of exported functions and
 * the helpers the face's files share. The runtime's types, numbers and
 * prototypes (HIP 5.2.3's ABI) are src/abi's (abi/hip_runtime.h).
 *
 * HIP's model on the core: each thread has a current device (0 until
 * hipSetDevice); each device has one primary context, created by the first
 * call that needs it and never released (hipDevicePrimaryCtxRelease does
 * nothing, as in ROCm); a call that needs a context uses the current
 * device's primary context. The core's per-thread context stack holds the
 * hipCtx* stack, whose entries are primary contexts.
 */
#ifndef GG_SIM_HIP_H
#define GG_SIM_HIP_H

#include <stddef.h>
#include <stdint.h>

#include "abi/hip_runtime.h"
#include "sim_core.h"
#include "sim_face_copy.h"
#include "sim_face_objects.h"

/* Every exported hip* function; each counts its calls. */
#define SIM_HIP_EXPORTS(X)                                                          \
    X(hipInit) X(hipDriverGetVersion) X(hipRuntimeGetVersion) X(hipGetDeviceCount)  \
    X(hipDeviceGet) X(hipDeviceGetName) X(hipDeviceTotalMem) X(hipDeviceGetAttribute) \
    X(hipSetDevice) X(hipGetDevice) X(hipDevicePrimaryCtxRetain)                    \
    X(hipDevicePrimaryCtxRelease) X(hipDevicePrimaryCtxReset) X(hipCtxGetCurrent)   \
    X(hipCtxSetCurrent) X(hipCtxPushCurrent) X(hipCtxPopCurrent)                    \
    X(hipDeviceSynchronize) X(hipDeviceReset) X(hipStreamCreateWithFlags)           \
    X(hipStreamDestroy) X(hipStreamQuery) X(hipStreamSynchronize)                   \
    X(hipPointerGetAttribute) X(hipStreamGetFlags)                                  \
    X(hipStreamWaitEvent) X(hipEventCreate) X(hipEventDestroy) X(hipEventRecord)    \
    X(hipEventQuery) X(hipEventSynchronize) X(hipEventElapsedTime) X(hipMalloc)     \
    X(hipFree) X(hipHostMalloc) X(hipHostFree) X(hipMemcpyHtoD) X(hipMemcpyDtoH)    \
    X(hipMemcpyDtoD) X(hipMemcpyHtoDAsync) X(hipMemcpyDtoHAsync)                    \
    X(hipMemcpyDtoDAsync) X(hipMemsetD8) X(hipMemsetD8Async) X(hipModuleLoad)       \
    X(hipModuleLoadData) X(hipModuleUnload) X(hipModuleGetFunction)                 \
    X(hipModuleLaunchKernel) X(hipGetErrorName) X(hipGetErrorString)               \
    X(hipHostGetDevicePointer) X(hipStreamWriteValue32) X(hipStreamWriteValue64)   \
    X(hipModuleGetGlobal)

enum sim_hip_fn {
#define SIM_HIP_FN_ENUM(name) SIM_HIP_FN_##name,
    SIM_HIP_EXPORTS(SIM_HIP_FN_ENUM)
#undef SIM_HIP_FN_ENUM
    SIM_HIP_FN_COUNT
};

extern atomic_ullong sim_hip_calls[SIM_HIP_FN_COUNT];
extern const char *const sim_hip_fn_names[SIM_HIP_FN_COUNT];

/* Counts one call of an export: relaxed, so it costs one atomic add. */
#define SIM_HIP_COUNT(name) \
    atomic_fetch_add_explicit(&sim_hip_calls[SIM_HIP_FN_##name], 1, memory_order_relaxed)

/* Handles cross the ABI as opaque pointers holding registry handles. */
#define SIM_HANDLE(p) ((uint64_t)(uintptr_t)(p))
#define SIM_AS(type, obj) ((type)(uintptr_t)(obj)->handle)
#define SIM_DPTR(p) ((uint64_t)(uintptr_t)(p))

/* ---- helpers shared by the face's files ---------------------------------- */

hipError_t sim_hip_result(sim_status st);
/* Initialises the simulator on first use, as every ROCm entry point does;
 * the error an uninitialisable runtime returns otherwise. */
hipError_t sim_hip_init(void);
/* The device's primary context, retained; created on first use. */
sim_status sim_hip_primary(sim_device *d, sim_ctx **out);
/* The device's primary context, retained, if it exists (NULL otherwise). */
sim_ctx *sim_hip_primary_if_any(sim_device *d);
/* The calling thread's current device (0 until hipSetDevice). */
int sim_hip_current_device(void);
/* init + the current device's primary context, retained (any health). */
hipError_t sim_hip_current(sim_ctx **c);
/* sim_hip_current, and the context is not poisoned (else its error). */
hipError_t sim_hip_enter(sim_ctx **c);
/* True for the handles that mean a context's null stream: NULL and
 * hipStreamPerThread (the simulator has one default stream per context). */
bool sim_hip_is_null_stream(hipStream_t h);
/* The stream h of context c, retained: the null stream for NULL, else a
 * live stream of c (INVALID_HANDLE if it is not). */
sim_status sim_hip_stream_of(hipStream_t h, sim_ctx *c, sim_stream **out);
/* The context and stream a call queued on h goes to, both retained and the
 * context healthy: a user stream's own context, or for the null stream the
 * one null_ctx(arg) picks (retained and healthy). */
hipError_t sim_hip_target(hipStream_t h, hipError_t (*null_ctx)(uint64_t arg, sim_ctx **c),
                          uint64_t arg, sim_ctx **c, sim_stream **s);
/* The face's rules for the calls shared with the CUDA face. */
extern const sim_face sim_hip_face;

#endif /* GG_SIM_HIP_H */
