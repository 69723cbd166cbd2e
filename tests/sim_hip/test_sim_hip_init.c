/* Initialisation, configuration, devices and attributes in HIP numbering,
 * error names, call counters, and the HIP face next to the CUDA face. */
#include "sim_hip_test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(sim_hip_init, .timeout = 60);

Test(sim_hip_init, every_call_initialises_without_hipInit)
{
    unsetenv("GPUGUARD_SIM_CONFIG");
    int n = 0, dev = -1;
    HIP_OK(hipGetDeviceCount(&n)); /* no hipInit: ROCm initialises on first use */
    cr_assert_eq(n, 2);
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0, "device 0 is current at first");
    void *p = NULL;
    HIP_OK(hipMalloc(&p, 64));
    cr_assert_not_null(p);
    cr_assert_eq(gg_sim_device_memory_used(0), 4096u, "on device 0, page granular");
    HIP_OK(hipFree(p));
    HIP_OK(hipInit(0)); /* later hipInit calls are harmless */
    cr_assert_str_eq(gg_sim_identify(), "gpuguard simulated driver 0.1 (HIP)");
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_init, hipInit_flags_and_versions)
{
    int v = 0;
    HIP_OK(hipDriverGetVersion(&v)); /* before any initialisation */
    cr_assert_eq(v, 50221153);
    v = 0;
    HIP_OK(hipRuntimeGetVersion(&v));
    cr_assert_eq(v, 50221153);
    HIP_IS(hipDriverGetVersion(NULL), hipErrorInvalidValue);
    HIP_IS(hipRuntimeGetVersion(NULL), hipErrorInvalidValue);
    unsetenv("GPUGUARD_SIM_CONFIG");
    HIP_IS(hipInit(1), hipErrorInvalidValue);
    HIP_OK(hipInit(0));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_init, default_config_and_attributes_in_hip_numbering)
{
    sim_hip_test_init(NULL);
    int n = 0;
    HIP_OK(hipGetDeviceCount(&n));
    cr_assert_eq(n, 2);
    HIP_IS(hipGetDeviceCount(NULL), hipErrorInvalidValue);
    char name[64];
    HIP_OK(hipDeviceGetName(name, sizeof name, 0));
    cr_assert_str_eq(name, "gpuguard sim display GPU");
    HIP_OK(hipDeviceGetName(name, sizeof name, 1));
    cr_assert_str_eq(name, "gpuguard sim compute GPU");
    HIP_OK(hipDeviceGetName(name, 8, 1)); /* truncated, terminated */
    cr_assert_str_eq(name, "gpuguar");
    HIP_IS(hipDeviceGetName(name, 0, 1), hipErrorInvalidValue);
    int wd0 = -1, wd1 = -1, v;
    HIP_OK(hipDeviceGetAttribute(&wd0, hipDeviceAttributeKernelExecTimeout, 0));
    HIP_OK(hipDeviceGetAttribute(&wd1, (hipDeviceAttribute_t)18, 1));
    cr_assert_eq(wd0, 1, "device 0 has the watchdog");
    cr_assert_eq(wd1, 0);
    const int want[][2] = {
        { 56, 1024 },       /* MaxThreadsPerBlock */
        { 26, 1024 },       /* MaxBlockDimX */
        { 27, 1024 },       /* MaxBlockDimY */
        { 28, 64 },         /* MaxBlockDimZ */
        { 29, 2147483647 }, /* MaxGridDimX */
        { 30, 65535 },      /* MaxGridDimY */
        { 31, 65535 },      /* MaxGridDimZ */
        { 63, 8 },          /* MultiprocessorCount */
        { 87, 64 },         /* WarpSize: an AMD wavefront */
        { 74, 49152 },      /* MaxSharedMemoryPerBlock */
        { 84, 1024 << 20 }, /* TotalGlobalMem */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        HIP_OK(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)want[i][0], 1));
        cr_assert_eq(v, want[i][1], "attribute %d = %d", want[i][0], v);
    }
    /* CUDA's numbers mean other things in HIP and are not simulated. */
    HIP_IS(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)1, 0), hipErrorInvalidValue);
    HIP_IS(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)17, 0), hipErrorInvalidValue);
    HIP_IS(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)10000, 0), hipErrorInvalidValue);
    HIP_IS(hipDeviceGetAttribute(NULL, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
    HIP_IS(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 2), hipErrorInvalidDevice);
    size_t mem = 0;
    HIP_OK(hipDeviceTotalMem(&mem, 0));
    cr_assert_eq(mem, 1024ull << 20);
    HIP_IS(hipDeviceTotalMem(&mem, -1), hipErrorInvalidDevice);
    HIP_IS(hipDeviceTotalMem(NULL, 0), hipErrorInvalidValue);
    hipDevice_t dev = -1;
    HIP_IS(hipDeviceGet(&dev, 2), hipErrorInvalidDevice);
    HIP_IS(hipDeviceGet(NULL, 0), hipErrorInvalidValue);
    HIP_OK(hipDeviceGet(&dev, 1));
    cr_assert_eq(dev, 1);
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_init, custom_config_from_text)
{
    sim_hip_test_init("{\"devices\":[{\"name\":\"tiny\",\"memory_mb\":3,\"multiprocessors\":2,"
                      "\"max_threads_per_block\":64,\"max_grid\":[10,20,30],"
                      "\"max_block\":[64,8,4],\"watchdog\":true,\"watchdog_ms\":50}]}");
    int n = 0, v = 0;
    HIP_OK(hipGetDeviceCount(&n));
    cr_assert_eq(n, 1);
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, 0));
    cr_assert_eq(v, 2);
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, 0));
    cr_assert_eq(v, 64);
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxGridDimY, 0));
    cr_assert_eq(v, 20);
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxBlockDimZ, 0));
    cr_assert_eq(v, 4);
    HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeKernelExecTimeout, 0));
    cr_assert_eq(v, 1);
    size_t mem = 0;
    HIP_OK(hipDeviceTotalMem(&mem, 0));
    cr_assert_eq(mem, 3ull << 20);
    HIP_IS(hipSetDevice(1), hipErrorInvalidDevice);
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_init, config_from_file)
{
    char path[] = "/tmp/gg-sim-hip-config-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *json = "{\"devices\":[{\"name\":\"from file\"},{},{}]}";
    cr_assert_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    char env[64];
    snprintf(env, sizeof env, "@%s", path);
    sim_hip_test_init(env);
    unlink(path);
    int n = 0;
    char name[64];
    HIP_OK(hipGetDeviceCount(&n));
    cr_assert_eq(n, 3);
    HIP_OK(hipDeviceGetName(name, sizeof name, 0));
    cr_assert_str_eq(name, "from file");
    HIP_OK(hipDeviceGetName(name, sizeof name, 2));
    cr_assert_str_eq(name, "gpuguard sim GPU 2");
}

/* Every call that initialises returns hipInit's error until the
 * configuration is fixed; nothing crashes or prints. */
Test(sim_hip_init, bad_config_fails_every_call_until_fixed)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"devices\":[{\"memory_mb\":\"lots\"}]}", 1);
    HIP_IS(hipInit(0), hipErrorInvalidValue);
    cr_assert(strstr(gg_sim_last_config_error(), "devices[0].memory_mb") != NULL, "%s",
              gg_sim_last_config_error());
    void *p = NULL;
    HIP_IS(hipMalloc(&p, 16), hipErrorInvalidValue);
    int n = -1, dev = -1;
    HIP_IS(hipGetDeviceCount(&n), hipErrorNoDevice);
    cr_assert_eq(n, 0);
    HIP_IS(hipSetDevice(0), hipErrorNoDevice);
    HIP_IS(hipGetDevice(&dev), hipErrorInvalidValue);
    hipStream_t s;
    HIP_IS(hipStreamCreateWithFlags(&s, 0), hipErrorInvalidValue);
    int v = 0;
    HIP_OK(hipDriverGetVersion(&v));
    /* Fixed: the next call initialises. */
    setenv("GPUGUARD_SIM_CONFIG", "{\"devices\":[{}]}", 1);
    HIP_OK(hipGetDeviceCount(&n));
    cr_assert_eq(n, 1);
    cr_assert_str_eq(gg_sim_last_config_error(), "");
    sim_hip_test_assert_no_leaks();
}

