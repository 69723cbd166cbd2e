/*
 * The _ptsz / _ptds exports: each calls its legacy function with the
 * calling thread marked as inside a per-thread default stream call, so
 * that stream 0 there means the thread's per-thread default stream
 * (sim_cuda_per_thread.c); CU_STREAM_LEGACY stays the legacy stream. The
 * call is counted under the legacy function's name (gg_sim_call_count).
 * Synchronous calls (_ptds) run on the per-thread stream, as CUDA's do.
 */
#include "sim_cuda.h"
#include "sim_cuda_per_thread.h"

#define PER_THREAD(name, legacy, params, args)                                                     \
    SIM_EXPORT CUresult name params                                                                \
    {                                                                                              \
        sim_cuda_per_thread_enter();                                                               \
        CUresult r = legacy args;                                                                  \
        sim_cuda_per_thread_leave();                                                               \
        return r;                                                                                  \
    }

PER_THREAD(cuEventRecord_ptsz, cuEventRecord, (CUevent hEvent, CUstream hStream), (hEvent, hStream))
PER_THREAD(cuGLMapBufferObject_v2_ptds, cuGLMapBufferObject_v2,
           (CUdeviceptr *dptr, size_t *size, GLuint buffer), (dptr, size, buffer))
PER_THREAD(cuGraphicsMapResources_ptsz, cuGraphicsMapResources,
           (unsigned int count, CUgraphicsResource *resources, CUstream hStream),
           (count, resources, hStream))
PER_THREAD(cuGraphicsUnmapResources_ptsz, cuGraphicsUnmapResources,
           (unsigned int count, CUgraphicsResource *resources, CUstream hStream),
           (count, resources, hStream))
PER_THREAD(cuLaunchCooperativeKernel_ptsz, cuLaunchCooperativeKernel,
           (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
            unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
            unsigned int sharedMemBytes, CUstream hStream, void **kernelParams),
           (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
            hStream, kernelParams))
PER_THREAD(cuLaunchHostFunc_ptsz, cuLaunchHostFunc, (CUstream hStream, CUhostFn fn, void *userData),
           (hStream, fn, userData))
PER_THREAD(cuLaunchKernel_ptsz, cuLaunchKernel,
           (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
            unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
            unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra),
           (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
            hStream, kernelParams, extra))
PER_THREAD(cuMemcpy2DAsync_v2_ptsz, cuMemcpy2DAsync_v2,
           (const CUDA_MEMCPY2D *pCopy, CUstream hStream), (pCopy, hStream))
PER_THREAD(cuMemcpy2DUnaligned_v2_ptds, cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *pCopy),
           (pCopy))
PER_THREAD(cuMemcpy2D_v2_ptds, cuMemcpy2D_v2, (const CUDA_MEMCPY2D *pCopy), (pCopy))
PER_THREAD(cuMemcpy3DAsync_v2_ptsz, cuMemcpy3DAsync_v2,
           (const CUDA_MEMCPY3D *pCopy, CUstream hStream), (pCopy, hStream))
PER_THREAD(cuMemcpy3DPeerAsync_ptsz, cuMemcpy3DPeerAsync,
           (const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream), (pCopy, hStream))
PER_THREAD(cuMemcpy3DPeer_ptds, cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *pCopy), (pCopy))
PER_THREAD(cuMemcpy3D_v2_ptds, cuMemcpy3D_v2, (const CUDA_MEMCPY3D *pCopy), (pCopy))
PER_THREAD(cuMemcpyAtoA_v2_ptds, cuMemcpyAtoA_v2,
           (CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
            size_t ByteCount),
           (dstArray, dstOffset, srcArray, srcOffset, ByteCount))
PER_THREAD(cuMemcpyAtoD_v2_ptds, cuMemcpyAtoD_v2,
           (CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount),
           (dstDevice, srcArray, srcOffset, ByteCount))
PER_THREAD(cuMemcpyAtoH_v2_ptds, cuMemcpyAtoH_v2,
           (void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount),
           (dstHost, srcArray, srcOffset, ByteCount))
PER_THREAD(cuMemcpyDtoA_v2_ptds, cuMemcpyDtoA_v2,
           (CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount),
           (dstArray, dstOffset, srcDevice, ByteCount))
PER_THREAD(cuMemcpyDtoDAsync_v2_ptsz, cuMemcpyDtoDAsync_v2,
           (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s), (dst, src, bytes, s))
PER_THREAD(cuMemcpyDtoD_v2_ptds, cuMemcpyDtoD_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes),
           (dst, src, bytes))
PER_THREAD(cuMemcpyDtoHAsync_v2_ptsz, cuMemcpyDtoHAsync_v2,
           (void *dst, CUdeviceptr src, size_t bytes, CUstream s), (dst, src, bytes, s))
