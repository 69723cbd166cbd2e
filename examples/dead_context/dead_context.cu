// scale(data, n, factor) for a real CUDA GPU: data[i] *= factor for i < n.
// The same parameters as kernels/dead_context_sim.c.
extern "C" __global__ void scale(float *data, unsigned n, float factor)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] *= factor;
}
