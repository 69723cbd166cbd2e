/*
 * The part of the HIP runtime ABI (libamdhip64) that the HIP backend uses,
 * written here so that gpuguard builds without the HIP headers and loads the
 * runtime at run time.
 *
 * Two runtime ABIs are accepted, each only over the versions whose ABI was
 * checked (docs/HIP-ABI-FACTS.md has every fact and its source):
 *  - ROCm 5 (libamdhip64.so.5, HIP 5.0-5.7): every value and signature below
 *    is checked at compile time against Debian's HIP 5.2.3 headers
 *    (/usr/include/hip) by tests/hip_abi/ whenever they are installed, and
 *    was checked the same way against the published headers of every ROCm
 *    5.x release tag (ROCm/HIP include/ with ROCm/clr hipamd/include).
 *  - ROCm 6 (libamdhip64.so.6, HIP 6.0-6.2): no ROCm 6 header is installed
 *    here. The backend's ROCm 6 table (hip_abi_tables.c) holds values
 *    transcribed from the published headers of the rocm-6.0.0 .. rocm-6.2.2
 *    tags, and tests/hip checks it against a separate table of those
 *    published facts (tests/hip_abi/hip_rocm6_facts.c): a check against
 *    transcribed facts, not against a real header. Configured with
 *    GG_HIP6_INCLUDE_DIR (a ROCm 6 include tree), tests/hip_abi also compiles
 *    the conformance test against it.
 * Any other version (ROCm 4, 6.3 and later, 7) is refused at open: its ABI
 * was not checked.
 *
 * What the check found: for everything gpuguard uses the two ABIs agree (the
 * 73 error codes, the 12 attribute numbers, the flags, the 50 signatures and
 * their plain exported names in version nodes hip_4.2 and hip_4.4). What ROCm 6 changed
 * is elsewhere: hipDeviceProp_t and hipGetDeviceProperties/hipChooseDevice
 * (now macros for the ...R0600 symbols, version node hip_6.0), and
 * hipDeviceAttribute_t's Name/Uuid/Arch/GcnArch/GcnArchName renamed to
 * Unused1-5 with their numbers kept. gpuguard uses none of them; the
 * per-ABI tables exist so that a future difference lands in one place.
 *
 * Names are prefixed (gghip_, GGHIP_) so that this header and
 * hip_runtime_api.h can be included together. The opaque handle types reuse
 * the HIP header's struct tags (struct ihipCtx_t ...): an incomplete struct
 * may be declared any number of times, and sharing the tag makes our
 * function-pointer types the very same types as the header's, which is what
 * lets the conformance test compare signatures exactly.
 *
 * hipError_t and hipDeviceAttribute_t are `unsigned int` here: that is the
 * type C compilers give an enum whose values are all non-negative, and it
 * keeps our function types compatible with the header's (two distinct enum
 * types never are).
 *
 * Differences from the CUDA Driver API that matter to the backend:
 *  - hipDeviceptr_t is `void *` on the AMD platform (CUdeviceptr is an
 *    integer); the backend converts through uintptr_t.
 *  - hipMemcpyHtoD / hipMemcpyHtoDAsync take a non-const `void *src` although
 *    they only read it.
 *  - Attribute numbers differ from CUDA's (hipDeviceAttribute_t is sorted by
 *    name, not by CUDA's numbering): KernelExecTimeout is 18, not 17.
 *  - No hipGetProcAddress in 5.x: the backend resolves exported names with
 *    dlsym (each ABI table names the symbol for each entry point).
 */
#ifndef GPUGUARD_HIP_ABI_H
#define GPUGUARD_HIP_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Scalar and handle types                                                  */
/* ------------------------------------------------------------------------ */

typedef unsigned int gghip_error;            /* hipError_t */
typedef int gghip_device;                    /* hipDevice_t (the ordinal) */
typedef void *gghip_deviceptr;               /* hipDeviceptr_t (AMD platform) */
typedef unsigned int gghip_device_attribute; /* hipDeviceAttribute_t */

typedef struct ihipCtx_t *gghip_ctx;               /* hipCtx_t: a device's primary context */
typedef struct ihipStream_t *gghip_stream;         /* hipStream_t */
typedef struct ihipEvent_t *gghip_event;           /* hipEvent_t */
typedef struct ihipModule_t *gghip_module;         /* hipModule_t */
typedef struct ihipModuleSymbol_t *gghip_function; /* hipFunction_t */

