// Conversions between ints and floats with explicit rounding: float to int
// rounding to nearest even (cvt.rni), toward zero (cvt.rzi), down and up,
// float to unsigned, saturation to [0, 1], int to float and double to float,
// float to 64-bit ints, and the implicit C conversions.
extern "C" __global__ void corpus_convert(const float *f, const double *d, const int *k, int *to_int,
                                          unsigned int *to_uint, long long *to_ll, float *to_float, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    to_int[i * 5 + 0] = __float2int_rn(x);
    to_int[i * 5 + 1] = __float2int_rz(x);
    to_int[i * 5 + 2] = __float2int_rd(x);
    to_int[i * 5 + 3] = __float2int_ru(x);
    to_int[i * 5 + 4] = (int)d[i];
    to_uint[i * 2 + 0] = __float2uint_rn(x);
    to_uint[i * 2 + 1] = (unsigned int)d[i];
    to_ll[i * 2 + 0] = __float2ll_rz(x);
    to_ll[i * 2 + 1] = __double2ll_rn(d[i]);
    to_float[i * 5 + 0] = __saturatef(x);
    to_float[i * 5 + 1] = (float)k[i];
    to_float[i * 5 + 2] = (float)d[i];
    to_float[i * 5 + 3] = rintf(x);
    to_float[i * 5 + 4] = truncf(x) + floorf(x) * 0.5f;
}
