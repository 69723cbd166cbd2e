/* Memory: allocation limits and size 0, range checks at the call, async
 * overruns as sticky faults, pointers that find their device, fake device
 * addresses, page-locked host memory. */
#include "sim_hip_test.h"

#include <signal.h>
#include <string.h>

TestSuite(sim_hip_memory, .timeout = 60);

Test(sim_hip_memory, copies_round_trip_and_memset)
{
    sim_hip_test_init(NULL);
    void *a, *b;
    HIP_OK(hipMalloc(&a, 1000));
    HIP_OK(hipMalloc(&b, 1000));
    cr_assert_geq((uintptr_t)a, 0x7d0000000000ull, "device addresses come from the fake range");
    char in[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        in[i] = (char)i;
    HIP_OK(hipMemcpyHtoD(a, in, sizeof in));
    HIP_OK(hipMemcpyDtoD(b, a, sizeof in));
    HIP_OK(hipMemcpyDtoH(out, b, sizeof out));
    cr_assert(!memcmp(in, out, sizeof in));
    HIP_OK(hipMemsetD8(DPTR_AT(b, 10), 0x5a, 20));
    HIP_OK(hipMemcpyDtoH(out, b, sizeof out));
    cr_assert_eq(out[9], in[9]);
    cr_assert_eq(out[10], 0x5a);
    cr_assert_eq(out[29], 0x5a);
    cr_assert_eq(out[30], in[30]);
    /* Async variants, with pageable memory reused right after the call. */
    hipStream_t s;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    char tmp[100];
    memset(tmp, 1, sizeof tmp);
    HIP_OK(hipMemcpyHtoDAsync(a, tmp, sizeof tmp, s));
    memset(tmp, 2, sizeof tmp); /* pageable memory is staged at the call */
    HIP_OK(hipMemcpyDtoDAsync(b, a, 100, s));
    HIP_OK(hipMemsetD8Async(DPTR_AT(b, 50), 3, 10, s));
    HIP_OK(hipMemcpyDtoHAsync(out, b, 100, s));
    HIP_OK(hipStreamSynchronize(s));
    cr_assert_eq(out[0], 1);
    cr_assert_eq(out[49], 1);
    cr_assert_eq(out[50], 3);
    cr_assert_eq(out[99], 1);
    HIP_OK(hipMemcpyHtoD(a, in, 0)); /* zero bytes: nothing to do */
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipFree(a));
    HIP_OK(hipFree(b));
    HIP_IS(hipFree(b), hipErrorInvalidValue);
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_memory, out_of_range_copies_are_rejected_at_the_call)
{
    sim_hip_test_init(NULL);
    void *a;
    HIP_OK(hipMalloc(&a, 100));
    char host[200] = { 0 };
    HIP_IS(hipMemcpyHtoD(a, host, 101), hipErrorInvalidValue);
    HIP_IS(hipMemcpyDtoH(host, DPTR_AT(a, 50), 51), hipErrorInvalidValue);
    HIP_IS(hipMemcpyHtoD(DPTR_AT(a, 100), host, 1), hipErrorInvalidValue);
    HIP_IS(hipMemcpyHtoD(DPTR_AT(a, -1), host, 1), hipErrorInvalidValue);
    HIP_IS(hipMemcpyHtoDAsync((void *)(uintptr_t)0x1234, host, 1, NULL), hipErrorInvalidValue);
    HIP_IS(hipMemsetD8(DPTR_AT(a, 1), 0, 100), hipErrorInvalidValue);
    HIP_IS(hipMemcpyHtoD(a, NULL, 1), hipErrorInvalidValue);
    HIP_IS(hipMemcpyDtoH(NULL, a, 1), hipErrorInvalidValue);
    HIP_IS(hipMemcpyDtoD(a, (void *)(uintptr_t)0x1234, 1), hipErrorInvalidValue);
    HIP_OK(hipMemcpyHtoD(a, host, 100));
    HIP_OK(hipMemcpyHtoD(DPTR_AT(a, 99), host, 1));
    /* These do not poison the device. */
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipFree(a));
    HIP_IS(hipMemcpyHtoD(a, host, 1), hipErrorInvalidValue); /* freed */
    HIP_IS(hipFree((void *)(uintptr_t)0x1234), hipErrorInvalidValue);
    HIP_OK(hipFree(NULL));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_memory, async_overrun_is_a_sticky_illegal_address)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    void *a;
    HIP_OK(hipMalloc(&a, 100));
    char host[200] = { 0 };
    hipStream_t s;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    HIP_OK(hipMemcpyHtoDAsync(DPTR_AT(a, 50), host, 100, s)); /* accepted: starts inside */
    HIP_IS(hipStreamSynchronize(s), hipErrorIllegalAddress);
    HIP_IS(hipDeviceSynchronize(), hipErrorIllegalAddress);
    void *b;
    HIP_IS(hipMalloc(&b, 8), hipErrorIllegalAddress);
    HIP_IS(hipFree(a), hipErrorIllegalAddress);
    HIP_OK(hipDeviceReset());
    HIP_OK(hipMalloc(&b, 8));
    HIP_OK(hipFree(b));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_memory, memory_limit_is_enforced_and_size_0_gives_null)
{
    sim_hip_test_init("{\"devices\":[{\"memory_mb\":4}]}");
    void *a, *b, *d = (void *)1;
    HIP_OK(hipMalloc(&a, 3u << 20));
    HIP_IS(hipMalloc(&b, 2u << 20), hipErrorOutOfMemory);
    HIP_OK(hipMalloc(&b, 1u << 20));
    HIP_IS(hipMalloc(&d, 1), hipErrorOutOfMemory);
    HIP_OK(hipMalloc(&d, 0)); /* HIP: no memory, NULL, success */
    cr_assert_null(d);
    HIP_IS(hipMalloc(NULL, 16), hipErrorInvalidValue);
    HIP_OK(hipFree(a));
    HIP_OK(hipMalloc(&d, 3u << 20)); /* a free takes effect at once */
    HIP_OK(hipDeviceSynchronize()); /* OOM is not sticky */
    HIP_OK(hipDeviceReset()); /* frees b and d */
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_memory, page_locked_host_memory)
{
    sim_hip_test_init(NULL);
    void *p = NULL;
    HIP_OK(hipHostMalloc(&p, 10000, hipHostMallocDefault));
    cr_assert_not_null(p);
    memset(p, 3, 10000);
    HIP_OK(hipHostFree(p));
    HIP_IS(hipHostFree(p), hipErrorInvalidValue);
    HIP_OK(hipHostFree(NULL));
    HIP_OK(hipHostMalloc(&p, 64, hipHostMallocPortable | hipHostMallocMapped));
    HIP_OK(hipHostFree(p));
    HIP_IS(hipHostMalloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
           hipErrorInvalidValue);
    HIP_IS(hipHostMalloc(&p, 64, 0x100), hipErrorInvalidValue);
    HIP_IS(hipHostMalloc(NULL, 64, 0), hipErrorInvalidValue);
    p = (void *)1;
    HIP_OK(hipHostMalloc(&p, 0, 0));
    cr_assert_null(p);
    /* Page-locked memory is read when an async copy runs, not at the call. */
    void *d;
    HIP_OK(hipMalloc(&d, 64));
    HIP_OK(hipHostMalloc(&p, 64, 0));
    memset(p, 1, 64);
    HIP_OK(hipMemcpyHtoDAsync(d, p, 64, NULL));
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipDeviceReset()); /* frees both */
    sim_hip_test_assert_no_leaks();
}