/* ------------------------------------------------------------------------ */
/* Error codes                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Every hipError_t of HIP 5.2.3's hip_runtime_api.h, with the backend's
 * classification next to the native value (one list: the enum below and the
 * error table in hip_errors.c are generated from it; the conformance test
 * checks each value, and that no code of the header is missing).
 *
 *   X(name without "hip", value, portable gg_status without "GG_", sticky)
 *
 * Left out on purpose: the deprecated aliases (hipErrorMemoryAllocation 2,
 * hipErrorInitializationError 3, hipErrorMapBufferObjectFailed 205,
 * hipErrorInvalidResourceHandle 400: same values as listed names) and the
 * hipErrorTbd end marker (1054), which no call returns.
 *
 * sticky = 1: the device's context is treated as dead after the code; see
 * hip_errors.c for why each of these and which status it maps to.
 */
#define GGHIP_ERROR_LIST(X)                                                   \
    X(Success,                               0, OK,               0)          \
    X(ErrorInvalidValue,                     1, INVALID_ARGUMENT, 0)          \
    X(ErrorOutOfMemory,                      2, OUT_OF_MEMORY,    0)          \
    X(ErrorNotInitialized,                   3, NOT_INITIALIZED,  0)          \
    X(ErrorDeinitialized,                    4, DRIVER,           0)          \
    X(ErrorProfilerDisabled,                 5, DRIVER,           0)          \
    X(ErrorProfilerNotInitialized,           6, DRIVER,           0)          \
    X(ErrorProfilerAlreadyStarted,           7, DRIVER,           0)          \
    X(ErrorProfilerAlreadyStopped,           8, DRIVER,           0)          \
    X(ErrorInvalidConfiguration,             9, INVALID_ARGUMENT, 0)          \
    X(ErrorInvalidPitchValue,               12, INVALID_ARGUMENT, 0)          \
    X(ErrorInvalidSymbol,                   13, INVALID_ARGUMENT, 0)          \
    X(ErrorInvalidDevicePointer,            17, INVALID_ARGUMENT, 0)          \
    X(ErrorInvalidMemcpyDirection,          21, INVALID_ARGUMENT, 0)          \
    X(ErrorInsufficientDriver,              35, NO_DRIVER,        0)          \
    X(ErrorMissingConfiguration,            52, INVALID_ARGUMENT, 0)          \
    X(ErrorPriorLaunchFailure,              53, LAUNCH_FAILED,    1)          \
    X(ErrorInvalidDeviceFunction,           98, INVALID_ARGUMENT, 0)          \
    X(ErrorNoDevice,                       100, NO_DEVICE,        0)          \
    X(ErrorInvalidDevice,                  101, NO_DEVICE,        0)          \
    X(ErrorInvalidImage,                   200, INVALID_ARGUMENT, 0)          \
    X(ErrorInvalidContext,                 201, INVALID_HANDLE,   0)          \
    X(ErrorContextAlreadyCurrent,          202, DRIVER,           0)          \
    X(ErrorMapFailed,                      205, DRIVER,           0)          \
    X(ErrorUnmapFailed,                    206, DRIVER,           0)          \
    X(ErrorArrayIsMapped,                  207, DRIVER,           0)          \
    X(ErrorAlreadyMapped,                  208, DRIVER,           0)          \
    X(ErrorNoBinaryForGpu,                 209, UNSUPPORTED,      0)          \
    X(ErrorAlreadyAcquired,                210, DRIVER,           0)          \
    X(ErrorNotMapped,                      211, DRIVER,           0)          \
    X(ErrorNotMappedAsArray,               212, DRIVER,           0)          \
    X(ErrorNotMappedAsPointer,             213, DRIVER,           0)          \
    X(ErrorECCNotCorrectable,              214, DRIVER,           1)          \
    X(ErrorUnsupportedLimit,               215, UNSUPPORTED,      0)          \
    X(ErrorContextAlreadyInUse,            216, BUSY,             0)          \
    X(ErrorPeerAccessUnsupported,          217, UNSUPPORTED,      0)          \
    X(ErrorInvalidKernelFile,              218, INVALID_ARGUMENT, 0)          \
    X(ErrorInvalidGraphicsContext,         219, DRIVER,           0)          \
    X(ErrorInvalidSource,                  300, INVALID_ARGUMENT, 0)          \
    X(ErrorFileNotFound,                   301, INVALID_ARGUMENT, 0)          \
    X(ErrorSharedObjectSymbolNotFound,     302, INVALID_ARGUMENT, 0)          \
    X(ErrorSharedObjectInitFailed,         303, DRIVER,           0)          \
    X(ErrorOperatingSystem,                304, DRIVER,           0)          \
    X(ErrorInvalidHandle,                  400, INVALID_HANDLE,   0)          \
    X(ErrorIllegalState,                   401, DRIVER,           0)          \
    X(ErrorNotFound,                       500, INVALID_ARGUMENT, 0)          \
    X(ErrorNotReady,                       600, NOT_READY,        0)          \
    X(ErrorIllegalAddress,                 700, ILLEGAL_ADDRESS,  1)          \
    X(ErrorLaunchOutOfResources,           701, INVALID_ARGUMENT, 0)          \
    X(ErrorLaunchTimeOut,                  702, LAUNCH_TIMEOUT,   1)          \
    X(ErrorPeerAccessAlreadyEnabled,       704, DRIVER,           0)          \
    X(ErrorPeerAccessNotEnabled,           705, DRIVER,           0)          \
    X(ErrorSetOnActiveProcess,             708, DRIVER,           0)          \
    X(ErrorContextIsDestroyed,             709, INVALID_HANDLE,   0)          \
    X(ErrorAssert,                         710, LAUNCH_FAILED,    1)          \
    X(ErrorHostMemoryAlreadyRegistered,    712, DRIVER,           0)          \
    X(ErrorHostMemoryNotRegistered,        713, DRIVER,           0)          \
    X(ErrorLaunchFailure,                  719, LAUNCH_FAILED,    1)          \
    X(ErrorCooperativeLaunchTooLarge,      720, INVALID_ARGUMENT, 0)          \
    X(ErrorNotSupported,                   801, UNSUPPORTED,      0)          \
    X(ErrorStreamCaptureUnsupported,       900, DRIVER,           0)          \
    X(ErrorStreamCaptureInvalidated,       901, DRIVER,           0)          \
    X(ErrorStreamCaptureMerge,             902, DRIVER,           0)          \
    X(ErrorStreamCaptureUnmatched,         903, DRIVER,           0)          \
    X(ErrorStreamCaptureUnjoined,          904, DRIVER,           0)          \
    X(ErrorStreamCaptureIsolation,         905, DRIVER,           0)          \
    X(ErrorStreamCaptureImplicit,          906, DRIVER,           0)          \
    X(ErrorCapturedEvent,                  907, DRIVER,           0)          \
    X(ErrorStreamCaptureWrongThread,       908, DRIVER,           0)          \
    X(ErrorGraphExecUpdateFailure,         910, DRIVER,           0)          \
    X(ErrorUnknown,                        999, DRIVER,           0)          \
    X(ErrorRuntimeMemory,                 1052, DRIVER,           0)          \
    X(ErrorRuntimeOther,                  1053, DRIVER,           0)

