/*
 * The per-runtime HIP ABI tables (gghip_abi, hip_abi.h) and the choice
 * between them from the version a runtime reports.
 *
 * ROCm 5 is built from the GGHIP_ enumerants, which tests/hip_abi compiles
 * against Debian's HIP 5.2.3 headers (a check against a real header).
 *
 * ROCm 6 holds literal numbers transcribed from the published headers of
 * ROCm/HIP (include/hip/hip_runtime_api.h, driver_types.h) and ROCm/clr
 * (hipamd/src/hip_hcc.map.in) at the tags rocm-6.0.0, 6.0.2, 6.1.0, 6.1.1,
 * 6.1.2, 6.2.0, 6.2.1 and 6.2.2, all identical for these entries. They are
 * written out rather than taken from the GGHIP_ values on purpose: that the
 * two ABIs agree is a finding, and tests/hip compares this table with the
 * published facts (tests/hip_abi/hip_rocm6_facts.c), so a wrong number here
 * fails there. That test checks transcriptions, not a real ROCm 6 header;
 * none is installed on the build machines.
 *
 * The ranges are the minors whose headers were read. ROCm 6.3's development
 * headers (ROCm/HIP, October 2024) add hipErrorInvalidChannelDescriptor 911
 * and hipErrorInvalidTexture 912; no 6.3 or later release header was
 * checked, so those runtimes are refused until one is.
 */
#include "hip/hip_abi.h"

#include <stddef.h>

/* Every entry point exported under its own name, once (version node
 * hip_4.2 in both sonames' maps; hip_4.4 for hipStreamWriteValue32/64, hip_5.0 for
 * hipPointerGetAttribute). */
#define GGHIP__PLAIN_NAME(name, need) [GGHIP_SYM_##name] = #name,

const gghip_abi gghip_abi_rocm5 = {
    .name = "ROCm 5",
    .soname = "libamdhip64.so.5",
    .major = 5,
    .minor_first = 0,
    .minor_last = 7,
    .checked = "compiled against Debian's HIP 5.2.3 headers (tests/hip_abi) and the published "
               "rocm-5.0.0 .. rocm-5.7.1 headers",
    .attr_max_threads_per_block = GGHIP_DeviceAttributeMaxThreadsPerBlock,
    .attr_max_block_dim = { GGHIP_DeviceAttributeMaxBlockDimX, GGHIP_DeviceAttributeMaxBlockDimY,
                            GGHIP_DeviceAttributeMaxBlockDimZ },
    .attr_max_grid_dim = { GGHIP_DeviceAttributeMaxGridDimX, GGHIP_DeviceAttributeMaxGridDimY,
                           GGHIP_DeviceAttributeMaxGridDimZ },
    .attr_multiprocessor_count = GGHIP_DeviceAttributeMultiprocessorCount,
    .attr_kernel_exec_timeout = GGHIP_DeviceAttributeKernelExecTimeout,
    .attr_max_shared_per_block = GGHIP_DeviceAttributeMaxSharedMemoryPerBlock,
    .attr_can_map_host_memory = GGHIP_DeviceAttributeCanMapHostMemory,
    .attr_can_use_stream_wait_value = GGHIP_DeviceAttributeCanUseStreamWaitValue,
    .stream_non_blocking = GGHIP_StreamNonBlocking,
    .host_malloc_default = GGHIP_HostMallocDefault,
    .host_malloc_mapped = GGHIP_HostMallocMapped,
    .symbols = { GGHIP_SYMBOL_LIST(GGHIP__PLAIN_NAME) },
};

const gghip_abi gghip_abi_rocm6 = {
    .name = "ROCm 6",
    .soname = "libamdhip64.so.6",
    .major = 6,
    .minor_first = 0,
    .minor_last = 2,
    .checked = "transcribed from the published rocm-6.0.0 .. rocm-6.2.2 headers; tested against "
               "those transcriptions, not a real header",
    /* hipDeviceAttribute_t, ROCm/HIP include/hip/hip_runtime_api.h. */
    .attr_max_threads_per_block = 56,
    .attr_max_block_dim = { 26, 27, 28 },
    .attr_max_grid_dim = { 29, 30, 31 },
    .attr_multiprocessor_count = 63,
    .attr_kernel_exec_timeout = 18,
    .attr_max_shared_per_block = 74,
    .attr_can_map_host_memory = 3,
    .attr_can_use_stream_wait_value = 10013,
    /* #define hipStreamNonBlocking 0x01, hipHostMallocDefault 0x0,
     * hipHostMallocMapped 0x2. */
    .stream_non_blocking = 0x1,
    .host_malloc_default = 0x0,
    .host_malloc_mapped = 0x2,
    /* None of the entry points used is among ROCm 6's renamed ones
     * (hipGetDeviceProperties, hipChooseDevice -> ...R0600). */
    .symbols = { GGHIP_SYMBOL_LIST(GGHIP__PLAIN_NAME) },
};

#undef GGHIP__PLAIN_NAME

static const gghip_abi *const checked_abis[] = { &gghip_abi_rocm5, &gghip_abi_rocm6 };

const gghip_abi *gg__hip_abi_for_version(int hip_version)
{
    if (hip_version <= 0)
        return NULL;
    int major = hip_version / 10000000;
    int minor = hip_version / 100000 % 100;
    for (size_t i = 0; i < sizeof checked_abis / sizeof checked_abis[0]; i++) {
        const gghip_abi *abi = checked_abis[i];
        if (major == abi->major && minor >= abi->minor_first && minor <= abi->minor_last)
            return abi;
    }
    return NULL;
}

const char *gg__hip_abi_checked_ranges(void)
{
    return "ROCm 5 (HIP 5.0-5.7), ROCm 6 (HIP 6.0-6.2)";
}
