// Shared-memory tree reduction of 256 unsigned values per block, with
// __syncthreads between the levels; block b writes its sum to out[b].
extern "C" __global__ void block_reduce(const unsigned *in, unsigned *out)
{
    __shared__ unsigned part[256];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}
