#include "example_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

gg_status example_init(void)
{
    gg_status status = gg_init(NULL);
    /* Only "auto" falls back: a backend chosen through GPUGUARD_BACKEND is
     * the user's, and switching behind their back would hide their error. */
    if ((status == GG_NO_DRIVER || status == GG_NO_DEVICE) && !getenv("GPUGUARD_BACKEND")) {
        gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim" };
        status = gg_init(&desc);
    }
    return status;
}

void example_image_name(const gg_device_info *info, const char *base, char *out, size_t size)
{
    bool hip = info->backend && strcmp(info->backend, "hip") == 0;
    if (info->simulated && !hip) {
        /* The kernel's own PTX, run by the simulator's PTX interpreter: the
         * image a GPU loads. The C twin only when the PTX is not there
         * (configured with -DGG_EXAMPLE_PTX=OFF). */
        char ptx[4200];
        snprintf(out, size, "%s.ptx", base);
        if (!example_image_path(out, ptx, sizeof ptx) || access(ptx, R_OK) != 0)
            snprintf(out, size, "%s_sim.so", base);
    } else if (info->simulated) {
        /* The simulator's HIP face stands for an AMD GPU, which runs code
         * objects, not PTX: the C twin stands in for the .hsaco. */
        snprintf(out, size, "%s_sim.so", base);
    } else if (hip)
        snprintf(out, size, "%s.hsaco", base);
    else
        snprintf(out, size, "%s.ptx", base);
}

bool example_image_path(const char *file, char *out, size_t size)
{
    const char *dir = getenv("GPUGUARD_KERNEL_DIR");
    if (dir && dir[0]) {
        int len = snprintf(out, size, "%s/%s", dir, file);
        return len > 0 && (size_t)len < size;
    }
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return false;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    int n = snprintf(out, size, "%s/../kernels/%s", exe, file);
    return n > 0 && (size_t)n < size;
}

void example_report(const char *program, gg_status status, const char *call)
{
    gg_error_info err = GG_ERROR_INFO_INIT;
    gg_last_error(&err);
    fprintf(stderr, "%s: %s failed: %s: %s\n", program, call, gg_status_name(status),
            err.message[0] ? err.message : gg_status_string(status));
    if (err.native_name[0])
        fprintf(stderr, "  driver: %s (%d) from %s\n", err.native_name, (int)err.native_code, err.driver_call);
    if (err.culprit.certainty == GG_ATTRIBUTION_EXACT)
        fprintf(stderr, "  culprit: kernel '%s', launch #%llu\n", err.culprit.kernel_name,
                (unsigned long long)err.culprit.sequence);
    else if (err.culprit.certainty == GG_ATTRIBUTION_WINDOW)
        fprintf(stderr, "  culprit: one of %u launches #%llu..#%llu, oldest kernel '%s'\n",
                (unsigned)err.culprit.window_count, (unsigned long long)err.culprit.window_first,
                (unsigned long long)err.culprit.window_last, err.culprit.kernel_name);
}
