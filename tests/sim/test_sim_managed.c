/* Managed memory through the CUDA face (issue 31: numba's managed-memory
 * tests): cuMemAllocManaged, its pointer attributes, address ranges,
 * cuStreamAttachMemAsync and the device attributes that announce it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_test.h"

#define ATTACH_GLOBAL 0x1u       /* CU_MEM_ATTACH_GLOBAL */
#define ATTACH_HOST 0x2u         /* CU_MEM_ATTACH_HOST */
#define ATTACH_SINGLE 0x4u       /* CU_MEM_ATTACH_SINGLE */
#define ATTR_MANAGED_MEMORY 83
#define ATTR_CONCURRENT_MANAGED 89
#define ATTR_HOST_POINTER_FOR_REGISTERED 91

TestSuite(sim_managed, .timeout = 30);

static int attr(int a, int dev)
{
    int v = -1;
    CU_OK(cuDeviceGetAttribute(&v, a, dev));
    return v;
}

Test(sim_managed, host_and_device_share_the_bytes)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    enum { N = 1000 };
    CUdeviceptr d = 0;
    CU_OK(cuMemAllocManaged(&d, N * sizeof(unsigned), ATTACH_GLOBAL));
    unsigned *h = (unsigned *)(uintptr_t)d;
    /* Host writes, read back through the device: a copy and a kernel. */
    for (unsigned i = 0; i < N; i++)
        h[i] = i;
    unsigned back[N];
    CU_OK(cuMemcpyDtoH_v2(back, d, sizeof back));
    for (unsigned i = 0; i < N; i++)
        cr_assert_eq(back[i], i, "element %u", i);
    /* Device writes (kernel, copy, memset), read by the host in place. */
    CUfunction fill = sim_test_kernel(sim_test_module(), "fill");
    unsigned n = N, value = 7;
    void *args[] = { &d, &n, &value };
    CU_OK(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    for (unsigned i = 0; i < N; i++)
        cr_assert_eq(h[i], 7u, "element %u", i);
    unsigned nine[N];
    for (unsigned i = 0; i < N; i++)
        nine[i] = 9;
    CU_OK(cuMemcpyHtoD_v2(d, nine, sizeof nine));
    cr_assert_eq(h[0], 9u);
    cr_assert_eq(h[N - 1], 9u);
    CU_OK(cuMemsetD8_v2(d, 0xab, N * sizeof(unsigned)));
    cr_assert_eq(h[N - 1], 0xababababu);
    CU_OK(cuMemFree_v2(d));
    CU_IS(cuMemFree_v2(d), CUDA_ERROR_INVALID_VALUE); /* freed pointer */
    CU_IS(cuMemcpyDtoH_v2(back, d, 4), CUDA_ERROR_INVALID_VALUE);
}

Test(sim_managed, host_attached_memory_works_the_same)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    CUdeviceptr d = 0;
    CU_OK(cuMemAllocManaged(&d, 64, ATTACH_HOST));
    memset((void *)(uintptr_t)d, 0x5a, 64);
    unsigned char back[64];
    CU_OK(cuMemcpyDtoH_v2(back, d, 64));
    cr_assert_eq(back[63], 0x5a);
    CU_OK(cuMemFree_v2(d));
}

