// 1-D stencil of radius 3 over ints: each block stages its elements plus a
// halo of RADIUS on each side in shared memory (zero outside the array), then
// each thread sums its 7 neighbours with weights.
#define RADIUS 3
#define BLOCK 128
extern "C" __global__ void corpus_stencil1d(const int *in, int *out, int n)
{
    __shared__ int temp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = g < n ? in[g] : 0;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS, right = g + BLOCK;
        temp[l - RADIUS] = left >= 0 && left < n ? in[left] : 0;
        temp[l + BLOCK] = right < n ? in[right] : 0;
    }
    __syncthreads();
    int result = 0;
    for (int off = -RADIUS; off <= RADIUS; off++)
        result += temp[l + off] * (off + 4);
    if (g < n)
        out[g] = result;
}
