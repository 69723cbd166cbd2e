/*
 * The part of the CUDA Driver API ABI that the CUDA backend uses, written
 * here so that gpuguard builds without the CUDA toolkit and loads libcuda.so.1
 * at run time. Every value and signature below is checked against the real
 * cuda.h / cudaTypedefs.h by tests/cuda_abi/ whenever the toolkit is present.
 *
 * Names are prefixed (ggcu_, GGCU_) so that this header and cuda.h can be
 * included together. The opaque handle types deliberately reuse cuda.h's
 * struct tags (struct CUctx_st ...): an incomplete struct may be declared any
 * number of times, and sharing the tag makes our function-pointer types the
 * very same types as cuda.h's, which is what lets the conformance test compare
 * signatures exactly.
 *
 * CUresult and the other enums of cuda.h are `unsigned int` here: that is the
 * type C compilers give an enum whose values are all non-negative (it is what
 * the driver returns in the ABI), and it keeps our function types compatible
 * with cuda.h's in C, where two distinct enum types never are.
 */
#ifndef GPUGUARD_CUDA_ABI_H
#define GPUGUARD_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Scalar and handle types                                                  */
/* ------------------------------------------------------------------------ */

typedef unsigned int ggcu_result;             /* CUresult */
typedef int ggcu_device;                      /* CUdevice (an ordinal-like int) */
typedef unsigned long long ggcu_deviceptr;    /* CUdeviceptr (_v2: 64-bit everywhere) */
typedef unsigned int ggcu_device_attribute;   /* CUdevice_attribute */
typedef unsigned int ggcu_proc_address_query; /* CUdriverProcAddressQueryResult */
typedef unsigned int ggcu_pointer_attribute;  /* CUpointer_attribute */

typedef struct CUctx_st *ggcu_context;
typedef struct CUmod_st *ggcu_module;
typedef struct CUfunc_st *ggcu_function;
typedef struct CUstream_st *ggcu_stream;
typedef struct CUevent_st *ggcu_event;
/* Only ever passed as NULL: cuCtxCreate_v4 with no affinity/CIG parameters,
 * cuCtxCreate_v3 with an empty affinity array. */
typedef struct CUctxCreateParams_st ggcu_ctx_create_params;
typedef struct CUexecAffinityParam_st ggcu_exec_affinity_param;

/* ------------------------------------------------------------------------ */
/* Result codes                                                             */
/* ------------------------------------------------------------------------ */

/*
 * Every CUresult of CUDA 13.0's cuda.h, with the backend's classification next
 * to the native value (one list: the enum below and the error table in
 * cuda_errors.c are generated from it; the conformance test checks each value).
 *
 *   X(name without "CUDA_", value, portable gg_status without "GG_", sticky)
 *
 * sticky = 1: the driver documents that the context (or process) is left
 * inconsistent and every later call returns the same error; see
 * cuda_errors.c for how those codes map to portable statuses and why.
 */
