/*
 * The part of the CUDA face that exists for clients other than gpuguard:
 * every function PyCUDA 2022.2 binds at load time that the rest of the
 * face does not export (src/sim/README.md says which are modelled and which
 * answer CUDA_ERROR_NOT_SUPPORTED). Included by sim_cuda.h; the functions'
 * prototypes and types are src/abi's (abi/cuda_functions_pycuda.h).
 */
#ifndef GG_SIM_CUDA_CLIENT_H
#define GG_SIM_CUDA_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/cuda_driver.h"
#include "sim_core.h"
#include "sim_cuda_stubs.h"

/* The limits the simulator keeps: CUlimit's values below this. */
#define SIM_CU_LIMIT_COUNT 7

/* Exports of this part, counted like the others (sim_cuda.h appends this
 * list to SIM_CUDA_EXPORTS). The stubs' rows carry their signature and
 * reason too, so X takes the name and ignores what follows. */
#define SIM_CUDA_CLIENT_EXPORTS(X)                                              \
    /* sim_cuda_client_device.c */                                              \
    X(cuDeviceComputeCapability) X(cuDeviceGetPCIBusId) X(cuDeviceGetByPCIBusId) \
    X(cuDeviceCanAccessPeer) X(cuDeviceGetUuid) X(cuDeviceGetUuid_v2)           \
    /* sim_cuda_face.c: the primary context's v1 names and flags */            \
    X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset)                     \
    X(cuDevicePrimaryCtxSetFlags) X(cuDevicePrimaryCtxSetFlags_v2)              \
    /* sim_cuda_client_launch.c */                                              \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                              \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)                     \
    X(cuOccupancyMaxPotentialBlockSize) X(cuOccupancyMaxPotentialBlockSizeWithFlags) \
    X(cuLaunchCooperativeKernel) X(cuStreamAddCallback) X(cuLaunchHostFunc)     \
    /* sim_cuda_client_context.c */                                             \
    X(cuCtxAttach) X(cuCtxDetach) X(cuCtxGetApiVersion) X(cuCtxGetLimit)        \
    X(cuCtxSetLimit) X(cuCtxGetCacheConfig) X(cuCtxSetCacheConfig)              \
    X(cuCtxGetSharedMemConfig) X(cuCtxSetSharedMemConfig) X(cuMemGetInfo_v2)    \
    X(cuProfilerStart) X(cuProfilerStop)                                        \
    /* sim_cuda_legacy.c */                                                     \
    X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuFuncSetCacheConfig)        \
    X(cuFuncSetBlockShape) X(cuFuncSetSharedSize) X(cuParamSetSize)            \
    X(cuParamSeti) X(cuParamSetf) X(cuParamSetv) X(cuLaunch) X(cuLaunchGrid)    \
    X(cuLaunchGridAsync)                                                        \
    /* sim_cuda_client_memory.c */                                              \
    X(cuMemsetD16_v2) X(cuMemsetD16Async) X(cuMemsetD32_v2) X(cuMemsetD32Async) \
    X(cuMemsetD2D8_v2) X(cuMemsetD2D8Async) X(cuMemsetD2D16_v2)                 \
    X(cuMemsetD2D16Async) X(cuMemsetD2D32_v2) X(cuMemsetD2D32Async)            \
    X(cuMemAllocPitch_v2) X(cuMemGetAddressRange_v2) X(cuMemHostRegister_v2)    \
    X(cuMemHostUnregister) X(cuMemHostGetFlags) X(cuModuleLoadDataEx)           \
    X(cuMemAllocManaged) X(cuStreamAttachMemAsync)                              \
    /* sim_cuda_memcpy_pitched.c */                                                   \
    X(cuMemcpy2D_v2) X(cuMemcpy2DAsync_v2) X(cuMemcpy2DUnaligned_v2)           \
    X(cuMemcpy3D_v2) X(cuMemcpy3DAsync_v2)                                      \
    /* sim_cuda_link.c */                                                       \
    X(cuLinkCreate_v2) X(cuLinkAddData_v2) X(cuLinkAddFile_v2) X(cuLinkComplete) \
    X(cuLinkDestroy)                                                            \
    /* sim_cuda_stubs.c: CUDA_ERROR_NOT_SUPPORTED (rows of three arguments) */  \
    SIM_CUDA_STUBS(X)

/* Writes msg into a JIT log buffer (cuModuleLoadDataEx, cuLink*) whose
 * size in bytes sits in *size_slot (the option's value), and sets *size_slot
 * to the bytes written, the terminating NUL included (0 for no buffer). */
void sim_cuda_jit_log(char *buf, void **size_slot, const char *msg);

/* cuDeviceGetAttribute for the attributes the core does not keep: true,
 * with *out set, for every attribute number CUDA 13.0 defines. */
bool sim_cuda_client_attr(const sim_device *d, int attrib, int *out);

/* cuLaunchKernel's `extra` form: unpacks the CU_LAUNCH_PARAM_BUFFER_* list
 * into one pointer per parameter of fn, pointing into the caller's buffer
 * (slots: at least fn->nparams entries). Refuses, with a detail, a list
 * given together with kernelParams, an unknown key, or a buffer that is too
 * small for the kernel's declared parameters. */
sim_status sim_cuda_unpack_extra(const sim_function *fn, void **kernelParams, void **extra,
                                 void **slots);

#endif /* GG_SIM_CUDA_CLIENT_H */
