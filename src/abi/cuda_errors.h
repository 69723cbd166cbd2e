/*
 * The CUresult codes of cuda.h (CUDA 13.0) that gpuguard's drivers return or
 * name: enumerator, number, a message. An X-macro list, so that CUresult
 * (cuda_types.h), the simulator's cuGetErrorName/String and the ABI test
 * (tests/sim/test_sim_abi.c, which compares every number with cuda.h's) all
 * come from it. The backend's own list (src/cuda/cuda_abi.h,
 * GGCU_RESULT_LIST) names every code with its portable status instead; see
 * README.md here for why the two stay apart.
 */
#ifndef GG_ABI_CUDA_ERRORS_H
#define GG_ABI_CUDA_ERRORS_H

#define GG_ABI_CUDA_ERRORS(X)                                \
    X(CUDA_SUCCESS, 0, "no error")                           \
    X(CUDA_ERROR_INVALID_VALUE, 1, "invalid argument")       \
    X(CUDA_ERROR_OUT_OF_MEMORY, 2, "out of memory")          \
    X(CUDA_ERROR_NOT_INITIALIZED, 3, "initialization error: cuInit has not been called or failed") \
    X(CUDA_ERROR_DEINITIALIZED, 4, "driver shutting down")   \
    X(CUDA_ERROR_STUB_LIBRARY, 34, "CUDA driver is a stub library") \
    X(CUDA_ERROR_NO_DEVICE, 100, "no CUDA-capable device is detected") \
    X(CUDA_ERROR_INVALID_DEVICE, 101, "invalid device ordinal") \
    X(CUDA_ERROR_INVALID_IMAGE, 200, "device kernel image is invalid") \
    X(CUDA_ERROR_INVALID_CONTEXT, 201, "invalid device context") \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209, "no kernel image is available for execution on the device") \
    X(CUDA_ERROR_ECC_UNCORRECTABLE, 214, "uncorrectable ECC error encountered") \
    X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215, "limit is not supported on this architecture") \
    X(CUDA_ERROR_FILE_NOT_FOUND, 301, "file not found")      \
    X(CUDA_ERROR_INVALID_HANDLE, 400, "invalid resource handle") \
    X(CUDA_ERROR_NOT_FOUND, 500, "named symbol not found")   \
    X(CUDA_ERROR_NOT_READY, 600, "device not ready")         \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, 700, "an illegal memory access was encountered") \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701, "too many resources requested for launch") \
    X(CUDA_ERROR_LAUNCH_TIMEOUT, 702, "the launch timed out and was terminated") \
    X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708, "primary context is already active") \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709, "context is destroyed") \
    X(CUDA_ERROR_ASSERT, 710, "device-side assert triggered") \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, 716, "misaligned address") \
    X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712, "part or all of the requested memory range is already mapped") \
    X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713, "pointer does not correspond to a registered memory region") \
    X(CUDA_ERROR_LAUNCH_FAILED, 719, "unspecified launch failure") \
    X(CUDA_ERROR_NOT_SUPPORTED, 801, "operation not supported") \
    X(CUDA_ERROR_TIMEOUT, 909, "wait operation timed out")   \
    X(CUDA_ERROR_UNKNOWN, 999, "unknown error")

#endif /* GG_ABI_CUDA_ERRORS_H */
