/*
 * The ROCm 6 ABI facts gpuguard's HIP backend relies on, transcribed from
 * the published headers (no ROCm 6 header is installed on the build
 * machines). tests/hip/test_hip_abi_tables.c checks the backend's ROCm 6
 * table (src/hip/hip_abi_tables.c) and its error table against these: a
 * check against transcriptions of published facts, not against a real
 * header. docs/HIP-ABI-FACTS.md says how they were read.
 *
 * Sources (all identical for these entries at every tag listed):
 *   [api] ROCm/HIP include/hip/hip_runtime_api.h at the tags rocm-6.0.0
 *         (f7c33a4cbb66), 6.0.2, 6.1.0, 6.1.1, 6.1.2, 6.2.0, 6.2.1, 6.2.2
 *         (d3b75fbb8211): enum hipError_t, enum hipDeviceAttribute_t, the
 *         hipStreamNonBlocking / hipHostMallocDefault / hipEventDefault /
 *         hipHostMallocMapped defines, and the #defines that rename hipGetDeviceProperties and
 *         hipChooseDevice to their R0600 versions;
 *   [map] ROCm/clr hipamd/src/hip_hcc.map.in at rocm-6.0.0 and rocm-6.2.2:
 *         the version node that exports each symbol.
 * The values were printed by a throwaway program compiled against those
 * headers and pasted here; each list was compared between all eight tags.
 */
#include "hip_rocm6_facts.h"

#define API "ROCm/HIP rocm-6.0.0..rocm-6.2.2 include/hip/hip_runtime_api.h"
#define MAP "ROCm/clr rocm-6.0.0, rocm-6.2.2 hipamd/src/hip_hcc.map.in"

/* Every hipError_t of [api] but its aliases (hipErrorMemoryAllocation 2,
 * hipErrorInitializationError 3, hipErrorMapBufferObjectFailed 205,
 * hipErrorInvalidResourceHandle 400) and the end marker hipErrorTbd. */
const gghip_fact gghip_rocm6_errors[] = {
    { "hipSuccess", 0, API },
    { "hipErrorInvalidValue", 1, API },
    { "hipErrorOutOfMemory", 2, API },
    { "hipErrorNotInitialized", 3, API },
    { "hipErrorDeinitialized", 4, API },
    { "hipErrorProfilerDisabled", 5, API },
    { "hipErrorProfilerNotInitialized", 6, API },
    { "hipErrorProfilerAlreadyStarted", 7, API },
    { "hipErrorProfilerAlreadyStopped", 8, API },
    { "hipErrorInvalidConfiguration", 9, API },
    { "hipErrorInvalidPitchValue", 12, API },
    { "hipErrorInvalidSymbol", 13, API },
    { "hipErrorInvalidDevicePointer", 17, API },
    { "hipErrorInvalidMemcpyDirection", 21, API },
    { "hipErrorInsufficientDriver", 35, API },
    { "hipErrorMissingConfiguration", 52, API },
    { "hipErrorPriorLaunchFailure", 53, API },
    { "hipErrorInvalidDeviceFunction", 98, API },
    { "hipErrorNoDevice", 100, API },
    { "hipErrorInvalidDevice", 101, API },
    { "hipErrorInvalidImage", 200, API },
    { "hipErrorInvalidContext", 201, API },
    { "hipErrorContextAlreadyCurrent", 202, API },
    { "hipErrorMapFailed", 205, API },
    { "hipErrorUnmapFailed", 206, API },
    { "hipErrorArrayIsMapped", 207, API },
    { "hipErrorAlreadyMapped", 208, API },
    { "hipErrorNoBinaryForGpu", 209, API },
    { "hipErrorAlreadyAcquired", 210, API },
    { "hipErrorNotMapped", 211, API },
    { "hipErrorNotMappedAsArray", 212, API },
    { "hipErrorNotMappedAsPointer", 213, API },
    { "hipErrorECCNotCorrectable", 214, API },
    { "hipErrorUnsupportedLimit", 215, API },
    { "hipErrorContextAlreadyInUse", 216, API },
    { "hipErrorPeerAccessUnsupported", 217, API },
    { "hipErrorInvalidKernelFile", 218, API },
    { "hipErrorInvalidGraphicsContext", 219, API },
    { "hipErrorInvalidSource", 300, API },
    { "hipErrorFileNotFound", 301, API },
    { "hipErrorSharedObjectSymbolNotFound", 302, API },
    { "hipErrorSharedObjectInitFailed", 303, API },
    { "hipErrorOperatingSystem", 304, API },
    { "hipErrorInvalidHandle", 400, API },
    { "hipErrorIllegalState", 401, API },
    { "hipErrorNotFound", 500, API },
    { "hipErrorNotReady", 600, API },
    { "hipErrorIllegalAddress", 700, API },
    { "hipErrorLaunchOutOfResources", 701, API },
    { "hipErrorLaunchTimeOut", 702, API },
    { "hipErrorPeerAccessAlreadyEnabled", 704, API },
    { "hipErrorPeerAccessNotEnabled", 705, API },
    { "hipErrorSetOnActiveProcess", 708, API },
    { "hipErrorContextIsDestroyed", 709, API },
    { "hipErrorAssert", 710, API },
    { "hipErrorHostMemoryAlreadyRegistered", 712, API },
    { "hipErrorHostMemoryNotRegistered", 713, API },
    { "hipErrorLaunchFailure", 719, API },
    { "hipErrorCooperativeLaunchTooLarge", 720, API },
    { "hipErrorNotSupported", 801, API },
    { "hipErrorStreamCaptureUnsupported", 900, API },
    { "hipErrorStreamCaptureInvalidated", 901, API },
    { "hipErrorStreamCaptureMerge", 902, API },
    { "hipErrorStreamCaptureUnmatched", 903, API },
    { "hipErrorStreamCaptureUnjoined", 904, API },
    { "hipErrorStreamCaptureIsolation", 905, API },
    { "hipErrorStreamCaptureImplicit", 906, API },
    { "hipErrorCapturedEvent", 907, API },
    { "hipErrorStreamCaptureWrongThread", 908, API },
    { "hipErrorGraphExecUpdateFailure", 910, API },
    { "hipErrorUnknown", 999, API },
    { "hipErrorRuntimeMemory", 1052, API },
    { "hipErrorRuntimeOther", 1053, API },
};
const int gghip_rocm6_error_count = (int)(sizeof gghip_rocm6_errors / sizeof gghip_rocm6_errors[0]);