/* A device pointer says which device it lives on (HIP's unified address
 * space): synchronous calls on it work whichever device is current. */
Test(sim_hip_memory, device_pointers_find_their_device)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    void *d1;
    HIP_OK(hipMalloc(&d1, 64));
    HIP_OK(hipSetDevice(0));
    void *d0;
    HIP_OK(hipMalloc(&d0, 64));
    char in[64], out[64] = { 0 };
    memset(in, 9, sizeof in);
    HIP_OK(hipMemcpyHtoD(d1, in, sizeof in));
    HIP_OK(hipMemsetD8(d1, 4, 8));
    HIP_OK(hipMemcpyDtoH(out, d1, sizeof out));
    cr_assert_eq(out[0], 4);
    cr_assert_eq(out[8], 9);
    HIP_IS(hipMemcpyDtoD(d0, d1, 64), hipErrorInvalidValue); /* no peer copies */
    HIP_IS(hipMemcpyDtoD(d1, d0, 64), hipErrorInvalidValue);
    cr_assert_eq(gg_sim_device_memory_used(1), 4096u);
    HIP_OK(hipFree(d1)); /* from device 0 */
    cr_assert_eq(gg_sim_device_memory_used(1), 0);
    HIP_OK(hipFree(d0));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_memory, device_address_dereferenced_on_host_crashes, .signal = SIGSEGV)
{
    sim_hip_test_init(NULL);
    void *a;
    HIP_OK(hipMalloc(&a, 4096));
    volatile char *p = a;
    *p = 1;
}

