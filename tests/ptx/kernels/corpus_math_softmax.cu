// Softmax over the rows of a float matrix, one block per row, as a user
// writes it: the row's maximum and the sum of expf(x - max) are reduced in
// shared memory (a tree of fmaxf, then a tree of sums), and each element is
// divided by the sum. expf is CUDA's math library (not the __expf intrinsic).
#define THREADS 128
extern "C" __global__ void corpus_math_softmax(const float *in, float *out, int cols)
{
    __shared__ float red[THREADS];
    const float *row = in + blockIdx.x * cols;
    float *dst = out + blockIdx.x * cols;
    float m = -INFINITY;
    for (int i = threadIdx.x; i < cols; i += THREADS)
        m = fmaxf(m, row[i]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    float rowmax = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += THREADS) {
        float e = expf(row[i] - rowmax);
        dst[i] = e;
        sum += e;
    }
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float total = red[0];
    for (int i = threadIdx.x; i < cols; i += THREADS)
        dst[i] = dst[i] / total;
}

// expf on its own over any inputs (edges included), for its ulp bound.
extern "C" __global__ void corpus_math_expf(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = expf(x[i]);
}