/* The hipDeviceAttribute_t values the backend asks for ([api]). */
const gghip_fact gghip_rocm6_attributes[] = {
    { "hipDeviceAttributeMaxThreadsPerBlock", 56, API },
    { "hipDeviceAttributeMaxBlockDimX", 26, API },
    { "hipDeviceAttributeMaxBlockDimY", 27, API },
    { "hipDeviceAttributeMaxBlockDimZ", 28, API },
    { "hipDeviceAttributeMaxGridDimX", 29, API },
    { "hipDeviceAttributeMaxGridDimY", 30, API },
    { "hipDeviceAttributeMaxGridDimZ", 31, API },
    { "hipDeviceAttributeMultiprocessorCount", 63, API },
    { "hipDeviceAttributeKernelExecTimeout", 18, API },
    { "hipDeviceAttributeMaxSharedMemoryPerBlock", 74, API },
    { "hipDeviceAttributeCanMapHostMemory", 3, API },
    { "hipDeviceAttributeCanUseStreamWaitValue", 10013, API },
};
const int gghip_rocm6_attribute_count =
    (int)(sizeof gghip_rocm6_attributes / sizeof gghip_rocm6_attributes[0]);

/* The flag values passed ([api]). */
const gghip_fact gghip_rocm6_flags[] = {
    { "hipStreamNonBlocking", 1, API },
    { "hipHostMallocDefault", 0, API },
    { "hipEventDefault", 0, API },
    { "hipHostMallocMapped", 2, API },
};
const int gghip_rocm6_flag_count = (int)(sizeof gghip_rocm6_flags / sizeof gghip_rocm6_flags[0]);

/* How libamdhip64.so.6 exports each entry point the backend resolves ([map]):
 * all under their own names, once each (so dlsym of the plain name finds
 * it), in the base node hip_4.2 but for hipStreamWriteValue32/64 (hip_4.4)
 * and hipPointerGetAttribute (hip_5.0). */
