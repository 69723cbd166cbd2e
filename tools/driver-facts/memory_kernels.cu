// Kernels of memory_probe.c (what a real driver answers for managed, mapped
// and registered host memory, and for register caps). regenerate.sh turns
// this file into memory_kernels.ptx, committed so the probe needs no nvcc.

// Writes value + i to p[i]: a kernel's view of managed or mapped memory.
extern "C" __global__ void fill_u32(unsigned *p, unsigned value, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value + i;
}

// Keeps 96 floats live across a loop, so that ptxas wants many registers:
// the kernel whose NUM_REGS shows whether CU_JIT_MAX_REGISTERS caps it.
extern "C" __global__ void many_registers(float *out, const float *in, int rounds)
{
    float acc[96];
#pragma unroll
    for (int k = 0; k < 96; k++)
        acc[k] = in[threadIdx.x + k];
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int k = 0; k < 96; k++)
            acc[k] = acc[k] * acc[(k + 1) % 96] + acc[(k + 7) % 96];
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 96; k++)
        sum += acc[k];
    out[threadIdx.x] = sum;
}

// The same kernel capped in the PTX itself (.maxnreg 40).
extern "C" __global__ void __maxnreg__(40) many_registers_maxnreg40(float *out, const float *in, int rounds)
{
    float acc[96];
#pragma unroll
    for (int k = 0; k < 96; k++)
        acc[k] = in[threadIdx.x + k];
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int k = 0; k < 96; k++)
            acc[k] = acc[k] * acc[(k + 1) % 96] + acc[(k + 7) % 96];
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 96; k++)
        sum += acc[k];
    out[threadIdx.x] = sum;
}