/* "driver_version" is the CUDA face's (which CUDA driver it imitates): the
 * HIP face refuses it, naming the key, rather than ignore it. */
Test(sim_hip_init, driver_version_is_refused_naming_the_key)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"driver_version\":12020}", 1);
    HIP_IS(hipInit(0), hipErrorInvalidValue);
    cr_assert(strstr(gg_sim_last_config_error(), "driver_version") != NULL, "%s",
              gg_sim_last_config_error());
}

/* "sticky_scope": the HIP face keeps a sticky error to its context (what
 * ROCm does to the rest of the process is not measured): it accepts
 * "context", its only model, and refuses "process", naming the key. */
Test(sim_hip_init, sticky_scope_process_is_refused_context_accepted)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"sticky_scope\":\"process\"}", 1);
    HIP_IS(hipInit(0), hipErrorInvalidValue);
    cr_assert(strstr(gg_sim_last_config_error(), "sticky_scope") != NULL, "%s", gg_sim_last_config_error());
    setenv("GPUGUARD_SIM_CONFIG", "{\"sticky_scope\":\"context\"}", 1);
    HIP_OK(hipInit(0));
}

/* "devices": [] is a machine without a GPU, where ROCm 5.2's runtime
 * answers like this. */
Test(sim_hip_init, no_device_looks_like_rocm_without_a_gpu)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"devices\":[]}", 1);
    HIP_IS(hipInit(0), hipErrorInvalidDevice);
    int n = -1;
    HIP_IS(hipGetDeviceCount(&n), hipErrorNoDevice);
    cr_assert_eq(n, 0);
    void *p;
    HIP_IS(hipMalloc(&p, 16), hipErrorInvalidDevice);
    HIP_IS(hipSetDevice(0), hipErrorNoDevice);
    int dev;
    HIP_IS(hipGetDevice(&dev), hipErrorInvalidDevice);
    int v = 0;
    HIP_OK(hipDriverGetVersion(&v));
    cr_assert_eq(v, 50221153);
    cr_assert_str_eq(hipGetErrorName(hipErrorInvalidDevice), "hipErrorInvalidDevice");
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_init, error_names_and_strings)
{
    /* Neither needs initialisation nor fails. */
    cr_assert_str_eq(hipGetErrorName(hipSuccess), "hipSuccess");
    cr_assert_str_eq(hipGetErrorName(hipErrorIllegalAddress), "hipErrorIllegalAddress");
    cr_assert_str_eq(hipGetErrorName((hipError_t)702), "hipErrorLaunchTimeOut");
    cr_assert_str_eq(hipGetErrorName((hipError_t)719), "hipErrorLaunchFailure");
    cr_assert_str_eq(hipGetErrorName((hipError_t)2), "hipErrorOutOfMemory");
    cr_assert_str_eq(hipGetErrorName((hipError_t)400), "hipErrorInvalidHandle");
    cr_assert_str_eq(hipGetErrorName((hipError_t)214), "hipErrorECCNotCorrectable");
    cr_assert_str_eq(hipGetErrorName((hipError_t)12345), "hipErrorUnknown");
    cr_assert_str_eq(hipGetErrorString((hipError_t)12345), "unknown error");
    const int all[] = { 1, 2, 3, 4, 100, 101, 200, 201, 214, 301, 400, 500, 600,
                        700, 701, 702, 709, 710, 719, 801, 999 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *name = hipGetErrorName((hipError_t)all[i]);
        cr_assert(!strncmp(name, "hipError", 8), "%d -> %s", all[i], name);
        if (all[i] != 999)
            cr_assert_str_neq(name, "hipErrorUnknown", "%d has no name", all[i]);
        const char *msg = hipGetErrorString((hipError_t)all[i]);
        cr_assert(msg && msg[0]);
    }
}

