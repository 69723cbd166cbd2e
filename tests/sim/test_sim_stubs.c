/*
 * The simulator's stubs (src/sim/cuda/sim_cuda_stubs.h, one definition per row):
 * every row's export answers CUDA_ERROR_NOT_SUPPORTED, counts its call
 * under its own name, and leaves a detail that names the function and the
 * row's reason.
 */
#include <string.h>

#include "sim_cuda_stubs.h"
#include "sim_test.h"

/* One call of each stub, every argument zero. A row added to the table
 * without a call here fails every_stub_answers_not_supported. */
static CUresult call_cuArray3DCreate_v2(void)
{
    return cuArray3DCreate_v2((CUarray *){0}, (const CUDA_ARRAY3D_DESCRIPTOR *){0});
}
static CUresult call_cuArray3DGetDescriptor_v2(void)
{
    return cuArray3DGetDescriptor_v2((CUDA_ARRAY3D_DESCRIPTOR *){0}, (CUarray){0});
}
static CUresult call_cuArrayCreate_v2(void)
{
    return cuArrayCreate_v2((CUarray *){0}, (const CUDA_ARRAY_DESCRIPTOR *){0});
}
static CUresult call_cuArrayDestroy(void) { return cuArrayDestroy((CUarray){0}); }
static CUresult call_cuArrayGetDescriptor_v2(void)
{
    return cuArrayGetDescriptor_v2((CUDA_ARRAY_DESCRIPTOR *){0}, (CUarray){0});
}
static CUresult call_cuCtxDisablePeerAccess(void) { return cuCtxDisablePeerAccess((CUcontext){0}); }
static CUresult call_cuCtxEnablePeerAccess(void)
{
    return cuCtxEnablePeerAccess((CUcontext){0}, (unsigned int){0});
}
static CUresult call_cuGLCtxCreate_v2(void)
{
    return cuGLCtxCreate_v2((CUcontext *){0}, (unsigned int){0}, (CUdevice){0});
}
static CUresult call_cuGLInit(void) { return cuGLInit(); }
static CUresult call_cuGLMapBufferObject_v2(void)
{
    return cuGLMapBufferObject_v2((CUdeviceptr *){0}, (size_t *){0}, (GLuint){0});
}
static CUresult call_cuGLRegisterBufferObject(void) { return cuGLRegisterBufferObject((GLuint){0}); }
static CUresult call_cuGLUnmapBufferObject(void) { return cuGLUnmapBufferObject((GLuint){0}); }
static CUresult call_cuGLUnregisterBufferObject(void) { return cuGLUnregisterBufferObject((GLuint){0}); }
static CUresult call_cuGraphicsGLRegisterBuffer(void)
{
    return cuGraphicsGLRegisterBuffer((CUgraphicsResource *){0}, (GLuint){0}, (unsigned int){0});
}
static CUresult call_cuGraphicsGLRegisterImage(void)
{
    return cuGraphicsGLRegisterImage((CUgraphicsResource *){0}, (GLuint){0}, (GLenum){0}, (unsigned int){0});
}
static CUresult call_cuGraphicsMapResources(void)
{
    return cuGraphicsMapResources((unsigned int){0}, (CUgraphicsResource *){0}, (CUstream){0});
}
static CUresult call_cuGraphicsResourceGetMappedPointer_v2(void)
{
    return cuGraphicsResourceGetMappedPointer_v2((CUdeviceptr *){0}, (size_t *){0}, (CUgraphicsResource){0});
}
static CUresult call_cuGraphicsSubResourceGetMappedArray(void)
{
    return cuGraphicsSubResourceGetMappedArray((CUarray *){0}, (CUgraphicsResource){0}, (unsigned int){0},
                                               (unsigned int){0});
}
static CUresult call_cuGraphicsUnmapResources(void)
{
    return cuGraphicsUnmapResources((unsigned int){0}, (CUgraphicsResource *){0}, (CUstream){0});
}
static CUresult call_cuGraphicsUnregisterResource(void)
{
    return cuGraphicsUnregisterResource((CUgraphicsResource){0});
}
static CUresult call_cuIpcCloseMemHandle(void) { return cuIpcCloseMemHandle((CUdeviceptr){0}); }
static CUresult call_cuIpcGetEventHandle(void)
{
    return cuIpcGetEventHandle((CUipcEventHandle *){0}, (CUevent){0});
}
static CUresult call_cuIpcGetMemHandle(void)
{
    return cuIpcGetMemHandle((CUipcMemHandle *){0}, (CUdeviceptr){0});
}
static CUresult call_cuIpcOpenEventHandle(void)
{
    return cuIpcOpenEventHandle((CUevent *){0}, (CUipcEventHandle){0});
}
static CUresult call_cuIpcOpenMemHandle_v2(void)
{
    return cuIpcOpenMemHandle_v2((CUdeviceptr *){0}, (CUipcMemHandle){0}, (unsigned int){0});
}
static CUresult call_cuMemcpy3DPeer(void) { return cuMemcpy3DPeer((const CUDA_MEMCPY3D_PEER *){0}); }
static CUresult call_cuMemcpy3DPeerAsync(void)
{
    return cuMemcpy3DPeerAsync((const CUDA_MEMCPY3D_PEER *){0}, (CUstream){0});
}
static CUresult call_cuMemcpyAtoA_v2(void)
{
    return cuMemcpyAtoA_v2((CUarray){0}, (size_t){0}, (CUarray){0}, (size_t){0}, (size_t){0});
}
static CUresult call_cuMemcpyAtoD_v2(void)
{
    return cuMemcpyAtoD_v2((CUdeviceptr){0}, (CUarray){0}, (size_t){0}, (size_t){0});
}
static CUresult call_cuMemcpyAtoH_v2(void)
{
    return cuMemcpyAtoH_v2((void *){0}, (CUarray){0}, (size_t){0}, (size_t){0});
}
static CUresult call_cuMemcpyDtoA_v2(void)
{
    return cuMemcpyDtoA_v2((CUarray){0}, (size_t){0}, (CUdeviceptr){0}, (size_t){0});
}
static CUresult call_cuMemcpyHtoA_v2(void)
{
    return cuMemcpyHtoA_v2((CUarray){0}, (size_t){0}, (const void *){0}, (size_t){0});
}
static CUresult call_cuMemcpyPeer(void)
{
    return cuMemcpyPeer((CUdeviceptr){0}, (CUcontext){0}, (CUdeviceptr){0}, (CUcontext){0}, (size_t){0});
}
static CUresult call_cuMemcpyPeerAsync(void)
{
    return cuMemcpyPeerAsync((CUdeviceptr){0}, (CUcontext){0}, (CUdeviceptr){0}, (CUcontext){0},
                             (size_t){0}, (CUstream){0});
}
static CUresult call_cuModuleGetSurfRef(void)
{
    return cuModuleGetSurfRef((CUsurfref *){0}, (CUmodule){0}, (const char *){0});
}
static CUresult call_cuModuleGetTexRef(void)
{
    return cuModuleGetTexRef((CUtexref *){0}, (CUmodule){0}, (const char *){0});
}
static CUresult call_cuParamSetTexRef(void)
{
    return cuParamSetTexRef((CUfunction){0}, (int){0}, (CUtexref){0});
}
static CUresult call_cuProfilerInitialize(void)
{
    return cuProfilerInitialize((const char *){0}, (const char *){0}, (CUoutput_mode){0});
}
static CUresult call_cuSurfRefGetArray(void) { return cuSurfRefGetArray((CUarray *){0}, (CUsurfref){0}); }
static CUresult call_cuSurfRefSetArray(void)
{
    return cuSurfRefSetArray((CUsurfref){0}, (CUarray){0}, (unsigned int){0});
}
static CUresult call_cuTexRefCreate(void) { return cuTexRefCreate((CUtexref *){0}); }
static CUresult call_cuTexRefDestroy(void) { return cuTexRefDestroy((CUtexref){0}); }
static CUresult call_cuTexRefGetAddressMode(void)
{
    return cuTexRefGetAddressMode((CUaddress_mode *){0}, (CUtexref){0}, (int){0});
}
static CUresult call_cuTexRefGetAddress_v2(void)
{
    return cuTexRefGetAddress_v2((CUdeviceptr *){0}, (CUtexref){0});
}
static CUresult call_cuTexRefGetArray(void) { return cuTexRefGetArray((CUarray *){0}, (CUtexref){0}); }
static CUresult call_cuTexRefGetFilterMode(void)
{
    return cuTexRefGetFilterMode((CUfilter_mode *){0}, (CUtexref){0});
}
static CUresult call_cuTexRefGetFlags(void) { return cuTexRefGetFlags((unsigned int *){0}, (CUtexref){0}); }
static CUresult call_cuTexRefGetFormat(void)
{
    return cuTexRefGetFormat((CUarray_format *){0}, (int *){0}, (CUtexref){0});
}
static CUresult call_cuTexRefSetAddress2D_v3(void)
{
    return cuTexRefSetAddress2D_v3((CUtexref){0}, (const CUDA_ARRAY_DESCRIPTOR *){0}, (CUdeviceptr){0},
                                   (size_t){0});
}
static CUresult call_cuTexRefSetAddressMode(void)
{
    return cuTexRefSetAddressMode((CUtexref){0}, (int){0}, (CUaddress_mode){0});
}
static CUresult call_cuTexRefSetAddress_v2(void)
{
    return cuTexRefSetAddress_v2((size_t *){0}, (CUtexref){0}, (CUdeviceptr){0}, (size_t){0});
}
static CUresult call_cuTexRefSetArray(void)
{
    return cuTexRefSetArray((CUtexref){0}, (CUarray){0}, (unsigned int){0});
}
static CUresult call_cuTexRefSetFilterMode(void)
{
    return cuTexRefSetFilterMode((CUtexref){0}, (CUfilter_mode){0});
}
static CUresult call_cuTexRefSetFlags(void) { return cuTexRefSetFlags((CUtexref){0}, (unsigned int){0}); }
static CUresult call_cuTexRefSetFormat(void)
{
    return cuTexRefSetFormat((CUtexref){0}, (CUarray_format){0}, (int){0});
}

