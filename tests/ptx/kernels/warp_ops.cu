// Warp-level intrinsics: shuffles of every mode at several widths, votes
// and ballots in divergent code, and the active mask. Each kernel writes
// what every lane saw, so the host can check lane by lane.

// Lane i of `out` (four values a lane): __shfl_down_sync, __shfl_up_sync,
// __shfl_xor_sync and __shfl_sync(src) at `width` over in[]; the lanes with
// skip[i] != 0 take no part (they leave the warp first), so the others read
// those lanes as inactive.
extern "C" __global__ void shuffles(const int *in, const int *skip, int *out, int width,
                                    int delta, int src)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (skip[i])
        return;
    unsigned mask = __activemask();
    int v = in[i];
    out[4 * i + 0] = __shfl_down_sync(mask, v, delta, width);
    out[4 * i + 1] = __shfl_up_sync(mask, v, delta, width);
    out[4 * i + 2] = __shfl_xor_sync(mask, v, delta, width);
    out[4 * i + 3] = __shfl_sync(mask, v, src, width);
}

// A warp-shuffle sum reduction with full width: lane 0 of each warp writes
// its warp's sum; then a butterfly sum every lane of each warp holds.
extern "C" __global__ void shuffle_sums(const int *in, int *warp_sum, int *all_sum)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i], b = v;
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0)
        warp_sum[i / 32] = v;
    for (int d = 1; d < 32; d *= 2)
        b += __shfl_xor_sync(0xffffffffu, b, d);
    all_sum[i] = b;
}

// double through shuffles (two b32 shuffles of its halves).
extern "C" __global__ void shuffle_double(const double *in, double *out)
{
    unsigned i = threadIdx.x;
    out[i] = __shfl_sync(0xffffffffu, in[i], 31 - (int)(i & 31));
}

// Votes inside a divergent branch: only lanes with sel[i] != 0 run them.
// Per lane: ballot, all, any, activemask, and __shfl_down_sync's predicate
// as a 0/1 (through inline PTX, which CUDA does not expose).
extern "C" __global__ void votes(const int *sel, const int *pred, unsigned *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (sel[i]) {
        unsigned mask = __activemask();
        int p = pred[i];
        out[5 * i + 0] = __ballot_sync(mask, p);
        out[5 * i + 1] = __all_sync(mask, p);
        out[5 * i + 2] = __any_sync(mask, p);
        out[5 * i + 3] = mask;
        out[5 * i + 4] = __uni_sync(mask, p);
    } else {
        out[5 * i + 3] = __activemask();
    }
}

// match.any / match.all over the values in[] (sm_70 and later).
extern "C" __global__ void matches(const int *in, unsigned *out)
{
    unsigned i = threadIdx.x;
    int pred;
    out[3 * i + 0] = __match_any_sync(0xffffffffu, in[i]);
    out[3 * i + 1] = __match_all_sync(0xffffffffu, in[i], &pred);
    out[3 * i + 2] = (unsigned)pred;
}
