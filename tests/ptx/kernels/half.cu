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

// The other single-half operations: abs, neg, integral roundings in half,
// set (__hisnan),
// .sat arithmetic, and conversions between halves and 16/64-bit integers.
extern "C" __global__ void half_more(const float *a, const float *b, const long long *s,
                                    unsigned short *out, long long *wide, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half ha = __float2half_rn(a[i]), hb = __float2half_rn(b[i]);
    unsigned short *o = out + 11 * i;
    o[0] = __half_as_ushort(__habs(ha));
    o[1] = __half_as_ushort(__hneg(ha));
    o[2] = __half_as_ushort(hrint(ha));
    o[3] = __half_as_ushort(hfloor(ha));
    o[4] = __half_as_ushort(hceil(ha));
    o[5] = __half_as_ushort(htrunc(ha));
    o[6] = __half_as_ushort(__hadd_sat(ha, hb));
    o[7] = __half_as_ushort(__hfma_sat(ha, hb, ha));
    o[8] = __half_as_ushort(__short2half_rn((short)s[i]));
    o[9] = __half_as_ushort(__ull2half_rn((unsigned long long)s[i]));
    o[10] = (unsigned short)((__hisnan(ha) ? 1 : 0) | (__hisinf(ha) ? 2 : 0)); // set.nan.f16.f16
    wide[2 * i] = __half2ll_rn(ha);
    wide[2 * i + 1] = (long long)__half2ull_rd(ha);
}