#define GGCU_RESULT_LIST(X)                                                   \
    X(SUCCESS,                                 0, OK,               0)        \
    X(ERROR_INVALID_VALUE,                     1, INVALID_ARGUMENT, 0)        \
    X(ERROR_OUT_OF_MEMORY,                     2, OUT_OF_MEMORY,    0)        \
    X(ERROR_NOT_INITIALIZED,                   3, NOT_INITIALIZED,  0)        \
    X(ERROR_DEINITIALIZED,                     4, DRIVER,           0)        \
    X(ERROR_PROFILER_DISABLED,                 5, DRIVER,           0)        \
    X(ERROR_PROFILER_NOT_INITIALIZED,          6, DRIVER,           0)        \
    X(ERROR_PROFILER_ALREADY_STARTED,          7, DRIVER,           0)        \
    X(ERROR_PROFILER_ALREADY_STOPPED,          8, DRIVER,           0)        \
    X(ERROR_STUB_LIBRARY,                     34, NO_DRIVER,        0)        \
    X(ERROR_CALL_REQUIRES_NEWER_DRIVER,       36, UNSUPPORTED,      0)        \
    X(ERROR_DEVICE_UNAVAILABLE,               46, NO_DEVICE,        0)        \
    X(ERROR_NO_DEVICE,                       100, NO_DEVICE,        0)        \
    X(ERROR_INVALID_DEVICE,                  101, NO_DEVICE,        0)        \
    X(ERROR_DEVICE_NOT_LICENSED,             102, NO_DEVICE,        0)        \
    X(ERROR_INVALID_IMAGE,                   200, INVALID_ARGUMENT, 0)        \
    X(ERROR_INVALID_CONTEXT,                 201, INVALID_HANDLE,   0)        \
    X(ERROR_CONTEXT_ALREADY_CURRENT,         202, DRIVER,           0)        \
    X(ERROR_MAP_FAILED,                      205, DRIVER,           0)        \
    X(ERROR_UNMAP_FAILED,                    206, DRIVER,           0)        \
    X(ERROR_ARRAY_IS_MAPPED,                 207, DRIVER,           0)        \
    X(ERROR_ALREADY_MAPPED,                  208, DRIVER,           0)        \
    X(ERROR_NO_BINARY_FOR_GPU,               209, UNSUPPORTED,      0)        \
    X(ERROR_ALREADY_ACQUIRED,                210, DRIVER,           0)        \
    X(ERROR_NOT_MAPPED,                      211, DRIVER,           0)        \
    X(ERROR_NOT_MAPPED_AS_ARRAY,             212, DRIVER,           0)        \
    X(ERROR_NOT_MAPPED_AS_POINTER,           213, DRIVER,           0)        \
    X(ERROR_ECC_UNCORRECTABLE,               214, DRIVER,           1)        \
    X(ERROR_UNSUPPORTED_LIMIT,               215, UNSUPPORTED,      0)        \
    X(ERROR_CONTEXT_ALREADY_IN_USE,          216, BUSY,             0)        \
    X(ERROR_PEER_ACCESS_UNSUPPORTED,         217, UNSUPPORTED,      0)        \
    X(ERROR_INVALID_PTX,                     218, INVALID_ARGUMENT, 0)        \
    X(ERROR_INVALID_GRAPHICS_CONTEXT,        219, DRIVER,           0)        \
    X(ERROR_NVLINK_UNCORRECTABLE,            220, DRIVER,           1)        \
    X(ERROR_JIT_COMPILER_NOT_FOUND,          221, UNSUPPORTED,      0)        \
    X(ERROR_UNSUPPORTED_PTX_VERSION,         222, UNSUPPORTED,      0)        \
    X(ERROR_JIT_COMPILATION_DISABLED,        223, UNSUPPORTED,      0)        \
    X(ERROR_UNSUPPORTED_EXEC_AFFINITY,       224, UNSUPPORTED,      0)        \
    X(ERROR_UNSUPPORTED_DEVSIDE_SYNC,        225, UNSUPPORTED,      0)        \
    X(ERROR_CONTAINED,                       226, DRIVER,           1)        \
    X(ERROR_INVALID_SOURCE,                  300, INVALID_ARGUMENT, 0)        \
    X(ERROR_FILE_NOT_FOUND,                  301, INVALID_ARGUMENT, 0)        \
    X(ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,  302, INVALID_ARGUMENT, 0)        \
    X(ERROR_SHARED_OBJECT_INIT_FAILED,       303, DRIVER,           0)        \
    X(ERROR_OPERATING_SYSTEM,                304, DRIVER,           0)        \
    X(ERROR_INVALID_HANDLE,                  400, INVALID_HANDLE,   0)        \
    X(ERROR_ILLEGAL_STATE,                   401, DRIVER,           0)        \
    X(ERROR_LOSSY_QUERY,                     402, DRIVER,           0)        \
    X(ERROR_NOT_FOUND,                       500, INVALID_ARGUMENT, 0)        \
    X(ERROR_NOT_READY,                       600, NOT_READY,        0)        \
    X(ERROR_ILLEGAL_ADDRESS,                 700, ILLEGAL_ADDRESS,  1)        \
    X(ERROR_LAUNCH_OUT_OF_RESOURCES,         701, INVALID_ARGUMENT, 0)        \
    X(ERROR_LAUNCH_TIMEOUT,                  702, LAUNCH_TIMEOUT,   1)        \
    X(ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,   703, INVALID_ARGUMENT, 0)        \
    X(ERROR_PEER_ACCESS_ALREADY_ENABLED,     704, DRIVER,           0)        \
    X(ERROR_PEER_ACCESS_NOT_ENABLED,         705, DRIVER,           0)        \
    X(ERROR_PRIMARY_CONTEXT_ACTIVE,          708, DRIVER,           0)        \
    X(ERROR_CONTEXT_IS_DESTROYED,            709, INVALID_HANDLE,   0)        \
    X(ERROR_ASSERT,                          710, LAUNCH_FAILED,    1)        \
    X(ERROR_TOO_MANY_PEERS,                  711, DRIVER,           0)        \
    X(ERROR_HOST_MEMORY_ALREADY_REGISTERED,  712, DRIVER,           0)        \
    X(ERROR_HOST_MEMORY_NOT_REGISTERED,      713, DRIVER,           0)        \
    X(ERROR_HARDWARE_STACK_ERROR,            714, LAUNCH_FAILED,    1)        \
    X(ERROR_ILLEGAL_INSTRUCTION,             715, LAUNCH_FAILED,    1)        \
    X(ERROR_MISALIGNED_ADDRESS,              716, ILLEGAL_ADDRESS,  1)        \
    X(ERROR_INVALID_ADDRESS_SPACE,           717, ILLEGAL_ADDRESS,  1)        \
    X(ERROR_INVALID_PC,                      718, LAUNCH_FAILED,    1)        \
    X(ERROR_LAUNCH_FAILED,                   719, LAUNCH_FAILED,    1)        \
    X(ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,    720, INVALID_ARGUMENT, 0)        \
    X(ERROR_TENSOR_MEMORY_LEAK,              721, LAUNCH_FAILED,    1)        \
    X(ERROR_NOT_PERMITTED,                   800, DRIVER,           0)        \
    X(ERROR_NOT_SUPPORTED,                   801, UNSUPPORTED,      0)        \
    X(ERROR_SYSTEM_NOT_READY,                802, NO_DRIVER,        0)        \
    X(ERROR_SYSTEM_DRIVER_MISMATCH,          803, NO_DRIVER,        0)        \
    X(ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,  804, NO_DRIVER,        0)        \
    X(ERROR_MPS_CONNECTION_FAILED,           805, DRIVER,           0)        \
    X(ERROR_MPS_RPC_FAILURE,                 806, DRIVER,           0)        \
    X(ERROR_MPS_SERVER_NOT_READY,            807, DRIVER,           0)        \
    X(ERROR_MPS_MAX_CLIENTS_REACHED,         808, DRIVER,           0)        \
    X(ERROR_MPS_MAX_CONNECTIONS_REACHED,     809, DRIVER,           0)        \
    X(ERROR_MPS_CLIENT_TERMINATED,           810, DRIVER,           1)        \
    X(ERROR_CDP_NOT_SUPPORTED,               811, UNSUPPORTED,      0)        \
    X(ERROR_CDP_VERSION_MISMATCH,            812, UNSUPPORTED,      0)        \
    X(ERROR_STREAM_CAPTURE_UNSUPPORTED,      900, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_INVALIDATED,      901, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_MERGE,            902, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_UNMATCHED,        903, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_UNJOINED,         904, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_ISOLATION,        905, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_IMPLICIT,         906, DRIVER,           0)        \
    X(ERROR_CAPTURED_EVENT,                  907, DRIVER,           0)        \
    X(ERROR_STREAM_CAPTURE_WRONG_THREAD,     908, DRIVER,           0)        \
    X(ERROR_TIMEOUT,                         909, TIMEOUT,          0)        \
    X(ERROR_GRAPH_EXEC_UPDATE_FAILURE,       910, DRIVER,           0)        \
    X(ERROR_EXTERNAL_DEVICE,                 911, DRIVER,           1)        \
    X(ERROR_INVALID_CLUSTER_SIZE,            912, INVALID_ARGUMENT, 0)        \
    X(ERROR_FUNCTION_NOT_LOADED,             913, DRIVER,           0)        \
    X(ERROR_INVALID_RESOURCE_TYPE,           914, INVALID_ARGUMENT, 0)        \
    X(ERROR_INVALID_RESOURCE_CONFIGURATION,  915, INVALID_ARGUMENT, 0)        \
    X(ERROR_KEY_ROTATION,                    916, DRIVER,           0)        \
    X(ERROR_UNKNOWN,                         999, DRIVER,           0)