static const struct stub_call {
    const char *name;
    CUresult (*call)(void);
} stub_calls[] = {
    { "cuArray3DCreate_v2", call_cuArray3DCreate_v2 },
    { "cuArray3DGetDescriptor_v2", call_cuArray3DGetDescriptor_v2 },
    { "cuArrayCreate_v2", call_cuArrayCreate_v2 },
    { "cuArrayDestroy", call_cuArrayDestroy },
    { "cuArrayGetDescriptor_v2", call_cuArrayGetDescriptor_v2 },
    { "cuCtxDisablePeerAccess", call_cuCtxDisablePeerAccess },
    { "cuCtxEnablePeerAccess", call_cuCtxEnablePeerAccess },
    { "cuGLCtxCreate_v2", call_cuGLCtxCreate_v2 },
    { "cuGLInit", call_cuGLInit },
    { "cuGLMapBufferObject_v2", call_cuGLMapBufferObject_v2 },
    { "cuGLRegisterBufferObject", call_cuGLRegisterBufferObject },
    { "cuGLUnmapBufferObject", call_cuGLUnmapBufferObject },
    { "cuGLUnregisterBufferObject", call_cuGLUnregisterBufferObject },
    { "cuGraphicsGLRegisterBuffer", call_cuGraphicsGLRegisterBuffer },
    { "cuGraphicsGLRegisterImage", call_cuGraphicsGLRegisterImage },
    { "cuGraphicsMapResources", call_cuGraphicsMapResources },
    { "cuGraphicsResourceGetMappedPointer_v2", call_cuGraphicsResourceGetMappedPointer_v2 },
    { "cuGraphicsSubResourceGetMappedArray", call_cuGraphicsSubResourceGetMappedArray },
    { "cuGraphicsUnmapResources", call_cuGraphicsUnmapResources },
    { "cuGraphicsUnregisterResource", call_cuGraphicsUnregisterResource },
    { "cuIpcCloseMemHandle", call_cuIpcCloseMemHandle },
    { "cuIpcGetEventHandle", call_cuIpcGetEventHandle },
    { "cuIpcGetMemHandle", call_cuIpcGetMemHandle },
    { "cuIpcOpenEventHandle", call_cuIpcOpenEventHandle },
    { "cuIpcOpenMemHandle_v2", call_cuIpcOpenMemHandle_v2 },
    { "cuMemcpy3DPeer", call_cuMemcpy3DPeer },
    { "cuMemcpy3DPeerAsync", call_cuMemcpy3DPeerAsync },
    { "cuMemcpyAtoA_v2", call_cuMemcpyAtoA_v2 },
    { "cuMemcpyAtoD_v2", call_cuMemcpyAtoD_v2 },
    { "cuMemcpyAtoH_v2", call_cuMemcpyAtoH_v2 },
    { "cuMemcpyDtoA_v2", call_cuMemcpyDtoA_v2 },
    { "cuMemcpyHtoA_v2", call_cuMemcpyHtoA_v2 },
    { "cuMemcpyPeer", call_cuMemcpyPeer },
    { "cuMemcpyPeerAsync", call_cuMemcpyPeerAsync },
    { "cuModuleGetSurfRef", call_cuModuleGetSurfRef },
    { "cuModuleGetTexRef", call_cuModuleGetTexRef },
    { "cuParamSetTexRef", call_cuParamSetTexRef },
    { "cuProfilerInitialize", call_cuProfilerInitialize },
    { "cuSurfRefGetArray", call_cuSurfRefGetArray },
    { "cuSurfRefSetArray", call_cuSurfRefSetArray },
    { "cuTexRefCreate", call_cuTexRefCreate },
    { "cuTexRefDestroy", call_cuTexRefDestroy },
    { "cuTexRefGetAddressMode", call_cuTexRefGetAddressMode },
    { "cuTexRefGetAddress_v2", call_cuTexRefGetAddress_v2 },
    { "cuTexRefGetArray", call_cuTexRefGetArray },
    { "cuTexRefGetFilterMode", call_cuTexRefGetFilterMode },
    { "cuTexRefGetFlags", call_cuTexRefGetFlags },
    { "cuTexRefGetFormat", call_cuTexRefGetFormat },
    { "cuTexRefSetAddress2D_v3", call_cuTexRefSetAddress2D_v3 },
    { "cuTexRefSetAddressMode", call_cuTexRefSetAddressMode },
    { "cuTexRefSetAddress_v2", call_cuTexRefSetAddress_v2 },
    { "cuTexRefSetArray", call_cuTexRefSetArray },
    { "cuTexRefSetFilterMode", call_cuTexRefSetFilterMode },
    { "cuTexRefSetFlags", call_cuTexRefSetFlags },
    { "cuTexRefSetFormat", call_cuTexRefSetFormat },
};

