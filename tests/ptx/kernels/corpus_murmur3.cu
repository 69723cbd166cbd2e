// MurmurHash3_x86_32 of each 16-byte record (4 words), with the rotates
// written as shift pairs as portable C does; nvcc turns them into funnel
// shifts (shf.l.wrap.b32).
__device__ unsigned int rotl32(unsigned int x, int r) { return (x << r) | (x >> (32 - r)); }
extern "C" __global__ void corpus_murmur3(const unsigned int *records, unsigned int seed, unsigned int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int h = seed;
    for (int w = 0; w < 4; w++) {
        unsigned int k = records[i * 4 + w];
        k *= 0xcc9e2d51u;
        k = rotl32(k, 15);
        k *= 0x1b873593u;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    h ^= 16u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    out[i] = h;
}
