// Bitonic sort of 1024 ints per block in shared memory (ascending): 512
// threads, each compares and swaps two elements per step, a barrier between
// steps. Each block sorts its own 1024-element segment.
#define N 1024
extern "C" __global__ void corpus_bitonic(int *data)
{
    __shared__ int s[N];
    int *seg = data + blockIdx.x * N;
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        s[i] = seg[i];
    __syncthreads();
    for (int k = 2; k <= N; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < N; i += blockDim.x) {
                int ixj = i ^ j;
                if (ixj > i) {
                    int a = s[i], b = s[ixj];
                    bool up = (i & k) == 0;
                    if ((a > b) == up) {
                        s[i] = b;
                        s[ixj] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        seg[i] = s[i];
}
