// The bit-level forms the first corpus avoided, as users write them:
// copysignf, bytes of a uchar4 (prmt), __popc/__clz/__brev/__ffs, and a
// 64-bit key made as (k << 32) | x (bfi.b64 or mov.b64 of a pair).
extern "C" __global__ void corpus_math_bits(const float *mag, const float *sgn, float *cs, const uchar4 *px,
                                            unsigned *packed, const unsigned *w, int *pop, int *clz,
                                            unsigned *brev, int *ffs, unsigned long long *key, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    cs[i] = copysignf(mag[i], sgn[i]);
    uchar4 p = px[i];
    // Swap red and blue, keep green, alpha becomes the brightest channel.
    unsigned char a = max(p.x, max(p.y, p.z));
    packed[i] = (unsigned)p.z | (unsigned)p.y << 8 | (unsigned)p.x << 16 | (unsigned)a << 24;
    unsigned v = w[i];
    pop[i] = __popc(v);
    clz[i] = __clz(v);
    brev[i] = __brev(v);
    ffs[i] = __ffs(v);
    unsigned long long k = (unsigned long long)(unsigned)i;
    key[i] = (k << 32) | v;
}
