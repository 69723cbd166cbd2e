// Extended-precision arithmetic through the carry flag, as CUDA code writes
// it (inline PTX; CUDA's math library does the same in the slow path of
// double sin/cos): 128-bit add and subtract as four 32-bit limbs, a 64 x 64
// -> 128-bit multiply from 32-bit mad.lo.cc / madc.hi, 64-bit add.cc, and a
// carry that lanes leave alone when their guard is false.
#include <stdint.h>

extern "C" __global__ void wide_add_sub(const uint32_t *a, const uint32_t *b, uint32_t *sum, uint32_t *diff,
                                        int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t *x = a + 4 * i, *y = b + 4 * i;
    uint32_t s0, s1, s2, s3, d0, d1, d2, d3;
    asm("add.cc.u32 %0, %4, %8;\n\t"
        "addc.cc.u32 %1, %5, %9;\n\t"
        "addc.cc.u32 %2, %6, %10;\n\t"
        "addc.u32 %3, %7, %11;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
        : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
    asm("sub.cc.u32 %0, %4, %8;\n\t"
        "subc.cc.u32 %1, %5, %9;\n\t"
        "subc.cc.u32 %2, %6, %10;\n\t"
        "subc.u32 %3, %7, %11;"
        : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
        : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
    uint32_t *s = sum + 4 * i, *d = diff + 4 * i;
    s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
    d[0] = d0; d[1] = d1; d[2] = d2; d[3] = d3;
}

// (hi:lo) = x * y for 64-bit x, y from 32-bit limbs; then 64-bit add.cc /
// addc of lo + hi with the carry into a third word.
extern "C" __global__ void wide_mul(const uint64_t *a, const uint64_t *b, uint64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x0 = (uint32_t)a[i], x1 = (uint32_t)(a[i] >> 32);
    uint32_t y0 = (uint32_t)b[i], y1 = (uint32_t)(b[i] >> 32);
    uint32_t r0, r1, r2, r3;
    asm("mul.lo.u32 %0, %4, %6;\n\t"
        "mul.hi.u32 %1, %4, %6;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.u32 %2, %5, %6, 0;\n\t"
        "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
        "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
        "addc.u32 %3, 0, 0;\n\t"
        "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
        "madc.hi.u32 %3, %5, %7, %3;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
        : "r"(x0), "r"(x1), "r"(y0), "r"(y1));
    uint64_t lo = ((uint64_t)r1 << 32) | r0, hi = ((uint64_t)r3 << 32) | r2, s, c;
    asm("add.cc.u64 %0, %2, %3;\n\t"
        "addc.u64 %1, 0, 0;"
        : "=l"(s), "=l"(c)
        : "l"(lo), "l"(hi));
    out[4 * i] = lo;
    out[4 * i + 1] = hi;
    out[4 * i + 2] = s;
    out[4 * i + 3] = c;
}

// Odd lanes skip the add.cc that would set their carry: their addc sees the
// carry of the earlier add.cc (all lanes), even lanes the later one.
extern "C" __global__ void guarded_carry(const uint32_t *a, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t r, odd = threadIdx.x & 1;
    asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
        "setp.eq.u32 p, %2, 0;\n\t"
        "add.cc.u32 t, %1, 1;\n\t"          // carry: a == 0xffffffff
        "@p add.cc.u32 t, %1, 0x80000000;\n\t" // even lanes: carry: a >= 0x80000000
        "addc.u32 %0, 0, 0;\n\t}"
        : "=r"(r)
        : "r"(a[i]), "r"(odd));
    out[i] = r;
}
