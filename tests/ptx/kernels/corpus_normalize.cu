// Normalises each row of a float matrix by the row's sum (one block per
// row): each thread adds up a strided part of the row, a tree reduction in
// shared memory combines the parts, then every element is divided by the sum
// (IEEE division, div.rn.f32) and its magnitude clamped to cap with fminf
// (a NaN becomes cap: min returns its non-NaN operand). Written with a sign
// test rather than copysignf, whose copysign.f32 the interpreter lacks yet.
#define THREADS 256
extern "C" __global__ void corpus_normalize(const float *in, float *out, float *sums, int cols, float cap)
{
    __shared__ float part[THREADS];
    const float *row = in + blockIdx.x * cols;
    float *dst = out + blockIdx.x * cols;
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += THREADS)
        s += row[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            part[threadIdx.x] += part[threadIdx.x + stride];
        __syncthreads();
    }
    float total = part[0];
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
    for (int i = threadIdx.x; i < cols; i += THREADS) {
        float v = row[i] / total;
        dst[i] = v < 0.0f ? -fminf(-v, cap) : fminf(v, cap);
    }
}
