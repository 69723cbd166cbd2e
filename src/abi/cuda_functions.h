/*
 * Prototypes of the CUDA Driver API functions gpuguard's simulator exports
 * and its interposer wraps (tools/intercept/gen_functions.py reads this file
 * and cuda_functions_pycuda.h), with the ABI of cuda.h (CUDA 13.0). Kept
 * apart from the types (cuda_types.h) so that tests/sim/test_sim_abi.c can
 * include it after the real cuda.h: the compiler then proves every
 * signature compatible with NVIDIA's.
 *
 * Each is declared with GG_ABI_CUDA_API, default visibility unless the
 * includer says otherwise (the ABI test defines it empty): these are a
 * driver's exports.
 */
#ifndef GG_ABI_CUDA_FUNCTIONS_H
#define GG_ABI_CUDA_FUNCTIONS_H

#include <stddef.h>

/* cuda.h declares the attribute as CUdevice_attribute, an enum of the same
 * size and passing convention as int. */
#ifndef GG_ABI_CU_DEVICE_ATTRIBUTE
#define GG_ABI_CU_DEVICE_ATTRIBUTE int
#endif

/* ---- the exports -------------------------------------------------------- */
#ifndef GG_ABI_CUDA_API
#define GG_ABI_CUDA_API __attribute__((visibility("default")))
#endif
#define API GG_ABI_CUDA_API
API CUresult cuInit(unsigned int flags);
API CUresult cuDriverGetVersion(int *version);
API CUresult cuDeviceGetCount(int *count);
API CUresult cuDeviceGet(CUdevice *device, int ordinal);
API CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
API CUresult cuDeviceGetAttribute(int *pi, GG_ABI_CU_DEVICE_ATTRIBUTE attrib, CUdevice dev);
API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
API CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *params, int numParams,
                            unsigned int flags, CUdevice dev);
API CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                            CUdevice dev);
API CUresult cuCtxDestroy_v2(CUcontext ctx);
API CUresult cuCtxPushCurrent_v2(CUcontext ctx);
API CUresult cuCtxPopCurrent_v2(CUcontext *pctx);
API CUresult cuCtxGetCurrent(CUcontext *pctx);
API CUresult cuCtxSetCurrent(CUcontext ctx);
API CUresult cuCtxGetDevice(CUdevice *device);
API CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
API CUresult cuCtxSynchronize(void);
API CUresult cuCtxSynchronize_v2(CUcontext ctx);
API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active);
API CUresult cuStreamCreate(CUstream *phStream, unsigned int flags);
API CUresult cuStreamDestroy_v2(CUstream hStream);
API CUresult cuStreamQuery(CUstream hStream);
API CUresult cuStreamSynchronize(CUstream hStream);
API CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx);
API CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int flags);
API CUresult cuEventCreate(CUevent *phEvent, unsigned int flags);
API CUresult cuEventDestroy_v2(CUevent hEvent);
API CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
API CUresult cuEventQuery(CUevent hEvent);
API CUresult cuEventSynchronize(CUevent hEvent);
API CUresult cuEventElapsedTime(float *ms, CUevent hStart, CUevent hEnd);
API CUresult cuEventElapsedTime_v2(float *ms, CUevent hStart, CUevent hEnd);
API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
API CUresult cuMemFree_v2(CUdeviceptr dptr);
API CUresult cuMemAllocHost_v2(void **pp, size_t bytesize);
API CUresult cuMemFreeHost(void *p);
API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr);
API CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n);
API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s);
API CUresult cuModuleLoad(CUmodule *module, const char *fname);
API CUresult cuModuleLoadData(CUmodule *module, const void *image);
API CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin);
API CUresult cuModuleUnload(CUmodule hmod);
API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                            unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                            unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                            void **kernelParams, void **extra);
API CUresult cuGetErrorName(CUresult error, const char **pStr);
API CUresult cuGetErrorString(CUresult error, const char **pStr);
/* The CUDA 11.3 form (no status). cuda.h names it only with
 * __CUDA_API_VERSION_INTERNAL; otherwise it #defines cuGetProcAddress to
 * cuGetProcAddress_v2, so test_sim_abi.c #undefs the macro first. */
API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus);
API CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                size_t *paramSize);
API CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags);
/* The 8.0/9.0 forms and the 11.7 _v2 ones have the same C signature; cuda.h
 * names the unsuffixed ones only with __CUDA_API_VERSION_INTERNAL and
 * #defines cuStreamWriteValue32/64 to the _v2 names otherwise, so
 * test_sim_abi.c #undefs those macros first. */
API CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                  unsigned int flags);
API CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                     unsigned int flags);
API CUresult cuStreamWriteValue64(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                  unsigned int flags);
API CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                     unsigned int flags);
#include "abi/cuda_functions_pycuda.h"
#undef API

#endif /* GG_ABI_CUDA_FUNCTIONS_H */
