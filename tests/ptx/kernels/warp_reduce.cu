// PyCUDA-style reduction: dynamic (extern) shared memory, one
// __syncthreads level, then the last 32 values summed through volatile
// shared memory without barriers: right only if a warp's 32 lanes run in
// lockstep (each lane reads its neighbour before anyone writes).
extern "C" __global__ void warp_reduce(const int *in, int *out)
{
    extern __shared__ int sdata[];
    unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t < 32) {
        volatile int *s = sdata;
        if (blockDim.x >= 64)
            s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
