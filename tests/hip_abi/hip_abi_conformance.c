/*
 * src/hip/hip_abi.h against the HIP runtime's own header (Debian's HIP 5.2.3,
 * hip/hip_runtime_api.h with __HIP_PLATFORM_AMD__). Everything is checked at
 * compile time; a mismatch fails the build of this file:
 *  - every hipError_t value in GGHIP_ERROR_LIST equals the header's, and
 *    every hipError_t of the header is in the list (a switch over hipError_t
 *    without a default, built with -Werror=switch);
 *  - the scalar and handle types are the same types (the enums we declare as
 *    unsigned int are compatible with them);
 *  - the enumerants used (attributes, flags) have the header's values;
 *  - each gghip_fn_<name> is the type of the function the header declares
 *    under that name (_Generic), and the function's address converts to it
 *    without a diagnostic (initialisers, under -Werror).
 *  - at run time: the backend's ABI table for the header's major
 *    (gghip_abi_rocm5 or _rocm6, src/hip/hip_abi_tables.c) asks the
 *    header's attribute numbers, passes its flags, and covers its version.
 * Neither _Generic nor sizeof evaluates its operand, so naming hip*
 * functions here makes no reference to libamdhip64.
 *
 * Built against Debian's 5.2.3 headers by default; with GG_HIP6_INCLUDE_DIR
 * (a ROCm 6 include tree) it is built a second time against those.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

#include "hip/hip_abi.h"

#define SAME_TYPE(expr, type) _Generic((expr), type: 1, default: 0)
/* Enumerators of different enums compared as numbers (no -Wenum-compare). */
#define SAME_VALUE(a, b) ((long long)(a) == (long long)(b))

/* ---- error codes ---- */

