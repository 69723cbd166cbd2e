/*
 * The CUDA Driver API as gpuguard's simulator and interposer see it: the
 * types (cuda_types.h, with the CUresult list of cuda_errors.h) and the
 * prototypes (cuda_functions.h, cuda_functions_pycuda.h), with cuda.h's
 * names and ABI (CUDA 13.0). Include this, not the parts.
 */
#ifndef GG_ABI_CUDA_DRIVER_H
#define GG_ABI_CUDA_DRIVER_H

#include "abi/cuda_types.h"
#include "abi/cuda_functions.h"

#endif /* GG_ABI_CUDA_DRIVER_H */
