// Writes one element past the end of its buffer from the last thread.
extern "C" __global__ void oob_store(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;              // i == n for the last thread: out of bounds
    (void)n;
}
