/*
 * The per-thread default stream forms (_ptsz, _ptds) of the CUDA face's
 * exports, and the face's per-thread default streams (sim_cuda_per_thread.c
 * says what they are). The forms are the ones NVIDIA's driver exports:
 * measured on Debian's libcuda 535.261.03 (CUDA 12.2), which exports 86,
 * of which these are the ones whose legacy function the simulator exports
 * (tests/sim/sim_per_thread_exports.sh checks the list against that driver).
 */
#ifndef GG_SIM_CUDA_PER_THREAD_H
#define GG_SIM_CUDA_PER_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_cuda.h"

/* Whether stream handle h names the calling thread's per-thread default
 * stream: CU_STREAM_PER_THREAD always, 0 inside a _ptsz / _ptds export. */
bool sim_cuda_is_per_thread_stream(uint64_t h);
/* The calling thread's per-thread default stream of c, retained, made on
 * first use: SIM_OK, or OUT_OF_MEMORY / CONTEXT_DESTROYED when it cannot
 * be made. */
sim_status sim_cuda_per_thread_stream(sim_ctx *c, sim_stream **out);
/* Brackets a _ptsz / _ptds export's call of its legacy function: inside,
 * stream 0 is the per-thread default stream. Calls nest. */
void sim_cuda_per_thread_enter(void);
void sim_cuda_per_thread_leave(void);

/* ---- the exports: each is its legacy function with stream 0 meaning the
 * per-thread default stream (sim_cuda_ptds_exports.c) ---- */
#define API GG_ABI_CUDA_API
API CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
API CUresult cuGLMapBufferObject_v2_ptds(CUdeviceptr *dptr, size_t *size, GLuint buffer);
API CUresult cuGraphicsMapResources_ptsz(unsigned int count, CUgraphicsResource *resources,
                                         CUstream hStream);
API CUresult cuGraphicsUnmapResources_ptsz(unsigned int count, CUgraphicsResource *resources,
                                           CUstream hStream);
API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            CUstream hStream, void **kernelParams);
API CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData);
API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
                                 void **extra);
API CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream);
API CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy);
API CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy);
API CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream);
API CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream);
API CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy);
API CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy);
API CUresult cuMemcpyAtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                                  size_t srcOffset, size_t ByteCount);
API CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                                  size_t ByteCount);
API CUresult cuMemcpyAtoH_v2_ptds(void *dstHost, CUarray srcArray, size_t srcOffset,
                                  size_t ByteCount);
API CUresult cuMemcpyDtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                                  size_t ByteCount);
API CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
API CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
API CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
API CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t bytes);
API CUresult cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                  size_t ByteCount);
API CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
API CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t bytes);
API CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext,
                                    CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
                                    CUstream hStream);
API CUresult cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                               CUcontext srcContext, size_t ByteCount);
API CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                   CUstream hStream);
API CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N);
API CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                     size_t Width, size_t Height, CUstream hStream);
API CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                   size_t Width, size_t Height);
API CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                     size_t Width, size_t Height, CUstream hStream);
API CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                   size_t Width, size_t Height);
API CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                    size_t Width, size_t Height, CUstream hStream);
API CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                  size_t Width, size_t Height);
API CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                   CUstream hStream);
API CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N);
API CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s);
API CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char uc, size_t n);
API CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData,
                                      unsigned int flags);
API CUresult cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length,
                                         unsigned int flags);
API CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx);
API CUresult cuStreamQuery_ptsz(CUstream hStream);
API CUresult cuStreamSynchronize_ptsz(CUstream hStream);
API CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int flags);
API CUresult cuStreamWriteValue32_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                       unsigned int flags);
API CUresult cuStreamWriteValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                          unsigned int flags);
API CUresult cuStreamWriteValue64_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                       unsigned int flags);
API CUresult cuStreamWriteValue64_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                          unsigned int flags);
#undef API

#endif /* GG_SIM_CUDA_PER_THREAD_H */
