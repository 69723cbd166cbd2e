/*
 * Prototypes of the HIP runtime functions gpuguard's simulator exports and
 * its interposer wraps (tools/intercept/gen_functions.py reads this file),
 * with the ABI of HIP 5.2.3's hip_runtime_api.h (AMD platform). Kept apart
 * from the types (hip_types.h) so that tests/sim_hip/test_sim_hip_abi.c can
 * include it after the real header: the compiler then proves every
 * signature compatible with HIP's.
 *
 * Each is declared with GG_ABI_HIP_API, default visibility unless the
 * includer says otherwise (the ABI test defines it empty).
 */
#ifndef GG_ABI_HIP_FUNCTIONS_H
#define GG_ABI_HIP_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

/* ---- the exports -------------------------------------------------------- */

#ifndef GG_ABI_HIP_API
#define GG_ABI_HIP_API __attribute__((visibility("default")))
#endif
#define API GG_ABI_HIP_API
API hipError_t hipInit(unsigned int flags);
API hipError_t hipDriverGetVersion(int *driverVersion);
API hipError_t hipRuntimeGetVersion(int *runtimeVersion);
API hipError_t hipGetDeviceCount(int *count);
API hipError_t hipDeviceGet(hipDevice_t *device, int ordinal);
API hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
API hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device);
API hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId);
API hipError_t hipSetDevice(int deviceId);
API hipError_t hipGetDevice(int *deviceId);
API hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev);
API hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev);
API hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev);
API hipError_t hipCtxGetCurrent(hipCtx_t *ctx);
API hipError_t hipCtxSetCurrent(hipCtx_t ctx);
API hipError_t hipCtxPushCurrent(hipCtx_t ctx);
API hipError_t hipCtxPopCurrent(hipCtx_t *ctx);
API hipError_t hipDeviceSynchronize(void);
API hipError_t hipDeviceReset(void);
API hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags);
API hipError_t hipStreamDestroy(hipStream_t stream);
API hipError_t hipStreamQuery(hipStream_t stream);
API hipError_t hipStreamSynchronize(hipStream_t stream);
API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags);
API hipError_t hipEventCreate(hipEvent_t *event);
API hipError_t hipEventDestroy(hipEvent_t event);
API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
API hipError_t hipEventQuery(hipEvent_t event);
API hipError_t hipEventSynchronize(hipEvent_t event);
API hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);
API hipError_t hipMalloc(void **ptr, size_t size);
API hipError_t hipFree(void *ptr);
API hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
API hipError_t hipHostFree(void *ptr);
API hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes);
API hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes);
API hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes);
API hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes,
                                  hipStream_t stream);
API hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes,
                                  hipStream_t stream);
API hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                                  hipStream_t stream);
API hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count);
API hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                                hipStream_t stream);
API hipError_t hipModuleLoad(hipModule_t *module, const char *fname);
API hipError_t hipModuleLoadData(hipModule_t *module, const void *image);
API hipError_t hipModuleUnload(hipModule_t module);
API hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                    const char *kname);
API hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t hmod,
                                  const char *name);
API hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                     unsigned int gridDimY, unsigned int gridDimZ,
                                     unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes,
                                     hipStream_t stream, void **kernelParams, void **extra);
API hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags);
API hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value,
                                     unsigned int flags);
API hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value,
                                     unsigned int flags);
API hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr);
API hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags);
API const char *hipGetErrorName(hipError_t hip_error);
API const char *hipGetErrorString(hipError_t hipError);
#undef API

#endif /* GG_ABI_HIP_FUNCTIONS_H */
