// 256-bin byte histogram: a grid-stride loop counts into a per-block
// histogram in shared memory with shared atomicAdd, then each block adds its
// bins to the global histogram with global atomicAdd.
#define BINS 256
extern "C" __global__ void corpus_histogram(const unsigned char *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b])
            atomicAdd(&hist[b], local[b]);
}
