/*
 * The HIP face's declarations against Debian's HIP 5.2.3 headers: every
 * export is redeclared after hip_runtime_api.h, so an incompatible
 * signature fails to compile; every error, attribute and flag number is
 * compared statically; the test then calls through the header's types.
 */
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>
#include <criterion/criterion.h>

/* Redeclaring the deprecated hipCtx* functions and taking their addresses
 * is the point here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define GG_ABI_HIP_API
#include "abi/hip_functions.h"
#include "abi/hip_values.h"

#define SIM_ABI_ERROR(name, num, msg) _Static_assert(name == num, #name);
GG_ABI_HIP_ERRORS(SIM_ABI_ERROR)
#define SIM_ABI_ATTR(name, num) _Static_assert(name == num, #name);
GG_ABI_HIP_ATTRIBUTES(SIM_ABI_ATTR)

_Static_assert(hipDeviceAttributeKernelExecTimeout == 18, "DRIVER-FACTS: 18, not CUDA's 17");
_Static_assert(HIP_VERSION == GG_ABI_HIP_VERSION, "version");
_Static_assert(hipStreamDefault == GG_ABI_HIP_STREAM_DEFAULT, "stream flag");
_Static_assert(hipStreamNonBlocking == GG_ABI_HIP_STREAM_NON_BLOCKING, "stream flag");
_Static_assert(hipEventDisableTiming == GG_ABI_HIP_EVENT_DISABLE_TIMING, "event flag");
_Static_assert(hipHostMallocPortable == GG_ABI_HIP_HOST_MALLOC_PORTABLE, "host flag");
_Static_assert(hipHostMallocMapped == GG_ABI_HIP_HOST_MALLOC_MAPPED, "host flag");
_Static_assert(hipHostMallocWriteCombined == GG_ABI_HIP_HOST_MALLOC_WRITE_COMBINED, "host flag");
_Static_assert(hipHostMallocNumaUser == GG_ABI_HIP_HOST_MALLOC_NUMA_USER, "host flag");
_Static_assert(hipHostMallocCoherent == GG_ABI_HIP_HOST_MALLOC_COHERENT, "host flag");
_Static_assert(hipHostMallocNonCoherent == GG_ABI_HIP_HOST_MALLOC_NON_COHERENT, "host flag");
_Static_assert(sizeof(hipError_t) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(hipDeviceptr_t) == sizeof(void *), "AMD platform: a pointer");

/* Every enumerator of hipError_t in the header is in the face's list: the
 * switch has a case for each listed value and -Wswitch-enum names any
 * enumerator left out. */
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch-enum"
static int listed(hipError_t e)
{
    switch (e) {
#define SIM_ABI_CASE(name, num, msg) case name:
        GG_ABI_HIP_ERRORS(SIM_ABI_CASE)
        return 1;
    }
    return 0;
}
#pragma GCC diagnostic pop

Test(sim_hip_abi, exports_match_hip_runtime_api_h)
{
    cr_assert(listed(hipErrorLaunchTimeOut));
    hipError_t (*init)(unsigned int) = hipInit;
    hipError_t (*launch)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, hipStream_t, void **, void **) = hipModuleLaunchKernel;
    hipError_t (*push)(hipCtx_t) = hipCtxPushCurrent;
    hipError_t (*attr)(int *, hipDeviceAttribute_t, int) = hipDeviceGetAttribute;
    cr_assert_eq(init(0), hipSuccess);
    int v = 0;
    cr_assert_eq(attr(&v, hipDeviceAttributeKernelExecTimeout, 0), hipSuccess);
    cr_assert_eq(v, 1);
    hipCtx_t ctx;
    cr_assert_eq(hipDevicePrimaryCtxRetain(&ctx, 1), hipSuccess);
    cr_assert_eq(push(ctx), hipSuccess);
    hipDeviceptr_t d;
    cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
    char host[64] = { 0 };
    cr_assert_eq(hipMemcpyHtoD(d, host, sizeof host), hipSuccess);
    cr_assert_eq(launch(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), hipErrorInvalidHandle);
    cr_assert_eq(hipFree(d), hipSuccess);
    cr_assert_str_eq(hipGetErrorName(hipErrorIllegalAddress), "hipErrorIllegalAddress");
    cr_assert_eq(hipCtxPopCurrent(&ctx), hipSuccess);
}
