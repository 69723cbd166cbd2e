/* Module images as nvcc writes them, loaded through the simulator's CUDA
 * face: fatbins (bare and wrapped; zstd, LZ4 and stored PTX; several PTX
 * architectures) run their PTX through the interpreter, and images with
 * machine code only (a cubin, SASS-only fatbins, LTO-IR, PTX only for a
 * newer architecture) are refused as by a GPU of another architecture:
 * CUDA_ERROR_NO_BINARY_FOR_GPU with a detail that says how to embed PTX.
 * The fixtures are fixtures/fatbin/ (scripts/gen-fatbin-fixtures.sh). */
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(ptx_containers, .timeout = 60);

#define FATBIN_DIR GG_PTX_FIXTURE_DIR "/fatbin"

static char *read_image(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FATBIN_DIR, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return s;
}

/* scale(x, a, n) over 100 floats: x[i] == 3 * i afterwards. */
static void check_scale_runs(CUmodule m, const char *what)
{
    CUfunction f = sim_test_kernel(m, "scale");
    enum { N = 100 };
    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, sizeof host));
    CU_OK(cuMemcpyHtoD_v2(d, host, sizeof host));
    float a = 3.0f;
    int n = N;
    void *args[] = { &d, &a, &n };
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(host, d, sizeof host));
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], 3.0f * (float)i, "%s: x[%d] = %g", what, i, (double)host[i]);
    CU_OK(cuMemFree_v2(d));
}

Test(ptx_containers, fatbins_run_their_ptx_from_memory_and_from_files)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    static const char *const runnable[] = { "ptx75_zstd.fatbin", "ptx75_lz4.fatbin", "ptx75_none.fatbin",
                                            "ptx75_size.fatbin", "ptx75_debug.fatbin", "sass75_ptx75.fatbin",
                                            "ptx_multi.fatbin" };
    for (size_t i = 0; i < sizeof runnable / sizeof runnable[0]; i++) {
        size_t size;
        char *image = read_image(runnable[i], &size);
        CUmodule m;
        CU_OK(cuModuleLoadData(&m, image));
        check_scale_runs(m, runnable[i]);
        CU_OK(cuModuleUnload(m));
        free(image);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", FATBIN_DIR, runnable[i]);
        CU_OK(cuModuleLoad(&m, path));
        check_scale_runs(m, path);
        CU_OK(cuModuleUnload(m));
    }
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The wrapper a program's fatbin section holds (fatbinary_section.h):
 * magic, version, the container's address, a second (unused) pointer. */
typedef struct fatbin_wrapper {
    int magic;
    int version;
    const void *data;
    const void *filename_or_fatbins;
} fatbin_wrapper;

Test(ptx_containers, a_wrapped_fatbin_runs_its_ptx)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    size_t size;
    char *image = read_image("ptx75_zstd.fatbin", &size);
    fatbin_wrapper w = { 0x466243B1, 1, image, NULL };
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, &w));
    check_scale_runs(m, "wrapped ptx75_zstd.fatbin");
    CU_OK(cuModuleUnload(m));
    free(image);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* Machine code only: the simulated device (compute capability 8.0) has no
 * kernel image it can run. The detail names what the image holds and how
 * to embed PTX. */
Test(ptx_containers, machine_code_only_is_no_binary_for_gpu)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    static const char *const refused[] = { "sass75.cubin", "sass75_zstd.fatbin", "sass_multi.fatbin",
                                           "lto75.fatbin", "ptx90a.fatbin", "ptx100f.fatbin" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        size_t size;
        char *image = read_image(refused[i], &size);
        CUmodule m = NULL;
        CU_IS(cuModuleLoadData(&m, image), CUDA_ERROR_NO_BINARY_FOR_GPU);
        const char *detail = gg_sim_last_error_detail();
        cr_assert(strstr(detail, "compute_") != NULL, "%s: the detail does not say how to embed PTX: %s",
                  refused[i], detail);
        free(image);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", FATBIN_DIR, refused[i]);
        CU_IS(cuModuleLoad(&m, path), CUDA_ERROR_NO_BINARY_FOR_GPU);
    }
    const char *name = NULL;
    CU_OK(cuGetErrorName(CUDA_ERROR_NO_BINARY_FOR_GPU, &name));
    cr_assert_str_eq(name, "CUDA_ERROR_NO_BINARY_FOR_GPU");
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* A container cut short: refused as an invalid image, never read past. */
Test(ptx_containers, a_truncated_fatbin_file_is_an_invalid_image)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    size_t size;
    char *image = read_image("ptx75_zstd.fatbin", &size);
    char path[] = "/tmp/gg_truncated_fatbin_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, image, size / 2), (ssize_t)(size / 2));
    close(fd);
    CUmodule m = NULL;
    CU_IS(cuModuleLoad(&m, path), CUDA_ERROR_INVALID_IMAGE);
    unlink(path);
    free(image);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}
