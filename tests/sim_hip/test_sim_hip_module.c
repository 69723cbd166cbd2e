/* Modules and launches: the CUDA face's kernel images load unchanged, by
 * path and by image; kernel lookup, parameter capture, launch validation,
 * block order, shared memory, unload while running. */
#include "sim_hip_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(sim_hip_module, .timeout = 60);

static void *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)n);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

static unsigned run_fill(hipModule_t m, unsigned value)
{
    hipFunction_t fill = sim_hip_test_kernel(m, "fill");
    void *d;
    HIP_OK(hipMalloc(&d, 4 * sizeof(unsigned)));
    uint64_t dd = (uint64_t)(uintptr_t)d;
    unsigned n = 4;
    void *args[] = { &dd, &n, &value };
    HIP_OK(hipModuleLaunchKernel(fill, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL));
    unsigned out[4];
    HIP_OK(hipMemcpyDtoH(out, d, sizeof out));
    HIP_OK(hipFree(d));
    return out[3];
}

Test(sim_hip_module, load_by_path_and_by_image)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t by_path = sim_hip_test_module();
    cr_assert_eq(run_fill(by_path, 11), 11);

    void *image = read_all(SIM_HIP_TEST_KERNELS);
    hipModule_t by_elf;
    HIP_OK(hipModuleLoadData(&by_elf, image));
    free(image); /* the runtime keeps its own copy */
    cr_assert_eq(run_fill(by_elf, 22), 22);

    hipModule_t by_text;
    HIP_OK(hipModuleLoadData(&by_text, "gg-sim-module:" SIM_HIP_TEST_KERNELS));
    cr_assert_eq(run_fill(by_text, 33), 33);

    HIP_OK(hipModuleUnload(by_path));
    HIP_OK(hipModuleUnload(by_elf));
    HIP_IS(hipModuleUnload(by_elf), hipErrorInvalidHandle);
    HIP_IS(hipModuleUnload(NULL), hipErrorInvalidHandle);
    HIP_OK(hipDeviceReset()); /* unloads by_text */
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_module, bad_modules_and_kernels_are_refused)
{
    sim_hip_test_init(NULL);
    hipModule_t m;
    HIP_IS(hipModuleLoad(&m, "/nonexistent/kernels.so"), hipErrorFileNotFound);
    char path[] = "/tmp/gg-sim-hip-notelf-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "hello", 5), 5);
    close(fd);
    HIP_IS(hipModuleLoad(&m, path), hipErrorInvalidImage);
    unlink(path);
    HIP_IS(hipModuleLoadData(&m, "not an image"), hipErrorInvalidImage);
    HIP_IS(hipModuleLoadData(&m, "gg-sim-module:/nonexistent.so"), hipErrorFileNotFound);
    HIP_IS(hipModuleLoad(NULL, SIM_HIP_TEST_KERNELS), hipErrorInvalidValue);
    HIP_IS(hipModuleLoad(&m, NULL), hipErrorInvalidValue);
    HIP_IS(hipModuleLoadData(&m, NULL), hipErrorInvalidValue);
    m = sim_hip_test_module();
    hipFunction_t f;
    HIP_IS(hipModuleGetFunction(&f, m, "no_such_kernel"), hipErrorNotFound);
    HIP_IS(hipModuleGetFunction(&f, m, "undeclared"), hipErrorInvalidImage);
    cr_assert(strstr(gg_sim_last_error_detail(), "GG_SIM_KERNEL_PARAMS") != NULL);
    HIP_IS(hipModuleGetFunction(NULL, m, "noop"), hipErrorInvalidValue);
    HIP_IS(hipModuleGetFunction(&f, m, NULL), hipErrorInvalidValue);
    hipFunction_t f1 = sim_hip_test_kernel(m, "noop"), f2 = sim_hip_test_kernel(m, "noop");
    cr_assert_eq(f1, f2, "the same name gives the same handle");
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_module, parameters_are_copied_at_launch)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    hipFunction_t store = sim_hip_test_kernel(m, "store_params");
    void *out;
    HIP_OK(hipMalloc(&out, 5 * sizeof(uint64_t)));
    unsigned ms = 200;
    void *sargs[] = { &ms };
    /* store_params runs after this. */
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, sargs, NULL));
    uint64_t arg_out = (uint64_t)(uintptr_t)out;
    unsigned char small = 200;
    struct { uint64_t v[4]; } big = { { 1, 2, 3, 4 } };
    void *args[] = { &arg_out, &small, &big };
    HIP_OK(hipModuleLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    /* The caller may reuse its variables at once. */
    arg_out = 0;
    small = 0;
    memset(&big, 0, sizeof big);
    HIP_IS(hipStreamQuery(NULL), hipErrorNotReady);
    uint64_t host[5];
    HIP_OK(hipMemcpyDtoH(host, out, sizeof host));
    cr_assert_eq(host[0], 200);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(host[1 + i], (uint64_t)(i + 1));
    /* A kernel that takes parameters needs kernelParams. */
    HIP_IS(hipModuleLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
           hipErrorInvalidValue);
    HIP_OK(hipFree(out));
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_module, launch_dimensions_are_validated)
{
    sim_hip_test_init("{\"devices\":[{\"max_grid\":[100,10,2],\"max_block\":[64,64,4],"
                      "\"max_threads_per_block\":128}]}");
    hipModule_t m = sim_hip_test_module();
    hipFunction_t noop = sim_hip_test_kernel(m, "noop");
    const unsigned bad[][7] = {
        { 0, 1, 1, 1, 1, 1, 0 },      /* zero grid */
        { 1, 1, 1, 1, 0, 1, 0 },      /* zero block */
        { 101, 1, 1, 1, 1, 1, 0 },    /* grid x over 100 */
        { 1, 1, 3, 1, 1, 1, 0 },      /* grid z over 2 */
        { 1, 1, 1, 65, 1, 1, 0 },     /* block x over 64 */
        { 1, 1, 1, 64, 4, 1, 0 },     /* 256 threads per block, over 128 */
        { 1, 1, 1, 1, 1, 1, 49153 },  /* shared memory over 48 KiB */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const unsigned *b = bad[i];
        HIP_IS(hipModuleLaunchKernel(noop, b[0], b[1], b[2], b[3], b[4], b[5], b[6], NULL, NULL,
                                     NULL),
               hipErrorInvalidValue);
    }
    void *extra[] = { NULL };
    HIP_IS(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra),
           hipErrorInvalidValue);
    HIP_IS(hipModuleLaunchKernel((hipFunction_t)(uintptr_t)0x99, 1, 1, 1, 1, 1, 1, 0, NULL, NULL,
                                 NULL),
           hipErrorInvalidHandle);
    HIP_IS(hipModuleLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, (hipStream_t)(uintptr_t)0x77, NULL,
                                 NULL),
           hipErrorInvalidHandle);
    HIP_OK(hipModuleLaunchKernel(noop, 100, 10, 2, 64, 2, 1, 0, NULL, NULL, NULL));
    HIP_OK(hipDeviceSynchronize()); /* none of the refusals poisoned the device */
    HIP_OK(hipModuleUnload(m));
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_module, blocks_run_x_fastest_with_zeroed_shared_memory)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t ids = sim_hip_test_kernel(m, "block_ids");
    enum { GX = 3, GY = 2, GZ = 2, N = GX * GY * GZ };
    void *out;
    HIP_OK(hipMalloc(&out, N * sizeof(unsigned)));
    uint64_t dout = (uint64_t)(uintptr_t)out;
    void *args[] = { &dout };
    HIP_OK(hipModuleLaunchKernel(ids, GX, GY, GZ, 32, 1, 1, 256, NULL, args, NULL));
    unsigned host[N];
    HIP_OK(hipMemcpyDtoH(host, out, sizeof host));
    for (unsigned z = 0, i = 0; z < GZ; z++)
        for (unsigned y = 0; y < GY; y++)
            for (unsigned x = 0; x < GX; x++, i++)
                cr_assert_eq(host[i], x | y << 8 | z << 16, "block %u: %#x", i, host[i]);
    HIP_OK(hipDeviceReset());
    sim_hip_test_assert_no_leaks();
}