enum {
#define GGCU__RESULT_ENUM(name, value, status, sticky) GGCU_##name = value,
    GGCU_RESULT_LIST(GGCU__RESULT_ENUM)
#undef GGCU__RESULT_ENUM
};

/* ------------------------------------------------------------------------ */
/* Enumerants and flags                                                     */
/* ------------------------------------------------------------------------ */

enum {
    GGCU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    GGCU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    GGCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    GGCU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
    GGCU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    /* Stream memory operations. The 8.0/9.0 API (cuStreamWriteValue32,
     * cuStreamWriteValue64) is governed by 92 and 93, named
     * CAN_USE_STREAM_MEM_OPS / CAN_USE_64_BIT_STREAM_MEM_OPS before CUDA 12
     * and ..._V1 since (deprecated with that API). The 11.7 _v2 API's
     * 64-bit operations by 122 (CAN_USE_64_BIT_STREAM_MEM_OPS_V2 in 11.7 and
     * 11.8, CAN_USE_64_BIT_STREAM_MEM_OPS since 12.0). cuda.h has no
     * attribute for the _v2 API's 32-bit operations. */
    GGCU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92,
    GGCU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93,
    GGCU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122
};

enum {
    GGCU_MEMHOSTALLOC_DEVICEMAP = 0x02,     /* cuMemHostAlloc flag */
    GGCU_STREAM_WRITE_VALUE_DEFAULT = 0x0   /* CUstreamWriteValue_flags */
};

