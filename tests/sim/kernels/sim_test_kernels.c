/*
 * Kernels for the simulated driver's own tests (built into
 * build/kernels/sim_test_kernels.so).
 */
#include <gpuguard/sim_kernel.h>

#include <time.h>

/* fill(ptr, n, value): element i = value, one thread per element. */
GG_SIM_KERNEL_PARAMS(fill, sizeof(uint64_t), sizeof(unsigned), sizeof(unsigned));
GG_SIM_KERNEL(fill)
{
    uint64_t ptr = GG_SIM_PARAM(b, uint64_t, 0);
    unsigned n = GG_SIM_PARAM(b, unsigned, 1);
    unsigned value = GG_SIM_PARAM(b, unsigned, 2);
    unsigned first = b->block_idx.x * b->block_dim.x;
    if (first >= n)
        return;
    unsigned count = n - first < b->block_dim.x ? n - first : b->block_dim.x;
    unsigned *p = b->rt->map(b, ptr + (uint64_t)first * sizeof(unsigned), count * sizeof(unsigned));
    if (!p)
        return;
    for (unsigned t = 0; t < count; t++)
        p[t] = value;
}

/* append(buf, value): buf[0] counts, buf[1 + buf[0]++] = value. Reveals the
 * order in which launches ran. */
GG_SIM_KERNEL_PARAMS(append, sizeof(uint64_t), sizeof(unsigned));
GG_SIM_KERNEL(append)
{
    unsigned *counter = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0), sizeof(unsigned));
    if (!counter)
        return;
    unsigned *slot = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0) + (1u + *counter) * sizeof(unsigned),
                                sizeof(unsigned));
    if (!slot)
        return;
    *slot = GG_SIM_PARAM(b, unsigned, 1);
    ++*counter;
}

/* touch(ptr, offset): writes one byte at ptr + offset (out of bounds when
 * the offset is past the allocation). */
GG_SIM_KERNEL_PARAMS(touch, sizeof(uint64_t), sizeof(uint64_t));
GG_SIM_KERNEL(touch)
{
    unsigned char *p = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0) + GG_SIM_PARAM(b, uint64_t, 1), 1);
    if (p)
        *p = 1;
}

/* spin(ms): each block runs for ms milliseconds unless cancelled. */
GG_SIM_KERNEL_PARAMS(spin, sizeof(unsigned));
GG_SIM_KERNEL(spin)
{
    unsigned ms = GG_SIM_PARAM(b, unsigned, 0);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (b->rt->cancelled(b))
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long el = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
        if (el >= (long)ms)
            return;
        struct timespec nap = { 0, 1000000L };
        nanosleep(&nap, NULL);
    }
}

/* trap_assert(): a device-side assert. */
GG_SIM_KERNEL_NO_PARAMS(trap_assert);
GG_SIM_KERNEL(trap_assert)
{
    b->rt->trap(b, GG_SIM_TRAP_ASSERT);
}

/* noop(): does nothing (target of misbehave rules). */
GG_SIM_KERNEL_NO_PARAMS(noop);
GG_SIM_KERNEL(noop)
{
    (void)b;
}

/* store_params(out, a, big): out[0] = a, out[1..4] = big.v[0..3]; checks
 * that parameters of several sizes are copied at launch. */
typedef struct big_param { uint64_t v[4]; } big_param;
GG_SIM_KERNEL_PARAMS(store_params, sizeof(uint64_t), sizeof(unsigned char), sizeof(big_param));
GG_SIM_KERNEL(store_params)
{
    uint64_t *out = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0), 5 * sizeof(uint64_t));
    if (!out)
        return;
    out[0] = GG_SIM_PARAM(b, unsigned char, 1);
    big_param big = GG_SIM_PARAM(b, big_param, 2);
    for (int i = 0; i < 4; i++)
        out[1 + i] = big.v[i];
}

/* block_ids(out): out[linear block] = x | y << 8 | z << 16, and the block's
 * zeroed shared memory is checked (a nonzero byte writes 0xffffffff). */
GG_SIM_KERNEL_PARAMS(block_ids, sizeof(uint64_t));
GG_SIM_KERNEL(block_ids)
{
    unsigned lin = b->block_idx.x + b->grid_dim.x * (b->block_idx.y + b->grid_dim.y * b->block_idx.z);
    unsigned *out = b->rt->map(b, GG_SIM_PARAM(b, uint64_t, 0) + lin * sizeof(unsigned), sizeof(unsigned));
    if (!out)
        return;
    unsigned v = b->block_idx.x | b->block_idx.y << 8 | b->block_idx.z << 16;
    unsigned char *sh = b->shared;
    for (unsigned i = 0; i < b->shared_bytes; i++)
        if (sh[i])
            v = 0xffffffffu;
    for (unsigned i = 0; i < b->shared_bytes; i++)
        sh[i] = 0xab; /* the next block must see zeros again */
    *out = v;
}

/* A kernel that forgot its GG_SIM_KERNEL_PARAMS declaration. */
GG_SIM_KERNEL(undeclared)
{
    (void)b;
}