#define CHECK_ERROR(name, value, gg, sticky)                                          \
    _Static_assert(SAME_VALUE(GGHIP_##name, hip##name) && SAME_VALUE(value, hip##name), \
                   "hip" #name " differs from hip_runtime_api.h");
GGHIP_ERROR_LIST(CHECK_ERROR)
#undef CHECK_ERROR

/* With -Werror=switch, any hipError_t of the header missing from the list
 * fails here ("enumeration value ... not handled in switch"). The aliases
 * share their values with listed names; hipErrorTbd is the end marker the
 * list leaves out on purpose. */
static int listed(hipError_t e)
{
    switch (e) {
#define CASE_ERROR(name, value, gg, sticky) case hip##name: return 1;
    GGHIP_ERROR_LIST(CASE_ERROR)
#undef CASE_ERROR
    case hipErrorTbd:
        return 0;
    }
    return 0;
}

/* ---- types ---- */

_Static_assert(sizeof(gghip_error) == sizeof(hipError_t), "hipError_t size");
_Static_assert(SAME_TYPE((hipError_t)0, gghip_error), "hipError_t is unsigned int to the compiler");
_Static_assert(SAME_TYPE((hipDevice_t)0, gghip_device), "hipDevice_t");
_Static_assert(SAME_TYPE((hipDeviceptr_t)0, gghip_deviceptr), "hipDeviceptr_t");
_Static_assert(sizeof(gghip_deviceptr) == 8, "hipDeviceptr_t is 64-bit");
_Static_assert(SAME_TYPE((hipDeviceAttribute_t)0, gghip_device_attribute), "hipDeviceAttribute_t");
_Static_assert(sizeof(gghip_device_attribute) == sizeof(hipDeviceAttribute_t),
               "hipDeviceAttribute_t size");
_Static_assert(SAME_TYPE((hipCtx_t)0, gghip_ctx), "hipCtx_t");
_Static_assert(SAME_TYPE((hipStream_t)0, gghip_stream), "hipStream_t");
_Static_assert(SAME_TYPE((hipEvent_t)0, gghip_event), "hipEvent_t");
_Static_assert(SAME_TYPE((hipModule_t)0, gghip_module), "hipModule_t");
_Static_assert(SAME_TYPE((hipFunction_t)0, gghip_function), "hipFunction_t");

/* ---- enumerants ---- */

#define CHECK_EQ(ours, theirs) _Static_assert(SAME_VALUE(ours, theirs), #ours " != " #theirs);
CHECK_EQ(GGHIP_DeviceAttributeKernelExecTimeout, hipDeviceAttributeKernelExecTimeout)
CHECK_EQ(GGHIP_DeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimX)
CHECK_EQ(GGHIP_DeviceAttributeMaxBlockDimY, hipDeviceAttributeMaxBlockDimY)
CHECK_EQ(GGHIP_DeviceAttributeMaxBlockDimZ, hipDeviceAttributeMaxBlockDimZ)
CHECK_EQ(GGHIP_DeviceAttributeMaxGridDimX, hipDeviceAttributeMaxGridDimX)
CHECK_EQ(GGHIP_DeviceAttributeMaxGridDimY, hipDeviceAttributeMaxGridDimY)
CHECK_EQ(GGHIP_DeviceAttributeMaxGridDimZ, hipDeviceAttributeMaxGridDimZ)
CHECK_EQ(GGHIP_DeviceAttributeMaxThreadsPerBlock, hipDeviceAttributeMaxThreadsPerBlock)
CHECK_EQ(GGHIP_DeviceAttributeMultiprocessorCount, hipDeviceAttributeMultiprocessorCount)
CHECK_EQ(GGHIP_StreamNonBlocking, hipStreamNonBlocking)
CHECK_EQ(GGHIP_EventDefault, hipEventDefault)
CHECK_EQ(GGHIP_HostMallocDefault, hipHostMallocDefault)
CHECK_EQ(GGHIP_HostMallocMapped, hipHostMallocMapped)
CHECK_EQ(GGHIP_DeviceAttributeCanMapHostMemory, hipDeviceAttributeCanMapHostMemory)
CHECK_EQ(GGHIP_DeviceAttributeMaxSharedMemoryPerBlock, hipDeviceAttributeMaxSharedMemoryPerBlock)
CHECK_EQ(GGHIP_DeviceAttributeCanUseStreamWaitValue, hipDeviceAttributeCanUseStreamWaitValue)
#undef CHECK_EQ

/* DRIVER-FACTS.md's numbers, spelled out: HIP's attribute numbering is not
 * CUDA's, and a header that renumbered them would silently change what the
 * backend asks for. */
_Static_assert(GGHIP_DeviceAttributeKernelExecTimeout == 18, "KernelExecTimeout is 18 in HIP 5.2");

/* ---- entry points ---- */

/* The hipCtx* functions are declared deprecated; using their names is the
 * point here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define CHECK_DECL(name, need) \
    _Static_assert(SAME_TYPE(&name, gghip_fn_##name), "gghip_fn_" #name " differs from the header");
GGHIP_SYMBOL_LIST(CHECK_DECL)
#undef CHECK_DECL

/* The same as an assignment would see it: an incompatible initialiser is a
 * -Werror=incompatible-pointer-types error. sizeof keeps it unevaluated. */
#define CHECK_ASSIGN(name, need) \
    enum { assign_##name = (int)sizeof((gghip_fn_##name){ name }) };
GGHIP_SYMBOL_LIST(CHECK_ASSIGN)
#undef CHECK_ASSIGN

#pragma GCC diagnostic pop

/* The backend's table for this header's runtime major, field by field. */
static int table_mismatches(void)
{
    const gghip_abi *abi = gg__hip_abi_for_version(HIP_VERSION);
    if (abi == NULL) {
        printf("test_hip_abi: HIP %d.%d has no checked ABI table\n", HIP_VERSION_MAJOR,
               HIP_VERSION_MINOR);
        return 1;
    }
    int bad = 0;
#define TABLE_EQ(field, theirs)                                                      \
    if ((long long)abi->field != (long long)(theirs)) {                              \
        printf("test_hip_abi: %s: " #field " is %lld, the header says %lld\n",      \
               abi->name, (long long)abi->field, (long long)(theirs));               \
        bad++;                                                                       \
    }
    TABLE_EQ(attr_max_threads_per_block, hipDeviceAttributeMaxThreadsPerBlock)
    TABLE_EQ(attr_max_block_dim[0], hipDeviceAttributeMaxBlockDimX)
    TABLE_EQ(attr_max_block_dim[1], hipDeviceAttributeMaxBlockDimY)
    TABLE_EQ(attr_max_block_dim[2], hipDeviceAttributeMaxBlockDimZ)
    TABLE_EQ(attr_max_grid_dim[0], hipDeviceAttributeMaxGridDimX)
    TABLE_EQ(attr_max_grid_dim[1], hipDeviceAttributeMaxGridDimY)
    TABLE_EQ(attr_max_grid_dim[2], hipDeviceAttributeMaxGridDimZ)
    TABLE_EQ(attr_multiprocessor_count, hipDeviceAttributeMultiprocessorCount)
    TABLE_EQ(attr_kernel_exec_timeout, hipDeviceAttributeKernelExecTimeout)
    TABLE_EQ(stream_non_blocking, hipStreamNonBlocking)
    TABLE_EQ(host_malloc_default, hipHostMallocDefault)
    TABLE_EQ(host_malloc_mapped, hipHostMallocMapped)
    TABLE_EQ(attr_max_shared_per_block, hipDeviceAttributeMaxSharedMemoryPerBlock)
    TABLE_EQ(attr_can_map_host_memory, hipDeviceAttributeCanMapHostMemory)
    TABLE_EQ(attr_can_use_stream_wait_value, hipDeviceAttributeCanUseStreamWaitValue)
    TABLE_EQ(major, HIP_VERSION_MAJOR)
#undef TABLE_EQ
    return bad;
}

int main(void)
{
    if (table_mismatches() != 0)
        return 1;
    int codes = 0, symbols = 0;
#define COUNT_ERROR(name, value, gg, sticky) codes += listed(hip##name);
    GGHIP_ERROR_LIST(COUNT_ERROR)
#undef COUNT_ERROR
#define COUNT_SYMBOL(name, need) symbols++;
    GGHIP_SYMBOL_LIST(COUNT_SYMBOL)
#undef COUNT_SYMBOL
    printf("test_hip_abi: hip_abi.h agrees with hip_runtime_api.h (HIP %d.%d.%d): "
           "%d error codes, %d entry points, ABI table %s\n",
           HIP_VERSION_MAJOR, HIP_VERSION_MINOR, HIP_VERSION_PATCH, codes, symbols,
           gg__hip_abi_for_version(HIP_VERSION)->name);
    return 0;
}