enum {
#define GGHIP__ERROR_ENUM(name, value, status, sticky) GGHIP_##name = value,
    GGHIP_ERROR_LIST(GGHIP__ERROR_ENUM)
#undef GGHIP__ERROR_ENUM
};

/* ------------------------------------------------------------------------ */
/* Enumerants and flags                                                     */
/* ------------------------------------------------------------------------ */

/* hipDeviceAttribute_t (HIP numbering: not CUDA's). */
enum {
    GGHIP_DeviceAttributeKernelExecTimeout = 18,
    GGHIP_DeviceAttributeMaxBlockDimX = 26,
    GGHIP_DeviceAttributeMaxBlockDimY = 27,
    GGHIP_DeviceAttributeMaxBlockDimZ = 28,
    GGHIP_DeviceAttributeMaxGridDimX = 29,
    GGHIP_DeviceAttributeMaxGridDimY = 30,
    GGHIP_DeviceAttributeMaxGridDimZ = 31,
    GGHIP_DeviceAttributeMaxThreadsPerBlock = 56,
    GGHIP_DeviceAttributeMultiprocessorCount = 63,
    GGHIP_DeviceAttributeCanMapHostMemory = 3,
    GGHIP_DeviceAttributeMaxSharedMemoryPerBlock = 74,
    /* "'1' if Device supports hipStreamWaitValue32() and
     * hipStreamWaitValue64()": HIP's only attribute about stream memory
     * operations (see hip_device_props for why it also gates the writes). */
    GGHIP_DeviceAttributeCanUseStreamWaitValue = 10013
};

