// Block-level inclusive prefix sum (Hillis-Steele) with a double buffer in
// dynamic shared memory and a barrier per step; the last block is partial
// (elements past n count as zero). Also writes each block's total.
extern "C" __global__ void corpus_scan(const int *in, int *out, int *block_sums, int n)
{
    extern __shared__ int buf[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    buf[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = buf[pin * blockDim.x + t];
        if (t >= offset)
            v += buf[pin * blockDim.x + t - offset];
        buf[pout * blockDim.x + t] = v;
        __syncthreads();
    }
    if (g < n)
        out[g] = buf[pout * blockDim.x + t];
    if (t == blockDim.x - 1)
        block_sums[blockIdx.x] = buf[pout * blockDim.x + t];
}
