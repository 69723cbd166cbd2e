// Kernels of the GPU acceptance suite (tests/gpu), for real GPUs: compiled
// by nvcc into build/kernels/gpu_check.fatbin (sm_90 code, compute_90 and
// compute_75 PTX for the driver to JIT elsewhere) and by hipcc into
// gpu_check.hsaco. kernels/gpu_check_sim.c has the same kernels, with the
// same parameters, for the simulated driver. extern "C": the runner finds
// them by these names.
#include <assert.h>
#include <stdint.h>

// Nanoseconds from a clock that runs at a fixed rate whatever the SM clock.
__device__ static uint64_t now_ns()
{
#if defined(__HIP_PLATFORM_AMD__)
    // wall_clock64() counts at the device's fixed wall-clock rate, 100 MHz on
    // current AMD GPUs: 10 ns per tick (only bounds a spin; need not be exact).
    return (uint64_t)wall_clock64() * 10u;
#else
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#endif
}

// dst[i] = value for i < n.
extern "C" __global__ void fill_u32(uint32_t *dst, uint32_t value, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = value;
}

// data[i] += 1 for i < n.
extern "C" __global__ void add_one_u32(uint32_t *data, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += 1;
}

// The stray store: thread 0 writes data[index]; the runner passes an index
// far past the end of the allocation (an address no allocation maps).
extern "C" __global__ void oob_store(uint32_t *data, uint64_t index, uint32_t value)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        data[index] = value;
}

// A hung kernel that the host can release: spins while *flag (page-locked
// host memory, read through the same address on the device: unified
// addressing) is 0, then writes what it saw into seen[0] (the flag's value,
// or 0xFFFFFFFF when it gave up after max_ns, so that a lost host never
// leaves the GPU spinning for ever), and last sets *done (page-locked host
// memory too), so that the host knows the kernel is over even when the
// context is dead and cannot be synchronized.
extern "C" __global__ void spin_on_flag(const volatile uint32_t *flag, uint32_t *seen, uint64_t max_ns,
                                        volatile uint32_t *done)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    uint64_t start = now_ns();
    uint32_t value;
    while ((value = *flag) == 0) {
        if (now_ns() - start > max_ns) {
            value = 0xFFFFFFFFu;
            break;
        }
    }
    seen[0] = value;
    __threadfence_system();
    *done = 1;
}

// A device-side trap: the launch fails and the context with it.
extern "C" __global__ void trap_kernel(uint32_t unused)
{
    (void)unused;
#if defined(__HIP_PLATFORM_AMD__)
    __builtin_trap();
#else
    __trap();
#endif
}

// A failed device-side assert (value is never 0 when the runner calls it).
extern "C" __global__ void assert_kernel(uint32_t value)
{
    assert(value == 0);
}

// One chunkable kernel: block b (= blockIdx.x + offset) adds 1 to marks[b]
// and then spins for block_ns, so that each block costs a known device time
// whatever the GPU. The runner checks that every block ran exactly once.
extern "C" __global__ void chunk_mark(uint32_t *marks, uint64_t block_ns, uint32_t offset)
{
    if (threadIdx.x != 0)
        return;
    uint32_t b = blockIdx.x + offset;
    atomicAdd(&marks[b], 1u);
    uint64_t start = now_ns();
    while (now_ns() - start < block_ns) {
    }
}

// Does nothing: the benchmark's launch.
extern "C" __global__ void noop(uint32_t unused)
{
    (void)unused;
}
