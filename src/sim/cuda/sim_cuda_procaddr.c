/*
 * cuGetProcAddress: base name + requested CUDA version -> the export with
 * that ABI, by the rule measured on a real driver (Debian 12's 535.261.03,
 * CUDA 12.2): the newest variant at or below the requested version, where
 * variants newer than the driver's own version do not exist. So a request
 * newer than the driver is not refused: cuCtxCreate asked at 13000 of a
 * 12.2 driver gives cuCtxCreate_v3, the newest it has.
 *
 * The table lists every variant that cudaTypedefs.h (CUDA 13.0) has for
 * each name served, by the version it names the variant with
 * (PFN_cuMemAlloc_v3020 is cuMemAlloc_v2, ...), including the ones the
 * simulator does not implement (fn NULL: the 32-bit ABIs of 2.0, the
 * pre-4.0 context calls, ...). When the rule picks one of those, the
 * answer is NULL with VERSION_NOT_SUFFICIENT, never another variant's
 * pointer: its signature or behaviour differs, and calling through the
 * wrong one is the bug this table exists to prevent.
 *
 * The per-thread default stream variants (_ptsz, _ptds, 7.0) are listed
 * too, and handed out when the flags ask for the per-thread default
 * stream: the simulator's _ptsz / _ptds exports (sim_cuda_ptds_exports.c),
 * in which stream 0 is the calling thread's per-thread default stream.
 */
#include "sim_cuda.h"
#include "sim_cuda_per_thread.h"
#include "sim_cuda_procaddr.h"

#include <string.h>

