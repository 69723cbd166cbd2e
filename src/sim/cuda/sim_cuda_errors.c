/*
 * CUresult names and messages, and the translation from core status codes.
 * Names are exactly cuda.h's enumerator names; messages are our own words.
 */
#include "sim_cuda.h"

static const struct {
    CUresult code;
    const char *name;
    const char *msg;
} g_errors[] = {
#define SIM_CUDA_ROW(name, num, msg) { name, #name, msg },
    GG_ABI_CUDA_ERRORS(SIM_CUDA_ROW)
#undef SIM_CUDA_ROW
};

CUresult sim_cuda_result(sim_status st)
{
    switch (st) {
    case SIM_OK: return CUDA_SUCCESS;
    case SIM_ERR_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
    case SIM_ERR_OUT_OF_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
    case SIM_ERR_NOT_INITIALIZED: return CUDA_ERROR_NOT_INITIALIZED;
    case SIM_ERR_NO_DEVICE: return CUDA_ERROR_NO_DEVICE;
    case SIM_ERR_INVALID_DEVICE: return CUDA_ERROR_INVALID_DEVICE;
    case SIM_ERR_INVALID_IMAGE: return CUDA_ERROR_INVALID_IMAGE;
    case SIM_ERR_INVALID_CONTEXT: return CUDA_ERROR_INVALID_CONTEXT;
    case SIM_ERR_CONTEXT_DESTROYED: return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    case SIM_ERR_FILE_NOT_FOUND: return CUDA_ERROR_FILE_NOT_FOUND;
    case SIM_ERR_INVALID_HANDLE: return CUDA_ERROR_INVALID_HANDLE;
    case SIM_ERR_NOT_FOUND: return CUDA_ERROR_NOT_FOUND;
    case SIM_ERR_NOT_READY: return CUDA_ERROR_NOT_READY;
    case SIM_ERR_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case SIM_ERR_LAUNCH_OUT_OF_RESOURCES: return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    case SIM_ERR_LAUNCH_TIMEOUT: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case SIM_ERR_ASSERT: return CUDA_ERROR_ASSERT;
    case SIM_ERR_LAUNCH_FAILED: return CUDA_ERROR_LAUNCH_FAILED;
    case SIM_ERR_NOT_SUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
    case SIM_ERR_NO_BINARY_FOR_GPU: return CUDA_ERROR_NO_BINARY_FOR_GPU;
    case SIM_ERR_MISALIGNED_ADDRESS: return CUDA_ERROR_MISALIGNED_ADDRESS;
    case SIM_ERR_UNKNOWN: return CUDA_ERROR_UNKNOWN;
    }
    return CUDA_ERROR_UNKNOWN;
}

static int find(CUresult e)
{
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].code == e)
            return (int)i;
    return -1;
}

SIM_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    SIM_COUNT(cuGetErrorName);
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    int i = find(error);
    *pStr = i < 0 ? NULL : g_errors[i].name;
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    SIM_COUNT(cuGetErrorString);
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    int i = find(error);
    *pStr = i < 0 ? NULL : g_errors[i].msg;
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