Test(sim_hip_module, unload_while_a_kernel_runs_is_safe)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(1));
    hipModule_t m = sim_hip_test_module();
    hipFunction_t spin = sim_hip_test_kernel(m, "spin");
    unsigned ms = 200;
    void *args[] = { &ms };
    HIP_OK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    HIP_OK(hipModuleUnload(m)); /* the code stays mapped until the launch ends */
    HIP_IS(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
           hipErrorInvalidHandle);
    HIP_OK(hipDeviceSynchronize());
    sim_hip_test_assert_no_leaks();
}

/* hipModuleGetGlobal on a PTX module (tests/ptx/kernels/module_api.cu): the
 * variables as declared, writable by the host, seen by kernels; unknown
 * names are hipErrorNotFound. */
Test(sim_hip_module, module_get_global_of_a_ptx_module)
{
    sim_hip_test_init(NULL);
    HIP_OK(hipSetDevice(0));
    FILE *f = fopen(GG_PTX_FIXTURE_DIR "/module_api.ptx", "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc(1, (size_t)n + 1);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    hipModule_t m;
    HIP_OK(hipModuleLoadData(&m, text));
    free(text);
    hipDeviceptr_t coef = NULL;
    size_t bytes = 0;
    HIP_OK(hipModuleGetGlobal(&coef, &bytes, m, "coef"));
    cr_assert_eq(bytes, 8);
    unsigned c2[2];
    HIP_OK(hipMemcpyDtoH(c2, coef, sizeof c2));
    cr_assert(c2[0] == 7 && c2[1] == 9);
    unsigned fresh[2] = { 100, 23 };
    HIP_OK(hipMemcpyHtoD(coef, fresh, sizeof fresh));
    void *out;
    HIP_OK(hipMalloc(&out, 4));
    uint64_t dcoef = (uint64_t)(uintptr_t)coef, dout = (uint64_t)(uintptr_t)out;
    void *args[] = { &dcoef, &dout };
    HIP_OK(hipModuleLaunchKernel(sim_hip_test_kernel(m, "read_through"), 1, 1, 1, 1, 1, 1, 0,
                                 NULL, args, NULL));
    unsigned sum = 0;
    HIP_OK(hipMemcpyDtoH(&sum, out, sizeof sum));
    cr_assert_eq(sum, 123u);
    HIP_IS(hipModuleGetGlobal(&coef, &bytes, m, "nothing"), hipErrorNotFound);
    HIP_IS(hipModuleGetGlobal(&coef, &bytes, m, NULL), hipErrorInvalidValue);
    HIP_OK(hipFree(out));
    HIP_OK(hipModuleUnload(m));
}
