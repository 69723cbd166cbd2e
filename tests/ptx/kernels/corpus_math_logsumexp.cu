// Log-sum-exp over rows, one block per row, the numerically stable way: the
// row's maximum by a shared-memory tree of fmaxf, then m + logf(sum of
// expf(x - m)) with the sum reduced the same way; and the functions alone in
// float (logf, expf) and double (log, exp). The warp-shuffle form of the
// same reduction is corpus_math_lse_warp.cu.
#define THREADS 64
extern "C" __global__ void corpus_math_logsumexp(const float *in, float *out, int cols)
{
    __shared__ float red[THREADS];
    const float *r = in + blockIdx.x * cols;
    float m = -INFINITY;
    for (int i = threadIdx.x; i < cols; i += THREADS)
        m = fmaxf(m, r[i]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += THREADS)
        sum += expf(r[i] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = m + logf(red[0]);
}

extern "C" __global__ void corpus_math_explog(const float *x, float *lf, float *ef, const double *d, double *ld,
                                              double *ed, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        lf[i] = logf(x[i]);
        ef[i] = expf(x[i]);
        ld[i] = log(d[i]);
        ed[i] = exp(d[i]);
    }
}
