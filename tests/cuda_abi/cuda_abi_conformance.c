/*
 * src/cuda/cuda_abi.h against the CUDA toolkit's own headers. Everything is
 * checked at compile time; a mismatch fails the build of this file:
 *  - every CUresult value in GGCU_RESULT_LIST equals cuda.h's, and every
 *    CUresult of cuda.h is in the list (a switch over CUresult without a
 *    default, built with -Werror=switch);
 *  - the scalar and handle types are the same types (or the same size, for
 *    the enums we declare as unsigned int);
 *  - the enumerants used (attributes, flags) have cuda.h's values;
 *  - each ggcu_fn_<name> is the type of cudaTypedefs.h's
 *    PFN_<base>_v<version> for the version the loader asks cuGetProcAddress
 *    for, and of the function cuda.h declares under that exported name.
 * _Generic never evaluates its operand, so naming cu* functions here makes
 * no reference to libcuda.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdio.h>

#include "cuda/cuda_abi.h"

#define SAME_TYPE(expr, type) _Generic((expr), type: 1, default: 0)
/* Enumerators of different enums compared as numbers (no -Wenum-compare). */
#define SAME_VALUE(a, b) ((long long)(a) == (long long)(b))

/* ---- result codes ---- */

#define CHECK_RESULT(name, value, gg, sticky)                                   \
    _Static_assert(SAME_VALUE(GGCU_##name, CUDA_##name) && SAME_VALUE(value, CUDA_##name), \
                   "CUDA_" #name " differs from cuda.h");
GGCU_RESULT_LIST(CHECK_RESULT)
#undef CHECK_RESULT

/* With -Werror=switch, any CUresult of cuda.h missing from the list fails
 * here ("enumeration value ... not handled in switch"). */
static int listed(CUresult r)
{
    switch (r) {
#define CASE_RESULT(name, value, gg, sticky) case CUDA_##name: return 1;
    GGCU_RESULT_LIST(CASE_RESULT)
#undef CASE_RESULT
    }
    return 0;
}

/* ---- types ---- */

_Static_assert(sizeof(ggcu_result) == sizeof(CUresult), "CUresult size");
_Static_assert(SAME_TYPE((CUresult)0, ggcu_result), "CUresult is unsigned int to the compiler");
_Static_assert(SAME_TYPE((CUdevice)0, ggcu_device), "CUdevice");
_Static_assert(SAME_TYPE((CUdeviceptr)0, ggcu_deviceptr), "CUdeviceptr");
_Static_assert(sizeof(ggcu_deviceptr) == 8, "CUdeviceptr_v2 is 64-bit");
_Static_assert(SAME_TYPE((CUdevice_attribute)0, ggcu_device_attribute), "CUdevice_attribute");
_Static_assert(SAME_TYPE((CUdriverProcAddressQueryResult)0, ggcu_proc_address_query),
               "CUdriverProcAddressQueryResult");
_Static_assert(SAME_TYPE((cuuint64_t)0, uint64_t), "cuuint64_t");
_Static_assert(SAME_TYPE((CUcontext)0, ggcu_context), "CUcontext");
_Static_assert(SAME_TYPE((CUmodule)0, ggcu_module), "CUmodule");
_Static_assert(SAME_TYPE((CUfunction)0, ggcu_function), "CUfunction");
_Static_assert(SAME_TYPE((CUstream)0, ggcu_stream), "CUstream");
_Static_assert(SAME_TYPE((CUevent)0, ggcu_event), "CUevent");
_Static_assert(SAME_TYPE((CUctxCreateParams *)0, ggcu_ctx_create_params *), "CUctxCreateParams");

/* ---- enumerants ---- */

#define CHECK_EQ(ours, theirs) _Static_assert(SAME_VALUE(ours, theirs), #ours " != " #theirs);
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
         CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
         CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1)
CHECK_EQ(GGCU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
         CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS)
CHECK_EQ(GGCU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_DEVICEMAP)
CHECK_EQ(GGCU_STREAM_WRITE_VALUE_DEFAULT, CU_STREAM_WRITE_VALUE_DEFAULT)
CHECK_EQ(GGCU_CTX_SCHED_AUTO, CU_CTX_SCHED_AUTO)
CHECK_EQ(GGCU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING)
CHECK_EQ(GGCU_EVENT_DEFAULT, CU_EVENT_DEFAULT)
CHECK_EQ(GGCU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_CONTEXT)
CHECK_EQ(GGCU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
CHECK_EQ(GGCU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_RANGE_SIZE)
CHECK_EQ(GGCU_GET_PROC_ADDRESS_LEGACY_STREAM, CU_GET_PROC_ADDRESS_LEGACY_STREAM)
CHECK_EQ(GGCU_GET_PROC_ADDRESS_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS)
CHECK_EQ(GGCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
CHECK_EQ(GGCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
#undef CHECK_EQ

/* ---- entry points: the signature behind each (base, version) asked ---- */

#define CHECK_PFN(base, version, name, need)                                    \
    _Static_assert(SAME_TYPE((PFN_##base##_v##version)0, ggcu_fn_##name),       \
                   "ggcu_fn_" #name " differs from PFN_" #base "_v" #version);
GGCU_SYMBOL_LIST(CHECK_PFN)
#undef CHECK_PFN

_Static_assert(SAME_TYPE((PFN_cuGetProcAddress_v12000)0, ggcu_fn_cuGetProcAddress_v2),
               "cuGetProcAddress_v2");
_Static_assert(SAME_TYPE((PFN_cuGetProcAddress_v11030)0, ggcu_fn_cuGetProcAddress),
               "cuGetProcAddress (11.3-11.8)");

/* And against the declarations cuda.h makes under the exported names (the
 * ones it still declares in CUDA 13: not cuCtxCreate_v2, cuEventElapsedTime
 * v1 or the 4-argument cuGetProcAddress, which the PFN checks above cover). */
#define CHECK_DECL(name) _Static_assert(SAME_TYPE(&name, ggcu_fn_##name), #name " declaration");
CHECK_DECL(cuInit)
CHECK_DECL(cuDriverGetVersion)
CHECK_DECL(cuDeviceGetCount)
CHECK_DECL(cuDeviceGet)
CHECK_DECL(cuDeviceGetName)
CHECK_DECL(cuDeviceTotalMem_v2)
CHECK_DECL(cuDeviceGetAttribute)
CHECK_DECL(cuCtxCreate_v4)
CHECK_DECL(cuCtxDestroy_v2)
CHECK_DECL(cuCtxGetCurrent)
CHECK_DECL(cuCtxSetCurrent)
CHECK_DECL(cuCtxPushCurrent_v2)
CHECK_DECL(cuCtxPopCurrent_v2)
CHECK_DECL(cuCtxSynchronize)
CHECK_DECL(cuDevicePrimaryCtxRetain)
CHECK_DECL(cuDevicePrimaryCtxRelease_v2)
CHECK_DECL(cuDevicePrimaryCtxReset_v2)
CHECK_DECL(cuStreamCreate)
CHECK_DECL(cuStreamDestroy_v2)
CHECK_DECL(cuStreamQuery)
CHECK_DECL(cuPointerGetAttribute)
CHECK_DECL(cuStreamSynchronize)
CHECK_DECL(cuStreamWaitEvent)
CHECK_DECL(cuEventCreate)
CHECK_DECL(cuEventDestroy_v2)
CHECK_DECL(cuEventRecord)
CHECK_DECL(cuEventQuery)
CHECK_DECL(cuEventSynchronize)
CHECK_DECL(cuEventElapsedTime_v2)
CHECK_DECL(cuMemAlloc_v2)
CHECK_DECL(cuMemFree_v2)
CHECK_DECL(cuMemAllocHost_v2)
CHECK_DECL(cuMemFreeHost)
CHECK_DECL(cuMemcpyHtoD_v2)
CHECK_DECL(cuMemcpyDtoH_v2)
CHECK_DECL(cuMemcpyDtoD_v2)
CHECK_DECL(cuMemcpyHtoDAsync_v2)
CHECK_DECL(cuMemcpyDtoHAsync_v2)
CHECK_DECL(cuMemcpyDtoDAsync_v2)
CHECK_DECL(cuMemsetD8_v2)
CHECK_DECL(cuMemsetD8Async)
CHECK_DECL(cuModuleLoad)
CHECK_DECL(cuModuleLoadData)
CHECK_DECL(cuModuleUnload)
CHECK_DECL(cuModuleGetFunction)
CHECK_DECL(cuLaunchKernel)
CHECK_DECL(cuGetProcAddress_v2)
CHECK_DECL(cuFuncGetParamInfo)
CHECK_DECL(cuMemHostAlloc)
CHECK_DECL(cuMemHostGetDevicePointer_v2)
CHECK_DECL(cuStreamWriteValue32_v2)
CHECK_DECL(cuStreamWriteValue64_v2)
#undef CHECK_DECL

int main(void)
{
    int codes = 0, symbols = 0;
#define COUNT_RESULT(name, value, gg, sticky) codes += listed(CUDA_##name);
    GGCU_RESULT_LIST(COUNT_RESULT)
#undef COUNT_RESULT
#define COUNT_SYMBOL(base, version, name, need) symbols++;
    GGCU_SYMBOL_LIST(COUNT_SYMBOL)
#undef COUNT_SYMBOL
    printf("test_cuda_abi: cuda_abi.h agrees with cuda.h (CUDA_VERSION %d): "
           "%d result codes, %d entry points\n", CUDA_VERSION, codes, symbols);
    return 0;
}
