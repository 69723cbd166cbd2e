/* Simulator kernels of the consumer, built with the installed
 * gg_add_sim_module and the installed gpuguard/sim_kernel.h. */
#include <gpuguard/sim_kernel.h>

/* data[i] *= 2 for i < n, one thread per element. */
GG_SIM_KERNEL_PARAMS(double_it, sizeof(uint64_t), sizeof(unsigned));
GG_SIM_KERNEL(double_it)
{
    uint64_t data = GG_SIM_PARAM(b, uint64_t, 0);
    unsigned n = GG_SIM_PARAM(b, unsigned, 1);
    for (unsigned t = 0; t < b->block_dim.x; t++) {
        unsigned i = b->block_idx.x * b->block_dim.x + t;
        if (i >= n)
            continue;
        int *v = b->rt->map(b, data + (uint64_t)i * sizeof(int), sizeof(int));
        if (v == NULL)
            return;
        *v *= 2;
    }
}

/* No GG_SIM_KERNEL_PARAMS: the simulated driver refuses it, and
 * gpuguard's message must say why. */
GG_SIM_KERNEL(forgot)
{
    (void)b;
}
