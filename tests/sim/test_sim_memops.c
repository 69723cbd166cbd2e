/* Mapped host memory, stream write-value operations, their device
 * attributes, and cuFuncGetParamInfo, through the CUDA face. */
#include <stdint.h>
#include <string.h>

#include "sim_test.h"

#define DEVICEMAP 0x02u          /* CU_MEMHOSTALLOC_DEVICEMAP */
#define ATTR_SHARED 8            /* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK */
#define ATTR_CAN_MAP_HOST 19     /* ..._CAN_MAP_HOST_MEMORY */
#define ATTR_MEM_OPS_V1 92       /* ..._CAN_USE_STREAM_MEM_OPS_V1 */
#define ATTR_MEM_OPS_64_V1 93    /* ..._CAN_USE_64_BIT_STREAM_MEM_OPS_V1 */
#define ATTR_SHARED_OPTIN 97     /* ..._MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
#define ATTR_MEM_OPS_64 122      /* ..._CAN_USE_64_BIT_STREAM_MEM_OPS */

/* Slots are read as the core will read them: atomically, since a stream
 * worker may be writing them. */
static uint64_t slot64(const void *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static uint32_t slot32(const void *p)
{
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}

static int attr(int a, int dev)
{
    int v = -1;
    CU_OK(cuDeviceGetAttribute(&v, a, dev));
    return v;
}

/* A mapped slot buffer of `bytes`, zeroed; *d its device address. */
static void *mapped(size_t bytes, CUdeviceptr *d)
{
    void *h = NULL;
    CU_OK(cuMemHostAlloc(&h, bytes, DEVICEMAP));
    memset(h, 0, bytes);
    CU_OK(cuMemHostGetDevicePointer_v2(d, h, 0));
    return h;
}

Test(sim_memops, device_pointer_of_mapped_memory_is_its_host_address)
{
    sim_test_init(NULL);
    sim_test_ctx(1);
    CUdeviceptr d = 0;
    void *h = mapped(64, &d);
    cr_expect_eq(d, (CUdeviceptr)(uintptr_t)h, "unified addressing: same address");
    /* Page-locked without DEVICEMAP is mapped too (unified addressing,
     * measured on an H100); memory not page-locked at all is refused. */
    void *unmapped = NULL;
    CU_OK(cuMemHostAlloc(&unmapped, 64, 0));
    CU_OK(cuMemHostGetDevicePointer_v2(&d, unmapped, 0));
    cr_expect_eq(d, (CUdeviceptr)(uintptr_t)unmapped);
    int on_stack = 0;
    CU_IS(cuMemHostGetDevicePointer_v2(&d, &on_stack, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostGetDevicePointer_v2(&d, h, 1), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemHostAlloc(&unmapped, 64, 0x80), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeHost(unmapped));
    CU_OK(cuMemFreeHost(h));
}

Test(sim_memops, write_values_land_in_stream_order_after_the_kernel)
{
    sim_test_init(NULL);
    sim_test_ctx(1);
    CUfunction spin = sim_test_kernel(sim_test_module(), "spin");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUdeviceptr d;
    char *h = mapped(16, &d);
    unsigned ms = 50;
    void *params[] = { &ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    CU_OK(cuStreamWriteValue64_v2(s, d, 0x1122334455667788ull, 0));
    CU_OK(cuStreamWriteValue32_v2(s, d + 8, 41, 0));
    CU_OK(cuStreamWriteValue32(s, d + 12, 42, 0)); /* the 8.0 form */
    CU_OK(cuStreamSynchronize(s));
    cr_expect_eq(slot64(h), 0x1122334455667788ull);
    cr_expect_eq(slot32(h + 8), 41u);
    cr_expect_eq(slot32(h + 12), 42u);
    /* Device memory is a valid target too. */
    CUdeviceptr dev;
    CU_OK(cuMemAlloc_v2(&dev, 8));
    CU_OK(cuStreamWriteValue64(s, dev, 99, 0));
    uint64_t back = 0;
    CU_OK(cuStreamSynchronize(s)); /* s is non-blocking: the copy would not wait for it */
    CU_OK(cuMemcpyDtoH_v2(&back, dev, 8));
    cr_expect_eq(back, 99u);
    CU_OK(cuStreamDestroy_v2(s));
}

Test(sim_memops, bad_write_value_targets_are_refused_at_the_call)
{
    sim_test_init(NULL);
    sim_test_ctx(1);
    CUdeviceptr d;
    mapped(16, &d);
    CU_IS(cuStreamWriteValue64_v2(NULL, d + 4, 1, 0), CUDA_ERROR_INVALID_VALUE); /* misaligned */
    CU_IS(cuStreamWriteValue32_v2(NULL, d + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamWriteValue64_v2(NULL, d + 16, 1, 0), CUDA_ERROR_INVALID_VALUE); /* past the end */
    uint64_t pageable = 0;
    CU_IS(cuStreamWriteValue64_v2(NULL, (CUdeviceptr)(uintptr_t)&pageable, 1, 0),
          CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuStreamWriteValue64_v2(NULL, d, 1, 4), CUDA_ERROR_INVALID_VALUE); /* unknown flag */
    CU_OK(cuStreamWriteValue64_v2(NULL, d, 1, 1)); /* NO_MEMORY_BARRIER is allowed */
    CU_OK(cuCtxSynchronize());
    cr_expect_eq(pageable, 0u);
}

/* The order a real stream gives: what was queued before the faulting
 * kernel writes its value, nothing queued after it does, and the host can
 * still read the slots of the dead context. */
Test(sim_memops, no_value_queued_behind_a_faulting_kernel_lands)
{
    sim_test_init("{\"misbehave\":[{\"kernel\":\"noop\",\"action\":\"fault\",\"launch\":2,"
                  "\"error\":\"illegal_address\"}]}");
    sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction noop = sim_test_kernel(m, "noop"), spin = sim_test_kernel(m, "spin");
    CUstream s, other;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuStreamCreate(&other, 1));
    CUdeviceptr d;
    char *h = mapped(16, &d);
    /* The other stream's value lands before the fault: it is synchronised
     * first. */
    CU_OK(cuStreamWriteValue64_v2(other, d + 8, 100, 0));
    CU_OK(cuStreamSynchronize(other));
    unsigned ms = 50;
    void *params[] = { &ms };
    /* spin holds the worker so that the rest is queued before the fault
     * runs; if it does not, the calls after the fault fail with the sticky
     * error instead, and the outcome checked is the same. */
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* launch 1 of noop */
    CU_OK(cuStreamWriteValue64_v2(s, d, 1, 0));
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* 2: faults */
    CUresult r2 = cuStreamWriteValue64_v2(s, d, 2, 0);
    CUresult r3 = cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
    CUresult r4 = cuStreamWriteValue64_v2(s, d, 3, 0);
    cr_expect(r2 == CUDA_SUCCESS || r2 == CUDA_ERROR_ILLEGAL_ADDRESS, "write 2 -> %d", r2);
    cr_expect(r3 == CUDA_SUCCESS || r3 == CUDA_ERROR_ILLEGAL_ADDRESS, "launch 3 -> %d", r3);
    cr_expect(r4 == CUDA_SUCCESS || r4 == CUDA_ERROR_ILLEGAL_ADDRESS, "write 3 -> %d", r4);
    CU_IS(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_expect_eq(slot64(h), 1u, "the value written after the last completed launch");
    cr_expect_eq(slot64(h + 8), 100u);
    /* Dead context: no new write is accepted, the memory stays readable. */
    CU_IS(cuStreamWriteValue64_v2(other, d + 8, 101, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_expect_eq(slot64(h + 8), 100u);
}

Test(sim_memops, attributes_default_to_supported)
{
    sim_test_init(NULL);
    for (int dev = 0; dev < 2; dev++) {
        cr_expect_eq(attr(ATTR_MEM_OPS_V1, dev), 1);
        cr_expect_eq(attr(ATTR_MEM_OPS_64_V1, dev), 1);
        cr_expect_eq(attr(ATTR_MEM_OPS_64, dev), 1);
        cr_expect_eq(attr(ATTR_CAN_MAP_HOST, dev), 1);
        cr_expect_eq(attr(ATTR_SHARED, dev), 49152);
        cr_expect_eq(attr(ATTR_SHARED_OPTIN, dev), 166912);
    }
}

Test(sim_memops, without_64_bit_operations_only_32_bit_writes_work)
{
    sim_test_init("{\"devices\":[{\"name\":\"a\"},{\"name\":\"b\",\"stream_mem_ops_64\":false}]}");
    cr_expect_eq(attr(ATTR_MEM_OPS_V1, 0), 1);
    cr_expect_eq(attr(ATTR_MEM_OPS_64, 0), 1);
    cr_expect_eq(attr(ATTR_MEM_OPS_V1, 1), 1);
    cr_expect_eq(attr(ATTR_MEM_OPS_64_V1, 1), 0);
    cr_expect_eq(attr(ATTR_MEM_OPS_64, 1), 0);
    sim_test_ctx(1);
    CUdeviceptr d;
    char *h = mapped(8, &d);
    CU_IS(cuStreamWriteValue64_v2(NULL, d, 5, 0), CUDA_ERROR_NOT_SUPPORTED);
    CU_IS(cuStreamWriteValue64(NULL, d, 5, 0), CUDA_ERROR_NOT_SUPPORTED);
    CU_OK(cuStreamWriteValue32_v2(NULL, d, 6, 0));
    CU_OK(cuCtxSynchronize());
    cr_expect_eq(slot32(h), 6u);
}

Test(sim_memops, without_stream_memory_operations_no_write_is_accepted)
{
    sim_test_init("{\"devices\":[{\"name\":\"a\",\"stream_mem_ops\":false}]}");
    cr_expect_eq(attr(ATTR_MEM_OPS_V1, 0), 0);
    cr_expect_eq(attr(ATTR_MEM_OPS_64_V1, 0), 0);
    cr_expect_eq(attr(ATTR_MEM_OPS_64, 0), 0);
    sim_test_ctx(0);
    CUdeviceptr d;
    char *h = mapped(8, &d);
    CU_IS(cuStreamWriteValue32_v2(NULL, d, 6, 0), CUDA_ERROR_NOT_SUPPORTED);
    CU_IS(cuStreamWriteValue64_v2(NULL, d, 6, 0), CUDA_ERROR_NOT_SUPPORTED);
    cr_expect_eq(slot64(h), 0u);
}

Test(sim_memops, stream_mem_ops_must_be_a_boolean)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"devices\":[{\"stream_mem_ops\":1}]}", 1);
    CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
    cr_expect(strstr(gg_sim_last_config_error(), "stream_mem_ops") != NULL, "%s",
              gg_sim_last_config_error());
}

Test(sim_memops, fast_mode_writes_at_submission_in_order)
{
    sim_test_init("{\"fast\":true}");
    sim_test_ctx(1);
    CUfunction noop = sim_test_kernel(sim_test_module(), "noop");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUdeviceptr d;
    char *h = mapped(8, &d);
    for (uint64_t seq = 1; seq <= 3; seq++) {
        CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
        CU_OK(cuStreamWriteValue64_v2(s, d, seq, 0));
        cr_expect_eq(slot64(h), seq, "complete when the call returns");
    }
    CU_OK(cuStreamQuery(s));
}

Test(sim_memops, param_info_reports_the_declared_parameters)
{
    sim_test_init(NULL);
    sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction store = sim_test_kernel(m, "store_params"), noop = sim_test_kernel(m, "noop");
    /* store_params(uint64_t, unsigned char, struct of 4 uint64_t) */
    const size_t sizes[] = { 8, 1, 32 }, offsets[] = { 0, 8, 16 };
    size_t i = 0, off, sz;
    for (; cuFuncGetParamInfo(store, i, &off, &sz) == CUDA_SUCCESS; i++) {
        cr_assert_lt(i, 3u);
        cr_expect_eq(sz, sizes[i], "parameter %zu", i);
        cr_expect_eq(off, offsets[i], "parameter %zu", i);
    }
    cr_expect_eq(i, 3u, "the count is where it fails");
    CU_IS(cuFuncGetParamInfo(store, 3, &off, &sz), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuFuncGetParamInfo(store, 1, &off, NULL)); /* the size is optional */
    CU_IS(cuFuncGetParamInfo(store, 0, NULL, &sz), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuFuncGetParamInfo(noop, 0, &off, &sz), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuFuncGetParamInfo((CUfunction)(uintptr_t)0x1234, 0, &off, &sz),
          CUDA_ERROR_INVALID_HANDLE);
}

/* cuGetProcAddress hands each new entry point out only from the version
 * that introduced it (cudaTypedefs.h: cuFuncGetParamInfo 12040,
 * cuStreamWriteValue32/64_v2 11070, cuStreamWriteValue64 9000). */
static void *proc(const char *name, int version)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult q;
    CU_OK(cuGetProcAddress_v2(name, &p, version, 0, &q));
    return p;
}

Test(sim_memops, procaddr_offers_each_variant_from_its_version)
{
    sim_test_init("{\"driver_version\":12020}");
    cr_expect_null(proc("cuFuncGetParamInfo", 13000), "a 12.2 driver has no cuFuncGetParamInfo");
    cr_expect_eq(proc("cuStreamWriteValue64", 12020), (void *)(uintptr_t)cuStreamWriteValue64_v2);
    cr_expect_eq(proc("cuStreamWriteValue64", 11060), (void *)(uintptr_t)cuStreamWriteValue64);
    cr_expect_eq(proc("cuStreamWriteValue32", 11070), (void *)(uintptr_t)cuStreamWriteValue32_v2);
    cr_expect_eq(proc("cuStreamWriteValue32", 8000), (void *)(uintptr_t)cuStreamWriteValue32);
    cr_expect_null(proc("cuStreamWriteValue64", 8000));
    cr_expect_eq(proc("cuMemHostAlloc", 12020), (void *)(uintptr_t)cuMemHostAlloc);
    cr_expect_eq(proc("cuMemHostGetDevicePointer", 12020),
                 (void *)(uintptr_t)cuMemHostGetDevicePointer_v2);
}

Test(sim_memops, procaddr_offers_param_info_from_12_4)
{
    sim_test_init("{\"driver_version\":12040}");
    cr_expect_eq(proc("cuFuncGetParamInfo", 12040), (void *)(uintptr_t)cuFuncGetParamInfo);
    cr_expect_null(proc("cuFuncGetParamInfo", 12030));
}

/* ---- "host_us": the host time a write-value or a launch call takes ---- */

static uint64_t elapsed_us(struct timespec a, struct timespec b)
{
    return (uint64_t)(b.tv_sec - a.tv_sec) * 1000000u + (uint64_t)(b.tv_nsec - a.tv_nsec) / 1000u;
}

Test(sim_memops, host_us_write_value_makes_each_write_take_at_least_that_long)
{
    sim_test_init("{\"host_us\": {\"write_value\": 3000}}");
    sim_test_ctx(1);
    CUdeviceptr d;
    char *h = mapped(8, &d);
    struct timespec t0 = sim_test_now();
    CU_OK(cuStreamWriteValue64_v2(NULL, d, 9, 0));
    struct timespec t1 = sim_test_now();
    cr_expect_geq(elapsed_us(t0, t1), 3000u, "the write took %llu us", (unsigned long long)elapsed_us(t0, t1));
    CU_OK(cuCtxSynchronize());
    cr_expect_eq(slot64(h), 9u, "and it still lands");
}

Test(sim_memops, host_us_values_are_checked_and_named)
{
    static const char *const bad[] = {
        "{\"host_us\": 5}",                               /* not an object */
        "{\"host_us\": {\"launch\": -1}}",                /* negative */
        "{\"host_us\": {\"launch\": 1000001}}",           /* the bound + 1 */
        "{\"host_us\": {\"write_value\": 1.5}}",          /* not whole */
        "{\"host_us\": {\"write_value\": \"3\"}}",        /* not a number */
        "{\"host_us\": {\"copy\": 3}}",                   /* unknown key */
    };
    static const char *const named[] = { "host_us", "host_us.launch", "host_us.launch", "host_us.write_value",
                                         "host_us.write_value", "unknown key \"copy\"" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("GPUGUARD_SIM_CONFIG", bad[i], 1);
        CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
        cr_expect(strstr(gg_sim_last_config_error(), named[i]) != NULL, "%s: %s", bad[i],
                  gg_sim_last_config_error());
    }
    setenv("GPUGUARD_SIM_CONFIG", "{\"host_us\": {\"launch\": 0, \"write_value\": 1000000}}", 1);
    CU_OK(cuInit(0)); /* the bound itself is accepted */
}
