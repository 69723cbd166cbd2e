/*
 * The HIP error table, generated from GGHIP_ERROR_LIST (hip_abi.h).
 *
 * No HIP document says which codes leave a context unusable, and no comment
 * in HIP 5.2.3's hip_runtime_api.h does either. The sticky codes are the
 * HIP counterparts of the CUDA codes whose cuda.h comment does, as
 * DRIVER-FACTS.md lists them (HIP has no 714-718, 721, 226, 810 or 911):
 *
 *  - IllegalAddress 700 -> GG_ILLEGAL_ADDRESS: a kernel touched memory it
 *    must not; on CUDA the context is left inconsistent.
 *  - LaunchTimeOut 702 -> GG_LAUNCH_TIMEOUT: the watchdog killed a kernel
 *    (and with it the context).
 *  - Assert 710 -> GG_LAUNCH_FAILED: a device-side assert; CUDA says the
 *    context "cannot be used anymore, and must be destroyed".
 *  - LaunchFailure 719 -> GG_LAUNCH_FAILED: "an exception occurred on the
 *    device while executing a kernel" (the header's own words); it is also
 *    CUDA's answer to a Windows TDR, which must kill like 702 does.
 *  - ECCNotCorrectable 214 -> GG_DRIVER: uncorrectable memory error detected
 *    during execution: the work in flight cannot be trusted.
 *  - PriorLaunchFailure 53 -> GG_LAUNCH_FAILED: the one further code whose
 *    meaning is a dead context: "an earlier launch failed", i.e. a 719
 *    surfacing at a later call. The AMD runtime does not return it today
 *    (HIP's NVIDIA path maps cudaErrorPriorLaunchFailure to it); if one
 *    does, the failed launch's results are gone, so the context is treated
 *    as dead like 719.
 *
 * On ROCm a GPU memory fault usually aborts the whole process inside ROCr
 * (its VM fault handler) before any hipError_t is returned; no table can
 * change that.
 *
 * Not sticky, and why the status chosen (the same choices as the CUDA table
 * for the codes the two share):
 *  - launch configuration errors where nothing ran (InvalidConfiguration 9,
 *    MissingConfiguration 52, LaunchOutOfResources 701,
 *    CooperativeLaunchTooLarge 720) are GG_INVALID_ARGUMENT, never
 *    LAUNCH_FAILED, so that no caller mistakes them for a dead context;
 *  - arguments the runtime refused (InvalidValue 1, PitchValue 12, Symbol 13,
 *    DevicePointer 17, MemcpyDirection 21) are GG_INVALID_ARGUMENT;
 *  - a bad module image, a missing file or a name not in it (200, 218,
 *    300-302, 500), and InvalidDeviceFunction 98 (the function given is not
 *    a kernel the device can run) are GG_INVALID_ARGUMENT; a module with no
 *    code object for this GPU (NoBinaryForGpu 209) is GG_UNSUPPORTED;
 *  - InvalidContext 201, InvalidHandle 400, ContextIsDestroyed 709 are
 *    GG_INVALID_HANDLE (a native handle gpuguard passed is gone);
 *  - NoDevice 100 and InvalidDevice 101 are GG_NO_DEVICE (101 is what
 *    hipInit returns on a machine without an AMD GPU); InsufficientDriver 35
 *    (the kernel driver is older than the runtime) is GG_NO_DRIVER;
 *  - ContextAlreadyInUse 216 is GG_BUSY; NotSupported 801, UnsupportedLimit
 *    215, PeerAccessUnsupported 217 are GG_UNSUPPORTED;
 *  - RuntimeMemory 1052 / RuntimeOther 1053 ("HSA runtime call returned
 *    error") say nothing of the context's state: GG_DRIVER, not sticky;
 *  - Deinitialized 4 is GG_DRIVER with `deinitialized` set: the runtime is
 *    shutting down and the caller treats cleanup as done.
 *
 * A code missing from the list (a newer runtime's) is GG_DRIVER and not
 * sticky: if it did kill the context, every later call fails anyway, whereas
 * a wrong "sticky" would throw away a healthy context.
 */
#include "hip/hip_errors.h"

#include "hip/hip_abi.h"

gg__code_class gg__hip_classify(int native)
{
    gg__code_class c = { .status = GG_DRIVER, .sticky = false, .deinitialized = false };
    switch (native) {
#define GGHIP__CLASSIFY(name, value, gg, is_sticky) \
    case value:                                      \
        c.status = GG_##gg;                          \
        c.sticky = (is_sticky) != 0;                 \
        break;
        GGHIP_ERROR_LIST(GGHIP__CLASSIFY)
#undef GGHIP__CLASSIFY
    default:
        break;
    }
    c.deinitialized = native == GGHIP_ErrorDeinitialized;
    return c;
}

const char *gg__hip_code_name(int native)
{
    switch (native) {
#define GGHIP__NAME(name, value, gg, is_sticky) \
    case value:                                  \
        return "hip" #name;
        GGHIP_ERROR_LIST(GGHIP__NAME)
#undef GGHIP__NAME
    default:
        return "hipErrorUnrecognized";
    }
}

/* The code each portable status is injected as: the one a real runtime
 * returns for it, so that classify(native_for_status(s)).status == s for
 * every status HIP has a code for. GG_TIMEOUT (HIP 5.2 has no
 * hipErrorTimeout) and GG_NO_DRIVER (no mid-run counterpart) fall to
 * hipErrorUnknown like the rest. */
int gg__hip_native_for_status(gg_status status)
{
    switch (status) {
    case GG_OK: return GGHIP_Success;
    case GG_INVALID_ARGUMENT: return GGHIP_ErrorInvalidValue;
    case GG_INVALID_HANDLE: return GGHIP_ErrorInvalidHandle;
    case GG_NOT_INITIALIZED: return GGHIP_ErrorNotInitialized;
    case GG_NO_DEVICE: return GGHIP_ErrorNoDevice;
    case GG_OUT_OF_MEMORY: return GGHIP_ErrorOutOfMemory;
    case GG_NOT_READY: return GGHIP_ErrorNotReady;
    case GG_LAUNCH_TIMEOUT: return GGHIP_ErrorLaunchTimeOut;
    case GG_LAUNCH_FAILED: return GGHIP_ErrorLaunchFailure;
    case GG_ILLEGAL_ADDRESS: return GGHIP_ErrorIllegalAddress;
    case GG_UNSUPPORTED: return GGHIP_ErrorNotSupported;
    case GG_BUSY: return GGHIP_ErrorContextAlreadyInUse;
    default: return GGHIP_ErrorUnknown;
    }
}