enum {
    GGHIP_StreamNonBlocking = 0x1, /* hipStreamCreateWithFlags */
    GGHIP_EventDefault = 0x0,      /* hipEventCreate's flags: timing enabled */
    GGHIP_HostMallocDefault = 0x0, /* hipHostMalloc: pinned, portable to the device */
    GGHIP_HostMallocMapped = 0x2   /* hipHostMalloc: also mapped (hipHostGetDevicePointer) */
};

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

typedef gghip_error (*gghip_fn_hipInit)(unsigned int flags);
typedef gghip_error (*gghip_fn_hipDriverGetVersion)(int *driverVersion);
typedef gghip_error (*gghip_fn_hipRuntimeGetVersion)(int *runtimeVersion);
typedef gghip_error (*gghip_fn_hipGetDeviceCount)(int *count);
typedef gghip_error (*gghip_fn_hipDeviceGet)(gghip_device *device, int ordinal);
typedef gghip_error (*gghip_fn_hipDeviceGetName)(char *name, int len, gghip_device device);
typedef gghip_error (*gghip_fn_hipDeviceTotalMem)(size_t *bytes, gghip_device device);
typedef gghip_error (*gghip_fn_hipDeviceGetAttribute)(int *pi, gghip_device_attribute attr,
                                                      int deviceId);
typedef gghip_error (*gghip_fn_hipSetDevice)(int deviceId);
typedef gghip_error (*gghip_fn_hipGetDevice)(int *deviceId);

typedef gghip_error (*gghip_fn_hipDevicePrimaryCtxRetain)(gghip_ctx *pctx, gghip_device dev);
typedef gghip_error (*gghip_fn_hipDevicePrimaryCtxRelease)(gghip_device dev);
typedef gghip_error (*gghip_fn_hipCtxGetCurrent)(gghip_ctx *ctx);
typedef gghip_error (*gghip_fn_hipCtxSetCurrent)(gghip_ctx ctx);
typedef gghip_error (*gghip_fn_hipCtxPushCurrent)(gghip_ctx ctx);
typedef gghip_error (*gghip_fn_hipCtxPopCurrent)(gghip_ctx *ctx);
typedef gghip_error (*gghip_fn_hipDeviceSynchronize)(void);
typedef gghip_error (*gghip_fn_hipDeviceReset)(void);

typedef gghip_error (*gghip_fn_hipStreamCreateWithFlags)(gghip_stream *stream, unsigned int flags);
typedef gghip_error (*gghip_fn_hipStreamDestroy)(gghip_stream stream);
typedef gghip_error (*gghip_fn_hipStreamQuery)(gghip_stream stream);
typedef gghip_error (*gghip_fn_hipStreamSynchronize)(gghip_stream stream);
typedef gghip_error (*gghip_fn_hipStreamWaitEvent)(gghip_stream stream, gghip_event event,
                                                   unsigned int flags);

typedef gghip_error (*gghip_fn_hipEventCreate)(gghip_event *event);
typedef gghip_error (*gghip_fn_hipEventDestroy)(gghip_event event);
typedef gghip_error (*gghip_fn_hipEventRecord)(gghip_event event, gghip_stream stream);
typedef gghip_error (*gghip_fn_hipEventQuery)(gghip_event event);
typedef gghip_error (*gghip_fn_hipEventSynchronize)(gghip_event event);
typedef gghip_error (*gghip_fn_hipEventElapsedTime)(float *ms, gghip_event start,
                                                    gghip_event stop);

