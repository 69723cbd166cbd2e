/*
 * The numbers of HIP 5.2.3's hip_runtime_api.h (AMD platform) that
 * gpuguard's simulator and interposer use, as X-macro lists and prefixed
 * constants: hip_types.h's enums, the simulator's hipGetErrorName/String
 * and the ABI test (tests/sim_hip/test_sim_hip_abi.c, which compares every
 * number with the header's) all come from here.
 */
#ifndef GG_ABI_HIP_VALUES_H
#define GG_ABI_HIP_VALUES_H

/* Every hipError_t: enumerator, number, our message. The deprecated aliases
 * (hipErrorMemoryAllocation, hipErrorInitializationError,
 * hipErrorMapBufferObjectFailed, hipErrorInvalidResourceHandle) share a
 * number with a listed name and are left out: the runtime's hipGetErrorName
 * never returns them. */
#define GG_ABI_HIP_ERRORS(X)                                                       \
    X(hipSuccess, 0, "no error")                                                   \
    X(hipErrorInvalidValue, 1, "invalid argument")                                 \
    X(hipErrorOutOfMemory, 2, "out of memory")                                     \
    X(hipErrorNotInitialized, 3, "initialization error")                           \
    X(hipErrorDeinitialized, 4, "runtime shutting down")                           \
    X(hipErrorProfilerDisabled, 5, "profiler disabled")                            \
    X(hipErrorProfilerNotInitialized, 6, "profiler not initialized")               \
    X(hipErrorProfilerAlreadyStarted, 7, "profiler already started")               \
    X(hipErrorProfilerAlreadyStopped, 8, "profiler already stopped")               \
    X(hipErrorInvalidConfiguration, 9, "invalid launch configuration")             \
    X(hipErrorInvalidPitchValue, 12, "invalid pitch")                              \
    X(hipErrorInvalidSymbol, 13, "invalid device symbol")                          \
    X(hipErrorInvalidDevicePointer, 17, "invalid device pointer")                  \
    X(hipErrorInvalidMemcpyDirection, 21, "invalid copy direction")                \
    X(hipErrorInsufficientDriver, 35, "kernel driver older than the runtime")      \
    X(hipErrorMissingConfiguration, 52, "launch configuration missing")            \
    X(hipErrorPriorLaunchFailure, 53, "an earlier launch failed")                  \
    X(hipErrorInvalidDeviceFunction, 98, "invalid device function")                \
    X(hipErrorNoDevice, 100, "no GPU device is available")                         \
    X(hipErrorInvalidDevice, 101, "invalid device ordinal")                        \
    X(hipErrorInvalidImage, 200, "device code object is invalid")                  \
    X(hipErrorInvalidContext, 201, "invalid device context")                       \
    X(hipErrorContextAlreadyCurrent, 202, "context already current")               \
    X(hipErrorMapFailed, 205, "mapping failed")                                    \
    X(hipErrorUnmapFailed, 206, "unmapping failed")                                \
    X(hipErrorArrayIsMapped, 207, "array is mapped")                               \
    X(hipErrorAlreadyMapped, 208, "resource already mapped")                       \
    X(hipErrorNoBinaryForGpu, 209, "no code object for this GPU")                  \
    X(hipErrorAlreadyAcquired, 210, "resource already acquired")                   \
    X(hipErrorNotMapped, 211, "resource not mapped")                               \
    X(hipErrorNotMappedAsArray, 212, "resource not mapped as an array")            \
    X(hipErrorNotMappedAsPointer, 213, "resource not mapped as a pointer")         \
    X(hipErrorECCNotCorrectable, 214, "uncorrectable ECC error")                   \
    X(hipErrorUnsupportedLimit, 215, "limit not supported")                        \
    X(hipErrorContextAlreadyInUse, 216, "context already in use")                  \
    X(hipErrorPeerAccessUnsupported, 217, "peer access not supported")             \
    X(hipErrorInvalidKernelFile, 218, "invalid kernel file")                       \
    X(hipErrorInvalidGraphicsContext, 219, "invalid graphics context")             \
    X(hipErrorInvalidSource, 300, "invalid source")                                \
    X(hipErrorFileNotFound, 301, "file not found")                                 \
    X(hipErrorSharedObjectSymbolNotFound, 302, "shared object symbol not found")   \
    X(hipErrorSharedObjectInitFailed, 303, "shared object initialization failed")  \
    X(hipErrorOperatingSystem, 304, "operating system call failed")                \
    X(hipErrorInvalidHandle, 400, "invalid resource handle")                       \
    X(hipErrorIllegalState, 401, "resource in an invalid state")                   \
    X(hipErrorNotFound, 500, "named symbol not found")                             \
    X(hipErrorNotReady, 600, "work still pending")                                 \
    X(hipErrorIllegalAddress, 700, "a kernel accessed an illegal address")         \
    X(hipErrorLaunchOutOfResources, 701, "too many resources requested for launch") \
    X(hipErrorLaunchTimeOut, 702, "the kernel ran too long and was killed")        \
    X(hipErrorPeerAccessAlreadyEnabled, 704, "peer access already enabled")        \
    X(hipErrorPeerAccessNotEnabled, 705, "peer access not enabled")                \
    X(hipErrorSetOnActiveProcess, 708, "cannot set while the device is active")    \
    X(hipErrorContextIsDestroyed, 709, "context is destroyed")                     \
    X(hipErrorAssert, 710, "a device-side assert failed")                          \
    X(hipErrorHostMemoryAlreadyRegistered, 712, "host memory already registered")  \
    X(hipErrorHostMemoryNotRegistered, 713, "host memory not registered")          \
    X(hipErrorLaunchFailure, 719, "a kernel failed while running")                 \
    X(hipErrorCooperativeLaunchTooLarge, 720, "cooperative launch too large")      \
    X(hipErrorNotSupported, 801, "operation not supported")                        \
    X(hipErrorStreamCaptureUnsupported, 900, "not allowed while capturing")        \
    X(hipErrorStreamCaptureInvalidated, 901, "stream capture invalidated")         \
    X(hipErrorStreamCaptureMerge, 902, "stream captures would merge")              \
    X(hipErrorStreamCaptureUnmatched, 903, "capture not begun in this stream")     \
    X(hipErrorStreamCaptureUnjoined, 904, "capture has an unjoined fork")          \
    X(hipErrorStreamCaptureIsolation, 905, "dependency crosses the capture")       \
    X(hipErrorStreamCaptureImplicit, 906, "implicit dependency on a capture")      \
    X(hipErrorCapturedEvent, 907, "event was recorded in a capture")               \
    X(hipErrorStreamCaptureWrongThread, 908, "capture ended on another thread")    \
    X(hipErrorGraphExecUpdateFailure, 910, "graph update not possible")            \
    X(hipErrorUnknown, 999, "unknown error")                                       \
    X(hipErrorRuntimeMemory, 1052, "runtime memory call failed")                   \
    X(hipErrorRuntimeOther, 1053, "runtime call failed")                           \
    X(hipErrorTbd, 1054, "unspecified error")

