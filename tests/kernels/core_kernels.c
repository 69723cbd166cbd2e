/* Kernels for the simulated driver used by the core suites. Each block does
 * blockDim.x threads' worth of work; memory is reached only through map(). */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "gpuguard/sim_kernel.h"

/* fill_u32(uint64 dst, uint32 value, uint32 n): dst[i] = value for i < n. */
GG_SIM_KERNEL_PARAMS(fill_u32, sizeof(uint64_t), sizeof(uint32_t), sizeof(uint32_t));
GG_SIM_KERNEL(fill_u32)
{
    uint64_t dst = GG_SIM_PARAM(b, uint64_t, 0);
    uint32_t value = GG_SIM_PARAM(b, uint32_t, 1);
    uint32_t n = GG_SIM_PARAM(b, uint32_t, 2);
    uint64_t first = (uint64_t)b->block_idx.x * b->block_dim.x;
    if (first >= n)
        return;
    uint64_t count = n - first < b->block_dim.x ? n - first : b->block_dim.x;
    uint32_t *p = b->rt->map(b, dst + first * 4, count * 4);
    if (p == NULL)
        return;
    for (uint64_t i = 0; i < count; i++)
        p[i] = value;
}

/* add_one_u32(uint64 data, uint32 n): data[i] += 1. */
GG_SIM_KERNEL_PARAMS(add_one_u32, sizeof(uint64_t), sizeof(uint32_t));
GG_SIM_KERNEL(add_one_u32)
{
    uint64_t data = GG_SIM_PARAM(b, uint64_t, 0);
    uint32_t n = GG_SIM_PARAM(b, uint32_t, 1);
    uint64_t first = (uint64_t)b->block_idx.x * b->block_dim.x;
    if (first >= n)
        return;
    uint64_t count = n - first < b->block_dim.x ? n - first : b->block_dim.x;
    uint32_t *p = b->rt->map(b, data + first * 4, count * 4);
    if (p == NULL)
        return;
    for (uint64_t i = 0; i < count; i++)
        p[i] += 1;
}

/* touch(uint64 ptr, uint64 bytes): maps [ptr, ptr+bytes); out of bounds is
 * the simulator's ILLEGAL_ADDRESS, like a stray store on a real GPU. */
GG_SIM_KERNEL_PARAMS(touch, sizeof(uint64_t), sizeof(uint64_t));
GG_SIM_KERNEL(touch)
{
    uint64_t ptr = GG_SIM_PARAM(b, uint64_t, 0);
    uint64_t bytes = GG_SIM_PARAM(b, uint64_t, 1);
    unsigned char *p = b->rt->map(b, ptr, bytes);
    if (p != NULL)
        p[0] ^= 0;
}

/* sleep_ms(uint32 ms): each block sleeps ms, in small steps so that the
 * watchdog or a destroy can cancel it. */
GG_SIM_KERNEL_PARAMS(sleep_ms, sizeof(uint32_t));
GG_SIM_KERNEL(sleep_ms)
{
    uint32_t ms = GG_SIM_PARAM(b, uint32_t, 0);
    for (uint32_t i = 0; i < ms && !b->rt->cancelled(b); i++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

/* noop(): does nothing; the simulator's misbehaviour rules target it by name. */
GG_SIM_KERNEL_NO_PARAMS(noop);
GG_SIM_KERNEL(noop)
{
    (void)b;
}

/* hang_me(): does nothing itself; tests configure the simulator to hang it. */
GG_SIM_KERNEL_NO_PARAMS(hang_me);
GG_SIM_KERNEL(hang_me)
{
    (void)b;
}

/* trap(): raises a device-side assert (CUDA_ERROR_ASSERT). */
GG_SIM_KERNEL_NO_PARAMS(trap);
GG_SIM_KERNEL(trap)
{
    b->rt->trap(b, GG_SIM_TRAP_ASSERT);
}

/* record_blocks(uint64 counts, uint32 gx, uint32 gy, uint32 offset, uint32 dim):
 * counts[(z * gy + y) * gx + x] += 1 for this block's place in the whole
 * grid, where the sliced dimension's index is blockIdx + offset. Chunked
 * launches must leave every count at exactly 1. */
GG_SIM_KERNEL_PARAMS(record_blocks, sizeof(uint64_t), sizeof(uint32_t), sizeof(uint32_t), sizeof(uint32_t),
                     sizeof(uint32_t));
GG_SIM_KERNEL(record_blocks)
{
    uint64_t counts = GG_SIM_PARAM(b, uint64_t, 0);
    uint32_t gx = GG_SIM_PARAM(b, uint32_t, 1);
    uint32_t gy = GG_SIM_PARAM(b, uint32_t, 2);
    uint32_t offset = GG_SIM_PARAM(b, uint32_t, 3);
    uint32_t dim = GG_SIM_PARAM(b, uint32_t, 4);
    uint64_t x = b->block_idx.x + (dim == 0 ? offset : 0);
    uint64_t y = b->block_idx.y + (dim == 1 ? offset : 0);
    uint64_t z = b->block_idx.z + (dim == 2 ? offset : 0);
    uint32_t *count = b->rt->map(b, counts + ((z * gy + y) * gx + x) * 4, 4);
    if (count != NULL)
        (*count)++;
}

/* spin(uint32 us_per_block, uint32 offset): busy for us_per_block per block,
 * a kernel of known cost for slice sizing and the watchdog. */
GG_SIM_KERNEL_PARAMS(spin, sizeof(uint32_t), sizeof(uint32_t));
GG_SIM_KERNEL(spin)
{
    uint32_t us = GG_SIM_PARAM(b, uint32_t, 0);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < (long)us &&
             !b->rt->cancelled(b));
}

/* Declares no parameters (no GG_SIM_KERNEL_PARAMS): the simulated driver
 * refuses it, and gpuguard's message must say why (test_messages.c). */
GG_SIM_KERNEL(no_param_declaration)
{
    (void)b;
}
