// Divergent if/else inside a data-dependent loop, integer division and
// remainder, shifts, min/max: lanes of one warp take different paths and
// must reconverge before the store.
extern "C" __global__ void divergent(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int acc = 0;
    int steps = (unsigned)v % 7u + (i & 3);
    for (int k = 0; k < steps; k++) {
        if ((v + k) & 1)
            acc += v / (k + 1) - (v % 5);
        else
            acc ^= (v << (k & 31)) >> 3;
        acc = max(acc, -1000000);
        acc = min(acc, 1000000);
    }
    out[i] = acc;
}
