/*
 * The CUDA backend's error table: what each CUresult means to gpuguard.
 * Pure functions over a constant table (GGCU_RESULT_LIST in cuda_abi.h):
 * callable from any thread, at any time, before open and after close.
 */
#ifndef GPUGUARD_CUDA_ERRORS_H
#define GPUGUARD_CUDA_ERRORS_H

#include "common/backend.h"

/* Portable status, stickiness and "driver shutting down" for a CUresult.
 * Unknown codes: GG_DRIVER, not sticky. */
gg__code_class gg__cuda_classify(int native);

/* cuda.h's enum name ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_SUCCESS");
 * "CUDA_ERROR_UNRECOGNIZED" for a code not in CUDA 13.0's cuda.h. Static
 * storage, never NULL. */
const char *gg__cuda_code_name(int native);

/* The CUresult a real driver would return for `status`, for injected faults
 * (GG_ILLEGAL_ADDRESS -> 700, ...; CUDA_ERROR_UNKNOWN 999 for statuses with
 * no CUDA counterpart; 0 for GG_OK). */
int gg__cuda_native_for_status(gg_status status);

#endif /* GPUGUARD_CUDA_ERRORS_H */
