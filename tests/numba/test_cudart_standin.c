/*
 * Checks the stand-in CUDA runtime (cudart_standin.c) as numba uses it:
 * loaded with dlopen, cudaRuntimeGetVersion answers 11080 (CUDA 11.8) and
 * refuses a NULL pointer with cudaErrorInvalidValue (1).
 * Usage: test_numba_cudart_standin PATH_TO_LIBCUDART
 */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*runtime_get_version_fn)(int *);

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBCUDART\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    runtime_get_version_fn get_version;
    *(void **)&get_version = dlsym(lib, "cudaRuntimeGetVersion");
    if (!get_version) {
        fprintf(stderr, "no cudaRuntimeGetVersion in %s\n", argv[1]);
        return 1;
    }
    int failures = 0;
    int version = -1;
    int status = get_version(&version);
    if (status != 0 || version != 11080) {
        fprintf(stderr, "cudaRuntimeGetVersion: status %d, version %d; want 0, 11080\n",
                status, version);
        failures++;
    }
    status = get_version(NULL);
    if (status != 1) {
        fprintf(stderr, "cudaRuntimeGetVersion(NULL): status %d; want 1\n", status);
        failures++;
    }
    dlclose(lib);
    if (!failures)
        printf("cudaRuntimeGetVersion: 11080, and NULL refused with 1\n");
    return failures ? 1 : 0;
}