Test(sim_hip_init, call_counters_count_each_export)
{
    sim_hip_test_init(NULL);
    gg_sim_reset_counts();
    cr_assert_eq(gg_sim_total_calls(), 0);
    void *p;
    HIP_OK(hipMalloc(&p, 64));
    HIP_OK(hipFree(p));
    HIP_OK(hipMalloc(&p, 64));
    HIP_OK(hipFree(p));
    HIP_OK(hipSetDevice(1));
    (void)hipGetErrorName(hipSuccess);
    cr_assert_eq(gg_sim_call_count("hipMalloc"), 2);
    cr_assert_eq(gg_sim_call_count("hipFree"), 2);
    cr_assert_eq(gg_sim_call_count("hipSetDevice"), 1);
    cr_assert_eq(gg_sim_call_count("hipGetErrorName"), 1);
    cr_assert_eq(gg_sim_call_count("hipInit"), 0);
    cr_assert_eq(gg_sim_call_count("hipMallocNoSuch"), 0);
    cr_assert_eq(gg_sim_call_count("cuMemAlloc_v2"), 0);
    cr_assert_eq(gg_sim_call_count(NULL), 0);
    cr_assert_eq(gg_sim_total_calls(), 6);
    gg_sim_reset_counts();
    cr_assert_eq(gg_sim_total_calls(), 0);
    sim_hip_test_assert_no_leaks();
}

