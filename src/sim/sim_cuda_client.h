/*
 * The part of the CUDA face that exists for clients other than gpuguard:
 * every function PyCUDA 2022.2 binds at load time that the rest of the
 * face does not export (src/sim/README.md says which are modelled and which
 * answer CUDA_ERROR_NOT_SUPPORTED). Included by sim_cuda.h: the types below
 * carry cuda.h's names and ABI (tags included), so that
 * tests/sim/test_sim_abi.c can check the prototypes of
 * sim_cuda_client_abi.h against the real header.
 */
#ifndef GG_SIM_CUDA_CLIENT_H
#define GG_SIM_CUDA_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_core.h"

typedef struct CUarray_st *CUarray;
typedef struct CUtexref_st *CUtexref;
typedef struct CUsurfref_st *CUsurfref;
typedef struct CUgraphicsResource_st *CUgraphicsResource;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUuuid_st { char bytes[16]; } CUuuid;
typedef unsigned int GLuint;
typedef unsigned int GLenum;

/* Structures only passed by pointer to functions the simulator does not
 * model: never dereferenced, so left incomplete. */
typedef struct CUDA_MEMCPY3D_PEER_st CUDA_MEMCPY3D_PEER;
typedef struct CUDA_ARRAY_DESCRIPTOR_st CUDA_ARRAY_DESCRIPTOR;
typedef struct CUDA_ARRAY3D_DESCRIPTOR_st CUDA_ARRAY3D_DESCRIPTOR;

/* cuMemcpy2D's request, with cuda.h's layout (sim_cuda_memcpy_pitched.c). */
typedef enum CUmemorytype_enum {
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_MEMORYTYPE_ARRAY = 3,
    CU_MEMORYTYPE_UNIFIED = 4
} CUmemorytype;

typedef struct CUDA_MEMCPY2D_st {
    size_t srcXInBytes;
    size_t srcY;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    unsigned long long srcDevice; /* CUdeviceptr (sim_cuda.h defines it after this header) */
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes;
    size_t dstY;
    CUmemorytype dstMemoryType;
    void *dstHost;
    unsigned long long dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes;
    size_t Height;
} CUDA_MEMCPY2D;

/* cuMemcpy3D's request, with cuda.h's layout (sim_cuda_memcpy_pitched.c). */
typedef struct CUDA_MEMCPY3D_st {
    size_t srcXInBytes;
    size_t srcY;
    size_t srcZ;
    size_t srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    unsigned long long srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch;
    size_t srcHeight;
    size_t dstXInBytes;
    size_t dstY;
    size_t dstZ;
    size_t dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    unsigned long long dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch;
    size_t dstHeight;
    size_t WidthInBytes;
    size_t Height;
    size_t Depth;
} CUDA_MEMCPY3D;

/* Passed by value: the full 64-byte layout matters. */
typedef struct CUipcEventHandle_st { char reserved[64]; } CUipcEventHandle;
typedef struct CUipcMemHandle_st { char reserved[64]; } CUipcMemHandle;

/* Enumerations with cuda.h's numbering (only the values used here). */
typedef enum CUlimit_enum {
    CU_LIMIT_STACK_SIZE = 0,
    CU_LIMIT_PRINTF_FIFO_SIZE = 1,
    CU_LIMIT_MALLOC_HEAP_SIZE = 2,
    CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
    CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
    CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
    CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
    SIM_CU_LIMIT_COUNT = 7      /* the limits the simulator keeps */
} CUlimit;

typedef enum CUfunc_cache_enum {
    CU_FUNC_CACHE_PREFER_NONE = 0,
    CU_FUNC_CACHE_PREFER_EQUAL = 3
} CUfunc_cache;

typedef enum CUsharedconfig_enum {
    CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE = 0,
    CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE = 1,
    CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 2
} CUsharedconfig;

typedef enum CUfunction_attribute_enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
    CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15
} CUfunction_attribute;

