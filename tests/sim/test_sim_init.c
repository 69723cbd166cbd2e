/* Initialisation, configuration, devices, error names, cuGetProcAddress and
 * the call counters. */
#include "sim_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(sim_init, .timeout = 60);

Test(sim_init, calls_before_cuInit_fail_not_initialized)
{
    int n = -1;
    CUcontext c = NULL;
    CUdeviceptr d = 0;
    CU_IS(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CU_IS(cuCtxCreate_v2(&c, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
    CU_IS(cuMemAlloc_v2(&d, 16), CUDA_ERROR_NOT_INITIALIZED);
    CU_IS(cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);
    int v = 0;
    CU_OK(cuDriverGetVersion(&v)); /* works before cuInit, as on a real driver */
    cr_assert_eq(v, 13000);
    cr_assert_str_eq(gg_sim_identify(), "gpuguard simulated driver 0.1");
    sim_test_assert_no_leaks();
}

Test(sim_init, default_config_has_display_and_compute_device)
{
    sim_test_init(NULL);
    int n = 0;
    CU_OK(cuDeviceGetCount(&n));
    cr_assert_eq(n, 2);
    char name[64];
    CU_OK(cuDeviceGetName(name, sizeof name, 0));
    cr_assert_str_eq(name, "gpuguard sim display GPU");
    CU_OK(cuDeviceGetName(name, sizeof name, 1));
    cr_assert_str_eq(name, "gpuguard sim compute GPU");
    int wd0 = -1, wd1 = -1, v;
    CU_OK(cuDeviceGetAttribute(&wd0, 17, 0));
    CU_OK(cuDeviceGetAttribute(&wd1, 17, 1));
    cr_assert_eq(wd0, 1);
    cr_assert_eq(wd1, 0);
    const int want[][2] = { { 1, 1024 }, { 2, 1024 }, { 3, 1024 }, { 4, 64 }, { 5, 2147483647 },
                            { 6, 65535 }, { 7, 65535 }, { 16, 8 }, { 10, 32 } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_OK(cuDeviceGetAttribute(&v, want[i][0], 1));
        cr_assert_eq(v, want[i][1], "attribute %d = %d", want[i][0], v);
    }
    size_t mem = 0;
    CU_OK(cuDeviceTotalMem_v2(&mem, 0));
    cr_assert_eq(mem, 1024ull << 20);
    CU_IS(cuDeviceGetAttribute(&v, 100000, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuDeviceGetAttribute(&v, 1, 2), CUDA_ERROR_INVALID_DEVICE);
    CUdevice dev;
    CU_IS(cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
    CU_OK(cuDeviceGet(&dev, 1));
    cr_assert_eq(dev, 1);
    CU_OK(cuInit(0)); /* a second cuInit is harmless */
    sim_test_assert_no_leaks();
}

Test(sim_init, custom_config_from_text)
{
    sim_test_init("{\"devices\":[{\"name\":\"tiny\",\"memory_mb\":3,\"multiprocessors\":2,"
                  "\"max_threads_per_block\":64,\"max_grid\":[10,20,30],\"max_block\":[64,8,4],"
                  "\"watchdog\":true,\"watchdog_ms\":50}]}");
    int n = 0, v = 0;
    CU_OK(cuDeviceGetCount(&n));
    cr_assert_eq(n, 1);
    CU_OK(cuDeviceGetAttribute(&v, 16, 0));
    cr_assert_eq(v, 2);
    CU_OK(cuDeviceGetAttribute(&v, 1, 0));
    cr_assert_eq(v, 64);
    CU_OK(cuDeviceGetAttribute(&v, 6, 0));
    cr_assert_eq(v, 20);
    CU_OK(cuDeviceGetAttribute(&v, 4, 0));
    cr_assert_eq(v, 4);
    CU_OK(cuDeviceGetAttribute(&v, 17, 0));
    cr_assert_eq(v, 1);
    size_t mem = 0;
    CU_OK(cuDeviceTotalMem_v2(&mem, 0));
    cr_assert_eq(mem, 3ull << 20);
    sim_test_assert_no_leaks();
}

Test(sim_init, config_from_file)
{
    char path[] = "/tmp/gg-sim-config-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *json = "{\"devices\":[{\"name\":\"from file\"},{},{}]}";
    cr_assert_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    char env[64];
    snprintf(env, sizeof env, "@%s", path);
    sim_test_init(env);
    unlink(path);
    int n = 0;
    char name[64];
    CU_OK(cuDeviceGetCount(&n));
    cr_assert_eq(n, 3);
    CU_OK(cuDeviceGetName(name, sizeof name, 0));
    cr_assert_str_eq(name, "from file");
    CU_OK(cuDeviceGetName(name, sizeof name, 2));
    cr_assert_str_eq(name, "gpuguard sim GPU 2");
}

/* cuInit must refuse the config, name the key, and leave the driver
 * uninitialised (and never crash or print). */
static void expect_bad_config(const char *config, const char *key)
{
    setenv("GPUGUARD_SIM_CONFIG", config, 1);
    CU_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
    const char *msg = gg_sim_last_config_error();
    cr_assert(strstr(msg, key) != NULL, "config %s: message \"%s\" does not name %s", config, msg, key);
    int n;
    CU_IS(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
}

Test(sim_init, bad_configs_are_rejected_naming_the_key)
{
    expect_bad_config("{\"devices\":[{\"nmae\":\"x\"}]}", "nmae");
    expect_bad_config("{\"devices\":[{\"memory_mb\":\"lots\"}]}", "devices[0].memory_mb");
    expect_bad_config("{\"devices\":[{},{\"watchdog\":1}]}", "devices[1].watchdog");
    expect_bad_config("{\"devices\":[{\"watchdog_ms\":-5}]}", "watchdog_ms");
    expect_bad_config("{\"devices\":[{\"ns_per_warp_instruction\":0}]}", "devices[0].ns_per_warp_instruction");
    expect_bad_config("{\"devices\":[{\"allocation_granularity\":0}]}", "devices[0].allocation_granularity");
    expect_bad_config("{\"devices\":[{\"allocation_granularity\":3}]}", "not a power of two");
    expect_bad_config("{\"devices\":[{\"allocation_granularity\":8192}]}", "allocation_granularity");
    expect_bad_config("{\"devices\":[{\"ns_per_warp_instruction\":0.0009}]}", "ns_per_warp_instruction");
    expect_bad_config("{\"devices\":[{\"ns_per_warp_instruction\":1000001}]}", "ns_per_warp_instruction");
    expect_bad_config("{\"devices\":[{\"ns_per_warp_instruction\":\"fast\"}]}", "ns_per_warp_instruction");
    expect_bad_config("{\"devices\":[{\"max_grid\":[1,2]}]}", "max_grid");
    expect_bad_config("{\"devices\":{}}", "devices");
    expect_bad_config("{\"device\":[]}", "device");
    expect_bad_config("{\"misbehave\":[{\"kernel\":\"k\",\"action\":\"explode\"}]}", "misbehave[0].action");
    expect_bad_config("{\"misbehave\":[{\"action\":\"hang\"}]}", "misbehave[0].kernel");
    expect_bad_config("{\"misbehave\":[{\"kernel\":\"k\",\"action\":\"fault\",\"error\":\"oops\"}]}", "error");
    expect_bad_config("{\"misbehave\":[{\"kernel\":\"k\",\"action\":\"slow\"}]}", "block_us");
    expect_bad_config("{\"misbehave\":[{\"kernel\":\"k\",\"action\":\"hang\",\"device\":7}]}", "device");
    expect_bad_config("{\"misbehave\":[{\"kernel\":\"k\",\"action\":\"hang\",\"launch\":0}]}", "launch");
    expect_bad_config("[1,2]", "top level");
    expect_bad_config("{\"devices\": [", "not valid JSON: at offset 13: expected a JSON value");
    /* Only whitespace may follow the value (cJSON alone ignores the rest). */
    expect_bad_config("{\"fast\": true} x", "at offset 15: expected the end of the text after the value");
    expect_bad_config("@/nonexistent/gg-sim.json", "/nonexistent/gg-sim.json");
    /* Issue 26: the same checker as fault plans. A device name with a NUL
     * ran cut short, one with bytes that are not UTF-8 reached gpuguard's
     * JSON, and of two "fast"s the first won. */
    expect_bad_config("{\"devices\":[{\"name\":\"gpu\\u0000x\"}]}", "at offset 24: expected a character other than NUL");
    expect_bad_config("{\"devices\":[{\"name\":\"gpu\xff\"}]}", "at offset 24: expected valid UTF-8, found byte 0xff");
    expect_bad_config("{\"fast\": true, \"fast\": false}", "found \"fast\" again (first at offset 1)");
    char path[] = "/tmp/gg-sim-config-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    static const char with_nul[] = "{}\0{\"devices\":[]}";
    cr_assert_eq(write(fd, with_nul, sizeof with_nul - 1), (ssize_t)(sizeof with_nul - 1));
    close(fd);
    char env[64];
    snprintf(env, sizeof env, "@%s", path);
    expect_bad_config(env, "has a NUL byte at offset 2");
    unlink(path);
    /* A later cuInit with a good config works: failure leaves nothing behind. */
    sim_test_init("{\"devices\":[{}]}");
    cr_assert_str_eq(gg_sim_last_config_error(), "");
    sim_test_assert_no_leaks();
}

Test(sim_init, empty_device_list_means_no_device)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"devices\":[]}", 1);
    CU_IS(cuInit(0), CUDA_ERROR_NO_DEVICE);
}

Test(sim_init, error_names_and_strings)
{
    const char *s = NULL;
    CU_OK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    cr_assert_str_eq(s, "CUDA_ERROR_ILLEGAL_ADDRESS");
    CU_OK(cuGetErrorName(CUDA_ERROR_LAUNCH_TIMEOUT, &s));
    cr_assert_str_eq(s, "CUDA_ERROR_LAUNCH_TIMEOUT");
    CU_OK(cuGetErrorName(CUDA_ERROR_CONTEXT_IS_DESTROYED, &s));
    cr_assert_str_eq(s, "CUDA_ERROR_CONTEXT_IS_DESTROYED");
    CU_OK(cuGetErrorName(CUDA_SUCCESS, &s));
    cr_assert_str_eq(s, "CUDA_SUCCESS");
    CU_OK(cuGetErrorString(CUDA_ERROR_NOT_READY, &s));
    cr_assert(s && s[0]);
    CU_IS(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    cr_assert_null(s);
    const CUresult all[] = { 1, 2, 3, 100, 101, 200, 201, 301, 400, 500, 600, 700, 701, 702, 709, 710, 719, 801, 999 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        CU_OK(cuGetErrorName(all[i], &s));
        cr_assert(!strncmp(s, "CUDA_ERROR_", 11));
    }
}

typedef CUresult (*pfn_alloc)(CUdeviceptr *, size_t);

Test(sim_init, get_proc_address_maps_base_names_and_versions)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult q = 99;
    CU_OK(cuGetProcAddress_v2("cuMemAlloc", &p, 13000, 0, &q));
    cr_assert_eq(q, CU_GET_PROC_ADDRESS_SUCCESS);
    cr_assert_eq(p, (void *)(uintptr_t)cuMemAlloc_v2);
    CU_OK(cuGetProcAddress_v2("cuMemAlloc", &p, 3020, 0, &q));
    cr_assert_eq(p, (void *)(uintptr_t)cuMemAlloc_v2);
    CU_OK(cuGetProcAddress_v2("cuMemAlloc", &p, 2000, 0, &q)); /* the 32-bit ABI is not simulated */
    cr_assert_null(p);
    cr_assert_eq(q, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    const struct { const char *name; int version; void *want; } cases[] = {
        { "cuCtxCreate", 13000, (void *)(uintptr_t)cuCtxCreate_v4 },
        { "cuCtxCreate", 12000, (void *)(uintptr_t)cuCtxCreate_v3 },
        { "cuCtxCreate", 11000, (void *)(uintptr_t)cuCtxCreate_v2 },
        { "cuCtxDestroy", 4000, (void *)(uintptr_t)cuCtxDestroy_v2 },
        { "cuCtxPushCurrent", 12000, (void *)(uintptr_t)cuCtxPushCurrent_v2 },
        { "cuCtxPopCurrent", 12000, (void *)(uintptr_t)cuCtxPopCurrent_v2 },
        { "cuStreamDestroy", 4000, (void *)(uintptr_t)cuStreamDestroy_v2 },
        { "cuEventDestroy", 4000, (void *)(uintptr_t)cuEventDestroy_v2 },
        { "cuDevicePrimaryCtxRelease", 11000, (void *)(uintptr_t)cuDevicePrimaryCtxRelease_v2 },
        { "cuDevicePrimaryCtxReset", 11000, (void *)(uintptr_t)cuDevicePrimaryCtxReset_v2 },
        { "cuEventElapsedTime", 12080, (void *)(uintptr_t)cuEventElapsedTime_v2 },
        { "cuEventElapsedTime", 12000, (void *)(uintptr_t)cuEventElapsedTime },
        { "cuDeviceTotalMem", 13000, (void *)(uintptr_t)cuDeviceTotalMem_v2 },
        { "cuMemcpyHtoDAsync", 13000, (void *)(uintptr_t)cuMemcpyHtoDAsync_v2 },
        { "cuMemsetD8", 13000, (void *)(uintptr_t)cuMemsetD8_v2 },
        { "cuLaunchKernel", 13000, (void *)(uintptr_t)cuLaunchKernel },
        { "cuGetProcAddress", 13000, (void *)(uintptr_t)cuGetProcAddress_v2 },
        { "cuInit", 13000, (void *)(uintptr_t)cuInit },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_OK(cuGetProcAddress_v2(cases[i].name, &p, cases[i].version, 0, &q));
        cr_assert_eq(p, cases[i].want, "%s @%d", cases[i].name, cases[i].version);
        cr_assert_eq(q, CU_GET_PROC_ADDRESS_SUCCESS);
    }
    /* Unknown: success, NULL, SYMBOL_NOT_FOUND, as the real driver does. */
    p = (void *)1;
    CU_OK(cuGetProcAddress_v2("cuNoSuchFunction", &p, 13000, 0, &q));
    cr_assert_null(p);
    cr_assert_eq(q, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* Newer than the driver: its newest, not a refusal (measured on 535). */
    CU_OK(cuGetProcAddress_v2("cuCtxCreate", &p, 99999, 0, &q));
    cr_assert_eq(p, (void *)(uintptr_t)cuCtxCreate_v4);
    /* What it returns works. */
    CU_OK(cuGetProcAddress_v2("cuInit", &p, 13000, 0, NULL));
    CU_OK(((CUresult(*)(unsigned))(uintptr_t)p)(0));
    sim_test_assert_no_leaks();
}

Test(sim_init, call_counters_count_each_export)
{
    sim_test_init(NULL);
    gg_sim_reset_counts();
    cr_assert_eq(gg_sim_total_calls(), 0);
    CUcontext c = sim_test_ctx(1);
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 64));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemAlloc_v2(&d, 64));
    void *p;
    CU_OK(cuGetProcAddress_v2("cuMemFree", &p, 13000, 0, NULL));
    CU_OK(((CUresult(*)(CUdeviceptr))(uintptr_t)p)(d));
    cr_assert_eq(gg_sim_call_count("cuMemAlloc_v2"), 2);
    cr_assert_eq(gg_sim_call_count("cuMemAlloc"), 2);
    cr_assert_eq(gg_sim_call_count("cuMemFree_v2"), 2);
    cr_assert_eq(gg_sim_call_count("cuCtxCreate"), 1);
    cr_assert_eq(gg_sim_call_count("cuCtxCreate_v4"), 1);
    cr_assert_eq(gg_sim_call_count("cuGetProcAddress_v2"), 1);
    cr_assert_eq(gg_sim_call_count("cuGetProcAddress"), 0); /* the 11.3 form, not called */
    cr_assert_eq(gg_sim_call_count("cuNoSuch"), 0);
    cr_assert_eq(gg_sim_total_calls(), 6);
    gg_sim_reset_counts();
    CU_OK(cuCtxDestroy_v2(c));
    cr_assert_eq(gg_sim_total_calls(), 1);
    sim_test_assert_no_leaks();
}
