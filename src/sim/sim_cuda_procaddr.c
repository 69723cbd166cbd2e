/*
 * cuGetProcAddress: base name + requested CUDA version -> the export with
 * that ABI. Versions are the ones cudaTypedefs.h names each variant by
 * (PFN_cuMemAlloc_v3020 is cuMemAlloc_v2, ...). Variants the simulator does
 * not export (the 32-bit v1 ABIs of 2.0) give VERSION_NOT_SUFFICIENT. The
 * per-thread-default-stream flag returns the same functions: the simulator
 * has one default stream per context.
 */
#include "sim_cuda.h"

#include <string.h>

typedef struct proc {
    const char *name;
    int version;     /* first CUDA version with this ABI */
    void *fn;
} proc;

#define P(name, version, fn) { name, version, (void *)(uintptr_t)(fn) }

static CUresult cuGetProcAddress_v1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);

/* For each name, variants in increasing version order. */
static const proc g_procs[] = {
    P("cuInit", 2000, cuInit),
    P("cuDriverGetVersion", 2020, cuDriverGetVersion),
    P("cuDeviceGetCount", 2000, cuDeviceGetCount),
    P("cuDeviceGet", 2000, cuDeviceGet),
    P("cuDeviceGetName", 2000, cuDeviceGetName),
    P("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    P("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    P("cuCtxCreate", 3020, cuCtxCreate_v2),
    P("cuCtxCreate", 11040, cuCtxCreate_v3),
    P("cuCtxCreate", 12050, cuCtxCreate_v4),
    P("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    P("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    P("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    P("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    P("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    P("cuCtxGetDevice", 2000, cuCtxGetDevice),
    P("cuCtxSynchronize", 2000, cuCtxSynchronize),
    P("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    /* v1 and v2 share a signature; the simulator has one behaviour. */
    P("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease_v2),
    P("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset_v2),
    P("cuStreamCreate", 2000, cuStreamCreate),
    P("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    P("cuStreamQuery", 2000, cuStreamQuery),
    P("cuStreamSynchronize", 2000, cuStreamSynchronize),
    P("cuStreamWaitEvent", 3020, cuStreamWaitEvent),
    P("cuEventCreate", 2000, cuEventCreate),
    P("cuEventDestroy", 4000, cuEventDestroy_v2),
    P("cuEventRecord", 2000, cuEventRecord),
    P("cuEventQuery", 2000, cuEventQuery),
    P("cuEventSynchronize", 2000, cuEventSynchronize),
    P("cuEventElapsedTime", 2000, cuEventElapsedTime),
    P("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    P("cuMemAlloc", 3020, cuMemAlloc_v2),
    P("cuMemFree", 3020, cuMemFree_v2),
    P("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    P("cuMemFreeHost", 2000, cuMemFreeHost),
    P("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    P("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    P("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
    P("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
    P("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
    P("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2),
    P("cuMemsetD8", 3020, cuMemsetD8_v2),
    P("cuMemsetD8Async", 3020, cuMemsetD8Async),
    P("cuModuleLoad", 2000, cuModuleLoad),
    P("cuModuleLoadData", 2000, cuModuleLoadData),
    P("cuModuleUnload", 2000, cuModuleUnload),
    P("cuModuleGetFunction", 2000, cuModuleGetFunction),
    P("cuLaunchKernel", 4000, cuLaunchKernel),
    P("cuGetErrorName", 6000, cuGetErrorName),
    P("cuGetErrorString", 6000, cuGetErrorString),
    P("cuGetProcAddress", 11030, cuGetProcAddress_v1),
    P("cuGetProcAddress", 12000, cuGetProcAddress_v2),
};

static CUresult lookup(const char *symbol, void **pfn, int version,
                       CUdriverProcAddressQueryResult *status)
{
    CUdriverProcAddressQueryResult res = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    void *best = NULL;
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    if (version > SIM_CUDA_DRIVER_VERSION) {
        sim_detail("cuGetProcAddress: version %d is newer than the driver's %d", version,
                   SIM_CUDA_DRIVER_VERSION);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < sizeof g_procs / sizeof g_procs[0]; i++) {
        if (strcmp(g_procs[i].name, symbol) != 0)
            continue;
        if (g_procs[i].version <= version) {
            best = g_procs[i].fn;
            res = CU_GET_PROC_ADDRESS_SUCCESS;
        } else if (!best) {
            res = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        }
    }
    *pfn = best;
    if (status)
        *status = res;
    return CUDA_SUCCESS;
}

/* The CUDA 11.3 form, without the status out-parameter. */
static CUresult cuGetProcAddress_v1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    SIM_COUNT(cuGetProcAddress_v2);
    (void)flags;
    return lookup(symbol, pfn, cudaVersion, NULL);
}

SIM_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    SIM_COUNT(cuGetProcAddress_v2);
    if (flags > 3) /* DEFAULT, LEGACY_STREAM, PER_THREAD_DEFAULT_STREAM */
        return CUDA_ERROR_INVALID_VALUE;
    return lookup(symbol, pfn, cudaVersion, symbolStatus);
}
