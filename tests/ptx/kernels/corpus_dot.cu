// Dot product over a grid-stride loop: each thread accumulates a*b (fma),
// the block combines its threads' sums with a tree in shared memory, and one
// thread per block adds the block's sum to the result with a float
// atomicAdd (so the blocks' order of addition is whatever the atomics make
// it). Each thread also counts its elements of a above `big` and adds the
// count to a 64-bit counter with a 64-bit atomicAdd.
#define THREADS 128
extern "C" __global__ void corpus_dot(const float *a, const float *b, int n, float big, float *result,
                                      unsigned long long *big_count)
{
    __shared__ float part[THREADS];
    float s = 0.0f;
    unsigned long long count = 0;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS) {
        s += a[i] * b[i];
        if (a[i] > big)
            count++;
    }
    if (count)
        atomicAdd(big_count, count);
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            part[threadIdx.x] += part[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(result, part[0]);
}