/* Both face libraries in one process: each has its own core and state, and
 * exports nothing but its API and the controls. */
Test(sim_hip_init, faces_in_one_process_keep_separate_state)
{
    sim_hip_test_init(NULL);
    /* NODELETE: its stream workers may still be returning when it is closed. */
    void *cuda = dlopen(GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so",
                        RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    cr_assert_not_null(cuda, "%s", dlerror());
    const char *(*cu_identify)(void) =
        (const char *(*)(void))(uintptr_t)dlsym(cuda, "gg_sim_identify");
    unsigned long long (*cu_total)(void) =
        (unsigned long long (*)(void))(uintptr_t)dlsym(cuda, "gg_sim_total_calls");
    unsigned long long (*cu_live)(void) =
        (unsigned long long (*)(void))(uintptr_t)dlsym(cuda, "gg_sim_live_objects");
    int (*cu_init)(unsigned) = (int (*)(unsigned))(uintptr_t)dlsym(cuda, "cuInit");
    int (*cu_count)(int *) = (int (*)(int *))(uintptr_t)dlsym(cuda, "cuDeviceGetCount");
    int (*cu_ctx_create)(void **, void *, unsigned, int) =
        (int (*)(void **, void *, unsigned, int))(uintptr_t)dlsym(cuda, "cuCtxCreate_v4");
    int (*cu_alloc)(unsigned long long *, size_t) =
        (int (*)(unsigned long long *, size_t))(uintptr_t)dlsym(cuda, "cuMemAlloc_v2");
    int (*cu_ctx_destroy)(void *) = (int (*)(void *))(uintptr_t)dlsym(cuda, "cuCtxDestroy_v2");
    cr_assert(cu_identify && cu_total && cu_live && cu_init && cu_count && cu_ctx_create &&
              cu_alloc && cu_ctx_destroy);
    cr_assert_str_eq(cu_identify(), "gpuguard simulated driver 0.1");
    cr_assert_str_eq(gg_sim_identify(), "gpuguard simulated driver 0.1 (HIP)");

    /* hipInit did not initialise the CUDA face's core. */
    int n = -1;
    cr_assert_eq(cu_count(&n), 3 /* CUDA_ERROR_NOT_INITIALIZED */);
    gg_sim_reset_counts();
    cr_assert_eq(cu_init(0), 0);
    void *ctx = NULL;
    unsigned long long d = 0;
    cr_assert_eq(cu_ctx_create(&ctx, NULL, 0, 0), 0);
    cr_assert_eq(cu_alloc(&d, 1 << 20), 0);
    cr_assert_eq(gg_sim_total_calls(), 0, "cu* calls are not counted by the HIP face");
    cr_assert_geq(cu_total(), 4);
    cr_assert_eq(gg_sim_device_memory_used(0), 0, "the CUDA face's memory is its own");
    cr_assert_eq(gg_sim_live_objects(), 0);
    void *p;
    HIP_OK(hipMalloc(&p, 1 << 20));
    cr_assert_eq(gg_sim_device_memory_used(0), 1u << 20);
    HIP_OK(hipFree(p));
    cr_assert_eq(cu_ctx_destroy(ctx), 0);
    struct timespec t0 = sim_hip_test_now();
    while (cu_live() != 0 && sim_hip_test_ms_since(t0) < 10000)
        sim_hip_test_sleep_ms(5);
    cr_assert_eq(cu_live(), 0);

    /* Nothing of the core is exported by either library. */
    void *hip = dlopen(GG_TEST_LIB_DIR "/libgpuguard_sim_hip.so", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(hip);
    const char *internal[] = { "sim_init", "sim_registry_get", "sim_ctx_create", "sim_hip_init",
                               "sim_hip_calls", "sim_cuda_result", "sim_launch_submit" };
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++) {
        cr_assert_null(dlsym(hip, internal[i]), "%s is exported", internal[i]);
        cr_assert_null(dlsym(cuda, internal[i]), "%s is exported", internal[i]);
    }
    cr_assert_null(dlsym(hip, "cuInit"));
    cr_assert_null(dlsym(cuda, "hipInit"));
    dlclose(hip);
    dlclose(cuda);
    sim_hip_test_assert_no_leaks();
}