Test(sim_managed, refusals)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    CUdeviceptr d = 0;
    CU_IS(cuMemAllocManaged(&d, 64, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemAllocManaged(&d, 64, ATTACH_GLOBAL | ATTACH_HOST), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemAllocManaged(&d, 64, ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemAllocManaged(&d, 64, 0x8), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemAllocManaged(&d, 0, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemAllocManaged(NULL, 64, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    cr_assert_eq(d, 0, "nothing written on a refusal");
    CUcontext c;
    CU_OK(cuCtxPopCurrent_v2(&c));
    CU_IS(cuMemAllocManaged(&d, 64, ATTACH_GLOBAL), CUDA_ERROR_INVALID_CONTEXT);
}

/* Not counted against the device's memory: as on an H100 (concurrent
 * managed access; docs/DRIVER-FACTS.md), more than the device holds is
 * given (total + 1 byte, 4 x total) and cuMemGetInfo does not change; the
 * bound is the simulator's address range (1 TiB): one byte more is
 * OUT_OF_MEMORY. Untouched pages cost nothing (MAP_NORESERVE); a touched
 * one works. */
Test(sim_managed, allocation_may_exceed_the_device_memory)
{
    sim_test_init("{\"devices\":[{\"name\":\"small\",\"memory_mb\":64}]}");
    sim_test_ctx(0);
    size_t free_b = 0, total = 0;
    CU_OK(cuMemGetInfo_v2(&free_b, &total));
    cr_assert_eq(total, 64u << 20);
    CUdeviceptr d = 0, more = 0, four = 0;
    CU_OK(cuMemAllocManaged(&d, total + 1, ATTACH_GLOBAL));
    CU_OK(cuMemAllocManaged(&four, 4 * (size_t)total, ATTACH_GLOBAL));
    size_t after = 1;
    CU_OK(cuMemGetInfo_v2(&after, &total));
    cr_assert_eq(after, free_b, "managed memory is not resident device memory");
    unsigned char *h = (unsigned char *)(uintptr_t)four;
    h[4 * (size_t)total - 1] = 0x5a; /* its last byte, touched */
    unsigned char back = 0;
    CU_OK(cuMemcpyDtoH_v2(&back, four + 4 * (size_t)total - 1, 1));
    cr_assert_eq(back, 0x5a);
    /* Device memory is still bounded by the device: all its free memory
     * fits beside the managed allocations, one byte more does not. */
    CU_IS(cuMemAlloc_v2(&more, free_b + 1), CUDA_ERROR_OUT_OF_MEMORY);
    CU_OK(cuMemAlloc_v2(&more, free_b));
    CU_OK(cuMemFree_v2(more));
    /* The address range bounds it: one byte past 1 TiB. */
    more = 0;
    CU_IS(cuMemAllocManaged(&more, ((size_t)1 << 40) + 1, ATTACH_GLOBAL), CUDA_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(more, 0u, "nothing written on a refusal");
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemFree_v2(four));
    CU_OK(cuMemGetInfo_v2(&after, &total));
    cr_assert_eq(after, free_b, "freeing changes nothing either");
}

Test(sim_managed, pointer_attributes_and_address_range)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    CUdeviceptr m = 0, d = 0;
    CU_OK(cuMemAllocManaged(&m, 100, ATTACH_GLOBAL));
    CU_OK(cuMemAlloc_v2(&d, 100));
    int managed = -1;
    CU_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 10));
    cr_assert_eq(managed, 1);
    CU_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
    cr_assert_eq(managed, 0);
    unsigned type = 0;
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m));
    cr_assert_eq(type, SIM_CU_MEMORYTYPE_DEVICE);
    void *host = NULL;
    CU_OK(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, m + 3));
    cr_assert_eq((uintptr_t)host, (uintptr_t)(m + 3));
    CU_IS(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, d), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr dp = 0;
    CU_OK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, m + 5));
    cr_assert_eq(dp, m + 5);
    int mapped = -1;
    CU_OK(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, m + 99)); /* H100: 1 */
    cr_assert_eq(mapped, 1);
    mapped = -1;
    CU_OK(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, d));
    cr_assert_eq(mapped, 1);
    CU_IS(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, m + 100), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr start = 0;
    size_t size = 0;
    CU_OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, m + 99));
    cr_assert_eq(start, m);
    /* cuMemGetAddressRange: the last byte is in, one past is not. */
    CU_OK(cuMemGetAddressRange_v2(&start, &size, m + 99));
    cr_assert_eq(start, m);
    cr_assert_eq(size, 100u);
    CU_IS(cuMemGetAddressRange_v2(&start, &size, m + 100), CUDA_ERROR_NOT_FOUND);
    CU_OK(cuMemFree_v2(m));
    CU_IS(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, m), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemGetAddressRange_v2(&start, &size, m), CUDA_ERROR_NOT_FOUND);
    CU_OK(cuMemFree_v2(d));
}