static const struct stub_row {
    const char *name, *why;
} stub_rows[] = {
#define STUB_ROW(name, params, why) { #name, SIM_CUDA_STUB_WHY_##why },
    SIM_CUDA_STUBS(STUB_ROW)
#undef STUB_ROW
};

static const struct stub_call *call_of(const char *name)
{
    for (size_t i = 0; i < sizeof stub_calls / sizeof stub_calls[0]; i++)
        if (strcmp(stub_calls[i].name, name) == 0)
            return &stub_calls[i];
    return NULL;
}

Test(sim_cuda_stubs, every_stub_answers_not_supported)
{
    sim_test_init(NULL);
    cr_assert_eq(sizeof stub_rows / sizeof stub_rows[0], sizeof stub_calls / sizeof stub_calls[0]);
    for (size_t i = 0; i < sizeof stub_rows / sizeof stub_rows[0]; i++) {
        const struct stub_row *row = &stub_rows[i];
        const struct stub_call *call = call_of(row->name);
        cr_assert(call != NULL, "no call of %s in this test", row->name);
        gg_sim_reset_counts();
        cr_assert_eq(call->call(), CUDA_ERROR_NOT_SUPPORTED, "%s", row->name);
        cr_assert_eq(gg_sim_call_count(row->name), 1, "%s", row->name);
        const char *detail = gg_sim_last_error_detail();
        cr_assert(strncmp(detail, row->name, strlen(row->name)) == 0 && detail[strlen(row->name)] == ':',
                  "%s: %s", row->name, detail);
        cr_assert(strstr(detail, row->why) != NULL, "%s: %s", row->name, detail);
        cr_assert(strstr(detail, "answers CUDA_ERROR_NOT_SUPPORTED") != NULL, "%s", detail);
    }
}