Test(sim_hip_memory, free_with_pending_work_is_safe)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipFunction_t fill = sim_hip_test_kernel(m, "fill");
    void *a;
    HIP_OK(hipMalloc(&a, 4096));
    uint64_t da = (uint64_t)(uintptr_t)a;
    unsigned ms = 200, n = 1024, v = 9;
    void *sargs[] = { &ms };
    void *fargs[] = { &da, &n, &v };
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, sargs, NULL));
    HIP_OK(hipModuleLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, fargs, NULL));
    HIP_OK(hipFree(a)); /* the queued kernel still sees it */
    HIP_OK(hipDeviceSynchronize()); /* no fault */
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_memory, mapped_host_memory_takes_stream_write_values_in_order)
{
    sim_hip_test_init(NULL);
    int v = -1;
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, 0));
    cr_assert_eq(v, 1, "the default device has stream memory operations");
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanMapHostMemory, 0));
    cr_assert_eq(v, 1);

    void *plain, *mapped, *dev = NULL;
    HIP_OK(hipHostMalloc(&plain, 64, hipHostMallocDefault));
    HIP_IS(hipHostGetDevicePointer(&dev, plain, 0), hipErrorInvalidValue);
    HIP_OK(hipHostMalloc(&mapped, 64, hipHostMallocMapped));
    HIP_OK(hipHostGetDevicePointer(&dev, mapped, 0));
    cr_assert_eq(dev, mapped, "unified addressing: the device address is the host one");
    memset(mapped, 0, 64);

    hipStream_t s;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    HIP_OK(hipStreamWriteValue64(s, dev, 0x1122334455667788ull, 0));
    HIP_OK(hipStreamWriteValue32(s, DPTR_AT(dev, 8), 0xCAFEu, 0));
    HIP_OK(hipStreamSynchronize(s));
    cr_assert_eq(__atomic_load_n((uint64_t *)mapped, __ATOMIC_ACQUIRE), 0x1122334455667788ull);
    cr_assert_eq(__atomic_load_n((uint32_t *)((char *)mapped + 8), __ATOMIC_ACQUIRE), 0xCAFEu);
    HIP_IS(hipStreamWriteValue64(s, DPTR_AT(dev, 4), 1, 0), hipErrorInvalidValue);
    HIP_IS(hipStreamWriteValue32(s, plain, 1, 0), hipErrorInvalidValue);
    HIP_IS(hipStreamWriteValue32(s, NULL, 1, 0), hipErrorInvalidValue);
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipHostFree(mapped));
    HIP_OK(hipHostFree(plain));
}

Test(sim_hip_memory, a_device_without_stream_memory_operations_says_so_and_refuses_them)
{
    sim_hip_test_init("{\"devices\":[{\"stream_mem_ops_64\":false}]}");
    int v = -1;
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, 0));
    cr_assert_eq(v, 0, "HIP's one attribute covers both widths");
    void *mapped, *dev;
    HIP_OK(hipHostMalloc(&mapped, 64, hipHostMallocMapped));
    HIP_OK(hipHostGetDevicePointer(&dev, mapped, 0));
    HIP_IS(hipStreamWriteValue64(NULL, dev, 1, 0), hipErrorNotSupported);
    HIP_OK(hipStreamWriteValue32(NULL, dev, 1, 0));
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipHostFree(mapped));
}
