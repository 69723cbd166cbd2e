// Double-precision sin and cos; large arguments take the slow path of
// argument reduction, which nvcc emits as a device function
// (.func __internal_trig_reduction_slowpathd).
extern "C" __global__ void corpus_math_trig_f64(const double *x, double *s, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[i] = sin(x[i]);
        c[i] = cos(x[i]);
    }
}
