/*
 * Kernels the PyCUDA tests launch on the simulated driver (built into
 * build/kernels/pycuda_kernels.so; PyCUDA's module_from_file loads it with
 * cuModuleLoad, module_from_buffer with cuModuleLoadDataEx).
 */
#include <gpuguard/sim_kernel.h>

/* scale_add(a, x, n, y): y[i] = a * x[i] + y[i] for i < n (float32), one
 * thread per element. Parameters of 4, 8, 4 and 8 bytes: the 8-byte ones
 * sit at offsets 8 and 24 of a packed buffer, so a launch through PyCUDA's
 * `extra` form only computes if the simulator honours the alignment. */
GG_SIM_KERNEL_PARAMS(scale_add, sizeof(float), sizeof(uint64_t), sizeof(unsigned), sizeof(uint64_t));
GG_SIM_KERNEL(scale_add)
{
    float a = GG_SIM_PARAM(b, float, 0);
    uint64_t x = GG_SIM_PARAM(b, uint64_t, 1);
    unsigned n = GG_SIM_PARAM(b, unsigned, 2);
    uint64_t y = GG_SIM_PARAM(b, uint64_t, 3);
    unsigned threads = b->block_dim.x * b->block_dim.y * b->block_dim.z;
    unsigned first = b->block_idx.x * threads;
    if (first >= n)
        return;
    unsigned count = n - first < threads ? n - first : threads;
    const float *xs = b->rt->map(b, x + (uint64_t)first * sizeof(float), count * sizeof(float));
    float *ys = b->rt->map(b, y + (uint64_t)first * sizeof(float), count * sizeof(float));
    if (!xs || !ys)
        return;
    for (unsigned t = 0; t < count; t++)
        ys[t] = a * xs[t] + ys[t];
}
