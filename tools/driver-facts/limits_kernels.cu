// Kernels of limits_probe.c (what a real driver answers where the
// simulator's answer is so far unverified). regenerate.sh turns this file
// into limits_kernels.ptx, committed so the probe needs no nvcc.

// Recursion that keeps a local array alive in every frame, so that each
// level takes stack space: depth(n) is n + 1 when it returns at all.
__device__ __noinline__ unsigned depth(unsigned n, volatile unsigned *sink)
{
    volatile unsigned frame[16];
    for (int i = 0; i < 16; i++)
        frame[i] = n + i;
    if (n == 0)
        return frame[3] - 2;
    unsigned below = depth(n - 1, sink);
    *sink = frame[n % 16];
    return below + 1;
}

extern "C" __global__ void recurse(unsigned *out, unsigned n)
{
    unsigned sink = 0;
    out[threadIdx.x] = depth(n, &sink);
}

// Writes value + i to p[i].
extern "C" __global__ void fill_u32(unsigned *p, unsigned value, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value + i;
}