enum {
    GGCU_CTX_SCHED_AUTO = 0x0,          /* CUctx_flags */
    GGCU_STREAM_NON_BLOCKING = 0x1,     /* CUstream_flags */
    GGCU_EVENT_DEFAULT = 0x0            /* CUevent_flags: timing enabled */
};

enum {
    /* CUpointer_attribute: what gg_buffer_adopt asks of an address. */
    GGCU_POINTER_ATTRIBUTE_CONTEXT = 1,
    GGCU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    GGCU_POINTER_ATTRIBUTE_RANGE_SIZE = 12
};

enum {
    /* CUdriverProcAddress_flags: legacy default-stream semantics, i.e. the
     * same functions as the unsuffixed exported names (not the _ptsz ones). */
    GGCU_GET_PROC_ADDRESS_LEGACY_STREAM = 1 << 0,
    /* CUdriverProcAddressQueryResult */
    GGCU_GET_PROC_ADDRESS_SUCCESS = 0,
    GGCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    GGCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

/* Found by dlsym only: the 12.0+ export and the 11.3-11.8 one. */
typedef ggcu_result (*ggcu_fn_cuGetProcAddress_v2)(const char *symbol, void **pfn,
                                                   int cudaVersion, uint64_t flags,
                                                   ggcu_proc_address_query *symbolStatus);
typedef ggcu_result (*ggcu_fn_cuGetProcAddress)(const char *symbol, void **pfn,
                                                int cudaVersion, uint64_t flags);

typedef ggcu_result (*ggcu_fn_cuInit)(unsigned int flags);
typedef ggcu_result (*ggcu_fn_cuDriverGetVersion)(int *driverVersion);
typedef ggcu_result (*ggcu_fn_cuDeviceGetCount)(int *count);
typedef ggcu_result (*ggcu_fn_cuDeviceGet)(ggcu_device *device, int ordinal);
typedef ggcu_result (*ggcu_fn_cuDeviceGetName)(char *name, int len, ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuDeviceTotalMem_v2)(size_t *bytes, ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuDeviceGetAttribute)(int *pi, ggcu_device_attribute attrib,
                                                    ggcu_device dev);

typedef ggcu_result (*ggcu_fn_cuCtxCreate_v4)(ggcu_context *pctx,
                                              ggcu_ctx_create_params *ctxCreateParams,
                                              unsigned int flags, ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuCtxCreate_v3)(ggcu_context *pctx,
                                              ggcu_exec_affinity_param *paramsArray,
                                              int numParams, unsigned int flags,
                                              ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuCtxDestroy_v2)(ggcu_context ctx);
typedef ggcu_result (*ggcu_fn_cuCtxGetCurrent)(ggcu_context *pctx);
typedef ggcu_result (*ggcu_fn_cuCtxSetCurrent)(ggcu_context ctx);
typedef ggcu_result (*ggcu_fn_cuCtxPushCurrent_v2)(ggcu_context ctx);
typedef ggcu_result (*ggcu_fn_cuCtxPopCurrent_v2)(ggcu_context *pctx);
typedef ggcu_result (*ggcu_fn_cuCtxSynchronize)(void);
typedef ggcu_result (*ggcu_fn_cuCtxGetDevice)(ggcu_device *device);
typedef ggcu_result (*ggcu_fn_cuStreamGetCtx)(ggcu_stream hStream, ggcu_context *pctx);
typedef ggcu_result (*ggcu_fn_cuPointerGetAttribute)(void *data, ggcu_pointer_attribute attribute,
                                                     ggcu_deviceptr ptr);
typedef ggcu_result (*ggcu_fn_cuDevicePrimaryCtxRetain)(ggcu_context *pctx, ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuDevicePrimaryCtxRelease_v2)(ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuDevicePrimaryCtxReset_v2)(ggcu_device dev);
typedef ggcu_result (*ggcu_fn_cuDevicePrimaryCtxGetState)(ggcu_device dev, unsigned int *flags, int *active);

typedef ggcu_result (*ggcu_fn_cuStreamCreate)(ggcu_stream *phStream, unsigned int flags);
typedef ggcu_result (*ggcu_fn_cuStreamDestroy_v2)(ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuStreamQuery)(ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuStreamSynchronize)(ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuStreamWaitEvent)(ggcu_stream hStream, ggcu_event hEvent,
                                                 unsigned int flags);

typedef ggcu_result (*ggcu_fn_cuEventCreate)(ggcu_event *phEvent, unsigned int flags);
typedef ggcu_result (*ggcu_fn_cuEventDestroy_v2)(ggcu_event hEvent);
typedef ggcu_result (*ggcu_fn_cuEventRecord)(ggcu_event hEvent, ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuEventQuery)(ggcu_event hEvent);
typedef ggcu_result (*ggcu_fn_cuEventSynchronize)(ggcu_event hEvent);
typedef ggcu_result (*ggcu_fn_cuEventElapsedTime)(float *pMilliseconds, ggcu_event hStart,
                                                  ggcu_event hEnd);
typedef ggcu_result (*ggcu_fn_cuEventElapsedTime_v2)(float *pMilliseconds, ggcu_event hStart,
                                                     ggcu_event hEnd);

typedef ggcu_result (*ggcu_fn_cuMemAlloc_v2)(ggcu_deviceptr *dptr, size_t bytesize);
typedef ggcu_result (*ggcu_fn_cuMemFree_v2)(ggcu_deviceptr dptr);
typedef ggcu_result (*ggcu_fn_cuMemAllocHost_v2)(void **pp, size_t bytesize);
typedef ggcu_result (*ggcu_fn_cuMemFreeHost)(void *p);
typedef ggcu_result (*ggcu_fn_cuMemcpyHtoD_v2)(ggcu_deviceptr dstDevice, const void *srcHost,
                                               size_t ByteCount);
typedef ggcu_result (*ggcu_fn_cuMemcpyDtoH_v2)(void *dstHost, ggcu_deviceptr srcDevice,
                                               size_t ByteCount);
typedef ggcu_result (*ggcu_fn_cuMemcpyDtoD_v2)(ggcu_deviceptr dstDevice,
                                               ggcu_deviceptr srcDevice, size_t ByteCount);
typedef ggcu_result (*ggcu_fn_cuMemcpyHtoDAsync_v2)(ggcu_deviceptr dstDevice,
                                                    const void *srcHost, size_t ByteCount,
                                                    ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuMemcpyDtoHAsync_v2)(void *dstHost, ggcu_deviceptr srcDevice,
                                                    size_t ByteCount, ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuMemcpyDtoDAsync_v2)(ggcu_deviceptr dstDevice,
                                                    ggcu_deviceptr srcDevice,
                                                    size_t ByteCount, ggcu_stream hStream);
typedef ggcu_result (*ggcu_fn_cuMemsetD8_v2)(ggcu_deviceptr dstDevice, unsigned char uc,
                                             size_t N);
typedef ggcu_result (*ggcu_fn_cuMemsetD8Async)(ggcu_deviceptr dstDevice, unsigned char uc,
                                               size_t N, ggcu_stream hStream);

typedef ggcu_result (*ggcu_fn_cuMemHostAlloc)(void **pp, size_t bytesize, unsigned int Flags);
typedef ggcu_result (*ggcu_fn_cuMemHostGetDevicePointer_v2)(ggcu_deviceptr *pdptr, void *p,
                                                            unsigned int Flags);
/* The 8.0/9.0 forms and the 11.7 _v2 forms share one C signature. */
typedef ggcu_result (*ggcu_fn_cuStreamWriteValue32_v2)(ggcu_stream stream, ggcu_deviceptr addr,
                                                       uint32_t value, unsigned int flags);
typedef ggcu_result (*ggcu_fn_cuStreamWriteValue32)(ggcu_stream stream, ggcu_deviceptr addr,
                                                    uint32_t value, unsigned int flags);
typedef ggcu_result (*ggcu_fn_cuStreamWriteValue64_v2)(ggcu_stream stream, ggcu_deviceptr addr,
                                                       uint64_t value, unsigned int flags);
typedef ggcu_result (*ggcu_fn_cuStreamWriteValue64)(ggcu_stream stream, ggcu_deviceptr addr,
                                                    uint64_t value, unsigned int flags);

typedef ggcu_result (*ggcu_fn_cuModuleLoad)(ggcu_module *module, const char *fname);
typedef ggcu_result (*ggcu_fn_cuModuleLoadData)(ggcu_module *module, const void *image);
typedef ggcu_result (*ggcu_fn_cuModuleUnload)(ggcu_module hmod);
typedef ggcu_result (*ggcu_fn_cuModuleGetFunction)(ggcu_function *hfunc, ggcu_module hmod,
                                                   const char *name);
typedef ggcu_result (*ggcu_fn_cuLaunchKernel)(ggcu_function f, unsigned int gridDimX,
                                              unsigned int gridDimY, unsigned int gridDimZ,
                                              unsigned int blockDimX, unsigned int blockDimY,
                                              unsigned int blockDimZ,
                                              unsigned int sharedMemBytes, ggcu_stream hStream,
                                              void **kernelParams, void **extra);
typedef ggcu_result (*ggcu_fn_cuFuncGetParamInfo)(ggcu_function func, size_t paramIndex,
                                                  size_t *paramOffset, size_t *paramSize);

/*
 * The entry points the backend calls, and for each the variants (ABIs) it
 * can call it through:
 *
 *   X(base name, ABI version, exported (versioned) name, need)
 *
 * The ABI version is the CUDA release that introduced that variant's
 * signature: the suffix of cudaTypedefs.h's PFN_<base>_v<version>, which the
 * conformance test compares against ggcu_fn_<exported name>.
 *
 * Rows of one base name are adjacent, newest variant first. The loader
 * (cuda_loader.c) takes, for each base name, the newest row whose version is
 * at or below the driver's own version (cuDriverGetVersion), asks
 * cuGetProcAddress for the base name at exactly that version, and calls the
 * pointer only through that row's signature. Measured on real drivers:
 * cuGetProcAddress answers with the newest variant the driver has at or
 * below the version asked and never refuses a newer version, so the version
 * asked must never exceed the driver's (DRIVER-FACTS.md).
 *
 * need: REQUIRED (the open fails naming the base name, the variants and the
 * driver version when none can be had) or OPTIONAL (the operations that need
 * it return CUDA_ERROR_NOT_SUPPORTED).
 *
 * cuStreamWriteValue32/64 list the 11.7 _v2 variant and the 8.0/9.0 one:
 * same C signature, but each is governed by its own device attributes
 * (cuda_backend.c's device_props reads the ones of the variant in use).
 *
 * cuCtxSynchronize lists only 2000: CUDA 13 added cuCtxSynchronize_v2
 * (CUcontext) under the same base name at 13000, and we call the v1 form.
 * cuCtxGetDevice lists only 2000 for the same reason (cuCtxGetDevice_v2,
 * 13000, names its context), and cuStreamGetCtx only 9020
 * (cuStreamGetCtx_v2, 12050, adds green contexts): the loader asks at the
 * row's version, so a newer driver still gives the form we call.
 *
 * cuCtxCreate_v2 (3020) is not listed: every supported driver (11.4 and
 * later, GGCU_OLDEST_DRIVER) has _v3.
 */
#define GGCU_SYMBOL_LIST(X)                                                  \
    X(cuInit,                    2000, cuInit,                    REQUIRED)   \
    X(cuDriverGetVersion,        2020, cuDriverGetVersion,        REQUIRED)   \
    X(cuDeviceGetCount,          2000, cuDeviceGetCount,          REQUIRED)   \
    X(cuDeviceGet,               2000, cuDeviceGet,               REQUIRED)   \
    X(cuDeviceGetName,           2000, cuDeviceGetName,           REQUIRED)   \
    X(cuDeviceTotalMem,          3020, cuDeviceTotalMem_v2,       REQUIRED)   \
    X(cuDeviceGetAttribute,      2000, cuDeviceGetAttribute,      REQUIRED)   \
    X(cuCtxCreate,              12050, cuCtxCreate_v4,            REQUIRED)   \
    X(cuCtxCreate,              11040, cuCtxCreate_v3,            REQUIRED)   \
    X(cuCtxDestroy,              4000, cuCtxDestroy_v2,           REQUIRED)   \
    X(cuCtxGetCurrent,           4000, cuCtxGetCurrent,           REQUIRED)   \
    X(cuCtxSetCurrent,           4000, cuCtxSetCurrent,           REQUIRED)   \
    X(cuCtxPushCurrent,          4000, cuCtxPushCurrent_v2,       REQUIRED)   \
    X(cuCtxPopCurrent,           4000, cuCtxPopCurrent_v2,        REQUIRED)   \
    X(cuCtxSynchronize,          2000, cuCtxSynchronize,          REQUIRED)   \
    X(cuCtxGetDevice,            2000, cuCtxGetDevice,            OPTIONAL)   \
    X(cuDevicePrimaryCtxRetain,  7000, cuDevicePrimaryCtxRetain,  OPTIONAL)   \
    X(cuDevicePrimaryCtxRelease,11000, cuDevicePrimaryCtxRelease_v2, OPTIONAL) \
    X(cuDevicePrimaryCtxReset,  11000, cuDevicePrimaryCtxReset_v2, OPTIONAL)  \
    X(cuDevicePrimaryCtxGetState, 7000, cuDevicePrimaryCtxGetState, OPTIONAL) \
    X(cuStreamCreate,            2000, cuStreamCreate,            REQUIRED)   \
    X(cuStreamDestroy,           4000, cuStreamDestroy_v2,        REQUIRED)   \
    X(cuStreamQuery,             2000, cuStreamQuery,             REQUIRED)   \
    X(cuStreamGetCtx,            9020, cuStreamGetCtx,            OPTIONAL)   \
    X(cuStreamSynchronize,       2000, cuStreamSynchronize,       REQUIRED)   \
    X(cuStreamWaitEvent,         3020, cuStreamWaitEvent,         REQUIRED)   \
    X(cuEventCreate,             2000, cuEventCreate,             REQUIRED)   \
    X(cuEventDestroy,            4000, cuEventDestroy_v2,         REQUIRED)   \
    X(cuEventRecord,             2000, cuEventRecord,             REQUIRED)   \
    X(cuEventQuery,              2000, cuEventQuery,              REQUIRED)   \
    X(cuEventSynchronize,        2000, cuEventSynchronize,        REQUIRED)   \
    X(cuEventElapsedTime,       12080, cuEventElapsedTime_v2,     REQUIRED)   \
    X(cuEventElapsedTime,        2000, cuEventElapsedTime,        REQUIRED)   \
    X(cuMemAlloc,                3020, cuMemAlloc_v2,             REQUIRED)   \
    X(cuMemFree,                 3020, cuMemFree_v2,              REQUIRED)   \
    X(cuPointerGetAttribute,     4000, cuPointerGetAttribute,     OPTIONAL)   \
    X(cuMemAllocHost,            3020, cuMemAllocHost_v2,         OPTIONAL)   \
    X(cuMemFreeHost,             2000, cuMemFreeHost,             OPTIONAL)   \
    X(cuMemcpyHtoD,              3020, cuMemcpyHtoD_v2,           REQUIRED)   \
    X(cuMemcpyDtoH,              3020, cuMemcpyDtoH_v2,           REQUIRED)   \
    X(cuMemcpyDtoD,              3020, cuMemcpyDtoD_v2,           REQUIRED)   \
    X(cuMemcpyHtoDAsync,         3020, cuMemcpyHtoDAsync_v2,      REQUIRED)   \
    X(cuMemcpyDtoHAsync,         3020, cuMemcpyDtoHAsync_v2,      REQUIRED)   \
    X(cuMemcpyDtoDAsync,         3020, cuMemcpyDtoDAsync_v2,      REQUIRED)   \
    X(cuMemsetD8,                3020, cuMemsetD8_v2,             REQUIRED)   \
    X(cuMemsetD8Async,           3020, cuMemsetD8Async,           REQUIRED)   \
    X(cuModuleLoad,              2000, cuModuleLoad,              REQUIRED)   \
    X(cuModuleLoadData,          2000, cuModuleLoadData,          REQUIRED)   \
    X(cuModuleUnload,            2000, cuModuleUnload,            REQUIRED)   \
    X(cuModuleGetFunction,       2000, cuModuleGetFunction,       REQUIRED)   \
    X(cuLaunchKernel,            4000, cuLaunchKernel,            REQUIRED)   \
    X(cuFuncGetParamInfo,       12040, cuFuncGetParamInfo,        OPTIONAL)   \
    X(cuMemHostAlloc,            2020, cuMemHostAlloc,            OPTIONAL)   \
    X(cuMemHostGetDevicePointer, 3020, cuMemHostGetDevicePointer_v2, OPTIONAL) \
    X(cuStreamWriteValue32,     11070, cuStreamWriteValue32_v2,   OPTIONAL)   \
    X(cuStreamWriteValue32,      8000, cuStreamWriteValue32,      OPTIONAL)   \
    X(cuStreamWriteValue64,     11070, cuStreamWriteValue64_v2,   OPTIONAL)   \
    X(cuStreamWriteValue64,      9000, cuStreamWriteValue64,      OPTIONAL)

/* The oldest driver gpuguard supports: CUDA 11.4 (R470), the first with
 * cuCtxCreate_v3 and, before it, cuGetProcAddress (11.3). */
#define GGCU_OLDEST_DRIVER 11040

#ifdef __cplusplus
}
#endif

#endif /* GPUGUARD_CUDA_ABI_H */
