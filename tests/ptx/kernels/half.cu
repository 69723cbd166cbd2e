// Half precision through cuda_fp16.h (tests/ptx/test_ptx_half.c): nvcc
// turns these into cvt to and from .f16, setp/add/sub/mul/fma on .f16,
// integer <-> half conversions.
#include <cuda_fp16.h>

// Per element: conversions of a (f32) and d (f64) to half, then the half
// arithmetic of the pair; each result as its 16 bits.
extern "C" __global__ void half_ops(const float *a, const float *b, const float *c,
                                    const double *d, unsigned short *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half ha = __float2half_rn(a[i]), hb = __float2half_rn(b[i]), hc = __float2half_rn(c[i]);
    unsigned short *o = out + 10 * i;
    o[0] = __half_as_ushort(ha);
    o[1] = __half_as_ushort(__double2half(d[i]));
    o[2] = __half_as_ushort(__hadd(ha, hb));
    o[3] = __half_as_ushort(__hsub(ha, hb));
    o[4] = __half_as_ushort(__hmul(ha, hb));
    o[5] = __half_as_ushort(__hfma(ha, hb, hc));
    o[6] = (unsigned short)((__hlt(ha, hb) ? 1 : 0) | (__hgeu(ha, hb) ? 2 : 0) |
                            (__heq(ha, hb) ? 4 : 0));
    o[7] = __half_as_ushort(__int2half_rn((int)d[i]));
    o[8] = (unsigned short)__half2int_rz(ha);
    o[9] = __half_as_ushort(__float2half_rz(a[i]));
}

// Half to wider floats: f32 and f64 from each element's half bits.
extern "C" __global__ void half_widen(const unsigned short *h, float *f, double *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half x = __ushort_as_half(h[i]);
    f[i] = __half2float(x);
    d[i] = (double)__half2float(x); // through f32: nvcc has no direct cvt.f64.f16 here
}