typedef gghip_error (*gghip_fn_hipMalloc)(void **ptr, size_t size);
typedef gghip_error (*gghip_fn_hipFree)(void *ptr);
typedef gghip_error (*gghip_fn_hipHostMalloc)(void **ptr, size_t size, unsigned int flags);
typedef gghip_error (*gghip_fn_hipHostFree)(void *ptr);
typedef gghip_error (*gghip_fn_hipMemcpyHtoD)(gghip_deviceptr dst, void *src, size_t sizeBytes);
typedef gghip_error (*gghip_fn_hipMemcpyDtoH)(void *dst, gghip_deviceptr src, size_t sizeBytes);
typedef gghip_error (*gghip_fn_hipMemcpyDtoD)(gghip_deviceptr dst, gghip_deviceptr src,
                                              size_t sizeBytes);
typedef gghip_error (*gghip_fn_hipMemcpyHtoDAsync)(gghip_deviceptr dst, void *src,
                                                   size_t sizeBytes, gghip_stream stream);
typedef gghip_error (*gghip_fn_hipMemcpyDtoHAsync)(void *dst, gghip_deviceptr src,
                                                   size_t sizeBytes, gghip_stream stream);
typedef gghip_error (*gghip_fn_hipMemcpyDtoDAsync)(gghip_deviceptr dst, gghip_deviceptr src,
                                                   size_t sizeBytes, gghip_stream stream);
typedef gghip_error (*gghip_fn_hipMemsetD8)(gghip_deviceptr dest, unsigned char value,
                                            size_t count);
typedef gghip_error (*gghip_fn_hipMemsetD8Async)(gghip_deviceptr dest, unsigned char value,
                                                 size_t count, gghip_stream stream);

typedef gghip_error (*gghip_fn_hipModuleLoad)(gghip_module *module, const char *fname);
typedef gghip_error (*gghip_fn_hipModuleLoadData)(gghip_module *module, const void *image);
typedef gghip_error (*gghip_fn_hipModuleUnload)(gghip_module module);
typedef gghip_error (*gghip_fn_hipModuleGetFunction)(gghip_function *function,
                                                     gghip_module module, const char *kname);
typedef gghip_error (*gghip_fn_hipModuleLaunchKernel)(gghip_function f, unsigned int gridDimX,
                                                      unsigned int gridDimY,
                                                      unsigned int gridDimZ,
                                                      unsigned int blockDimX,
                                                      unsigned int blockDimY,
                                                      unsigned int blockDimZ,
                                                      unsigned int sharedMemBytes,
                                                      gghip_stream stream, void **kernelParams,
                                                      void **extra);

typedef gghip_error (*gghip_fn_hipHostGetDevicePointer)(void **devPtr, void *hstPtr,
                                                        unsigned int flags);
/* flags: "reserved, ignored for now" (5.2.3 and 6.x headers); 0 is passed. */
typedef gghip_error (*gghip_fn_hipStreamWriteValue32)(gghip_stream stream, void *ptr,
                                                      uint32_t value, unsigned int flags);
typedef gghip_error (*gghip_fn_hipStreamWriteValue64)(gghip_stream stream, void *ptr,
                                                      uint64_t value, unsigned int flags);

typedef const char *(*gghip_fn_hipGetErrorName)(gghip_error hip_error);

/* Adoption checks (gg_buffer_adopt, gg_stream_adopt). attribute: a
 * hipPointer_attribute, whose values are the same in 5.2.3 and ROCm 6.x
 * (docs/HIP-ABI-FACTS.md); data is a hipDeviceptr_t (RANGE_START_ADDR),
 * size_t (RANGE_SIZE) or int (DEVICE_ORDINAL). */
typedef gghip_error (*gghip_fn_hipPointerGetAttribute)(void *data, unsigned int attribute, void *ptr);
enum {
    GGHIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    GGHIP_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    GGHIP_POINTER_ATTRIBUTE_RANGE_SIZE = 12
};
typedef gghip_error (*gghip_fn_hipStreamGetFlags)(gghip_stream stream, unsigned int *flags);