const gghip_symbol_fact gghip_rocm6_symbols[] = {
    { "hipInit", "hipInit", "hip_4.2", MAP },
    { "hipDriverGetVersion", "hipDriverGetVersion", "hip_4.2", MAP },
    { "hipRuntimeGetVersion", "hipRuntimeGetVersion", "hip_4.2", MAP },
    { "hipGetDeviceCount", "hipGetDeviceCount", "hip_4.2", MAP },
    { "hipDeviceGet", "hipDeviceGet", "hip_4.2", MAP },
    { "hipDeviceGetName", "hipDeviceGetName", "hip_4.2", MAP },
    { "hipDeviceTotalMem", "hipDeviceTotalMem", "hip_4.2", MAP },
    { "hipDeviceGetAttribute", "hipDeviceGetAttribute", "hip_4.2", MAP },
    { "hipSetDevice", "hipSetDevice", "hip_4.2", MAP },
    { "hipGetDevice", "hipGetDevice", "hip_4.2", MAP },
    { "hipDevicePrimaryCtxRetain", "hipDevicePrimaryCtxRetain", "hip_4.2", MAP },
    { "hipDevicePrimaryCtxRelease", "hipDevicePrimaryCtxRelease", "hip_4.2", MAP },
    { "hipCtxGetCurrent", "hipCtxGetCurrent", "hip_4.2", MAP },
    { "hipCtxSetCurrent", "hipCtxSetCurrent", "hip_4.2", MAP },
    { "hipCtxPushCurrent", "hipCtxPushCurrent", "hip_4.2", MAP },
    { "hipCtxPopCurrent", "hipCtxPopCurrent", "hip_4.2", MAP },
    { "hipDeviceSynchronize", "hipDeviceSynchronize", "hip_4.2", MAP },
    { "hipDeviceReset", "hipDeviceReset", "hip_4.2", MAP },
    { "hipStreamCreateWithFlags", "hipStreamCreateWithFlags", "hip_4.2", MAP },
    { "hipStreamDestroy", "hipStreamDestroy", "hip_4.2", MAP },
    { "hipStreamQuery", "hipStreamQuery", "hip_4.2", MAP },
    { "hipStreamSynchronize", "hipStreamSynchronize", "hip_4.2", MAP },
    { "hipStreamWaitEvent", "hipStreamWaitEvent", "hip_4.2", MAP },
    { "hipEventCreate", "hipEventCreate", "hip_4.2", MAP },
    { "hipEventDestroy", "hipEventDestroy", "hip_4.2", MAP },
    { "hipEventRecord", "hipEventRecord", "hip_4.2", MAP },
    { "hipEventQuery", "hipEventQuery", "hip_4.2", MAP },
    { "hipEventSynchronize", "hipEventSynchronize", "hip_4.2", MAP },
    { "hipEventElapsedTime", "hipEventElapsedTime", "hip_4.2", MAP },
    { "hipMalloc", "hipMalloc", "hip_4.2", MAP },
    { "hipFree", "hipFree", "hip_4.2", MAP },
    { "hipHostMalloc", "hipHostMalloc", "hip_4.2", MAP },
    { "hipHostFree", "hipHostFree", "hip_4.2", MAP },
    { "hipMemcpyHtoD", "hipMemcpyHtoD", "hip_4.2", MAP },
    { "hipMemcpyDtoH", "hipMemcpyDtoH", "hip_4.2", MAP },
    { "hipMemcpyDtoD", "hipMemcpyDtoD", "hip_4.2", MAP },
    { "hipMemcpyHtoDAsync", "hipMemcpyHtoDAsync", "hip_4.2", MAP },
    { "hipMemcpyDtoHAsync", "hipMemcpyDtoHAsync", "hip_4.2", MAP },
    { "hipMemcpyDtoDAsync", "hipMemcpyDtoDAsync", "hip_4.2", MAP },
    { "hipMemsetD8", "hipMemsetD8", "hip_4.2", MAP },
    { "hipMemsetD8Async", "hipMemsetD8Async", "hip_4.2", MAP },
    { "hipModuleLoad", "hipModuleLoad", "hip_4.2", MAP },
    { "hipModuleLoadData", "hipModuleLoadData", "hip_4.2", MAP },
    { "hipModuleUnload", "hipModuleUnload", "hip_4.2", MAP },
    { "hipModuleGetFunction", "hipModuleGetFunction", "hip_4.2", MAP },
    { "hipModuleLaunchKernel", "hipModuleLaunchKernel", "hip_4.2", MAP },
    { "hipGetErrorName", "hipGetErrorName", "hip_4.2", MAP },
    { "hipHostGetDevicePointer", "hipHostGetDevicePointer", "hip_4.2", MAP },
    /* The stream write-value functions came later: node hip_4.4. */
    { "hipStreamWriteValue32", "hipStreamWriteValue32", "hip_4.4", MAP },
    { "hipStreamWriteValue64", "hipStreamWriteValue64", "hip_4.4", MAP },
    /* The adoption checks: hipPointerGetAttribute came in 5.0 (node
     * hip_5.0); hipStreamGetFlags is in the base node. */
    { "hipPointerGetAttribute", "hipPointerGetAttribute", "hip_5.0", MAP },
    { "hipStreamGetFlags", "hipStreamGetFlags", "hip_4.2", MAP },
};
const int gghip_rocm6_symbol_count =
    (int)(sizeof gghip_rocm6_symbols / sizeof gghip_rocm6_symbols[0]);

/* The functions ROCm 6 renamed: [api] `#define hipGetDeviceProperties
 * hipGetDevicePropertiesR0600` (hipDeviceProp_t became hipDeviceProp_tR0600,
 * a new layout) and `#define hipChooseDevice hipChooseDeviceR0600`; [map]
 * exports the R0600 names in node hip_6.0 and keeps the old names (the 5.x
 * layout) in hip_4.2. A backend that resolved the old name would read a
 * ROCm 5 hipDeviceProp_t from a ROCm 6 runtime. */
const gghip_symbol_fact gghip_rocm6_renamed[] = {
    { "hipGetDeviceProperties", "hipGetDevicePropertiesR0600", "hip_6.0", API ", " MAP },
    { "hipChooseDevice", "hipChooseDeviceR0600", "hip_6.0", API ", " MAP },
};
const int gghip_rocm6_renamed_count =
    (int)(sizeof gghip_rocm6_renamed / sizeof gghip_rocm6_renamed[0]);
