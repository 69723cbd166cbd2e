/*
 * The kernel of the watchdog story, for gpuguard's simulated driver (built
 * into build/kernels/story_kernels.so). Both programs launch it the same
 * way; the configuration in story_config.json makes each block take 5 ms,
 * so the whole grid runs past the display GPU's 2 s watchdog while a slice
 * of it does not.
 */
#include <gpuguard/sim_kernel.h>

/* scale(data, n, factor, block_offset): data[i] *= factor for the i of
 * block (block_offset + blockIdx.x). block_offset lets a launch cover one
 * slice of the grid (gpuguard's launch_chunked sets it). */
GG_SIM_KERNEL_PARAMS(scale, sizeof(uint64_t), sizeof(unsigned), sizeof(float), sizeof(unsigned));
GG_SIM_KERNEL(scale)
{
    uint64_t data = GG_SIM_PARAM(b, uint64_t, 0);
    unsigned n = GG_SIM_PARAM(b, unsigned, 1);
    float factor = GG_SIM_PARAM(b, float, 2);
    unsigned block = GG_SIM_PARAM(b, unsigned, 3) + b->block_idx.x;
    unsigned first = block * b->block_dim.x;
    if (first >= n)
        return;
    unsigned count = n - first < b->block_dim.x ? n - first : b->block_dim.x;
    float *p = b->rt->map(b, data + (uint64_t)first * sizeof(float), count * sizeof(float));
    if (!p)
        return;
    for (unsigned t = 0; t < count; t++)
        p[t] *= factor;
}