PER_THREAD(cuMemcpyDtoH_v2_ptds, cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes),
           (dst, src, bytes))
PER_THREAD(cuMemcpyHtoA_v2_ptds, cuMemcpyHtoA_v2,
           (CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount),
           (dstArray, dstOffset, srcHost, ByteCount))
PER_THREAD(cuMemcpyHtoDAsync_v2_ptsz, cuMemcpyHtoDAsync_v2,
           (CUdeviceptr dst, const void *src, size_t bytes, CUstream s), (dst, src, bytes, s))
PER_THREAD(cuMemcpyHtoD_v2_ptds, cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t bytes),
           (dst, src, bytes))
PER_THREAD(cuMemcpyPeerAsync_ptsz, cuMemcpyPeerAsync,
           (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
            CUcontext srcContext, size_t ByteCount, CUstream hStream),
           (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream))
PER_THREAD(cuMemcpyPeer_ptds, cuMemcpyPeer,
           (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
            CUcontext srcContext, size_t ByteCount),
           (dstDevice, dstContext, srcDevice, srcContext, ByteCount))
PER_THREAD(cuMemsetD16Async_ptsz, cuMemsetD16Async,
           (CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream),
           (dstDevice, us, N, hStream))
PER_THREAD(cuMemsetD16_v2_ptds, cuMemsetD16_v2,
           (CUdeviceptr dstDevice, unsigned short us, size_t N), (dstDevice, us, N))
PER_THREAD(cuMemsetD2D16Async_ptsz, cuMemsetD2D16Async,
           (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height,
            CUstream hStream),
           (dstDevice, dstPitch, us, Width, Height, hStream))
PER_THREAD(cuMemsetD2D16_v2_ptds, cuMemsetD2D16_v2,
           (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height),
           (dstDevice, dstPitch, us, Width, Height))
PER_THREAD(cuMemsetD2D32Async_ptsz, cuMemsetD2D32Async,
           (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height,
            CUstream hStream),
           (dstDevice, dstPitch, ui, Width, Height, hStream))
PER_THREAD(cuMemsetD2D32_v2_ptds, cuMemsetD2D32_v2,
           (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height),
           (dstDevice, dstPitch, ui, Width, Height))
PER_THREAD(cuMemsetD2D8Async_ptsz, cuMemsetD2D8Async,
           (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height,
            CUstream hStream),
           (dstDevice, dstPitch, uc, Width, Height, hStream))
PER_THREAD(cuMemsetD2D8_v2_ptds, cuMemsetD2D8_v2,
           (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height),
           (dstDevice, dstPitch, uc, Width, Height))
PER_THREAD(cuMemsetD32Async_ptsz, cuMemsetD32Async,
           (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream),
           (dstDevice, ui, N, hStream))
PER_THREAD(cuMemsetD32_v2_ptds, cuMemsetD32_v2, (CUdeviceptr dstDevice, unsigned int ui, size_t N),
           (dstDevice, ui, N))
PER_THREAD(cuMemsetD8Async_ptsz, cuMemsetD8Async,
           (CUdeviceptr dst, unsigned char uc, size_t n, CUstream s), (dst, uc, n, s))
PER_THREAD(cuMemsetD8_v2_ptds, cuMemsetD8_v2, (CUdeviceptr dst, unsigned char uc, size_t n),
           (dst, uc, n))
PER_THREAD(cuStreamAddCallback_ptsz, cuStreamAddCallback,
           (CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags),
           (hStream, callback, userData, flags))
PER_THREAD(cuStreamAttachMemAsync_ptsz, cuStreamAttachMemAsync,
           (CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags),
           (hStream, dptr, length, flags))
PER_THREAD(cuStreamGetCtx_ptsz, cuStreamGetCtx, (CUstream hStream, CUcontext *pctx),
           (hStream, pctx))
PER_THREAD(cuStreamQuery_ptsz, cuStreamQuery, (CUstream hStream), (hStream))
PER_THREAD(cuStreamSynchronize_ptsz, cuStreamSynchronize, (CUstream hStream), (hStream))
PER_THREAD(cuStreamWaitEvent_ptsz, cuStreamWaitEvent,
           (CUstream hStream, CUevent hEvent, unsigned int flags), (hStream, hEvent, flags))
PER_THREAD(cuStreamWriteValue32_ptsz, cuStreamWriteValue32,
           (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags),
           (stream, addr, value, flags))
PER_THREAD(cuStreamWriteValue32_v2_ptsz, cuStreamWriteValue32_v2,
           (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags),
           (stream, addr, value, flags))
PER_THREAD(cuStreamWriteValue64_ptsz, cuStreamWriteValue64,
           (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags),
           (stream, addr, value, flags))
PER_THREAD(cuStreamWriteValue64_v2_ptsz, cuStreamWriteValue64_v2,
           (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags),
           (stream, addr, value, flags))
