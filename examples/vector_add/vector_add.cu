// vector_add for a real CUDA GPU: c[i] = a[i] + b[i], i < n.
//
// Compiled to PTX (build/kernels/vector_add.ptx) when CMake finds nvcc; the
// example loads it with gg_module_create_from_file. extern "C" keeps the symbol
// name plain for gg_kernel_create. The parameters match kernels/vector_add_sim.c.
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
