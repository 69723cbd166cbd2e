// 64-bit integer arithmetic: signed and unsigned division and remainder
// (guarded against zero divisors and INT64_MIN / -1 as careful code is),
// the high halves of 64x64 products, and 64-bit shifts by variable amounts.
extern "C" __global__ void corpus_int64(const long long *a, const long long *b, long long *sq, long long *sr,
                                        unsigned long long *uq, unsigned long long *ur, long long *mulhi,
                                        unsigned long long *umulhi, unsigned long long *shifts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i], y = b[i];
    if (y == 0) {
        sq[i] = 0;
        sr[i] = x;
    } else if (y == -1) {
        sq[i] = (long long)(0ull - (unsigned long long)x);
        sr[i] = 0;
    } else {
        sq[i] = x / y;
        sr[i] = x % y;
    }
    unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y;
    uq[i] = uy ? ux / uy : ~0ull;
    ur[i] = uy ? ux % uy : ux;
    mulhi[i] = __mul64hi(x, y);
    umulhi[i] = __umul64hi(ux, uy);
    unsigned int s = (unsigned int)uy & 63u;
    shifts[i] = (ux << s) ^ (unsigned long long)(x >> s) ^ (ux >> (63u - s));
}
