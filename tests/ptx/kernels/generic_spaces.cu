// State spaces and generic addresses: a module .global table with an
// initialiser, a per-thread local array indexed at run time (the local
// depot), static shared memory, and one generic pointer that points into
// shared memory for odd threads and into global memory for even ones.
__device__ int table[4] = {10, 20, 30, 40};

extern "C" __global__ void generic_spaces(int *out, int pick)
{
    __shared__ int sh[64];
    int local[16];
    int t = threadIdx.x;
    for (int i = 0; i < 16; i++)
        local[i] = t * i;
    sh[t] = t + 1000;
    __syncthreads();
    int *p = (t & 1) ? &sh[(t + pick) & 63] : &out[t + 64];
    int v = *p;
    out[t] = v + local[(t + pick) & 15] + table[t & 3];
    table[t & 3] += 0; // keeps the table a writable .global
}
