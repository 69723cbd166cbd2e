/*
 * vector_add for gpuguard's simulated driver: c[i] = a[i] + b[i], i < n.
 *
 * The same kernel as vector_add.cu, written as a host C function that the
 * simulator calls once per block (see gpuguard/sim_kernel.h). Its parameters
 * match the .cu kernel's one for one: three device addresses and n.
 */
#include <stdint.h>

#include "gpuguard/sim_kernel.h"

/* The simulator cannot read parameter sizes from a host function (a GPU
 * driver reads them from the compiled image), so they are declared here. */
GG_SIM_KERNEL_PARAMS(vector_add, sizeof(uint64_t), sizeof(uint64_t), sizeof(uint64_t),
                     sizeof(unsigned));

GG_SIM_KERNEL(vector_add)
{
    uint64_t a_dev = GG_SIM_PARAM(b, uint64_t, 0);
    uint64_t b_dev = GG_SIM_PARAM(b, uint64_t, 1);
    uint64_t c_dev = GG_SIM_PARAM(b, uint64_t, 2);
    unsigned n = GG_SIM_PARAM(b, unsigned, 3);

    /* This block's threads cover [first, first + count), cut off at n just as
     * the .cu kernel's `if (i < n)` cuts off the last block's extra threads. */
    uint64_t first = (uint64_t)b->block_idx.x * b->block_dim.x;
    if (first >= n)
        return;
    uint64_t count = n - first;
    if (count > b->block_dim.x)
        count = b->block_dim.x;

    /* Map the block's whole range once rather than per element: map() is a
     * bounds check against the live allocations. NULL means out of bounds;
     * the launch is already failing with ILLEGAL_ADDRESS, so just return. */
    size_t bytes = (size_t)count * sizeof(float);
    const float *a = b->rt->map(b, a_dev + first * sizeof(float), bytes);
    const float *bb = b->rt->map(b, b_dev + first * sizeof(float), bytes);
    float *c = b->rt->map(b, c_dev + first * sizeof(float), bytes);
    if (!a || !bb || !c)
        return;

    for (uint64_t t = 0; t < count; t++)
        c[t] = a[t] + bb[t];
}
