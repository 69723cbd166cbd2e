/*
 * The CUDA face's declarations against the toolkit's cuda.h: every export
 * is redeclared after cuda.h, so an incompatible signature fails to
 * compile; error and attribute numbers are compared statically; the test
 * then calls through the real typedefs.
 */
#include <cuda.h>
#include <cudaGL.h>          /* the GL interoperability calls PyCUDA binds */
#include <cudaProfiler.h>
#include <cudaTypedefs.h>
#include <criterion/criterion.h>
#include <dlfcn.h>

/* cuda.h maps cuGetProcAddress to cuGetProcAddress_v2; the simulator also
 * exports the 11.3 form under its own name, as real drivers do. */
#undef cuGetProcAddress

#define GG_ABI_CUDA_API
#define GG_ABI_CU_DEVICE_ATTRIBUTE CUdevice_attribute
#include "abi/cuda_functions.h"
#include "abi/cuda_errors.h"

#define SIM_ABI_SAME(name, num, msg) _Static_assert(name == num, #name);
GG_ABI_CUDA_ERRORS(SIM_ABI_SAME)

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

/* Each export assigned to the PFN typedef of the variant it is: a mismatch
 * fails to compile (-Werror=incompatible-pointer-types). */
Test(sim_abi, every_versioned_export_has_its_typedef)
{
    PFN_cuGetProcAddress_v11030 gpa11 = cuGetProcAddress;
    PFN_cuGetProcAddress_v12000 gpa12 = cuGetProcAddress_v2;
    PFN_cuCtxCreate_v3020 c2 = cuCtxCreate_v2;
    PFN_cuCtxCreate_v11040 c3 = cuCtxCreate_v3;
    PFN_cuCtxCreate_v12050 c4 = cuCtxCreate_v4;
    PFN_cuCtxSynchronize_v2000 s1 = cuCtxSynchronize;
    PFN_cuCtxSynchronize_v13000 s2 = cuCtxSynchronize_v2;
    PFN_cuCtxGetDevice_v2000 g1 = cuCtxGetDevice;
    PFN_cuCtxGetDevice_v13000 g2 = cuCtxGetDevice_v2;
    PFN_cuEventElapsedTime_v2000 e1 = cuEventElapsedTime;
    PFN_cuEventElapsedTime_v12080 e2 = cuEventElapsedTime_v2;
    cr_assert_eq(cuInit(0), CUDA_SUCCESS);
    void *p = NULL;
    /* The 11.3 form answers as the 12.0 one does (no status). */
    cr_assert_eq(gpa11("cuCtxSynchronize", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT), CUDA_SUCCESS);
    cr_assert_eq(p, (void *)(uintptr_t)s2);
    CUdriverProcAddressQueryResult q;
    cr_assert_eq(gpa12("cuCtxGetDevice", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &q), CUDA_SUCCESS);
    cr_assert_eq(p, (void *)(uintptr_t)g2);
    CUcontext ctx;
    cr_assert_eq(c4(&ctx, NULL, 0, 1), CUDA_SUCCESS);
    CUdevice dev = -1;
    cr_assert_eq(g2(&dev, ctx), CUDA_SUCCESS);
    cr_assert_eq(dev, 1);
    cr_assert_eq(g1(&dev), CUDA_SUCCESS);
    cr_assert_eq(s1(), CUDA_SUCCESS);
    cr_assert_eq(s2(ctx), CUDA_SUCCESS);
    CUevent a, b;
    cr_assert_eq(cuEventCreate(&a, 0), CUDA_SUCCESS);
    cr_assert_eq(cuEventCreate(&b, 0), CUDA_SUCCESS);
    cr_assert_eq(cuEventRecord(a, NULL), CUDA_SUCCESS);
    cr_assert_eq(cuEventRecord(b, NULL), CUDA_SUCCESS);
    cr_assert_eq(cuEventSynchronize(b), CUDA_SUCCESS);
    float ms1 = -1, ms2 = -1;
    cr_assert_eq(e1(&ms1, a, b), CUDA_SUCCESS);
    cr_assert_eq(e2(&ms2, a, b), CUDA_SUCCESS);
    cr_assert(ms1 >= 0 && ms2 >= 0);
    cr_assert_eq(cuEventDestroy(a), CUDA_SUCCESS);
    cr_assert_eq(cuEventDestroy(b), CUDA_SUCCESS);
    cr_assert_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
    (void)c2;
    (void)c3;
}

/* libgpuguard_sim_cuda11.so: the same face through the 11.3 form only. Its
 * exports are checked by name in tests/sim; here the typedefs prove what
 * the 11.x loader calls through. */
Test(sim_abi, cuda11_library_answers_through_the_11_3_form)
{
    void *lib = dlopen(GG_SIM_CUDA11_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s", dlerror());
    PFN_cuGetProcAddress_v11030 gpa11 = (PFN_cuGetProcAddress_v11030)(uintptr_t)dlsym(lib, "cuGetProcAddress");
    cr_assert_not_null((void *)(uintptr_t)gpa11);
    cr_assert_null(dlsym(lib, "cuGetProcAddress_v2"));
    void *p = NULL;
    cr_assert_eq(gpa11("cuCtxCreate", &p, 12050, CU_GET_PROC_ADDRESS_DEFAULT), CUDA_SUCCESS);
    cr_assert_eq(p, dlsym(lib, "cuCtxCreate_v3")); /* 11.4 is the newest it has */
    PFN_cuInit_v2000 init = (PFN_cuInit_v2000)(uintptr_t)dlsym(lib, "cuInit");
    cr_assert_eq(init(0), CUDA_SUCCESS);
    PFN_cuCtxCreate_v11040 create = (PFN_cuCtxCreate_v11040)p;
    CUcontext ctx;
    cr_assert_eq(create(&ctx, NULL, 0, 0, 0), CUDA_SUCCESS);
    cr_assert_eq(gpa11("cuCtxDestroy", &p, 11040, CU_GET_PROC_ADDRESS_DEFAULT), CUDA_SUCCESS);
    cr_assert_eq(((PFN_cuCtxDestroy_v4000)p)(ctx), CUDA_SUCCESS);
    /* Not closed: an initialised simulator keeps worker threads in it. */
}
