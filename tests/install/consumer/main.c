/* Initialises the installed gpuguard over its installed simulator, lists
 * the devices and, when built with the CMake package, runs a kernel of a
 * module built with the installed gg_add_sim_module. */
#include <stdio.h>
#include <string.h>

#include <gpuguard/gpuguard.h>

static int fail(const char *what)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    fprintf(stderr, "consumer: %s: %s\n", what, e.message);
    return 1;
}

#ifdef CONSUMER_KERNELS
static int run_kernels(void)
{
    gg_context ctx;
    gg_module module;
    gg_kernel kernel;
    gg_buffer buf;
    if (gg_context_create(0, NULL, &ctx) != GG_OK)
        return fail("context");
    if (gg_module_create_from_file(ctx, CONSUMER_KERNELS, NULL, &module) != GG_OK)
        return fail("module");
    if (gg_kernel_create(module, "double_it", &kernel) != GG_OK)
        return fail("kernel double_it");
    int host[100];
    for (int i = 0; i < 100; i++)
        host[i] = i;
    uint64_t dptr = 0;
    unsigned n = 100;
    if (gg_buffer_create(ctx, sizeof host, NULL, &buf) != GG_OK || gg_buffer_device_ptr(buf, &dptr) != GG_OK ||
        gg_memcpy_htod(buf, 0, host, sizeof host, GG_NO_STREAM) != GG_OK)
        return fail("buffer");
    void *params[] = { &dptr, &n };
    gg_launch_desc launch = { .struct_size = sizeof(gg_launch_desc), .kernel = kernel, .grid = { 4, 1, 1 }, .block = { 32, 1, 1 },
                              .params = params, .param_count = 2 };
    if (gg_launch(&launch) != GG_OK || gg_memcpy_dtoh(host, buf, 0, sizeof host, GG_NO_STREAM) != GG_OK)
        return fail("launch");
    for (int i = 0; i < 100; i++)
        if (host[i] != 2 * i) {
            fprintf(stderr, "consumer: element %d is %d, not %d\n", i, host[i], 2 * i);
            return 1;
        }
    printf("consumer: kernel double_it from the installed gg_add_sim_module ran\n");
    /* The simulator's reason is in gpuguard's own message. */
    if (gg_kernel_create(module, "forgot", &kernel) == GG_OK) {
        fprintf(stderr, "consumer: kernel 'forgot' without parameter declaration was accepted\n");
        return 1;
    }
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (strstr(e.message, "GG_SIM_KERNEL_PARAMS") == NULL) {
        fprintf(stderr, "consumer: the message does not say why: %s\n", e.message);
        return 1;
    }
    printf("consumer: refused kernel: %s\n", e.message);
    gg_context_destroy(ctx);
    return 0;
}
#endif

int main(void)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim" };
    if (gg_init(&desc) != GG_OK)
        return fail("gg_init");
    int count = 0;
    gg_device_count(&count);
    printf("consumer: %d device(s)\n", count);
    int rc = count == 2 ? 0 : 1;
#ifdef CONSUMER_KERNELS
    if (rc == 0)
        rc = run_kernels();
#endif
    gg_shutdown();
    return rc;
}