/* For each name, variants in increasing version order. */
static const sim_proc g_procs[] = {
    P("cuInit", 2000, cuInit),
    P("cuDriverGetVersion", 2020, cuDriverGetVersion),
    P("cuDeviceGetCount", 2000, cuDeviceGetCount),
    P("cuDeviceGet", 2000, cuDeviceGet),
    P("cuDeviceGetName", 2000, cuDeviceGetName),
    P("cuDeviceTotalMem", 2000, NONE), /* 32-bit size */
    P("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    P("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    P("cuCtxCreate", 2000, NONE), /* the pre-3.2 ABI */
    P("cuCtxCreate", 3020, cuCtxCreate_v2),
    P("cuCtxCreate", 11040, cuCtxCreate_v3),
    P("cuCtxCreate", 12050, cuCtxCreate_v4),
    P("cuCtxDestroy", 2000, NONE), /* the pre-4.0 context stack semantics */
    P("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    P("cuCtxPushCurrent", 2000, NONE),
    P("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    P("cuCtxPopCurrent", 2000, NONE),
    P("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    P("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    P("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    P("cuCtxGetDevice", 2000, cuCtxGetDevice),
    P("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
    P("cuCtxSynchronize", 2000, cuCtxSynchronize),
    P("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    P("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    P("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    P("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    P("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    P("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    P("cuDevicePrimaryCtxSetFlags", 7000, cuDevicePrimaryCtxSetFlags),
    P("cuDevicePrimaryCtxSetFlags", 11000, cuDevicePrimaryCtxSetFlags_v2),
    P("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    P("cuStreamCreate", 2000, cuStreamCreate),
    P("cuStreamDestroy", 2000, NONE),
    P("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    P("cuStreamGetCtx", 9020, cuStreamGetCtx),
    PT("cuStreamGetCtx", 9020, cuStreamGetCtx_ptsz),
    P("cuStreamGetCtx", 12050, NONE), /* cuStreamGetCtx_v2 (green contexts): not simulated */
    P("cuStreamQuery", 2000, cuStreamQuery),
    PT("cuStreamQuery", 7000, cuStreamQuery_ptsz),
    P("cuStreamSynchronize", 2000, cuStreamSynchronize),
    PT("cuStreamSynchronize", 7000, cuStreamSynchronize_ptsz),
    P("cuStreamWaitEvent", 3020, cuStreamWaitEvent),
    PT("cuStreamWaitEvent", 7000, cuStreamWaitEvent_ptsz),
    P("cuEventCreate", 2000, cuEventCreate),
    P("cuEventDestroy", 2000, NONE),
    P("cuEventDestroy", 4000, cuEventDestroy_v2),
    P("cuEventRecord", 2000, cuEventRecord),
    PT("cuEventRecord", 7000, cuEventRecord_ptsz),
    P("cuEventQuery", 2000, cuEventQuery),
    P("cuEventSynchronize", 2000, cuEventSynchronize),
    P("cuEventElapsedTime", 2000, cuEventElapsedTime),
    P("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    P("cuMemAlloc", 2000, NONE), /* 2.0: 32-bit sizes and device pointers */
    P("cuMemAlloc", 3020, cuMemAlloc_v2),
    P("cuMemFree", 2000, NONE),
    P("cuMemFree", 3020, cuMemFree_v2),
    P("cuMemAllocHost", 2000, NONE),
    P("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    P("cuMemFreeHost", 2000, cuMemFreeHost),
    P("cuMemcpyHtoD", 2000, NONE),
    P("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    PT("cuMemcpyHtoD", 7000, cuMemcpyHtoD_v2_ptds),
    P("cuMemcpyDtoH", 2000, NONE),
    P("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    PT("cuMemcpyDtoH", 7000, cuMemcpyDtoH_v2_ptds),
    P("cuMemcpyDtoD", 2000, NONE),
    P("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
    PT("cuMemcpyDtoD", 7000, cuMemcpyDtoD_v2_ptds),
    P("cuMemcpyHtoDAsync", 2000, NONE),
    P("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
    PT("cuMemcpyHtoDAsync", 7000, cuMemcpyHtoDAsync_v2_ptsz),
    P("cuMemcpyDtoHAsync", 2000, NONE),
    P("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
    PT("cuMemcpyDtoHAsync", 7000, cuMemcpyDtoHAsync_v2_ptsz),
    P("cuMemcpyDtoDAsync", 3000, NONE),
    P("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2),
    PT("cuMemcpyDtoDAsync", 7000, cuMemcpyDtoDAsync_v2_ptsz),
    P("cuMemsetD8", 2000, NONE),
    P("cuMemsetD8", 3020, cuMemsetD8_v2),
    PT("cuMemsetD8", 7000, cuMemsetD8_v2_ptds),
    P("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    P("cuMemsetD8Async", 3020, cuMemsetD8Async),
    PT("cuMemsetD8Async", 7000, cuMemsetD8Async_ptsz),
    P("cuModuleLoad", 2000, cuModuleLoad),
    P("cuModuleLoadData", 2000, cuModuleLoadData),
    P("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary),
    P("cuModuleUnload", 2000, cuModuleUnload),
    P("cuModuleGetFunction", 2000, cuModuleGetFunction),
    P("cuLaunchKernel", 4000, cuLaunchKernel),
    PT("cuLaunchKernel", 7000, cuLaunchKernel_ptsz),
    P("cuFuncGetParamInfo", 12040, cuFuncGetParamInfo),
    P("cuMemHostAlloc", 2020, cuMemHostAlloc),
    P("cuMemHostGetDevicePointer", 2020, NONE), /* 32-bit device pointer */
    P("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2),
    P("cuStreamWriteValue32", 8000, cuStreamWriteValue32),
    PT("cuStreamWriteValue32", 8000, cuStreamWriteValue32_ptsz),
    P("cuStreamWriteValue32", 11070, cuStreamWriteValue32_v2),
    PT("cuStreamWriteValue32", 11070, cuStreamWriteValue32_v2_ptsz),
    P("cuStreamWriteValue64", 9000, cuStreamWriteValue64),
    PT("cuStreamWriteValue64", 9000, cuStreamWriteValue64_ptsz),
    P("cuStreamWriteValue64", 11070, cuStreamWriteValue64_v2),
    PT("cuStreamWriteValue64", 11070, cuStreamWriteValue64_v2_ptsz),
    P("cuGetErrorName", 6000, cuGetErrorName),
    P("cuGetErrorString", 6000, cuGetErrorString),
    P("cuGetProcAddress", 11030, cuGetProcAddress),
    P("cuGetProcAddress", 12000, cuGetProcAddress_v2),
};

/* cuGetProcAddress flags (cuda.h): DEFAULT 0, LEGACY_STREAM 1,
 * PER_THREAD_DEFAULT_STREAM 2; the real driver refuses anything above 3. */
#define PER_THREAD_DEFAULT_STREAM 2u
#define KNOWN_FLAGS 3u

static CUresult lookup(const char *symbol, void **pfn, int requested, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
    /* The real driver crashes on a NULL symbol or pfn; refusing is kinder. */
    if (!symbol || !pfn || flags > KNOWN_FLAGS)
        return CUDA_ERROR_INVALID_VALUE;
    int driver = sim_cuda_driver_version();
    int limit = requested < driver ? requested : driver;
    bool per_thread = (flags & PER_THREAD_DEFAULT_STREAM) != 0;
    bool known = false;
    const sim_proc *best = NULL;
    /* gpuguard's own calls, then the ones other clients bind. */
    const struct { const sim_proc *rows; size_t n; } tables[] = {
        { g_procs, sizeof g_procs / sizeof g_procs[0] },
        { sim_cuda_client_procs, sim_cuda_client_nprocs },
    };
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (size_t i = 0; i < tables[t].n; i++) {
        const sim_proc *p = &tables[t].rows[i];
        if (strcmp(p->name, symbol) != 0)
            continue;
        known = true;
        if (p->version > limit || (p->per_thread && !per_thread))
            continue;
        /* Newest wins (the table is in version order, so at one version
         * the per-thread form, listed after the legacy one, when asked). */
        if (!best || p->version >= best->version)
            best = p;
    }
    CUdriverProcAddressQueryResult res = CU_GET_PROC_ADDRESS_SUCCESS;
    if (!known)
        res = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    else if (!best || !best->fn)
        res = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    if (res != CU_GET_PROC_ADDRESS_SUCCESS)
        sim_detail("cuGetProcAddress(\"%s\", %d) of a %d driver: %s", symbol, requested, driver,
                   !known ? "no such function"
                   : best ? "that variant is not simulated"
                          : "no variant that old");
    *pfn = res == CU_GET_PROC_ADDRESS_SUCCESS ? best->fn : NULL;
    if (status)
        *status = res;
    return CUDA_SUCCESS;
}

/* The CUDA 11.3 form, without the status out-parameter; drivers from 11.3
 * on export it under this name. */
SIM_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    SIM_COUNT(cuGetProcAddress);
    return lookup(symbol, pfn, cudaVersion, flags, NULL);
}

SIM_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    SIM_COUNT(cuGetProcAddress_v2);
    return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}
