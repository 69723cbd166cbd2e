/* Mapped and registered host memory used through its device address
 * (issue 31: numba's mapped arrays and cuda.pinned/cuda.mapped): the
 * device pointer is the host pointer (unified addressing), and device-side
 * calls (memsets, copies, kernels, cuMemGetAddressRange) accept it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_test.h"

#define HOSTALLOC_DEVICEMAP 0x02u   /* CU_MEMHOSTALLOC_DEVICEMAP */
#define REGISTER_PORTABLE 0x01u     /* CU_MEMHOSTREGISTER_PORTABLE */
#define REGISTER_DEVICEMAP 0x02u    /* CU_MEMHOSTREGISTER_DEVICEMAP */

TestSuite(sim_host_memory, .timeout = 30);

/* Page-aligned program memory of `bytes`, zeroed. */
static unsigned char *program_buffer(size_t bytes)
{
    void *p = NULL;
    cr_assert_eq(posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), bytes), 0);
    memset(p, 0, bytes);
    return p;
}

/* What every device-side call must do with [d, d+bytes) that the host
 * sees at h: memset, copies both ways, a kernel, the address range (its
 * last byte is in, one past is not). */
static void device_uses(unsigned char *h, CUdeviceptr d, size_t bytes)
{
    cr_assert_eq(d, (CUdeviceptr)(uintptr_t)h, "unified addressing: the same address");
    CU_OK(cuMemsetD8_v2(d, 0xab, bytes));
    cr_assert_eq(h[0], 0xab);
    cr_assert_eq(h[bytes - 1], 0xab);
    h[5] = 0x11;
    unsigned char back[64];
    CU_OK(cuMemcpyDtoH_v2(back, d, sizeof back));
    cr_assert_eq(back[5], 0x11, "a host write seen by a device-to-host copy");
    memset(back, 0x22, sizeof back);
    CU_OK(cuMemcpyHtoD_v2(d, back, sizeof back));
    cr_assert_eq(h[63], 0x22, "a host-to-device copy seen by the host");
    CUfunction fill = sim_test_kernel(sim_test_module(), "fill");
    unsigned n = 16, value = 0x01020304;
    void *args[] = { &d, &n, &value };
    CU_OK(cuLaunchKernel(fill, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    unsigned first;
    memcpy(&first, h, sizeof first);
    cr_assert_eq(first, 0x01020304u, "a kernel's write seen by the host");
    CUdeviceptr base = 0;
    size_t size = 0;
    CU_OK(cuMemGetAddressRange_v2(&base, &size, d + bytes - 1));
    cr_assert_eq(base, d);
    cr_assert_eq(size, bytes);
    CU_IS(cuMemGetAddressRange_v2(&base, &size, d + bytes), CUDA_ERROR_NOT_FOUND);
    CU_IS(cuMemsetD8_v2(d, 0, bytes + 1), CUDA_ERROR_INVALID_VALUE);
}

Test(sim_host_memory, mapped_allocation_is_a_device_range)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    void *h = NULL;
    CU_OK(cuMemHostAlloc(&h, 100, HOSTALLOC_DEVICEMAP));
    CUdeviceptr d = 0;
    CU_OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    device_uses(h, d, 100);
    CU_OK(cuMemFreeHost(h));
    CU_IS(cuMemsetD8_v2(d, 0, 1), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr base;
    size_t size;
    CU_IS(cuMemGetAddressRange_v2(&base, &size, d), CUDA_ERROR_NOT_FOUND);
}

Test(sim_host_memory, registered_devicemap_memory_is_a_device_range)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    unsigned char *h = program_buffer(4096);
    CU_OK(cuMemHostRegister_v2(h, 100, REGISTER_DEVICEMAP));
    CUdeviceptr d = 0;
    CU_OK(cuMemHostGetDevicePointer_v2(&d, h + 10, 0));
    cr_assert_eq(d, (CUdeviceptr)(uintptr_t)(h + 10), "inside the range: its own address");
    CU_OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    device_uses(h, d, 100);
    CU_OK(cuMemHostUnregister(h));
    /* Unregistered: no longer a device range, the memory is the program's. */
    CU_IS(cuMemHostGetDevicePointer_v2(&d, h, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemsetD8_v2(d, 0, 1), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostUnregister(h), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    h[0] = 1; /* still the program's, still writable */
    free(h);
}

/* Measured on an H100 (docs/DRIVER-FACTS.md, "Limits measured after the
 * first memory probe"): a range registered without DEVICEMAP is mapped all
 * the same. */
Test(sim_host_memory, registered_without_devicemap_is_mapped_all_the_same)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    unsigned char *h = program_buffer(4096);
    CU_OK(cuMemHostRegister_v2(h, 64, REGISTER_PORTABLE));
    CUdeviceptr d = 0;
    CU_OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    cr_assert_eq(d, (CUdeviceptr)(uintptr_t)h);
    CU_IS(cuMemHostGetDevicePointer_v2(&d, h + 64, 0), CUDA_ERROR_INVALID_VALUE); /* one past */
    CU_OK(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)h, 0x5a, 64));
    CU_OK(cuCtxSynchronize());
    cr_assert_eq(h[0], 0x5a);
    cr_assert_eq(h[63], 0x5a);
    /* A host-to-device copy from it still works. */
    CUdeviceptr dev = 0;
    CU_OK(cuMemAlloc_v2(&dev, 64));
    h[3] = 42;
    CU_OK(cuMemcpyHtoD_v2(dev, h, 64));
    unsigned char back[64];
    CU_OK(cuMemcpyDtoH_v2(back, dev, 64));
    cr_assert_eq(back[3], 42);
    CU_OK(cuMemFree_v2(dev));
    CU_OK(cuMemHostUnregister(h));
    free(h);
}

