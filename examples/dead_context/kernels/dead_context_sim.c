/* scale(data, n, factor) for the simulated driver: data[i] *= factor, i < n.
 * Each block maps its whole range at once; a range past the allocation is
 * the simulator's ILLEGAL_ADDRESS, as a stray store is on a GPU. */
#include <stdint.h>

#include "gpuguard/sim_kernel.h"

GG_SIM_KERNEL_PARAMS(scale, sizeof(uint64_t), sizeof(uint32_t), sizeof(float));
GG_SIM_KERNEL(scale)
{
    uint64_t data = GG_SIM_PARAM(b, uint64_t, 0);
    uint32_t n = GG_SIM_PARAM(b, uint32_t, 1);
    float factor = GG_SIM_PARAM(b, float, 2);
    uint64_t first = (uint64_t)b->block_idx.x * b->block_dim.x;
    if (first >= n)
        return;
    uint64_t count = n - first < b->block_dim.x ? n - first : b->block_dim.x;
    float *p = b->rt->map(b, data + first * sizeof(float), count * sizeof(float));
    if (p == NULL)
        return;
    for (uint64_t i = 0; i < count; i++)
        p[i] *= factor;
}
