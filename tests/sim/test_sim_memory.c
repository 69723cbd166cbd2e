/* Memory: allocation limits, range checks at the call, async overruns as
 * sticky faults, fake device addresses, page-locked host memory. */
#include "sim_test.h"

#include <signal.h>
#include <string.h>

TestSuite(sim_memory, .timeout = 60);

Test(sim_memory, copies_round_trip_and_memset)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr a, b;
    CU_OK(cuMemAlloc_v2(&a, 1000));
    CU_OK(cuMemAlloc_v2(&b, 1000));
    cr_assert_neq(a, 0);
    cr_assert_geq(a, 0x7d0000000000ull, "device addresses come from the fake range");
    char in[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        in[i] = (char)i;
    CU_OK(cuMemcpyHtoD_v2(a, in, sizeof in));
    CU_OK(cuMemcpyDtoD_v2(b, a, sizeof in));
    CU_OK(cuMemcpyDtoH_v2(out, b, sizeof out));
    cr_assert(!memcmp(in, out, sizeof in));
    CU_OK(cuMemsetD8_v2(b + 10, 0x5a, 20));
    CU_OK(cuMemcpyDtoH_v2(out, b, sizeof out));
    cr_assert_eq(out[9], in[9]);
    cr_assert_eq(out[10], 0x5a);
    cr_assert_eq(out[29], 0x5a);
    cr_assert_eq(out[30], in[30]);
    /* Async variants, with pageable memory reused right after the call. */
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    char tmp[100];
    memset(tmp, 1, sizeof tmp);
    CU_OK(cuMemcpyHtoDAsync_v2(a, tmp, sizeof tmp, s));
    memset(tmp, 2, sizeof tmp); /* CUDA stages pageable memory at the call */
    CU_OK(cuMemcpyDtoHAsync_v2(out, a, 100, s));
    CU_OK(cuStreamSynchronize(s));
    cr_assert_eq(out[0], 1);
    cr_assert_eq(out[99], 1);
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(b));
    CU_IS(cuMemFree_v2(b), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_memory, out_of_range_copies_are_rejected_at_the_call)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr a;
    CU_OK(cuMemAlloc_v2(&a, 100));
    char host[200] = { 0 };
    CU_IS(cuMemcpyHtoD_v2(a, host, 101), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyDtoH_v2(host, a + 50, 51), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyHtoD_v2(a + 100, host, 1), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyHtoD_v2(a - 1, host, 1), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyHtoDAsync_v2(0x1234, host, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemsetD8_v2(a + 1, 0, 100), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyHtoD_v2(a, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemcpyHtoD_v2(a, host, 100));
    CU_OK(cuMemcpyHtoD_v2(a + 99, host, 1));
    /* These do not poison the context. */
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemFree_v2(a));
    CU_IS(cuMemcpyHtoD_v2(a, host, 1), CUDA_ERROR_INVALID_VALUE); /* freed */
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_memory, async_overrun_is_a_sticky_illegal_address)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUdeviceptr a;
    CU_OK(cuMemAlloc_v2(&a, 100));
    char host[200] = { 0 };
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuMemcpyHtoDAsync_v2(a + 50, host, 100, s)); /* accepted: starts inside */
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr b;
    CU_IS(cuMemAlloc_v2(&b, 8), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_memory, memory_limit_is_enforced)
{
    sim_test_init("{\"devices\":[{\"memory_mb\":4}]}");
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr a, b, d;
    CU_OK(cuMemAlloc_v2(&a, 3u << 20));
    CU_IS(cuMemAlloc_v2(&b, 2u << 20), CUDA_ERROR_OUT_OF_MEMORY);
    CU_OK(cuMemAlloc_v2(&b, 1u << 20));
    CU_IS(cuMemAlloc_v2(&d, 1), CUDA_ERROR_OUT_OF_MEMORY);
    CU_IS(cuMemAlloc_v2(&d, 0), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemAlloc_v2(&d, 3u << 20)); /* a free takes effect at once */
    CU_OK(cuCtxSynchronize()); /* OOM is not sticky */
    CU_OK(cuCtxDestroy_v2(c)); /* frees b and d */
    sim_test_assert_no_leaks();
}

Test(sim_memory, page_locked_host_memory)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    void *p = NULL;
    CU_OK(cuMemAllocHost_v2(&p, 10000));
    cr_assert_not_null(p);
    memset(p, 3, 10000);
    CU_OK(cuMemFreeHost(p));
    CU_IS(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemAllocHost_v2(&p, 64)); /* left to the context destroy */
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_memory, device_address_dereferenced_on_host_crashes, .signal = SIGSEGV)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    CUdeviceptr a;
    CU_OK(cuMemAlloc_v2(&a, 4096));
    volatile char *p = (volatile char *)(uintptr_t)a;
    *p = 1;
}

Test(sim_memory, free_with_pending_work_is_safe)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUfunction fill = sim_test_kernel(m, "fill");
    CUdeviceptr a;
    CU_OK(cuMemAlloc_v2(&a, 4096));
    unsigned ms = 200, n = 1024, v = 9;
    void *sargs[] = { &ms };
    void *fargs[] = { &a, &n, &v };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, sargs, NULL));
    CU_OK(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, fargs, NULL));
    CU_OK(cuMemFree_v2(a)); /* like CUDA: the queued kernel still sees it */
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* cuPointerGetAttribute finds an allocation in any context (UVA), whichever
 * is current; cuStreamGetCtx names a stream's context. */
Test(sim_memory, pointer_attributes_and_stream_context)
{
    sim_test_init(NULL);
    CUcontext first = sim_test_ctx(0);
    CUdeviceptr a;
    CU_OK(cuMemAlloc_v2(&a, 1000));
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUcontext second = sim_test_ctx(1); /* now current */
    cr_assert_neq(first, second);

    CUcontext owner = NULL;
    CU_OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, a + 10));
    cr_assert_eq(owner, first);
    CUdeviceptr start = 0;
    size_t size = 0;
    int ordinal = -1;
    unsigned type = 0;
    CU_OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 10));
    CU_OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 10));
    CU_OK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a + 999));
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
    cr_assert_eq(start, a);
    cr_assert_eq(size, 1000);
    cr_assert_eq(ordinal, 0);
    cr_assert_eq(type, SIM_CU_MEMORYTYPE_DEVICE);
    CU_IS(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, a + 1000), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, 0x10), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_CONTEXT, a), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuPointerGetAttribute(&owner, (CUpointer_attribute)5, a), CUDA_ERROR_NOT_SUPPORTED);

    CUcontext of_stream = NULL;
    CU_OK(cuStreamGetCtx(s, &of_stream));
    cr_assert_eq(of_stream, first);
    CU_OK(cuStreamGetCtx(NULL, &of_stream)); /* the null stream: the current context's */
    cr_assert_eq(of_stream, second);
    CU_IS(cuStreamGetCtx((CUstream)(uintptr_t)0x7777000, &of_stream), CUDA_ERROR_INVALID_HANDLE);

    /* Freed memory is unknown again. */
    CU_OK(cuCtxSetCurrent(first));
    CU_OK(cuMemFree_v2(a));
    CU_IS(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, a), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuCtxDestroy_v2(second));
    CU_OK(cuCtxDestroy_v2(first));
}
