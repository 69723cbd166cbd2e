/*
 * Kernels for gpuguard's simulated driver.
 *
 * A module image for the simulator is a shared object. Each kernel is a host
 * C function defined with GG_SIM_KERNEL(name); the simulated driver calls it
 * once per block of the grid, on one of its stream worker threads, and the
 * function loops over the block's threads itself. Device memory is reached
 * only through b->rt->map(), which bounds-checks the range against the
 * context's live allocations: out of bounds it returns NULL and the launch
 * fails with ILLEGAL_ADDRESS (sticky, as on a real GPU), so the kernel must
 * return at once when map() returns NULL.
 *
 * cuModuleGetFunction(module, "name") finds the symbol "gg_sim_kernel__name".
 */
#ifndef GPUGUARD_SIM_KERNEL_H
#define GPUGUARD_SIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_sim_dim3 { unsigned x, y, z; } gg_sim_dim3;

struct gg_sim_runtime;

typedef struct gg_sim_block {
    gg_sim_dim3 block_idx;   /* this block's index in the grid */
    gg_sim_dim3 grid_dim;    /* blocks in the grid */
    gg_sim_dim3 block_dim;   /* threads in a block */
    void *shared;            /* dynamic shared memory of this block (zeroed), or NULL */
    unsigned shared_bytes;
    void **params;           /* kernelParams exactly as given to cuLaunchKernel */
    const struct gg_sim_runtime *rt;
    void *launch;            /* the simulator's own state for this launch */
} gg_sim_block;

/* Device-side faults a kernel can raise through rt->trap(). */
typedef enum gg_sim_trap {
    GG_SIM_TRAP_ILLEGAL_ADDRESS = 1, /* CUDA_ERROR_ILLEGAL_ADDRESS (700) */
    GG_SIM_TRAP_ASSERT = 2,          /* CUDA_ERROR_ASSERT (710) */
    GG_SIM_TRAP_LAUNCH_FAILED = 3    /* CUDA_ERROR_LAUNCH_FAILED (719) */
} gg_sim_trap;

typedef struct gg_sim_runtime {
    /* Host address of [dptr, dptr+bytes) inside one live allocation of the
     * launch's context, or NULL (and the launch faults with ILLEGAL_ADDRESS). */
    void *(*map)(const gg_sim_block *b, uint64_t dptr, size_t bytes);
    /* Fails the launch with a device-side fault; the kernel should return. */
    void (*trap)(const gg_sim_block *b, gg_sim_trap kind);
    /* True once the launch is being killed (watchdog, context destroyed):
     * long-running blocks poll it and return early. */
    bool (*cancelled)(const gg_sim_block *b);
} gg_sim_runtime;

typedef void (*gg_sim_kernel_fn)(const gg_sim_block *b);

#define GG_SIM_KERNEL_PREFIX "gg_sim_kernel__"

#if defined(__GNUC__)
#define GG_SIM_EXPORT __attribute__((visibility("default")))
#else
#define GG_SIM_EXPORT
#endif

#ifdef __cplusplus
#define GG_SIM_KERNEL(name) extern "C" GG_SIM_EXPORT void gg_sim_kernel__##name(const gg_sim_block *b)
#else
#define GG_SIM_KERNEL(name) GG_SIM_EXPORT void gg_sim_kernel__##name(const gg_sim_block *b)
#endif

/* Parameter i of the launch, as type T (kernelParams[i] points at it). */
#define GG_SIM_PARAM(b, T, i) (*(T *)((b)->params[(i)]))

#ifdef __cplusplus
}
#endif

#endif /* GPUGUARD_SIM_KERNEL_H */
