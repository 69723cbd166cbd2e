// Stream compaction: keep the indices of the elements above a threshold.
// Each block scans its keep-flags (Hillis-Steele in shared memory), one
// thread reserves the block's range of the output with a global atomicAdd,
// and each kept element goes to its place in that range (order kept within a
// block; the blocks' ranges come in whatever order the atomics happen).
#define BLOCK 128
extern "C" __global__ void corpus_compact(const int *in, int n, int threshold, int *out, unsigned int *count)
{
    __shared__ int scan[BLOCK];
    __shared__ unsigned int base;
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    int keep = g < n && in[g] > threshold;
    scan[t] = keep;
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        int v = t >= off ? scan[t - off] : 0;
        __syncthreads();
        scan[t] += v;
        __syncthreads();
    }
    if (t == BLOCK - 1)
        base = atomicAdd(count, (unsigned int)scan[t]);
    __syncthreads();
    if (keep)
        out[base + scan[t] - 1] = g;
}
