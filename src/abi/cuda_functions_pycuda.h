/*
 * Prototypes of the CUDA Driver API functions PyCUDA 2022.2 binds at load
 * time beyond those of cuda_functions.h, with the ABI of cuda.h (CUDA 13.0),
 * cudaGL.h and cudaProfiler.h. Included at the end of cuda_functions.h
 * (with its API macro), so that tests/sim/test_sim_abi.c checks every one
 * of them against NVIDIA's declarations.
 */
#ifndef GG_ABI_CUDA_FUNCTIONS_PYCUDA_H
#define GG_ABI_CUDA_FUNCTIONS_PYCUDA_H

API CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev);
API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
API CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId);
API CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
API CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
API CUresult cuDevicePrimaryCtxReset(CUdevice dev);
API CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags);
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                         size_t dynamicSMemSize);
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize,
                                                                  size_t dynamicSMemSize, unsigned int flags);
API CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                              CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                              size_t dynamicSMemSize, int blockSizeLimit);
API CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                       CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                       size_t dynamicSMemSize, int blockSizeLimit,
                                                       unsigned int flags);
API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams);
API CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags);
API CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData);
API CUresult cuCtxAttach(CUcontext *pctx, unsigned int flags);
API CUresult cuCtxDetach(CUcontext ctx);
API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);
API CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit);
API CUresult cuCtxSetLimit(CUlimit limit, size_t value);
API CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig);
API CUresult cuCtxSetCacheConfig(CUfunc_cache config);
API CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig);
API CUresult cuCtxSetSharedMemConfig(CUsharedconfig config);
API CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
API CUresult cuProfilerStart(void);
API CUresult cuProfilerStop(void);
API CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc);
API CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value);
API CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config);
API CUresult cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z);
API CUresult cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes);
API CUresult cuParamSetSize(CUfunction hfunc, unsigned int numbytes);
API CUresult cuParamSeti(CUfunction hfunc, int offset, unsigned int value);
API CUresult cuParamSetf(CUfunction hfunc, int offset, float value);
API CUresult cuParamSetv(CUfunction hfunc, int offset, void *ptr, unsigned int numbytes);
API CUresult cuLaunch(CUfunction f);
API CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height);
API CUresult cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream hStream);
API CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N);
API CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream);
API CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N);
API CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
API CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                             size_t Height);
API CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                               size_t Width, size_t Height, CUstream hStream);
API CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                              size_t Width, size_t Height);
API CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                size_t Width, size_t Height, CUstream hStream);
API CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                              size_t Height);
API CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                size_t Width, size_t Height, CUstream hStream);
API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                size_t Height, unsigned int ElementSizeBytes);
API CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
API CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags);
API CUresult cuMemHostUnregister(void *p);
API CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p);
API CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                CUjit_option *options, void **optionValues);
API CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray);
API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray);
API CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray);
API CUresult cuArrayDestroy(CUarray hArray);
API CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray);
API CUresult cuCtxDisablePeerAccess(CUcontext peerContext);
API CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags);
API CUresult cuGLCtxCreate_v2(CUcontext *pCtx, unsigned int Flags, CUdevice device);
API CUresult cuGLInit(void);
API CUresult cuGLMapBufferObject_v2(CUdeviceptr *dptr, size_t *size, GLuint buffer);
API CUresult cuGLRegisterBufferObject(GLuint buffer);
API CUresult cuGLUnmapBufferObject(GLuint buffer);
API CUresult cuGLUnregisterBufferObject(GLuint buffer);
API CUresult cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource, GLuint buffer,
                                        unsigned int Flags);
API CUresult cuGraphicsGLRegisterImage(CUgraphicsResource *pCudaResource, GLuint image,
                                       GLenum target, unsigned int Flags);
API CUresult cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources,
                                    CUstream hStream);
API CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *pDevPtr, size_t *pSize,
                                                   CUgraphicsResource resource);
API CUresult cuGraphicsSubResourceGetMappedArray(CUarray *pArray, CUgraphicsResource resource,
                                                 unsigned int arrayIndex, unsigned int mipLevel);
API CUresult cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource *resources,
                                      CUstream hStream);
API CUresult cuGraphicsUnregisterResource(CUgraphicsResource resource);
API CUresult cuIpcCloseMemHandle(CUdeviceptr dptr);
API CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event);
API CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr);
API CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle);
API CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags);
API CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                              const char *name, unsigned int numOptions, CUjit_option *options,
                              void **optionValues);
API CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                              unsigned int numOptions, CUjit_option *options, void **optionValues);
API CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut);
API CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                             CUlinkState *stateOut);
API CUresult cuLinkDestroy(CUlinkState state);
API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream);
API CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy);
API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy);
API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream);
API CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy);
API CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream);
API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy);
API CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
                             size_t ByteCount);
API CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                             size_t ByteCount);
API CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount);
API CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                             size_t ByteCount);
API CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                             size_t ByteCount);
API CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                          CUcontext srcContext, size_t ByteCount);
API CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                               CUcontext srcContext, size_t ByteCount, CUstream hStream);
API CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                  const char *name);
API CUresult cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod, const char *name);
API CUresult cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod, const char *name);
API CUresult cuParamSetTexRef(CUfunction hfunc, int texunit, CUtexref hTexRef);
API CUresult cuProfilerInitialize(const char *configFile, const char *outputFile,
                                  CUoutput_mode outputMode);
API CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                    unsigned int flags);
API CUresult cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef);
API CUresult cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray, unsigned int Flags);
API CUresult cuTexRefCreate(CUtexref *pTexRef);
API CUresult cuTexRefDestroy(CUtexref hTexRef);
API CUresult cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef, int dim);
API CUresult cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef);
API CUresult cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef);
API CUresult cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef);
API CUresult cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef);
API CUresult cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef);
API CUresult cuTexRefSetAddress2D_v3(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc,
                                     CUdeviceptr dptr, size_t Pitch);
API CUresult cuTexRefSetAddressMode(CUtexref hTexRef, int dim, CUaddress_mode am);
API CUresult cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr,
                                   size_t bytes);
API CUresult cuTexRefSetArray(CUtexref hTexRef, CUarray hArray, unsigned int Flags);
API CUresult cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm);
API CUresult cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags);
API CUresult cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents);

#endif /* GG_ABI_CUDA_FUNCTIONS_PYCUDA_H */
