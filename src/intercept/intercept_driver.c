/*
 * Finding and loading the real driver the interposer forwards to.
 *
 * The interposer is itself named libcuda.so.1, so it can never ask the
 * dynamic linker for "libcuda.so.1" (it would get itself): the real driver
 * is always opened by path, RTLD_LOCAL so that its symbols never shadow the
 * wrappers, and a candidate that turns out to be an interposer (it exports
 * gg_intercept_marker) is refused, so that no configuration can make the
 * interposer forward to itself.
 */

#include "intercept.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_paths.h"

/* Exported so that another copy of the interposer is recognised. */
__attribute__((visibility("default"))) const char gg_intercept_marker[] = "gpuguard interposing driver";

_Atomic int gg_icpt_mode_now = GG_ICPT_MODE_UNLOADED;
gg_icpt_fnptr gg_icpt_real[GG_ICPT_COUNT];

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char driver_path[PATH_MAX];
static char driver_error[512];

const char *gg_icpt_driver_path(void)
{
    return driver_path;
}

const char *gg_icpt_driver_error(void)
{
    return driver_error;
}

/* The system's usual places for NVIDIA's driver library. */
static const char *const system_candidates[] = {
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1", "/usr/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1",
};

/* Opens `path` as the real driver; false (with driver_error set) if it is
 * not one. */
static bool open_driver(const char *path, const char *chosen_by, void **handle)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        snprintf(driver_error, sizeof driver_error, "%s: cannot load '%s': %s", chosen_by, path,
                 why ? why : "unknown error");
        return false;
    }
    if (dlsym(h, "gg_intercept_marker") != NULL) {
        snprintf(driver_error, sizeof driver_error,
                 "%s: '%s' is gpuguard's interposer itself, not a driver (set GPUGUARD_INTERCEPT_DRIVER to the "
                 "real libcuda.so.1)", chosen_by, path);
        dlclose(h);
        return false;
    }
    if (dlsym(h, "cuInit") == NULL) {
        snprintf(driver_error, sizeof driver_error, "%s: '%s' exports no cuInit: not a CUDA driver", chosen_by,
                 path);
        dlclose(h);
        return false;
    }
    snprintf(driver_path, sizeof driver_path, "%s", path);
    *handle = h;
    return true;
}

static bool sim_path(char *out, size_t size)
{
    snprintf(out, size, "%s/libgpuguard_sim_cuda.so", GG_SIM_BUILD_DIR);
    if (access(out, R_OK) == 0)
        return true;
    snprintf(out, size, "%s/libgpuguard_sim_cuda.so", GG_SIM_INSTALL_DIR);
    return access(out, R_OK) == 0;
}

/* The driver chosen by the environment, else the first system one. */
static void *find_driver(void)
{
    void *h = NULL;
    const char *v = getenv("GPUGUARD_INTERCEPT_DRIVER");
    if (v != NULL && v[0] != '\0')
        return open_driver(v, "GPUGUARD_INTERCEPT_DRIVER", &h) ? h : NULL;
    v = getenv("GPUGUARD_BACKEND");
    if (v != NULL && strcmp(v, "sim") == 0) {
        char path[PATH_MAX];
        if (!sim_path(path, sizeof path)) {
            snprintf(driver_error, sizeof driver_error,
                     "GPUGUARD_BACKEND=sim: the simulated driver is in neither %s nor %s", GG_SIM_BUILD_DIR,
                     GG_SIM_INSTALL_DIR);
            return NULL;
        }
        return open_driver(path, "GPUGUARD_BACKEND=sim", &h) ? h : NULL;
    }
    v = getenv("GPUGUARD_CUDA_LIBRARY");
    if (v != NULL && v[0] != '\0')
        return open_driver(v, "GPUGUARD_CUDA_LIBRARY", &h) ? h : NULL;
    for (size_t i = 0; i < sizeof system_candidates / sizeof system_candidates[0]; i++)
        if (access(system_candidates[i], R_OK) == 0 && open_driver(system_candidates[i], "the system's driver", &h))
            return h;
    if (driver_error[0] == '\0')
        snprintf(driver_error, sizeof driver_error,
                 "no CUDA driver found in the system's places (set GPUGUARD_INTERCEPT_DRIVER)");
    return NULL;
}

static void load(void)
{
    bool watch = gg_icpt_faults_configure();
    void *h = find_driver();
    if (h == NULL) {
        atomic_store_explicit(&gg_icpt_mode_now, GG_ICPT_MODE_BROKEN, memory_order_release);
        return;
    }
    for (int i = 0; i < GG_ICPT_COUNT; i++) {
        void *p = dlsym(h, gg_icpt_names[i]);
        /* POSIX: a function's address comes back from dlsym as a void *. */
        memcpy(&gg_icpt_real[i], &p, sizeof p);
    }
    /* Release: a wrapper that reads the mode reads the pointers after it. */
    atomic_store_explicit(&gg_icpt_mode_now, watch ? GG_ICPT_MODE_WATCH : GG_ICPT_MODE_FORWARD,
                          memory_order_release);
}

gg_icpt_mode gg_icpt_load(void)
{
    pthread_once(&load_once, load);
    return (gg_icpt_mode)atomic_load_explicit(&gg_icpt_mode_now, memory_order_acquire);
}

void *gg_icpt_wrap_pointer(void *real)
{
    for (int i = 0; i < GG_ICPT_COUNT; i++) {
        void *r;
        memcpy(&r, &gg_icpt_real[i], sizeof r);
        if (r != NULL && r == real) {
            void *w;
            memcpy(&w, &gg_icpt_wrappers[i], sizeof w);
            return w;
        }
    }
    return real;
}
