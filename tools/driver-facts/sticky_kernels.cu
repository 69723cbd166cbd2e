// Kernels of sticky_probe.c (a measurement of what a sticky error does to
// the rest of a process). regenerate.sh turns this file into
// sticky_kernels.ptx, which is committed so that the probe needs no nvcc.
#include <assert.h>

// Stores through a pointer the caller makes invalid: CUDA_ERROR_ILLEGAL_ADDRESS.
extern "C" __global__ void oob_store(unsigned *p) { p[threadIdx.x] = 1u; }

// CUDA_ERROR_LAUNCH_FAILED.
extern "C" __global__ void trap_kernel(void) { __trap(); }

// A failed device-side assert: CUDA_ERROR_ASSERT.
extern "C" __global__ void assert_kernel(unsigned value) { assert(value == 0u); }

// The work whose result proves a context still computes.
extern "C" __global__ void fill_u32(unsigned *p, unsigned value, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value + i;
}
