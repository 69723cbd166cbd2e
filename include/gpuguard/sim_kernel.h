/** @page sim_kernels Writing kernels for the simulated driver
 *
 * Kernels for gpuguard's simulated driver (gpuguard/sim_kernel.h).
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
 *
 * Parameters. A GPU driver knows each kernel's parameter sizes from the
 * compiled image; a host function does not carry them, so every kernel
 * declares them next to its definition:
 *
 *     GG_SIM_KERNEL_PARAMS(saxpy, sizeof(float), sizeof(uint64_t), sizeof(uint64_t), sizeof(unsigned));
 *     GG_SIM_KERNEL(saxpy) { float a = GG_SIM_PARAM(b, float, 0); ... }
 *
 *     GG_SIM_KERNEL_NO_PARAMS(tick);
 *     GG_SIM_KERNEL(tick) { ... }
 *
 * The declaration exports "gg_sim_params__name", a const unsigned array:
 * the parameter count, then each parameter's size in bytes (1..32764).
 * cuLaunchKernel copies each kernelParams[i] (that many bytes) at launch
 * time, as CUDA does, so the caller may reuse its variables at once; in the
 * kernel, b->params[i] points at the copy (16-byte aligned). A kernel
 * without a declaration is refused by cuModuleGetFunction with
 * CUDA_ERROR_INVALID_IMAGE; gpuguard's error message (gg_last_error) says
 * why, as does gg_sim_last_error_detail() (gpuguard/gg_sim_control.h).
 * Build a module with gg_add_sim_module(NAME SOURCES...) from
 * find_package(gpuguard) (or the source tree's cmake/GgHelpers.cmake).
 * Up to 32 parameters. cuLaunchKernel's `extra` form is taken too
 * (CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE, ending
 * with CU_LAUNCH_PARAM_END; not with kernelParams): the buffer is unpacked
 * with the declared sizes, each parameter at the next multiple of its
 * alignment (the largest power of two up to 16 dividing its size), as a
 * compiler lays them out; a buffer too short for them is refused with
 * CUDA_ERROR_INVALID_VALUE.
 */
#ifndef GPUGUARD_SIM_KERNEL_H
#define GPUGUARD_SIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A block index or a grid or block size, as CUDA's dim3. */
typedef struct gg_sim_dim3 {
    unsigned x; /**< the first dimension */
    unsigned y; /**< the second dimension */
    unsigned z; /**< the third dimension */
} gg_sim_dim3;

struct gg_sim_runtime;

/** What a kernel gets: one block of the grid to run (all its threads). */
typedef struct gg_sim_block {
    gg_sim_dim3 block_idx;   /**< this block's index in the grid */
    gg_sim_dim3 grid_dim;    /**< blocks in the grid */
    gg_sim_dim3 block_dim;   /**< threads in a block */
    void *shared;            /**< dynamic shared memory of this block (zeroed), or NULL */
    unsigned shared_bytes;   /**< the size of `shared` (the launch's dynamic shared memory) */
    void **params;           /**< copies of the kernelParams values, taken at launch */
    const struct gg_sim_runtime *rt; /**< the simulator's services: map, trap, cancelled */
    void *launch;            /**< the simulator's own state for this launch */
} gg_sim_block;

/** Device-side faults a kernel can raise through rt->trap(). */
typedef enum gg_sim_trap {
    GG_SIM_TRAP_ILLEGAL_ADDRESS = 1, /**< CUDA_ERROR_ILLEGAL_ADDRESS (700) */
    GG_SIM_TRAP_ASSERT = 2,          /**< CUDA_ERROR_ASSERT (710) */
    GG_SIM_TRAP_LAUNCH_FAILED = 3,   /**< CUDA_ERROR_LAUNCH_FAILED (719) */
    GG_SIM_TRAP_MISALIGNED_ADDRESS = 4 /**< CUDA_ERROR_MISALIGNED_ADDRESS (716; HIP: hipErrorIllegalAddress) */
} gg_sim_trap;

/** The simulator's services to a kernel (gg_sim_block::rt). */
typedef struct gg_sim_runtime {
    /** Host address of [dptr, dptr+bytes) inside one live allocation of the
     * launch's context, or NULL (and the launch faults with ILLEGAL_ADDRESS). */
    void *(*map)(const gg_sim_block *b, uint64_t dptr, size_t bytes);
    /** Fails the launch with a device-side fault; the kernel should return. */
    void (*trap)(const gg_sim_block *b, gg_sim_trap kind);
    /** True once the launch is being killed (watchdog, context destroyed):
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

/* Parameter i of the launch, as type T (b->params[i] points at it). */
#define GG_SIM_PARAM(b, T, i) (*(T *)((b)->params[(i)]))

#define GG_SIM_PARAMS_PREFIX "gg_sim_params__"

/* Counts 1..32 macro arguments. */
#define GG_SIM_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, \
                      a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30,    \
                      a31, a32, n, ...) n
#define GG_SIM_NARGS(...)                                                                     \
    GG_SIM_NARGS_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, \
                  16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)

/* The parameter table's declaration and definition: an exported array with
 * C linkage. C++ spells "extern" as the linkage specification itself (a
 * second extern there is an error); C needs it for the declaration. */
#ifdef __cplusplus
#define GG_SIM_PARAMS_DECLARE extern "C" GG_SIM_EXPORT
#define GG_SIM_PARAMS_LINKAGE extern "C" GG_SIM_EXPORT
#else
#define GG_SIM_PARAMS_DECLARE GG_SIM_EXPORT extern
#define GG_SIM_PARAMS_LINKAGE GG_SIM_EXPORT
#endif

/* Declares the sizes of kernel `name`'s parameters, in order (1 to 32). */
#define GG_SIM_KERNEL_PARAMS(name, ...)                                             \
    GG_SIM_PARAMS_DECLARE const unsigned gg_sim_params__##name[];                   \
    GG_SIM_PARAMS_LINKAGE const unsigned gg_sim_params__##name[] = {                \
        (unsigned)GG_SIM_NARGS(__VA_ARGS__), __VA_ARGS__ }

/* Declares that kernel `name` takes no parameters. */
#define GG_SIM_KERNEL_NO_PARAMS(name)                                               \
    GG_SIM_PARAMS_DECLARE const unsigned gg_sim_params__##name[];                   \
    GG_SIM_PARAMS_LINKAGE const unsigned gg_sim_params__##name[] = { 0u }

#ifdef __cplusplus
}
#endif

#endif /* GPUGUARD_SIM_KERNEL_H */