/*
 * The entry points the backend resolves, by dlsym of the name the loaded
 * ABI's table gives (gghip_abi.symbols; today the plain name in both ABIs:
 * each is exported once by libamdhip64.so.5 and .so.6 alike, in version
 * node hip_4.2, except hipStreamWriteValue32/64, in node hip_4.4, and
 * hipPointerGetAttribute, in node hip_5.0; dlsym
 * finds the only definition).
 *
 *   X(entry point, need)
 *
 * need: REQUIRED (open fails naming it) or OPTIONAL (the backend copes
 * without it). hipGetErrorName only improves an open-failure message for a
 * code this table does not know (a newer runtime's). Without
 * hipHostGetDevicePointer or a hipStreamWriteValue the backend reports no
 * write-value support of that width (no completion timeline), and
 * host_alloc_mapped / stream_write_value answer hipErrorNotSupported.
 * hipPointerGetAttribute (5.0+, node hip_5.0) lets adoption check an
 * address's allocation and device; hipStreamGetFlags (hip_4.2) that a
 * stream is one the runtime knows. A stream's device is not checked: 5.2.3
 * has no query for it (hipStreamGetDevice came later; its ABI is unchecked
 * here, so it is not used).
 *
 * Deliberately not used, though every libamdhip64 exports them:
 *  - hipDevicePrimaryCtxReset: a no-op in ROCm 5 and 6 (it returns
 *    hipSuccess without touching the device); resetting is hipDeviceReset on
 *    the device made current (see hip_backend.c);
 *  - hipCtxCreate / hipCtxDestroy: they retain and release the same primary
 *    context and hipCtxCreate pushes it; HIP has no separate contexts;
 *  - hipGetDeviceProperties / hipChooseDevice: ROCm 6 renamed them
 *    (...R0600, a new hipDeviceProp_t layout); the attributes say what the
 *    backend needs without any struct crossing the ABI.
 *
 * hipRuntimeGetVersion (HIP_VERSION: major * 10^7 + minor * 10^5 + build)
 * is resolved first, by its plain name in every ABI: its answer selects the
 * ABI table. Debian's 5.2.3 runtime answers 50221153 before hipInit and
 * without a GPU.
 */
#define GGHIP_SYMBOL_LIST(X)                 \
    X(hipInit,                    REQUIRED)  \
    X(hipDriverGetVersion,        REQUIRED)  \
    X(hipRuntimeGetVersion,       REQUIRED)  \
    X(hipGetDeviceCount,          REQUIRED)  \
    X(hipDeviceGet,               REQUIRED)  \
    X(hipDeviceGetName,           REQUIRED)  \
    X(hipDeviceTotalMem,          REQUIRED)  \
    X(hipDeviceGetAttribute,      REQUIRED)  \
    X(hipSetDevice,               REQUIRED)  \
    X(hipGetDevice,               REQUIRED)  \
    X(hipDevicePrimaryCtxRetain,  REQUIRED)  \
    X(hipDevicePrimaryCtxRelease, REQUIRED)  \
    X(hipCtxGetCurrent,           REQUIRED)  \
    X(hipCtxSetCurrent,           REQUIRED)  \
    X(hipCtxPushCurrent,          REQUIRED)  \
    X(hipCtxPopCurrent,           REQUIRED)  \
    X(hipDeviceSynchronize,       REQUIRED)  \
    X(hipDeviceReset,             REQUIRED)  \
    X(hipStreamCreateWithFlags,   REQUIRED)  \
    X(hipStreamDestroy,           REQUIRED)  \
    X(hipStreamQuery,             REQUIRED)  \
    X(hipStreamSynchronize,       REQUIRED)  \
    X(hipStreamWaitEvent,         REQUIRED)  \
    X(hipEventCreate,             REQUIRED)  \
    X(hipEventDestroy,            REQUIRED)  \
    X(hipEventRecord,             REQUIRED)  \
    X(hipEventQuery,              REQUIRED)  \
    X(hipEventSynchronize,        REQUIRED)  \
    X(hipEventElapsedTime,        REQUIRED)  \
    X(hipMalloc,                  REQUIRED)  \
    X(hipFree,                    REQUIRED)  \
    X(hipHostMalloc,              REQUIRED)  \
    X(hipHostFree,                REQUIRED)  \
    X(hipMemcpyHtoD,              REQUIRED)  \
    X(hipMemcpyDtoH,              REQUIRED)  \
    X(hipMemcpyDtoD,              REQUIRED)  \
    X(hipMemcpyHtoDAsync,         REQUIRED)  \
    X(hipMemcpyDtoHAsync,         REQUIRED)  \
    X(hipMemcpyDtoDAsync,         REQUIRED)  \
    X(hipMemsetD8,                REQUIRED)  \
    X(hipMemsetD8Async,           REQUIRED)  \
    X(hipModuleLoad,              REQUIRED)  \
    X(hipModuleLoadData,          REQUIRED)  \
    X(hipModuleUnload,            REQUIRED)  \
    X(hipModuleGetFunction,       REQUIRED)  \
    X(hipModuleLaunchKernel,      REQUIRED)  \
    X(hipGetErrorName,            OPTIONAL)  \
    X(hipHostGetDevicePointer,    OPTIONAL)  \
    X(hipStreamWriteValue32,      OPTIONAL)  \
    X(hipStreamWriteValue64,      OPTIONAL)  \
    X(hipPointerGetAttribute,     OPTIONAL)  \
    X(hipStreamGetFlags,          OPTIONAL)

