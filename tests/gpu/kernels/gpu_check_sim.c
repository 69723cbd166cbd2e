/* The kernels of gpu_check.cu for gpuguard's simulated driver, with the same
 * names and parameters, so that the acceptance runner can be exercised over
 * the simulator (ctest gpu_check_sim) before it ever meets a GPU. Device
 * memory is reached through map(); the hang kernel's flag is page-locked host
 * memory, which a host function reads directly. The traps use the
 * simulator's device-side faults (sim_kernel.h). */
#include <stdint.h>
#include <time.h>

#include "gpuguard/sim_kernel.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The range of this block's threads that fall below n, as [first, first+count). */
static uint64_t block_span(const gg_sim_block *b, uint32_t n, uint64_t *first)
{
    *first = (uint64_t)b->block_idx.x * b->block_dim.x;
    if (*first >= n)
        return 0;
    return n - *first < b->block_dim.x ? n - *first : b->block_dim.x;
}

GG_SIM_KERNEL_PARAMS(fill_u32, sizeof(uint64_t), sizeof(uint32_t), sizeof(uint32_t));
GG_SIM_KERNEL(fill_u32)
{
    uint64_t first;
    uint64_t count = block_span(b, GG_SIM_PARAM(b, uint32_t, 2), &first);
    if (count == 0)
        return;
    uint32_t *p = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0) + first * 4, count * 4);
    for (uint64_t i = 0; p != NULL && i < count; i++)
        p[i] = GG_SIM_PARAM(b, uint32_t, 1);
}

GG_SIM_KERNEL_PARAMS(add_one_u32, sizeof(uint64_t), sizeof(uint32_t));
GG_SIM_KERNEL(add_one_u32)
{
    uint64_t first;
    uint64_t count = block_span(b, GG_SIM_PARAM(b, uint32_t, 1), &first);
    if (count == 0)
        return;
    uint32_t *p = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0) + first * 4, count * 4);
    for (uint64_t i = 0; p != NULL && i < count; i++)
        p[i] += 1;
}

GG_SIM_KERNEL_PARAMS(oob_store, sizeof(uint64_t), sizeof(uint64_t), sizeof(uint32_t));
GG_SIM_KERNEL(oob_store)
{
    if (b->block_idx.x != 0)
        return;
    uint64_t at = GG_SIM_PARAM(b, uint64_t, 0) + GG_SIM_PARAM(b, uint64_t, 1) * 4;
    uint32_t *p = b->rt->map(b, at, 4); /* out of bounds: ILLEGAL_ADDRESS */
    if (p != NULL)
        *p = GG_SIM_PARAM(b, uint32_t, 2);
}

GG_SIM_KERNEL_PARAMS(spin_on_flag, sizeof(uint64_t), sizeof(uint64_t), sizeof(uint64_t), sizeof(uint64_t));
GG_SIM_KERNEL(spin_on_flag)
{
    if (b->block_idx.x != 0)
        return;
    const uint32_t *flag = (const uint32_t *)(uintptr_t)GG_SIM_PARAM(b, uint64_t, 0);
    uint64_t max_ns = GG_SIM_PARAM(b, uint64_t, 2);
    uint64_t start = now_ns();
    uint32_t value;
    while ((value = __atomic_load_n(flag, __ATOMIC_SEQ_CST)) == 0) {
        if (now_ns() - start > max_ns || b->rt->cancelled(b)) {
            value = 0xFFFFFFFFu;
            break;
        }
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
    uint32_t *seen = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 1), 4);
    if (seen != NULL)
        *seen = value;
    /* The last touch of the host's memory: the host frees it once it sees this. */
    __atomic_store_n((uint32_t *)(uintptr_t)GG_SIM_PARAM(b, uint64_t, 3), 1u, __ATOMIC_SEQ_CST);
}

GG_SIM_KERNEL_PARAMS(trap_kernel, sizeof(uint32_t));
GG_SIM_KERNEL(trap_kernel)
{
    b->rt->trap(b, GG_SIM_TRAP_LAUNCH_FAILED);
}

GG_SIM_KERNEL_PARAMS(assert_kernel, sizeof(uint32_t));
GG_SIM_KERNEL(assert_kernel)
{
    if (GG_SIM_PARAM(b, uint32_t, 0) != 0)
        b->rt->trap(b, GG_SIM_TRAP_ASSERT);
}

GG_SIM_KERNEL_PARAMS(chunk_mark, sizeof(uint64_t), sizeof(uint64_t), sizeof(uint32_t));
GG_SIM_KERNEL(chunk_mark)
{
    uint64_t block = (uint64_t)b->block_idx.x + GG_SIM_PARAM(b, uint32_t, 2);
    /* Blocks run one at a time per launch here: no atomic needed. */
    uint32_t *mark = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0) + block * 4, 4);
    if (mark == NULL)
        return;
    *mark += 1;
    uint64_t block_ns = GG_SIM_PARAM(b, uint64_t, 1);
    uint64_t start = now_ns();
    while (now_ns() - start < block_ns && !b->rt->cancelled(b)) {
    }
}

GG_SIM_KERNEL_PARAMS(noop, sizeof(uint32_t));
GG_SIM_KERNEL(noop)
{
    (void)b;
}
