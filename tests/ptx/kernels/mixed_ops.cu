// Integer and float arithmetic whose PTX semantics differ from C's
// undefined behaviour: division by zero, shifts by the width or more,
// float-to-int conversion of NaN and out-of-range values, fma, 64-bit
// math, atomics on a global counter, selp and abs/neg.
extern "C" __global__ void mixed_ops(const int *a, const int *b, const float *f,
                                     int *iout, float *fout, long long *lout,
                                     unsigned *counter, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    float g = f[i];
    iout[i * 8 + 0] = x / y;
    iout[i * 8 + 1] = x % y;
    iout[i * 8 + 2] = (int)((unsigned)x / (unsigned)y);
    iout[i * 8 + 3] = x << (y & 63);
    iout[i * 8 + 4] = (unsigned)x >> (y & 63);
    iout[i * 8 + 5] = x >> (y & 63);
    iout[i * 8 + 6] = (int)g;
    iout[i * 8 + 7] = (x < y ? abs(x) : -y) ^ (int)(unsigned)g;
    fout[i * 4 + 0] = fmaf(g, (float)x, 0.5f);
    fout[i * 4 + 1] = g / (float)(y | 1);
    fout[i * 4 + 2] = fminf(g, (float)y) - fmaxf(g, -2.5f);
    fout[i * 4 + 3] = (float)((double)g * 3.0 + (double)x);
    lout[i] = (long long)x * (long long)y + ((long long)i << 40);
    atomicAdd(counter, (unsigned)(x & 15));
}