Test(sim_managed, stream_attach_accepts_whole_managed_allocations_only)
{
    sim_test_init(NULL);
    sim_test_ctx(0);
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    CUdeviceptr m = 0, d = 0;
    CU_OK(cuMemAllocManaged(&m, 256, ATTACH_GLOBAL));
    CU_OK(cuMemAlloc_v2(&d, 256));
    CU_OK(cuStreamAttachMemAsync(s, m, 0, ATTACH_SINGLE));
    CU_OK(cuStreamAttachMemAsync(s, m, 256, ATTACH_HOST));
    CU_OK(cuStreamAttachMemAsync(NULL, m, 0, ATTACH_GLOBAL));
    CU_IS(cuStreamAttachMemAsync(s, m, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamAttachMemAsync(s, m, 0, ATTACH_GLOBAL | ATTACH_HOST), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamAttachMemAsync(s, m, 257, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamAttachMemAsync(s, m, 255, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamAttachMemAsync(s, m + 1, 0, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamAttachMemAsync(s, d, 0, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(m));
    CU_IS(cuStreamAttachMemAsync(s, m, 0, ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuStreamDestroy_v2(s));
}

Test(sim_managed, context_destroy_frees_managed_memory)
{
    sim_test_init("{\"devices\":[{\"name\":\"small\",\"memory_mb\":64}]}");
    CUcontext c = sim_test_ctx(0);
    size_t before = 0, total = 0;
    CU_OK(cuMemGetInfo_v2(&before, &total));
    CUdeviceptr m = 0;
    CU_OK(cuMemAllocManaged(&m, 1 << 20, ATTACH_GLOBAL));
    CU_OK(cuCtxDestroy_v2(c));
    CUcontext c2 = sim_test_ctx(0);
    size_t after = 0;
    CU_OK(cuMemGetInfo_v2(&after, &total));
    cr_assert_eq(after, before);
    CU_OK(cuCtxDestroy_v2(c2));
    sim_test_assert_no_leaks();
}

/* As an H100 answers (docs/DRIVER-FACTS.md): managed memory with
 * concurrent access. */
Test(sim_managed, device_attributes_announce_concurrent_managed_memory)
{
    sim_test_init(NULL);
    cr_assert_eq(attr(ATTR_MANAGED_MEMORY, 0), 1);
    cr_assert_eq(attr(ATTR_CONCURRENT_MANAGED, 0), 1);
    cr_assert_eq(attr(ATTR_HOST_POINTER_FOR_REGISTERED, 0), 1);
}

/* Child outcomes of one allocation-failure run. */
enum { RUN_OK = 0, RUN_ALLOC_OOM = 1, RUN_SETUP_FAILED = 2, RUN_WRONG = 3 };

/* In a child, with the simulator's at-th host allocation failing
 * (GPUGUARD_SIM_FAIL_HOST_ALLOC: counted per process), sets up a context
 * and makes one managed allocation and one registration: OUT_OF_MEMORY
 * from either must leave the device's free memory and the registrations
 * as they were, and the same call must then succeed. */
static int failing_run(int at)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", at);
        setenv("GPUGUARD_SIM_FAIL_HOST_ALLOC", v, 1);
        unsetenv("GPUGUARD_SIM_CONFIG");
        CUcontext c;
        size_t before = 0, after = 0, total = 0;
        if (cuInit(0) || cuCtxCreate_v2(&c, 0, 0) || cuMemGetInfo_v2(&before, &total))
            _exit(RUN_SETUP_FAILED);
        static unsigned char buf[8192] __attribute__((aligned(4096)));
        CUdeviceptr d = 0;
        CUresult r = cuMemAllocManaged(&d, 4096, ATTACH_GLOBAL);
        CUresult g = cuMemHostRegister_v2(buf, 64, 0);
        int oom = r == CUDA_ERROR_OUT_OF_MEMORY || g == CUDA_ERROR_OUT_OF_MEMORY;
        if ((r && r != CUDA_ERROR_OUT_OF_MEMORY) || (g && g != CUDA_ERROR_OUT_OF_MEMORY))
            _exit(RUN_WRONG);
        if (r == CUDA_ERROR_OUT_OF_MEMORY &&
            (cuMemGetInfo_v2(&after, &total) || after != before || d != 0))
            _exit(RUN_WRONG);
        if (g == CUDA_ERROR_OUT_OF_MEMORY && cuMemHostUnregister(buf) != CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
            _exit(RUN_WRONG);
        /* The countdown fails once: both calls work now. */
        if ((r && cuMemAllocManaged(&d, 4096, ATTACH_GLOBAL)) || (g && cuMemHostRegister_v2(buf, 64, 0)))
            _exit(RUN_WRONG);
        if (cuMemFree_v2(d) || cuMemHostUnregister(buf))
            _exit(RUN_WRONG);
        _exit(oom ? RUN_ALLOC_OOM : RUN_OK);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "allocation %d failing: the child died", at);
    return WEXITSTATUS(status);
}

Test(sim_managed, host_allocation_failures_are_out_of_memory_and_leave_nothing, .timeout = 120)
{
    int oom = 0, ok = 0;
    for (int at = 1; at <= 400 && !ok; at++) {
        int run = failing_run(at);
        cr_assert_neq(run, RUN_WRONG, "allocation %d failing: a wrong answer or state", at);
        oom += run == RUN_ALLOC_OOM;
        ok = run == RUN_OK;
        cr_log_info("allocation %d failing: run %d", at, run);
    }
    cr_assert_geq(oom, 2, "the managed allocation's and the registration's own allocations");
    cr_assert(ok, "past the last allocation the run succeeds");
}
