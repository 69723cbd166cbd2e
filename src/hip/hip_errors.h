/*
 * The HIP backend's error table: what each hipError_t means to gpuguard.
 * Pure functions over a constant table (GGHIP_ERROR_LIST in hip_abi.h):
 * callable from any thread, at any time, before open and after close.
 */
#ifndef GPUGUARD_HIP_ERRORS_H
#define GPUGUARD_HIP_ERRORS_H

#include "common/backend.h"

/* Portable status, stickiness and "runtime shutting down" for a hipError_t.
 * Unknown codes: GG_DRIVER, not sticky. */
gg__code_class gg__hip_classify(int native);

/* The header's enum name ("hipErrorIllegalAddress", "hipSuccess");
 * "hipErrorUnrecognized" for a code not in HIP 5.2.3's header. Static
 * storage, never NULL. */
const char *gg__hip_code_name(int native);

/* The hipError_t a real runtime would return for `status`, for injected
 * faults (GG_ILLEGAL_ADDRESS -> 700, ...; the same numbers as the CUDA
 * backend's wherever HIP shares the name; hipErrorUnknown 999 for statuses
 * with no HIP counterpart; 0 for GG_OK). */
int gg__hip_native_for_status(gg_status status);

#endif /* GPUGUARD_HIP_ERRORS_H */