/* HIP_VERSION of 5.2.3 (major * 10^7 + minor * 10^5 + patch), what Debian's
 * runtime reports from hipDriverGetVersion and hipRuntimeGetVersion. */
#define GG_ABI_HIP_VERSION 50221153

#define GG_ABI_HIP_STREAM_DEFAULT 0x0u          /* hipStreamDefault */
#define GG_ABI_HIP_STREAM_NON_BLOCKING 0x1u     /* hipStreamNonBlocking */
#define GG_ABI_HIP_STREAM_PER_THREAD 0x2u       /* (uintptr_t)hipStreamPerThread */
#define GG_ABI_HIP_EVENT_DISABLE_TIMING 0x2u    /* hipEventDisableTiming */
#define GG_ABI_HIP_HOST_MALLOC_PORTABLE 0x1u    /* hipHostMallocPortable */
#define GG_ABI_HIP_HOST_MALLOC_MAPPED 0x2u      /* hipHostMallocMapped */
#define GG_ABI_HIP_HOST_MALLOC_WRITE_COMBINED 0x4u /* hipHostMallocWriteCombined */
#define GG_ABI_HIP_HOST_MALLOC_NUMA_USER 0x20000000u /* hipHostMallocNumaUser */
#define GG_ABI_HIP_HOST_MALLOC_COHERENT 0x40000000u  /* hipHostMallocCoherent */
#define GG_ABI_HIP_HOST_MALLOC_NON_COHERENT 0x80000000u /* hipHostMallocNonCoherent */

/* The hipDeviceAttribute_t values the face answers (the enum is sorted by
 * name in HIP 5.x, so the numbers differ from CUDA's). */
#define GG_ABI_HIP_ATTRIBUTES(X)                            \
    X(hipDeviceAttributeEccEnabled, 0)                      \
    X(hipDeviceAttributeAsyncEngineCount, 2)                \
    X(hipDeviceAttributeCanMapHostMemory, 3)                \
    X(hipDeviceAttributeClockRate, 5)                       \
    X(hipDeviceAttributeComputeMode, 6)                     \
    X(hipDeviceAttributeConcurrentKernels, 8)               \
    X(hipDeviceAttributeIntegrated, 16)                     \
    X(hipDeviceAttributeKernelExecTimeout, 18)              \
    X(hipDeviceAttributeComputeCapabilityMajor, 23)         \
    X(hipDeviceAttributeMaxBlockDimX, 26)                   \
    X(hipDeviceAttributeMaxBlockDimY, 27)                   \
    X(hipDeviceAttributeMaxBlockDimZ, 28)                   \
    X(hipDeviceAttributeMaxGridDimX, 29)                    \
    X(hipDeviceAttributeMaxGridDimY, 30)                    \
    X(hipDeviceAttributeMaxGridDimZ, 31)                    \
    X(hipDeviceAttributeMaxThreadsPerBlock, 56)             \
    X(hipDeviceAttributeMaxThreadsPerMultiProcessor, 57)    \
    X(hipDeviceAttributeComputeCapabilityMinor, 61)         \
    X(hipDeviceAttributeMultiprocessorCount, 63)            \
    X(hipDeviceAttributePciBusId, 67)                       \
    X(hipDeviceAttributePciDeviceId, 68)                    \
    X(hipDeviceAttributePciDomainID, 69)                    \
    X(hipDeviceAttributeMaxRegistersPerBlock, 71)           \
    X(hipDeviceAttributeMaxSharedMemoryPerBlock, 74)        \
    X(hipDeviceAttributeTotalConstantMemory, 83)            \
    X(hipDeviceAttributeTotalGlobalMem, 84)                 \
    X(hipDeviceAttributeUnifiedAddressing, 85)              \
    X(hipDeviceAttributeWarpSize, 87)                       \
    X(hipDeviceAttributeCanUseStreamWaitValue, 10013)

#endif /* GG_ABI_HIP_VALUES_H */
