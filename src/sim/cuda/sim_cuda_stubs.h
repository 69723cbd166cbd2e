/*
 * The CUDA functions the simulator exports without modelling them (PyCUDA
 * binds them at load time): one row each, X(name, (parameters), reason),
 * from which sim_cuda_stubs.c defines every stub and sim_cuda.h counts its
 * calls. The parameters are abi/cuda_functions_pycuda.h's, so the compiler
 * refuses a row whose signature differs from the declaration. The reason
 * is one of the SIM_CUDA_STUB_WHY_* texts, which the detail quotes
 * (gg_sim_last_error_detail).
 */
#ifndef GG_SIM_CUDA_STUBS_H
#define GG_SIM_CUDA_STUBS_H

#define SIM_CUDA_STUB_WHY_ARRAYS "CUDA arrays are not simulated"
#define SIM_CUDA_STUB_WHY_COPY_3D "3D copies are not simulated"
#define SIM_CUDA_STUB_WHY_GL "OpenGL interoperability is not simulated"
#define SIM_CUDA_STUB_WHY_GRAPHICS "graphics interoperability is not simulated"
#define SIM_CUDA_STUB_WHY_IPC "inter-process sharing is not simulated"
#define SIM_CUDA_STUB_WHY_PEER_ACCESS "peer access is not simulated (cuDeviceCanAccessPeer answers 0)"
#define SIM_CUDA_STUB_WHY_PEER_COPY "peer copies are not simulated"
#define SIM_CUDA_STUB_WHY_PROFILER "deprecated profiler configuration is not simulated"
#define SIM_CUDA_STUB_WHY_SURFREF "surface references are not simulated"
#define SIM_CUDA_STUB_WHY_TEXREF "texture references are not simulated"

