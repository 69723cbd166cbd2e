/*
 * Functions PyCUDA binds that the simulator does not model: each is
 * exported with cuda.h's signature (so a client that links it loads) and
 * answers CUDA_ERROR_NOT_SUPPORTED, recording a detail that names the
 * function and why (gg_sim_last_error_detail). src/sim/README.md lists
 * them.
 */
#include "sim_cuda.h"

static CUresult not_supported(const char *fn, const char *why)
{
    sim_detail("%s: %s; the simulated driver answers CUDA_ERROR_NOT_SUPPORTED", fn, why);
    return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle,
                                       const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    SIM_COUNT(cuArray3DCreate_v2);
    (void)pHandle;
    (void)pAllocateArray;
    return not_supported("cuArray3DCreate_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
                                              CUarray hArray)
{
    SIM_COUNT(cuArray3DGetDescriptor_v2);
    (void)pArrayDescriptor;
    (void)hArray;
    return not_supported("cuArray3DGetDescriptor_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    SIM_COUNT(cuArrayCreate_v2);
    (void)pHandle;
    (void)pAllocateArray;
    return not_supported("cuArrayCreate_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    SIM_COUNT(cuArrayDestroy);
    (void)hArray;
    return not_supported("cuArrayDestroy", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    SIM_COUNT(cuArrayGetDescriptor_v2);
    (void)pArrayDescriptor;
    (void)hArray;
    return not_supported("cuArrayGetDescriptor_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    SIM_COUNT(cuCtxDisablePeerAccess);
    (void)peerContext;
    return not_supported("cuCtxDisablePeerAccess", "peer access is not simulated (cuDeviceCanAccessPeer answers 0)");
}

SIM_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    SIM_COUNT(cuCtxEnablePeerAccess);
    (void)peerContext;
    (void)Flags;
    return not_supported("cuCtxEnablePeerAccess", "peer access is not simulated (cuDeviceCanAccessPeer answers 0)");
}

SIM_EXPORT CUresult cuGLCtxCreate_v2(CUcontext *pCtx, unsigned int Flags, CUdevice device)
{
    SIM_COUNT(cuGLCtxCreate_v2);
    (void)pCtx;
    (void)Flags;
    (void)device;
    return not_supported("cuGLCtxCreate_v2", "OpenGL interoperability is not simulated");
}

SIM_EXPORT CUresult cuGLInit(void)
{
    SIM_COUNT(cuGLInit);
    return not_supported("cuGLInit", "OpenGL interoperability is not simulated");
}

SIM_EXPORT CUresult cuGLMapBufferObject_v2(CUdeviceptr *dptr, size_t *size, GLuint buffer)
{
    SIM_COUNT(cuGLMapBufferObject_v2);
    (void)dptr;
    (void)size;
    (void)buffer;
    return not_supported("cuGLMapBufferObject_v2", "OpenGL interoperability is not simulated");
}

SIM_EXPORT CUresult cuGLRegisterBufferObject(GLuint buffer)
{
    SIM_COUNT(cuGLRegisterBufferObject);
    (void)buffer;
    return not_supported("cuGLRegisterBufferObject", "OpenGL interoperability is not simulated");
}

SIM_EXPORT CUresult cuGLUnmapBufferObject(GLuint buffer)
{
    SIM_COUNT(cuGLUnmapBufferObject);
    (void)buffer;
    return not_supported("cuGLUnmapBufferObject", "OpenGL interoperability is not simulated");
}

SIM_EXPORT CUresult cuGLUnregisterBufferObject(GLuint buffer)
{
    SIM_COUNT(cuGLUnregisterBufferObject);
    (void)buffer;
    return not_supported("cuGLUnregisterBufferObject", "OpenGL interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource, GLuint buffer,
                                               unsigned int Flags)
{
    SIM_COUNT(cuGraphicsGLRegisterBuffer);
    (void)pCudaResource;
    (void)buffer;
    (void)Flags;
    return not_supported("cuGraphicsGLRegisterBuffer", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsGLRegisterImage(CUgraphicsResource *pCudaResource, GLuint image,
                                              GLenum target, unsigned int Flags)
{
    SIM_COUNT(cuGraphicsGLRegisterImage);
    (void)pCudaResource;
    (void)image;
    (void)target;
    (void)Flags;
    return not_supported("cuGraphicsGLRegisterImage", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources,
                                           CUstream hStream)
{
    SIM_COUNT(cuGraphicsMapResources);
    (void)count;
    (void)resources;
    (void)hStream;
    return not_supported("cuGraphicsMapResources", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *pDevPtr, size_t *pSize,
                                                          CUgraphicsResource resource)
{
    SIM_COUNT(cuGraphicsResourceGetMappedPointer_v2);
    (void)pDevPtr;
    (void)pSize;
    (void)resource;
    return not_supported("cuGraphicsResourceGetMappedPointer_v2", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsSubResourceGetMappedArray(CUarray *pArray, CUgraphicsResource resource,
                                                        unsigned int arrayIndex,
                                                        unsigned int mipLevel)
{
    SIM_COUNT(cuGraphicsSubResourceGetMappedArray);
    (void)pArray;
    (void)resource;
    (void)arrayIndex;
    (void)mipLevel;
    return not_supported("cuGraphicsSubResourceGetMappedArray", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource *resources,
                                             CUstream hStream)
{
    SIM_COUNT(cuGraphicsUnmapResources);
    (void)count;
    (void)resources;
    (void)hStream;
    return not_supported("cuGraphicsUnmapResources", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuGraphicsUnregisterResource(CUgraphicsResource resource)
{
    SIM_COUNT(cuGraphicsUnregisterResource);
    (void)resource;
    return not_supported("cuGraphicsUnregisterResource", "graphics interoperability is not simulated");
}

SIM_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    SIM_COUNT(cuIpcCloseMemHandle);
    (void)dptr;
    return not_supported("cuIpcCloseMemHandle", "inter-process sharing is not simulated");
}

SIM_EXPORT CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    SIM_COUNT(cuIpcGetEventHandle);
    (void)pHandle;
    (void)event;
    return not_supported("cuIpcGetEventHandle", "inter-process sharing is not simulated");
}

SIM_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    SIM_COUNT(cuIpcGetMemHandle);
    (void)pHandle;
    (void)dptr;
    return not_supported("cuIpcGetMemHandle", "inter-process sharing is not simulated");
}

SIM_EXPORT CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    SIM_COUNT(cuIpcOpenEventHandle);
    (void)phEvent;
    (void)handle;
    return not_supported("cuIpcOpenEventHandle", "inter-process sharing is not simulated");
}

SIM_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                          unsigned int Flags)
{
    SIM_COUNT(cuIpcOpenMemHandle_v2);
    (void)pdptr;
    (void)handle;
    (void)Flags;
    return not_supported("cuIpcOpenMemHandle_v2", "inter-process sharing is not simulated");
}

SIM_EXPORT CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy)
{
    SIM_COUNT(cuMemcpy3DPeer);
    (void)pCopy;
    return not_supported("cuMemcpy3DPeer", "3D copies are not simulated");
}

SIM_EXPORT CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{
    SIM_COUNT(cuMemcpy3DPeerAsync);
    (void)pCopy;
    (void)hStream;
    return not_supported("cuMemcpy3DPeerAsync", "3D copies are not simulated");
}

SIM_EXPORT CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                                    size_t srcOffset, size_t ByteCount)
{
    SIM_COUNT(cuMemcpyAtoA_v2);
    (void)dstArray;
    (void)dstOffset;
    (void)srcArray;
    (void)srcOffset;
    (void)ByteCount;
    return not_supported("cuMemcpyAtoA_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                                    size_t ByteCount)
{
    SIM_COUNT(cuMemcpyAtoD_v2);
    (void)dstDevice;
    (void)srcArray;
    (void)srcOffset;
    (void)ByteCount;
    return not_supported("cuMemcpyAtoD_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset,
                                    size_t ByteCount)
{
    SIM_COUNT(cuMemcpyAtoH_v2);
    (void)dstHost;
    (void)srcArray;
    (void)srcOffset;
    (void)ByteCount;
    return not_supported("cuMemcpyAtoH_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                                    size_t ByteCount)
{
    SIM_COUNT(cuMemcpyDtoA_v2);
    (void)dstArray;
    (void)dstOffset;
    (void)srcDevice;
    (void)ByteCount;
    return not_supported("cuMemcpyDtoA_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                    size_t ByteCount)
{
    SIM_COUNT(cuMemcpyHtoA_v2);
    (void)dstArray;
    (void)dstOffset;
    (void)srcHost;
    (void)ByteCount;
    return not_supported("cuMemcpyHtoA_v2", "CUDA arrays are not simulated");
}

SIM_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                 CUcontext srcContext, size_t ByteCount)
{
    SIM_COUNT(cuMemcpyPeer);
    (void)dstDevice;
    (void)dstContext;
    (void)srcDevice;
    (void)srcContext;
    (void)ByteCount;
    return not_supported("cuMemcpyPeer", "peer copies are not simulated");
}

SIM_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                      CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
                                      CUstream hStream)
{
    SIM_COUNT(cuMemcpyPeerAsync);
    (void)dstDevice;
    (void)dstContext;
    (void)srcDevice;
    (void)srcContext;
    (void)ByteCount;
    (void)hStream;
    return not_supported("cuMemcpyPeerAsync", "peer copies are not simulated");
}

SIM_EXPORT CUresult cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod, const char *name)
{
    SIM_COUNT(cuModuleGetSurfRef);
    (void)pSurfRef;
    (void)hmod;
    (void)name;
    return not_supported("cuModuleGetSurfRef", "surface references are not simulated");
}

SIM_EXPORT CUresult cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod, const char *name)
{
    SIM_COUNT(cuModuleGetTexRef);
    (void)pTexRef;
    (void)hmod;
    (void)name;
    return not_supported("cuModuleGetTexRef", "texture references are not simulated");
}

SIM_EXPORT CUresult cuParamSetTexRef(CUfunction hfunc, int texunit, CUtexref hTexRef)
{
    SIM_COUNT(cuParamSetTexRef);
    (void)hfunc;
    (void)texunit;
    (void)hTexRef;
    return not_supported("cuParamSetTexRef", "texture references are not simulated");
}

SIM_EXPORT CUresult cuProfilerInitialize(const char *configFile, const char *outputFile,
                                         CUoutput_mode outputMode)
{
    SIM_COUNT(cuProfilerInitialize);
    (void)configFile;
    (void)outputFile;
    (void)outputMode;
    return not_supported("cuProfilerInitialize", "deprecated profiler configuration is not simulated");
}

SIM_EXPORT CUresult cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef)
{
    SIM_COUNT(cuSurfRefGetArray);
    (void)phArray;
    (void)hSurfRef;
    return not_supported("cuSurfRefGetArray", "surface references are not simulated");
}

SIM_EXPORT CUresult cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray, unsigned int Flags)
{
    SIM_COUNT(cuSurfRefSetArray);
    (void)hSurfRef;
    (void)hArray;
    (void)Flags;
    return not_supported("cuSurfRefSetArray", "surface references are not simulated");
}

SIM_EXPORT CUresult cuTexRefCreate(CUtexref *pTexRef)
{
    SIM_COUNT(cuTexRefCreate);
    (void)pTexRef;
    return not_supported("cuTexRefCreate", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefDestroy(CUtexref hTexRef)
{
    SIM_COUNT(cuTexRefDestroy);
    (void)hTexRef;
    return not_supported("cuTexRefDestroy", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef, int dim)
{
    SIM_COUNT(cuTexRefGetAddressMode);
    (void)pam;
    (void)hTexRef;
    (void)dim;
    return not_supported("cuTexRefGetAddressMode", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef)
{
    SIM_COUNT(cuTexRefGetAddress_v2);
    (void)pdptr;
    (void)hTexRef;
    return not_supported("cuTexRefGetAddress_v2", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef)
{
    SIM_COUNT(cuTexRefGetArray);
    (void)phArray;
    (void)hTexRef;
    return not_supported("cuTexRefGetArray", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
    SIM_COUNT(cuTexRefGetFilterMode);
    (void)pfm;
    (void)hTexRef;
    return not_supported("cuTexRefGetFilterMode", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef)
{
    SIM_COUNT(cuTexRefGetFlags);
    (void)pFlags;
    (void)hTexRef;
    return not_supported("cuTexRefGetFlags", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef)
{
    SIM_COUNT(cuTexRefGetFormat);
    (void)pFormat;
    (void)pNumChannels;
    (void)hTexRef;
    return not_supported("cuTexRefGetFormat", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetAddress2D_v3(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc,
                                            CUdeviceptr dptr, size_t Pitch)
{
    SIM_COUNT(cuTexRefSetAddress2D_v3);
    (void)hTexRef;
    (void)desc;
    (void)dptr;
    (void)Pitch;
    return not_supported("cuTexRefSetAddress2D_v3", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetAddressMode(CUtexref hTexRef, int dim, CUaddress_mode am)
{
    SIM_COUNT(cuTexRefSetAddressMode);
    (void)hTexRef;
    (void)dim;
    (void)am;
    return not_supported("cuTexRefSetAddressMode", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr,
                                          size_t bytes)
{
    SIM_COUNT(cuTexRefSetAddress_v2);
    (void)ByteOffset;
    (void)hTexRef;
    (void)dptr;
    (void)bytes;
    return not_supported("cuTexRefSetAddress_v2", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetArray(CUtexref hTexRef, CUarray hArray, unsigned int Flags)
{
    SIM_COUNT(cuTexRefSetArray);
    (void)hTexRef;
    (void)hArray;
    (void)Flags;
    return not_supported("cuTexRefSetArray", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
    SIM_COUNT(cuTexRefSetFilterMode);
    (void)hTexRef;
    (void)fm;
    return not_supported("cuTexRefSetFilterMode", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags)
{
    SIM_COUNT(cuTexRefSetFlags);
    (void)hTexRef;
    (void)Flags;
    return not_supported("cuTexRefSetFlags", "texture references are not simulated");
}

SIM_EXPORT CUresult cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents)
{
    SIM_COUNT(cuTexRefSetFormat);
    (void)hTexRef;
    (void)fmt;
    (void)NumPackedComponents;
    return not_supported("cuTexRefSetFormat", "texture references are not simulated");
}