typedef enum CUjit_option_enum {
    CU_JIT_MAX_REGISTERS = 0,
    CU_JIT_WALL_TIME = 2,
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
} CUjit_option;

typedef enum CUjitInputType_enum {
    CU_JIT_INPUT_CUBIN = 0,
    CU_JIT_INPUT_PTX = 1,
    CU_JIT_INPUT_FATBINARY = 2,
    CU_JIT_INPUT_OBJECT = 3,
    CU_JIT_INPUT_LIBRARY = 4,
    CU_JIT_INPUT_NVVM = 5,
    SIM_CU_JIT_NUM_INPUT_TYPES = 6
} CUjitInputType;
typedef enum CUfilter_mode_enum { CU_TR_FILTER_MODE_POINT = 0 } CUfilter_mode;
typedef enum CUaddress_mode_enum { CU_TR_ADDRESS_MODE_WRAP = 0 } CUaddress_mode;
typedef enum CUarray_format_enum { CU_AD_FORMAT_UNSIGNED_INT8 = 1 } CUarray_format;
typedef enum CUoutput_mode_enum { CU_OUT_KEY_VALUE_PAIR = 0 } CUoutput_mode;

/* Exports of this part, counted like the others (sim_cuda.h appends this
 * list to SIM_CUDA_EXPORTS). */
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
    /* sim_cuda_stubs.c: CUDA_ERROR_NOT_SUPPORTED */                            \
    SIM_CUDA_STUB_EXPORTS(X)

#define SIM_CUDA_STUB_EXPORTS(X)                                                \
    X(cuArray3DCreate_v2) X(cuArray3DGetDescriptor_v2) X(cuArrayCreate_v2)      \
    X(cuArrayDestroy) X(cuArrayGetDescriptor_v2) X(cuCtxDisablePeerAccess)     \
    X(cuCtxEnablePeerAccess) X(cuGLCtxCreate_v2) X(cuGLInit)                    \
    X(cuGLMapBufferObject_v2) X(cuGLRegisterBufferObject)                       \
    X(cuGLUnmapBufferObject) X(cuGLUnregisterBufferObject)                      \
    X(cuGraphicsGLRegisterBuffer) X(cuGraphicsGLRegisterImage)                  \
    X(cuGraphicsMapResources) X(cuGraphicsResourceGetMappedPointer_v2)         \
    X(cuGraphicsSubResourceGetMappedArray) X(cuGraphicsUnmapResources)          \
    X(cuGraphicsUnregisterResource) X(cuIpcCloseMemHandle)                      \
    X(cuIpcGetEventHandle) X(cuIpcGetMemHandle) X(cuIpcOpenEventHandle)         \
    X(cuIpcOpenMemHandle_v2)                                                    \
    X(cuMemcpy3DPeer) X(cuMemcpy3DPeerAsync) X(cuMemcpyAtoA_v2)                 \
    X(cuMemcpyAtoD_v2) X(cuMemcpyAtoH_v2)                                       \
    X(cuMemcpyDtoA_v2) X(cuMemcpyHtoA_v2) X(cuMemcpyPeer) X(cuMemcpyPeerAsync)  \
    X(cuModuleGetSurfRef) X(cuModuleGetTexRef)                                  \
    X(cuParamSetTexRef) X(cuProfilerInitialize)                                 \
    X(cuSurfRefGetArray) X(cuSurfRefSetArray) X(cuTexRefCreate)                 \
    X(cuTexRefDestroy) X(cuTexRefGetAddressMode) X(cuTexRefGetAddress_v2)       \
    X(cuTexRefGetArray) X(cuTexRefGetFilterMode) X(cuTexRefGetFlags)            \
    X(cuTexRefGetFormat) X(cuTexRefSetAddress2D_v3) X(cuTexRefSetAddressMode)   \
    X(cuTexRefSetAddress_v2) X(cuTexRefSetArray) X(cuTexRefSetFilterMode)       \
    X(cuTexRefSetFlags) X(cuTexRefSetFormat)

#define CU_JIT_NUM_OPTIONS 35 /* CUDA 13.0 */

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