#define SIM_CUDA_STUBS(X)                                                                           \
    X(cuArray3DCreate_v2, (CUarray *pHandle,                                                        \
          const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray), ARRAYS)                                   \
    X(cuArray3DGetDescriptor_v2, (CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,                        \
          CUarray hArray), ARRAYS)                                                                  \
    X(cuArrayCreate_v2, (CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray), ARRAYS)    \
    X(cuArrayDestroy, (CUarray hArray), ARRAYS)                                                     \
    X(cuArrayGetDescriptor_v2, (CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray), ARRAYS)   \
    X(cuCtxDisablePeerAccess, (CUcontext peerContext), PEER_ACCESS)                                 \
    X(cuCtxEnablePeerAccess, (CUcontext peerContext, unsigned int Flags), PEER_ACCESS)              \
    X(cuGLCtxCreate_v2, (CUcontext *pCtx, unsigned int Flags, CUdevice device), GL)                 \
    X(cuGLInit, (void), GL)                                                                         \
    X(cuGLMapBufferObject_v2, (CUdeviceptr *dptr, size_t *size, GLuint buffer), GL)                 \
    X(cuGLRegisterBufferObject, (GLuint buffer), GL)                                                \
    X(cuGLUnmapBufferObject, (GLuint buffer), GL)                                                   \
    X(cuGLUnregisterBufferObject, (GLuint buffer), GL)                                              \
    X(cuGraphicsGLRegisterBuffer, (CUgraphicsResource *pCudaResource, GLuint buffer,                \
          unsigned int Flags), GRAPHICS)                                                            \
    X(cuGraphicsGLRegisterImage, (CUgraphicsResource *pCudaResource, GLuint image, GLenum target,   \
          unsigned int Flags), GRAPHICS)                                                            \
    X(cuGraphicsMapResources, (unsigned int count, CUgraphicsResource *resources,                   \
          CUstream hStream), GRAPHICS)                                                              \
    X(cuGraphicsResourceGetMappedPointer_v2, (CUdeviceptr *pDevPtr, size_t *pSize,                  \
          CUgraphicsResource resource), GRAPHICS)                                                   \
    X(cuGraphicsSubResourceGetMappedArray, (CUarray *pArray, CUgraphicsResource resource,           \
          unsigned int arrayIndex, unsigned int mipLevel), GRAPHICS)                                \
    X(cuGraphicsUnmapResources, (unsigned int count, CUgraphicsResource *resources,                 \
          CUstream hStream), GRAPHICS)                                                              \
    X(cuGraphicsUnregisterResource, (CUgraphicsResource resource), GRAPHICS)                        \
    X(cuIpcCloseMemHandle, (CUdeviceptr dptr), IPC)                                                 \
    X(cuIpcGetEventHandle, (CUipcEventHandle *pHandle, CUevent event), IPC)                         \
    X(cuIpcGetMemHandle, (CUipcMemHandle *pHandle, CUdeviceptr dptr), IPC)                          \
    X(cuIpcOpenEventHandle, (CUevent *phEvent, CUipcEventHandle handle), IPC)                       \
    X(cuIpcOpenMemHandle_v2, (CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags), IPC)  \
    X(cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *pCopy), COPY_3D)                                   \
    X(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream), COPY_3D)            \
    X(cuMemcpyAtoA_v2, (CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,     \
          size_t ByteCount), ARRAYS)                                                                \
    X(cuMemcpyAtoD_v2, (CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,                  \
          size_t ByteCount), ARRAYS)                                                                \
    X(cuMemcpyAtoH_v2, (void *dstHost, CUarray srcArray, size_t srcOffset,                          \
          size_t ByteCount), ARRAYS)                                                                \
    X(cuMemcpyDtoA_v2, (CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,                  \
          size_t ByteCount), ARRAYS)                                                                \
    X(cuMemcpyHtoA_v2, (CUarray dstArray, size_t dstOffset, const void *srcHost,                    \
          size_t ByteCount), ARRAYS)                                                                \
    X(cuMemcpyPeer, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,            \
          CUcontext srcContext, size_t ByteCount), PEER_COPY)                                       \
    X(cuMemcpyPeerAsync, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,       \
          CUcontext srcContext, size_t ByteCount, CUstream hStream), PEER_COPY)                     \
    X(cuModuleGetSurfRef, (CUsurfref *pSurfRef, CUmodule hmod, const char *name), SURFREF)          \
    X(cuModuleGetTexRef, (CUtexref *pTexRef, CUmodule hmod, const char *name), TEXREF)              \
    X(cuParamSetTexRef, (CUfunction hfunc, int texunit, CUtexref hTexRef), TEXREF)                  \
    X(cuProfilerInitialize, (const char *configFile, const char *outputFile,                        \
          CUoutput_mode outputMode), PROFILER)                                                      \
    X(cuSurfRefGetArray, (CUarray *phArray, CUsurfref hSurfRef), SURFREF)                           \
    X(cuSurfRefSetArray, (CUsurfref hSurfRef, CUarray hArray, unsigned int Flags), SURFREF)         \
    X(cuTexRefCreate, (CUtexref *pTexRef), TEXREF)                                                  \
    X(cuTexRefDestroy, (CUtexref hTexRef), TEXREF)                                                  \
    X(cuTexRefGetAddressMode, (CUaddress_mode *pam, CUtexref hTexRef, int dim), TEXREF)             \
    X(cuTexRefGetAddress_v2, (CUdeviceptr *pdptr, CUtexref hTexRef), TEXREF)                        \
    X(cuTexRefGetArray, (CUarray *phArray, CUtexref hTexRef), TEXREF)                               \
    X(cuTexRefGetFilterMode, (CUfilter_mode *pfm, CUtexref hTexRef), TEXREF)                        \
    X(cuTexRefGetFlags, (unsigned int *pFlags, CUtexref hTexRef), TEXREF)                           \
    X(cuTexRefGetFormat, (CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef), TEXREF)    \
    X(cuTexRefSetAddress2D_v3, (CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc,                \
          CUdeviceptr dptr, size_t Pitch), TEXREF)                                                  \
    X(cuTexRefSetAddressMode, (CUtexref hTexRef, int dim, CUaddress_mode am), TEXREF)               \
    X(cuTexRefSetAddress_v2, (size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr,               \
          size_t bytes), TEXREF)                                                                    \
    X(cuTexRefSetArray, (CUtexref hTexRef, CUarray hArray, unsigned int Flags), TEXREF)             \
    X(cuTexRefSetFilterMode, (CUtexref hTexRef, CUfilter_mode fm), TEXREF)                          \
    X(cuTexRefSetFlags, (CUtexref hTexRef, unsigned int Flags), TEXREF)                             \
    X(cuTexRefSetFormat, (CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents), TEXREF)

#endif /* GG_SIM_CUDA_STUBS_H */