#define GGHIP__NEED_IS_REQUIRED_REQUIRED true
#define GGHIP__NEED_IS_REQUIRED_OPTIONAL false

/* Index of each entry point in GGHIP_SYMBOL_LIST (gghip_abi.symbols). */
enum {
#define GGHIP__SYMBOL_INDEX(name, need) GGHIP_SYM_##name,
    GGHIP_SYMBOL_LIST(GGHIP__SYMBOL_INDEX)
#undef GGHIP__SYMBOL_INDEX
    GGHIP_SYMBOL_COUNT
};

/* ------------------------------------------------------------------------ */
/* Per-runtime ABI tables                                                   */
/* ------------------------------------------------------------------------ */

/*
 * What the backend passes across the ABI that could differ between runtime
 * majors: attribute numbers, flags, and the exported name of each entry
 * point. One constant table per checked ABI (hip_abi_tables.c); the loader
 * picks one from the version the runtime reports. Error codes are not here:
 * no code has ever changed meaning or value between HIP 5.0 and 6.2 (the
 * facts), so one table classifies them (hip_errors.c).
 */
typedef struct gghip_abi {
    const char *name;    /* "ROCm 6" */
    const char *soname;  /* "libamdhip64.so.6": a file so named must report this major */
    int major;           /* HIP_VERSION_MAJOR of the runtimes it covers */
    int minor_first;     /* the HIP_VERSION_MINORs whose headers were checked */
    int minor_last;
    const char *checked; /* how, and against what, the table was checked */

    gghip_device_attribute attr_max_threads_per_block;
    gghip_device_attribute attr_max_block_dim[3];
    gghip_device_attribute attr_max_grid_dim[3];
    gghip_device_attribute attr_multiprocessor_count;
    gghip_device_attribute attr_kernel_exec_timeout;
    gghip_device_attribute attr_max_shared_per_block;
    gghip_device_attribute attr_can_map_host_memory;
    gghip_device_attribute attr_can_use_stream_wait_value;

    unsigned int stream_non_blocking; /* hipStreamCreateWithFlags */
    unsigned int host_malloc_default; /* hipHostMalloc */
    unsigned int host_malloc_mapped;  /* hipHostMalloc, for host_alloc_mapped */

    const char *symbols[GGHIP_SYMBOL_COUNT]; /* exported name per GGHIP_SYM_ index */
} gghip_abi;

/* ROCm 5 (HIP 5.0-5.7): built from the GGHIP_ values above, which
 * tests/hip_abi compiles against Debian's real 5.2.3 header. */
extern const gghip_abi gghip_abi_rocm5;
/* ROCm 6 (HIP 6.0-6.2): transcribed from the published rocm-6.x headers. */
extern const gghip_abi gghip_abi_rocm6;

/* The ABI table for a runtime reporting `hip_version` (hipRuntimeGetVersion:
 * major * 10^7 + minor * 10^5 + build), or NULL when that version's ABI was
 * not checked (ROCm 4, 6.3 and later, 7, nonsense). Pure; any thread. */
const gghip_abi *gg__hip_abi_for_version(int hip_version);

/* "ROCm 5 (HIP 5.0-5.7), ROCm 6 (HIP 6.0-6.2)": the checked ranges, for
 * refusal messages. Static storage. */
const char *gg__hip_abi_checked_ranges(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUGUARD_HIP_ABI_H */
