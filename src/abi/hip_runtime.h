/*
 * The HIP runtime as gpuguard's simulator and interposer see it: the types
 * (hip_types.h, with the numbers of hip_values.h) and the prototypes
 * (hip_functions.h), with HIP 5.2.3's names and ABI (AMD platform). Include
 * this, not the parts.
 */
#ifndef GG_ABI_HIP_RUNTIME_H
#define GG_ABI_HIP_RUNTIME_H

#include "abi/hip_types.h"
#include "abi/hip_functions.h"

#endif /* GG_ABI_HIP_RUNTIME_H */
