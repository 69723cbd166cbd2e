/*
 * hipError_t names and messages, and the translation from core status codes.
 * Names are exactly hip_runtime_api.h's enumerators; messages are our own
 * words. As in ROCm, an unknown code is named "hipErrorUnknown" and described
 * as "unknown error"; neither call needs initialisation or fails.
 */
#include "sim_hip.h"

static const struct {
    hipError_t code;
    const char *name;
    const char *msg;
} g_errors[] = {
#define SIM_HIP_ROW(name, num, msg) { name, #name, msg },
    GG_ABI_HIP_ERRORS(SIM_HIP_ROW)
#undef SIM_HIP_ROW
};

hipError_t sim_hip_result(sim_status st)
{
    switch (st) {
    case SIM_OK: return hipSuccess;
    case SIM_ERR_INVALID_VALUE: return hipErrorInvalidValue;
    case SIM_ERR_OUT_OF_MEMORY: return hipErrorOutOfMemory;
    case SIM_ERR_NOT_INITIALIZED: return hipErrorNotInitialized;
    case SIM_ERR_NO_DEVICE: return hipErrorNoDevice;
    case SIM_ERR_INVALID_DEVICE: return hipErrorInvalidDevice;
    case SIM_ERR_INVALID_IMAGE: return hipErrorInvalidImage;
    case SIM_ERR_INVALID_CONTEXT: return hipErrorInvalidContext;
    case SIM_ERR_CONTEXT_DESTROYED: return hipErrorContextIsDestroyed;
    case SIM_ERR_FILE_NOT_FOUND: return hipErrorFileNotFound;
    case SIM_ERR_INVALID_HANDLE: return hipErrorInvalidHandle;
    case SIM_ERR_NOT_FOUND: return hipErrorNotFound;
    case SIM_ERR_NOT_READY: return hipErrorNotReady;
    case SIM_ERR_ILLEGAL_ADDRESS: return hipErrorIllegalAddress;
    case SIM_ERR_LAUNCH_OUT_OF_RESOURCES: return hipErrorLaunchOutOfResources;
    case SIM_ERR_LAUNCH_TIMEOUT: return hipErrorLaunchTimeOut;
    case SIM_ERR_ASSERT: return hipErrorAssert;
    case SIM_ERR_LAUNCH_FAILED: return hipErrorLaunchFailure;
    case SIM_ERR_NOT_SUPPORTED: return hipErrorNotSupported;
    case SIM_ERR_NO_BINARY_FOR_GPU: return hipErrorNoBinaryForGpu;
    /* HIP has no misaligned-address error: an AMD GPU reports a memory
     * access fault, hipErrorIllegalAddress. */
    case SIM_ERR_MISALIGNED_ADDRESS: return hipErrorIllegalAddress;
    case SIM_ERR_UNKNOWN: return hipErrorUnknown;
    }
    return hipErrorUnknown;
}

static int find(hipError_t e)
{
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].code == e)
            return (int)i;
    return -1;
}

SIM_EXPORT const char *hipGetErrorName(hipError_t hip_error)
{
    SIM_HIP_COUNT(hipGetErrorName);
    int i = find(hip_error);
    return i < 0 ? "hipErrorUnknown" : g_errors[i].name;
}

SIM_EXPORT const char *hipGetErrorString(hipError_t hipError)
{
    SIM_HIP_COUNT(hipGetErrorString);
    int i = find(hipError);
    return i < 0 ? "unknown error" : g_errors[i].msg;
}
