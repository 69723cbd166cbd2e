// Per-lane math the PTX interpreter must get right: directed rounding,
// square roots and the .approx functions (f32, f64), bit manipulation. Each
// thread runs every operation on its own inputs; tests/ptx/
// test_ptx_math_kernel.c compares each result with a host C reference.

extern "C" __global__ void math_f32(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + (size_t)i * 16;
    o[0] = __fsqrt_rz(x);
    o[1] = __fsqrt_rd(x);
    o[2] = __fsqrt_ru(x);
    o[3] = __fmaf_rd(x, y, z);
    o[4] = __fmaf_rz(x, y, z);
    o[5] = __fmaf_ru(x, y, z);
    o[6] = __fadd_rz(x, y);
    o[7] = __fmul_rd(x, y);
    o[8] = __fdiv_ru(x, y);
    o[9] = copysignf(x, y);
    o[10] = rsqrtf(x);
    o[11] = exp2f(y);
    o[12] = __log2f(x);
    o[13] = __sinf(y);
    o[14] = __cosf(y);
    o[15] = sqrtf(x);
}

extern "C" __global__ void math_f64(const double *a, const double *b, const double *c, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + (size_t)i * 8;
    o[0] = __dsqrt_rz(x);
    o[1] = __fma_rd(x, y, z);
    o[2] = __fma_ru(x, y, z);
    o[3] = __dadd_rz(x, y);
    o[4] = __ddiv_rd(x, y);
    o[5] = copysign(x, y);
    o[6] = rsqrt(x);
    o[7] = sqrt(x);
}

extern "C" __global__ void math_bits(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i], s = c[i];
    unsigned long long xy = ((unsigned long long)x << 32) | y;
    unsigned *o = out + (size_t)i * 20;
    o[0] = __brev(x);
    o[1] = __popc(x);
    o[2] = __clz(x);
    o[3] = __byte_perm(x, y, s);
    o[4] = __funnelshift_l(x, y, s);
    o[5] = __funnelshift_r(x, y, s);
    o[6] = __funnelshift_lc(x, y, s);
    o[7] = __funnelshift_rc(x, y, s);
    o[8] = __sad((int)x, (int)y, s);
    o[9] = __popcll(xy);
    o[10] = __clzll(xy >> (s & 63));
    o[11] = __ffs(x);
    unsigned long long r = __brevll(xy);
    o[12] = (unsigned)r;
    o[13] = (unsigned)(r >> 32);
    unsigned d;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(s & 0xff), "r"((s >> 8) & 0xff));
    o[14] = d;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(s & 0xff), "r"((s >> 8) & 0xff));
    o[15] = d;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(x), "r"(y), "r"(s & 0xff), "r"((s >> 8) & 0xff));
    o[16] = d;
    asm("bfind.s32 %0, %1;" : "=r"(d) : "r"(x));
    o[17] = d;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(s));
    o[18] = d;
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(s));
    o[19] = d;
}