Test(sim_host_memory, register_refusals)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    unsigned char *h = program_buffer(8192);
    CU_IS(cuMemHostRegister_v2(NULL, 64, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostRegister_v2(h, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostRegister_v2(h, 64, 0x10), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemHostRegister_v2(h + 100, 100, REGISTER_DEVICEMAP)); /* [100, 200) */
    /* Overlaps at either end, by one byte, and the same range again. */
    CU_IS(cuMemHostRegister_v2(h + 100, 100, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CU_IS(cuMemHostRegister_v2(h, 101, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CU_IS(cuMemHostRegister_v2(h + 199, 10, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    /* Adjacent ranges do not overlap. */
    CU_OK(cuMemHostRegister_v2(h, 100, 0));
    CU_OK(cuMemHostRegister_v2(h + 200, 10, 0));
    /* Unregister wants the start of a range: an interior address is
     * INVALID_VALUE, one in no range HOST_MEMORY_NOT_REGISTERED (H100). */
    CU_IS(cuMemHostUnregister(h + 101), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostUnregister(h + 209), CUDA_ERROR_INVALID_VALUE);     /* the last byte */
    CU_IS(cuMemHostUnregister(h + 210), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED); /* one past */
    CU_IS(cuMemHostUnregister(h + 4096), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CU_IS(cuMemHostUnregister(NULL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemHostUnregister(h));
    CU_OK(cuMemHostUnregister(h + 100));
    CU_OK(cuMemHostUnregister(h + 200));
    CU_IS(cuMemHostUnregister(h + 100), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED); /* twice */
    /* cuMemHostAlloc's memory is not the program's to register or
     * unregister: INVALID_VALUE (measured on an H100), whatever part. */
    unsigned char *pinned = NULL;
    CU_OK(cuMemHostAlloc((void **)&pinned, 64, 0));
    CU_IS(cuMemHostRegister_v2(pinned, 64, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostRegister_v2(pinned + 63, 1, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostUnregister(pinned), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostUnregister(pinned + 10), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeHost(pinned));
    void *allocated_host = NULL;
    CU_OK(cuMemAllocHost_v2(&allocated_host, 64));
    CU_IS(cuMemHostRegister_v2(allocated_host, 64, REGISTER_DEVICEMAP), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostUnregister(allocated_host), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeHost(allocated_host));
    /* Registered memory is not freed by cuMemFreeHost. */
    CU_OK(cuMemHostRegister_v2(h, 64, 0));
    CU_IS(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemHostUnregister(h));
    CUcontext c;
    CU_OK(cuCtxPopCurrent_v2(&c));
    CU_IS(cuMemHostRegister_v2(h, 64, 0), CUDA_ERROR_INVALID_CONTEXT);
    free(h);
}

/* numba's cuda.pinned(arr) after a test that left arr's memory registered
 * and reset its context: the registration went with the context. */
Test(sim_host_memory, registration_goes_with_its_context)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    unsigned char *h = program_buffer(4096);
    CU_OK(cuMemHostRegister_v2(h, 64, REGISTER_DEVICEMAP));
    CU_OK(cuCtxDestroy_v2(c));
    CUcontext c2 = sim_test_ctx(0);
    CU_IS(cuMemHostUnregister(h), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CU_OK(cuMemHostRegister_v2(h, 64, REGISTER_DEVICEMAP));
    CU_OK(cuMemHostUnregister(h));
    CU_OK(cuCtxDestroy_v2(c2));
    sim_test_assert_no_leaks();
    free(h);
}

Test(sim_host_memory, mapped_memory_of_another_device_is_refused)
{
    sim_test_init(NULL);
    CUcontext c0 = sim_test_ctx(0);
    unsigned char *h = program_buffer(4096);
    CU_OK(cuMemHostRegister_v2(h, 64, REGISTER_DEVICEMAP));
    sim_test_ctx(1);
    CUdeviceptr d = 0;
    CU_IS(cuMemHostGetDevicePointer_v2(&d, h, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)h, 0, 64), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr base;
    size_t size;
    CU_IS(cuMemGetAddressRange_v2(&base, &size, (CUdeviceptr)(uintptr_t)h), CUDA_ERROR_NOT_FOUND);
    CU_OK(cuCtxSetCurrent(c0));
    CU_OK(cuMemHostUnregister(h));
    free(h);
}

/* Every page-locked allocation is mapped under unified addressing: an H100
 * answers cuMemHostGetDevicePointer with the host address for
 * cuMemHostAlloc's flags 0 and for cuMemAllocHost, and device-side calls
 * use it (docs/DRIVER-FACTS.md, "Mapped host memory"). */
Test(sim_host_memory, every_page_locked_allocation_is_a_device_range)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    void *h = NULL;
    CU_OK(cuMemHostAlloc(&h, 100, 0));
    CUdeviceptr d = 0;
    CU_OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    device_uses(h, d, 100);
    CU_OK(cuMemHostGetDevicePointer_v2(&d, (unsigned char *)h + 99, 0));
    cr_assert_eq(d, (CUdeviceptr)(uintptr_t)h + 99);
    CU_IS(cuMemHostGetDevicePointer_v2(&d, (unsigned char *)h + 100, 0), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeHost(h));
    CU_OK(cuMemAllocHost_v2(&h, 100));
    CU_OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    device_uses(h, d, 100);
    CU_OK(cuMemFreeHost(h));
    CU_IS(cuMemHostGetDevicePointer_v2(&d, h, 0), CUDA_ERROR_INVALID_VALUE);
}

#define ATTR_CONTEXT ((CUpointer_attribute)1)
#define ATTR_MEMORY_TYPE ((CUpointer_attribute)2)
#define ATTR_DEVICE_POINTER ((CUpointer_attribute)3)
#define ATTR_HOST_POINTER ((CUpointer_attribute)4)
#define ATTR_IS_MANAGED ((CUpointer_attribute)8)
#define ATTR_DEVICE_ORDINAL ((CUpointer_attribute)9)
#define ATTR_RANGE_START ((CUpointer_attribute)11)
#define ATTR_RANGE_SIZE ((CUpointer_attribute)12)
#define ATTR_MAPPED ((CUpointer_attribute)13)

/* cuPointerGetAttribute of page-locked host memory at p + 7, whose range
 * is [p, p + bytes), made in context c: what the H100 answered. */
static void host_attributes(unsigned char *p, size_t bytes, CUcontext c)
{
    CUdeviceptr q = (CUdeviceptr)(uintptr_t)(p + 7);
    unsigned type = 0;
    int v = -1;
    CU_OK(cuPointerGetAttribute(&type, ATTR_MEMORY_TYPE, q));
    cr_assert_eq(type, 1u, "CU_MEMORYTYPE_HOST");
    CU_OK(cuPointerGetAttribute(&v, ATTR_IS_MANAGED, q));
    cr_assert_eq(v, 0);
    v = -1;
    CU_OK(cuPointerGetAttribute(&v, ATTR_MAPPED, q));
    cr_assert_eq(v, 1);
    CUdeviceptr d = 0;
    CU_OK(cuPointerGetAttribute(&d, ATTR_DEVICE_POINTER, q));
    cr_assert_eq(d, q);
    void *hp = NULL;
    CU_OK(cuPointerGetAttribute(&hp, ATTR_HOST_POINTER, q));
    cr_assert_eq(hp, p + 7);
    CUcontext owner = NULL;
    CU_OK(cuPointerGetAttribute(&owner, ATTR_CONTEXT, q));
    cr_assert_eq(owner, c);
    v = -1;
    CU_OK(cuPointerGetAttribute(&v, ATTR_DEVICE_ORDINAL, q));
    cr_assert_eq(v, 0);
    CU_OK(cuPointerGetAttribute(&d, ATTR_RANGE_START, q));
    cr_assert_eq(d, (CUdeviceptr)(uintptr_t)p);
    size_t size = 0;
    CU_OK(cuPointerGetAttribute(&size, ATTR_RANGE_SIZE, q));
    cr_assert_eq(size, bytes);
    /* Its last byte is in, one past it is not. */
    CU_OK(cuPointerGetAttribute(&type, ATTR_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)(p + bytes - 1)));
    CU_IS(cuPointerGetAttribute(&type, ATTR_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)(p + bytes)),
          CUDA_ERROR_INVALID_VALUE);
}

/* Pageable memory: every attribute, MAPPED and an unsimulated one included,
 * INVALID_VALUE (H100), not NOT_SUPPORTED. */
static void pageable_attributes(unsigned char *p)
{
    CUdeviceptr q = (CUdeviceptr)(uintptr_t)p;
    unsigned char out[16];
    const CUpointer_attribute all[] = { ATTR_CONTEXT, ATTR_MEMORY_TYPE, ATTR_DEVICE_POINTER,
                                        ATTR_HOST_POINTER, ATTR_IS_MANAGED, ATTR_DEVICE_ORDINAL,
                                        ATTR_RANGE_START, ATTR_RANGE_SIZE, ATTR_MAPPED,
                                        (CUpointer_attribute)5 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cr_assert_eq(cuPointerGetAttribute(out, all[i], q), CUDA_ERROR_INVALID_VALUE, "attribute %d", (int)all[i]);
}

Test(sim_host_memory, pointer_attributes_of_page_locked_memory)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    unsigned char *h = NULL;
    CU_OK(cuMemHostAlloc((void **)&h, 100, HOSTALLOC_DEVICEMAP));
    host_attributes(h, 100, c);
    CU_OK(cuMemFreeHost(h));
    CU_OK(cuMemHostAlloc((void **)&h, 100, 0));
    host_attributes(h, 100, c);
    CU_OK(cuMemFreeHost(h));
    CU_OK(cuMemAllocHost_v2((void **)&h, 100));
    host_attributes(h, 100, c);
    CU_OK(cuMemFreeHost(h));
    unsigned char *r = program_buffer(8192);
    pageable_attributes(r);
    CU_OK(cuMemHostRegister_v2(r, 4096, REGISTER_DEVICEMAP));
    host_attributes(r, 4096, c);
    pageable_attributes(r + 4096);
    CU_OK(cuMemHostUnregister(r));
    pageable_attributes(r);
    /* Registered without DEVICEMAP: mapped all the same (measured). */
    CU_OK(cuMemHostRegister_v2(r, 64, REGISTER_PORTABLE));
    host_attributes(r, 64, c);
    CU_OK(cuMemHostUnregister(r));
    free(r);
    /* A known address with an attribute not simulated: NOT_SUPPORTED. */
    CU_OK(cuMemAllocHost_v2((void **)&h, 100));
    int v;
    CU_IS(cuPointerGetAttribute(&v, (CUpointer_attribute)5, (CUdeviceptr)(uintptr_t)h), CUDA_ERROR_NOT_SUPPORTED);
    CU_OK(cuMemFreeHost(h));
}
