// Double-precision pow; nvcc emits its core as a device function
// (.func __internal_accurate_pow).
extern "C" __global__ void corpus_math_pow_f64(const double *x, const double *y, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = pow(x[i], y[i]);
}
