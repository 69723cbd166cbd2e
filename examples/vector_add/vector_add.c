/*
 * vector_add: a complete gpuguard program, to copy from.
 *
 * Adds two vectors of N floats on device 0 and checks every element on the
 * host. It runs on a real GPU when a CUDA or HIP driver is found and falls
 * back to gpuguard's simulated driver when none is, so it works anywhere.
 *
 *   vector_add [--n N] [--device D]
 *
 * Every gpuguard call returns a gg_status; on failure, gg_last_error() tells
 * which call failed, the driver's own error, and (for a kernel that faulted)
 * which launch is to blame. Nothing in the library prints or aborts, so the
 * program decides what to say: see example_report() in examples/common.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuguard/gpuguard.h"
#include "example_support.h" /* init with fallback, kernel images, reports */

#define THREADS_PER_BLOCK 256u
#define MAX_N (1u << 28) /* 1 GiB per buffer: keeps the sizes well in range */

/* On failure: print everything gg_last_error knows about the call (see
 * examples/common/example_support.c) and jump to the clean-up. */
#define TRY(call)                                          \
    do {                                                   \
        gg_status status_ = (call);                        \
        if (status_ != GG_OK) {                            \
            example_report("vector_add", status_, #call);  \
            goto cleanup;                                  \
        }                                                  \
    } while (0)

static bool parse_unsigned(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 0);
    if (errno || end == text || *end || text[0] == '-' || v > max)
        return false;
    *out = v;
    return true;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: vector_add [--n N] [--device D]\n"
                 "  --n N       elements per vector (1..%u, default %u)\n"
                 "  --device D  device index (default 0)\n"
                 "The kernel images are looked for in GPUGUARD_KERNEL_DIR, else in\n"
                 "<executable dir>/../kernels.\n",
            MAX_N, 1u << 20);
}

int main(int argc, char **argv)
{
    unsigned long n = 1u << 20, device = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        bool ok = false;
        if (i + 1 < argc && strcmp(argv[i], "--n") == 0)
            ok = parse_unsigned(argv[++i], MAX_N, &n) && n > 0;
        else if (i + 1 < argc && strcmp(argv[i], "--device") == 0)
            ok = parse_unsigned(argv[++i], 1024, &device);
        if (!ok) {
            fprintf(stderr, "vector_add: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    /* Host data: c = a + b, with values whose sums are exact in float. */
    size_t bytes = n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "vector_add: out of host memory\n");
        free(a);
        free(b);
        free(c);
        return 1;
    }
    for (unsigned long i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * (i % 1024));
    }

    int rc = 1;
    unsigned long mismatches = 0;
    gg_context ctx = {0};
    gg_buffer a_buf = {0}, b_buf = {0}, c_buf = {0};
    gg_module module = {0};
    gg_kernel kernel = {0};
    gg_device_info info = GG_DEVICE_INFO_INIT;
    char image_name[64], image[4200];

    /* 1. Initialise, and say where we are running. */
    TRY(example_init()); /* "auto", or the simulator if there is no GPU */
    TRY(gg_device_properties((int)device, &info));
    printf("running on %s (%s)\n", info.name, info.simulated ? "simulated" : "real GPU");

    /* 2. A context on the device: every other object lives in one. */
    TRY(gg_context_create((int)device, NULL, &ctx));

    /* 3. Device buffers, and the inputs copied in. With GG_NO_STREAM the
     *    copies are synchronous. */
    TRY(gg_buffer_create(ctx, bytes, NULL, &a_buf));
    TRY(gg_buffer_create(ctx, bytes, NULL, &b_buf));
    TRY(gg_buffer_create(ctx, bytes, NULL, &c_buf));
    TRY(gg_memcpy_htod(a_buf, 0, a, bytes, GG_NO_STREAM));
    TRY(gg_memcpy_htod(b_buf, 0, b, bytes, GG_NO_STREAM));

    /* 4. The kernel, from the image that suits the device. */
    example_image_name(&info, "vector_add", image_name, sizeof image_name);
    if (!example_image_path(image_name, image, sizeof image)) {
        fprintf(stderr, "vector_add: cannot tell where %s is\n", image_name);
        goto cleanup;
    }
    if (access(image, R_OK) != 0) {
        fprintf(stderr, "vector_add: no kernel image at %s: %s\n", image, strerror(errno));
        goto cleanup;
    }
    TRY(gg_module_create_from_file(ctx, image, NULL, &module));
    TRY(gg_kernel_create(module, "vector_add", &kernel));

    /* 5. Launch: one thread per element, 256 per block. Kernel parameters
     *    are passed as an array of pointers to each value, as with
     *    cuLaunchKernel; buffers are passed as their device addresses. */
    uint64_t a_dev, b_dev, c_dev;
    TRY(gg_buffer_device_ptr(a_buf, &a_dev));
    TRY(gg_buffer_device_ptr(b_buf, &b_dev));
    TRY(gg_buffer_device_ptr(c_buf, &c_dev));
    unsigned n_param = (unsigned)n;
    void *params[] = {&a_dev, &b_dev, &c_dev, &n_param};
    gg_launch_desc launch = {
        .struct_size = sizeof(gg_launch_desc), .kernel = kernel,
        .grid = {(unsigned)((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK), 1, 1},
        .block = {THREADS_PER_BLOCK, 1, 1},
        .params = params,
        .param_count = 4,
    };
    TRY(gg_launch(&launch));

    /* 6. Wait for the kernel: a launch is asynchronous, so a fault inside
     *    it surfaces here (or at the next call), with the launch to blame.
     *    Then copy the result out and check every element. */
    TRY(gg_context_synchronize(ctx, NULL));
    TRY(gg_memcpy_dtoh(c, c_buf, 0, bytes, GG_NO_STREAM));
    for (unsigned long i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i] && mismatches++ == 0)
            fprintf(stderr, "vector_add: c[%lu] = %g, expected %g\n", i, c[i], a[i] + b[i]);
    }

    /* 7. Release everything, in reverse order. */
    TRY(gg_module_destroy(module));
    TRY(gg_buffer_destroy(c_buf));
    TRY(gg_buffer_destroy(b_buf));
    TRY(gg_buffer_destroy(a_buf));
    TRY(gg_context_destroy(ctx));
    ctx = (gg_context){0};
    rc = mismatches ? 1 : 0;

cleanup:
    /* On an error path, destroying the context frees whatever is still in
     * it (destroying id 0 is harmless); gg_shutdown releases the rest and is
     * safe even if gg_init failed. */
    gg_context_destroy(ctx);
    gg_shutdown();
    free(a);
    free(b);
    free(c);
    if (mismatches)
        fprintf(stderr, "vector_add: %lu of %lu elements wrong\n", mismatches, n);
    else if (rc == 0)
        printf("verified %lu elements\n", n);
    return rc;
}
