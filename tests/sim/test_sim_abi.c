/*
 * The CUDA face's declarations against the toolkit's cuda.h: every export
 * is redeclared after cuda.h, so an incompatible signature fails to
 * compile; error and attribute numbers are compared statically; the test
 * then calls through the real typedefs.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <criterion/criterion.h>

#define SIM_CUDA_API
#define SIM_CU_DEVICE_ATTRIBUTE CUdevice_attribute
#include "sim_cuda_abi.h"
#include "sim_cuda_errors.h"

#define SIM_ABI_SAME(name, num, msg) _Static_assert(name == num, #name);
SIM_CUDA_ERRORS(SIM_ABI_SAME)

_Static_assert(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK == 1, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X == 2, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z == 7, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == 16, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT == 17, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == 75, "attribute");
_Static_assert(CU_STREAM_NON_BLOCKING == 1, "stream flag");
_Static_assert(CU_EVENT_DISABLE_TIMING == 2, "event flag");
_Static_assert(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND == 1, "proc address status");
_Static_assert(CUDA_VERSION >= 13000, "the checks assume the CUDA 13 header");

Test(sim_abi, exports_match_cuda_h)
{
    PFN_cuInit_v2000 init = cuInit;
    PFN_cuGetProcAddress_v12000 gpa = cuGetProcAddress_v2;
    cr_assert_eq(init(0), CUDA_SUCCESS);
    void *p = NULL;
    CUdriverProcAddressQueryResult q;
    cr_assert_eq(gpa("cuCtxCreate", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q), CUDA_SUCCESS);
    cr_assert_eq(q, CU_GET_PROC_ADDRESS_SUCCESS);
    PFN_cuCtxCreate_v12050 create = (PFN_cuCtxCreate_v12050)(uintptr_t)p;
    CUcontext ctx;
    cr_assert_eq(create(&ctx, NULL, 0, 1), CUDA_SUCCESS);
    CUdeviceptr d;
    cr_assert_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS); /* cuda.h maps it to cuMemAlloc_v2 */
    cr_assert_eq(cuMemFree(d), CUDA_SUCCESS);
    cr_assert_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
}
