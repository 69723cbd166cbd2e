// Integer hashing: MurmurHash3's 32-bit finaliser (fmix32) and the 64-bit one
// (fmix64), and FNV-1a over the 4 bytes of each key: shifts, xors and
// wrapping multiplies (mul.lo) in 32 and 64 bits.
extern "C" __global__ void corpus_hash(const unsigned int *keys, unsigned int *h32, unsigned long long *h64,
                                       unsigned int *fnv, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int k = keys[i];
    unsigned int h = k;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    h32[i] = h;
    // (k << 32) | (k ^ 0x9e3779b9), written as a multiply: the or of the two
    // halves compiles to bfi.b64, which the interpreter does not run yet.
    unsigned long long g = (unsigned long long)k * 0x100000001ull ^ 0x9e3779b9ull;
    g ^= g >> 33;
    g *= 0xff51afd7ed558ccdull;
    g ^= g >> 33;
    g *= 0xc4ceb9fe1a85ec53ull;
    g ^= g >> 33;
    h64[i] = g;
    unsigned int f = 2166136261u;
    for (int b = 0; b < 4; b++) {
        f ^= (k >> (8 * b)) & 0xffu;
        f *= 16777619u;
    }
    fnv[i] = f;
}
