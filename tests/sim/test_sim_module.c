/* Modules and launches: loading by path and by image, kernel lookup,
 * parameter capture, launch validation, block order, shared memory. */
#include "sim_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(sim_module, .timeout = 60);

#define KERNELS GG_TEST_KERNEL_DIR "/sim_test_kernels.so"

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

static unsigned run_fill(CUmodule m, unsigned value)
{
    CUfunction fill = sim_test_kernel(m, "fill");
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 4 * sizeof(unsigned)));
    unsigned n = 4;
    void *args[] = { &d, &n, &value };
    CU_OK(cuLaunchKernel(fill, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL));
    unsigned out[4];
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof out));
    CU_OK(cuMemFree_v2(d));
    return out[3];
}

Test(sim_module, load_by_path_and_by_image)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule by_path = sim_test_module();
    cr_assert_eq(run_fill(by_path, 11), 11);

    void *image = read_all(KERNELS);
    CUmodule by_elf;
    CU_OK(cuModuleLoadData(&by_elf, image));
    free(image); /* the driver keeps its own copy */
    cr_assert_eq(run_fill(by_elf, 22), 22);

    CUmodule by_text;
    CU_OK(cuModuleLoadData(&by_text, "gg-sim-module:" KERNELS));
    cr_assert_eq(run_fill(by_text, 33), 33);

    CU_OK(cuModuleUnload(by_path));
    CU_OK(cuModuleUnload(by_elf));
    CU_IS(cuModuleUnload(by_elf), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuCtxDestroy_v2(c)); /* unloads by_text */
    sim_test_assert_no_leaks();
}

Test(sim_module, bad_modules_and_kernels_are_refused)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m;
    CU_IS(cuModuleLoad(&m, "/nonexistent/kernels.so"), CUDA_ERROR_FILE_NOT_FOUND);
    char path[] = "/tmp/gg-sim-notelf-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "hello", 5), 5);
    close(fd);
    CU_IS(cuModuleLoad(&m, path), CUDA_ERROR_INVALID_IMAGE);
    unlink(path);
    CU_IS(cuModuleLoadData(&m, "not an image"), CUDA_ERROR_INVALID_IMAGE);
    CU_IS(cuModuleLoadData(&m, "gg-sim-module:/nonexistent.so"), CUDA_ERROR_FILE_NOT_FOUND);
    m = sim_test_module();
    CUfunction f;
    CU_IS(cuModuleGetFunction(&f, m, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    CU_IS(cuModuleGetFunction(&f, m, "undeclared"), CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(gg_sim_last_error_detail(), "GG_SIM_KERNEL_PARAMS") != NULL);
    CUfunction f1 = sim_test_kernel(m, "noop"), f2 = sim_test_kernel(m, "noop");
    cr_assert_eq(f1, f2, "the same name gives the same handle");
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_module, parameters_are_copied_at_launch)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUfunction store = sim_test_kernel(m, "store_params");
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, 5 * sizeof(uint64_t)));
    unsigned ms = 200;
    void *sargs[] = { &ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, sargs, NULL)); /* store runs later */
    CUdeviceptr arg_out = out;
    unsigned char small = 200;
    struct { uint64_t v[4]; } big = { { 1, 2, 3, 4 } };
    void *args[] = { &arg_out, &small, &big };
    CU_OK(cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    /* The caller may reuse its variables at once. */
    arg_out = 0;
    small = 0;
    memset(&big, 0, sizeof big);
    CU_IS(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
    uint64_t host[5];
    CU_OK(cuMemcpyDtoH_v2(host, out, sizeof host));
    cr_assert_eq(host[0], 200);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(host[1 + i], (uint64_t)(i + 1));
    /* A kernel that takes parameters needs kernelParams. */
    CU_IS(cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The `extra` form (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END): one buffer,
 * each parameter at its size's natural alignment (8, 1, then the 32-byte
 * struct at 16), copied at launch like kernelParams. */
Test(sim_module, extra_form_unpacks_the_buffer_at_aligned_offsets)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction store = sim_test_kernel(m, "store_params");
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, 5 * sizeof(uint64_t)));
    unsigned char buf[48];
    memset(buf, 0xee, sizeof buf); /* padding must not be read as values */
    uint64_t big[4] = { 11, 22, 33, 44 };
    memcpy(buf, &out, 8);
    buf[8] = 77;
    memcpy(buf + 16, big, sizeof big);
    size_t size = sizeof buf;
    void *extra[] = { (void *)(uintptr_t)1, buf, (void *)(uintptr_t)2, &size, NULL };
    CU_OK(cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
    memset(buf, 0, sizeof buf); /* copied at launch: reusable at once */
    uint64_t host[5];
    CU_OK(cuMemcpyDtoH_v2(host, out, sizeof host));
    cr_assert_eq(host[0], 77);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(host[1 + i], big[i]);
    /* A buffer that ends before the last parameter is refused, naming it. */
    size = 47;
    CU_IS(cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra), CUDA_ERROR_INVALID_VALUE);
    cr_assert(strstr(gg_sim_last_error_detail(), "parameter 2"), "%s", gg_sim_last_error_detail());
    /* So is a list without the size. */
    void *no_size[] = { (void *)(uintptr_t)1, buf, NULL };
    CU_IS(cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, no_size), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_module, launch_dimensions_are_validated)
{
    sim_test_init("{\"devices\":[{\"max_grid\":[100,10,2],\"max_block\":[64,64,4],"
                  "\"max_threads_per_block\":128}]}");
    CUcontext c = sim_test_ctx(0);
    CUmodule m = sim_test_module();
    CUfunction noop = sim_test_kernel(m, "noop");
    CU_IS(cuLaunchKernel(noop, 0, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 1, 0, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel(noop, 101, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel(noop, 1, 1, 3, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 65, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 64, 4, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 49153, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    /* The `extra` form: an empty list suits a kernel without parameters;
     * an unknown key, or extra together with kernelParams, is refused. */
    void *extra_empty[] = { NULL };
    CU_OK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra_empty));
    void *extra_bad_key[] = { (void *)(uintptr_t)0x7, NULL, NULL };
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra_bad_key), CUDA_ERROR_INVALID_VALUE);
    void *no_params[] = { NULL };
    CU_IS(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, no_params, extra_empty), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLaunchKernel((CUfunction)(uintptr_t)0x99, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
          CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuLaunchKernel(noop, 100, 10, 2, 64, 2, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize()); /* none of the refusals poisoned the context */
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_module, blocks_run_x_fastest_with_zeroed_shared_memory)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction ids = sim_test_kernel(m, "block_ids");
    enum { GX = 3, GY = 2, GZ = 2, N = GX * GY * GZ };
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, N * sizeof(unsigned)));
    void *args[] = { &out };
    CU_OK(cuLaunchKernel(ids, GX, GY, GZ, 32, 1, 1, 256, NULL, args, NULL));
    unsigned host[N];
    CU_OK(cuMemcpyDtoH_v2(host, out, sizeof host));
    for (unsigned z = 0, i = 0; z < GZ; z++)
        for (unsigned y = 0; y < GY; y++)
            for (unsigned x = 0; x < GX; x++, i++)
                cr_assert_eq(host[i], x | y << 8 | z << 16, "block %u: %#x", i, host[i]);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_module, unload_while_a_kernel_runs_is_safe)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    unsigned ms = 200;
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuModuleUnload(m)); /* the code stays mapped until the launch ends */
    CU_IS(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}
