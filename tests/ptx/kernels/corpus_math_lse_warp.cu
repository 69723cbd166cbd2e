// Log-sum-exp over rows, one warp per row, as warp-level code writes it:
// the maximum and the sum of expf(x - m) reduced by __shfl_xor_sync
// butterflies, then m + logf(sum).
extern "C" __global__ void corpus_math_lse_warp(const float *in, float *out, int rows, int cols)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *r = in + row * cols;
    float m = -INFINITY;
    for (int i = lane; i < cols; i += 32)
        m = fmaxf(m, r[i]);
    for (int off = 16; off > 0; off >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float s = 0.0f;
    for (int i = lane; i < cols; i += 32)
        s += expf(r[i] - m);
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, off);
    if (lane == 0)
        out[row] = m + logf(s);
}
