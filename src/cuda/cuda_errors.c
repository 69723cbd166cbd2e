/*
 * The CUDA error table, generated from GGCU_RESULT_LIST (cuda_abi.h).
 *
 * How the codes were classified (see the list for each one):
 *
 * Sticky: exactly the codes whose cuda.h comment says the context or process
 * is left inconsistent and every later call returns the same error (226, 700,
 * 702, 714-719, 721, 810, 911) plus ASSERT 710 ("the context cannot be used
 * anymore, and must be destroyed"), and the two uncorrectable hardware errors
 * "detected during execution", ECC 214 and NVLink 220: the results of the work
 * in flight cannot be trusted, so the context is treated as dead. LAUNCH_FAILED
 * is what a Windows TDR usually reports, so it must be sticky like
 * LAUNCH_TIMEOUT.
 *
 * Portable status of the sticky codes: a fault raised by device code while a
 * kernel ran is GG_ILLEGAL_ADDRESS when it is about an address (700, and
 * MISALIGNED_ADDRESS 716 and INVALID_ADDRESS_SPACE 717, which are bad
 * accesses of another kind), GG_LAUNCH_TIMEOUT for the watchdog (702), and
 * GG_LAUNCH_FAILED otherwise (ASSERT 710, HARDWARE_STACK_ERROR 714,
 * ILLEGAL_INSTRUCTION 715, INVALID_PC 718, LAUNCH_FAILED 719,
 * TENSOR_MEMORY_LEAK 721). Deaths not tied to one kernel (CONTAINED 226,
 * ECC 214, NVLink 220, MPS_CLIENT_TERMINATED 810, EXTERNAL_DEVICE 911) are
 * GG_DRIVER with sticky set; the native name says which.
 *
 * Not sticky, and why the status chosen:
 *  - launch configuration errors where nothing ran (LAUNCH_OUT_OF_RESOURCES
 *    701, INCOMPATIBLE_TEXTURING 703, COOPERATIVE_LAUNCH_TOO_LARGE 720,
 *    INVALID_CLUSTER_SIZE 912) are GG_INVALID_ARGUMENT, not LAUNCH_FAILED,
 *    so that no caller mistakes them for a dead context;
 *  - a bad module image or a name not found in it (200, 218, 300-302, 500)
 *    is GG_INVALID_ARGUMENT; a module with no code this device or driver can
 *    run (NO_BINARY_FOR_GPU 209, PTX version / JIT unavailable 221-223) is
 *    GG_UNSUPPORTED: the driver is fine, the image does not fit it;
 *  - INVALID_CONTEXT 201, INVALID_HANDLE 400, CONTEXT_IS_DESTROYED 709 are
 *    GG_INVALID_HANDLE (a native handle gpuguard passed is gone);
 *  - the system-level failures that make the driver unusable (STUB_LIBRARY
 *    34, SYSTEM_NOT_READY 802, SYSTEM_DRIVER_MISMATCH 803,
 *    COMPAT_NOT_SUPPORTED_ON_DEVICE 804) are GG_NO_DRIVER; a device that
 *    exists but cannot be used (46, 100-102) is GG_NO_DEVICE;
 *  - DEINITIALIZED 4 is GG_DRIVER with `deinitialized` set: the driver is
 *    shutting down and the caller treats cleanup as done.
 *
 * A code missing from the list (a newer driver's) is GG_DRIVER and not
 * sticky: if it did kill the context, every later call fails with it anyway,
 * whereas a wrong "sticky" would throw away a healthy context.
 */
#include "cuda/cuda_errors.h"

#include "cuda/cuda_abi.h"

gg__code_class gg__cuda_classify(int native)
{
    gg__code_class c = { .status = GG_DRIVER, .sticky = false, .deinitialized = false };
    switch (native) {
#define GGCU__CLASSIFY(name, value, gg, is_sticky) \
    case value:                                     \
        c.status = GG_##gg;                         \
        c.sticky = (is_sticky) != 0;                \
        break;
        GGCU_RESULT_LIST(GGCU__CLASSIFY)
#undef GGCU__CLASSIFY
    default:
        break;
    }
    c.deinitialized = native == GGCU_ERROR_DEINITIALIZED;
    return c;
}

const char *gg__cuda_code_name(int native)
{
    switch (native) {
#define GGCU__NAME(name, value, gg, is_sticky) \
    case value:                                 \
        return "CUDA_" #name;
        GGCU_RESULT_LIST(GGCU__NAME)
#undef GGCU__NAME
    default:
        return "CUDA_ERROR_UNRECOGNIZED";
    }
}

/* The code each portable status is injected as: the one a real driver
 * returns for it, so that classify(native_for_status(s)).status == s for
 * every status listed here. GG_NO_DRIVER has no mid-run counterpart (the
 * stub's 34 would misreport) and falls to CUDA_ERROR_UNKNOWN like the rest. */
int gg__cuda_native_for_status(gg_status status)
{
    switch (status) {
    case GG_OK: return GGCU_SUCCESS;
    case GG_INVALID_ARGUMENT: return GGCU_ERROR_INVALID_VALUE;
    case GG_INVALID_HANDLE: return GGCU_ERROR_INVALID_HANDLE;
    case GG_NOT_INITIALIZED: return GGCU_ERROR_NOT_INITIALIZED;
    case GG_NO_DEVICE: return GGCU_ERROR_NO_DEVICE;
    case GG_OUT_OF_MEMORY: return GGCU_ERROR_OUT_OF_MEMORY;
    case GG_NOT_READY: return GGCU_ERROR_NOT_READY;
    case GG_TIMEOUT: return GGCU_ERROR_TIMEOUT;
    case GG_LAUNCH_TIMEOUT: return GGCU_ERROR_LAUNCH_TIMEOUT;
    case GG_LAUNCH_FAILED: return GGCU_ERROR_LAUNCH_FAILED;
    case GG_ILLEGAL_ADDRESS: return GGCU_ERROR_ILLEGAL_ADDRESS;
    case GG_UNSUPPORTED: return GGCU_ERROR_NOT_SUPPORTED;
    case GG_BUSY: return GGCU_ERROR_CONTEXT_ALREADY_IN_USE;
    default: return GGCU_ERROR_UNKNOWN;
    }
}
