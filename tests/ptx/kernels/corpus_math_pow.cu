// powf as users call it (a gamma curve and a free pair of operands).
extern "C" __global__ void corpus_math_powf(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = powf(x[i], y[i]);
}
