/*
 * Finding and loading the real libraries the interposer forwards to: the
 * CUDA driver for the cu* functions, the HIP runtime for the hip* ones,
 * each on the first call of one of its functions.
 *
 * The interposer is itself named libcuda.so.1 (and linked as
 * libamdhip64.so.5), so it can never ask the dynamic linker for those
 * names (it would get itself): a real library is always opened by path,
 * RTLD_LOCAL so that its symbols never shadow the wrappers, and a candidate
 * that turns out to be an interposer (it exports gg_intercept_marker) is
 * refused, so that no configuration can make the interposer forward to
 * itself.
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
#include "base/env.h"
#include "intercept_places.h"

/* Exported so that another copy of the interposer is recognised. */
__attribute__((visibility("default"))) const char gg_intercept_marker[] = "gpuguard interposing driver";

_Atomic int gg_icpt_watching;
_Atomic(gg_icpt_fnptr) gg_icpt_real[GG_ICPT_COUNT];

/* What differs between the two libraries. */
typedef struct face_description {
    const char *what;          /* in messages */
    const char *driver_env;    /* the interposer's own choice of library */
    const char *library_env;   /* libgpuguard's variable, honoured too */
    const char *sim_file;      /* the simulator's face, for GPUGUARD_BACKEND=sim */
    const char *probe;         /* a function every such library exports */
    const char *const *system; /* the system's usual places, NULL-terminated */
    int no_library_error;
    int first, end;            /* its functions' indexes */
} face_description;

static const char *const cuda_places[] = {
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1", "/usr/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1", NULL,
};
static const char *const hip_places[] = { GG_INTERCEPT_HIP_PLACES, NULL };

static const face_description faces[GG_ICPT_FACE_COUNT] = {
    [GG_ICPT_FACE_CUDA] = { "CUDA driver", "GPUGUARD_INTERCEPT_DRIVER", "GPUGUARD_CUDA_LIBRARY",
                            "libgpuguard_sim_cuda.so", "cuInit", cuda_places, CUDA_ERROR_STUB_LIBRARY, 0,
                            GG_ICPT_CUDA_COUNT },
    [GG_ICPT_FACE_HIP] = { "HIP runtime", "GPUGUARD_INTERCEPT_HIP_RUNTIME", "GPUGUARD_HIP_LIBRARY",
                           "libgpuguard_sim_hip.so", "hipInit", hip_places, hipErrorInsufficientDriver,
                           GG_ICPT_CUDA_COUNT, GG_ICPT_COUNT },
};

typedef struct face_state {
    pthread_once_t once;
    _Atomic(void *) handle;
    char path[PATH_MAX];
    char error[512];
} face_state;

static face_state state[GG_ICPT_FACE_COUNT] = { { .once = PTHREAD_ONCE_INIT }, { .once = PTHREAD_ONCE_INIT } };
static pthread_once_t configure_once = PTHREAD_ONCE_INIT;

const char *gg_icpt_driver_path(gg_icpt_face face)
{
    return state[face].path;
}

const char *gg_icpt_driver_error(gg_icpt_face face)
{
    return state[face].error;
}

void *gg_icpt_library(gg_icpt_face face)
{
    return atomic_load_explicit(&state[face].handle, memory_order_acquire);
}

int gg_icpt_no_library_error(gg_icpt_face face)
{
    return faces[face].no_library_error;
}

/* A HIP runtime must be HIP 5 (HIP_VERSION is major * 10^7 + ...): the
 * interposer exports 5.x's functions and symbol versions, and 6.0 changed
 * signatures under the same names (docs/HIP-ABI-FACTS.md). */
static bool hip_major_fits(void *h, char *why, size_t size)
{
    void *p = dlsym(h, "hipRuntimeGetVersion");
    hipError_t (*get)(int *);
    memcpy(&get, &p, sizeof get);
    int version = 0;
    if (get == NULL || get(&version) != hipSuccess) {
        snprintf(why, size, "its hipRuntimeGetVersion does not answer");
        return false;
    }
    if (version / 10000000 != 5) {
        snprintf(why, size, "it is HIP %d.%d, and the interposer stands for libamdhip64.so.5 (HIP 5.x) only",
                 version / 10000000, version / 100000 % 100);
        return false;
    }
    return true;
}

/* Opens `path` as `face`'s real library; false (with the error set) if it
 * is not one. */
static bool open_library(gg_icpt_face face, const char *path, const char *chosen_by)
{
    const face_description *d = &faces[face];
    face_state *st = &state[face];
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        snprintf(st->error, sizeof st->error, "%s: cannot load '%s': %s", chosen_by, path,
                 why ? why : "unknown error");
        return false;
    }
    char why[256] = "";
    if (dlsym(h, "gg_intercept_marker") != NULL) {
        snprintf(why, sizeof why, "it is gpuguard's interposer itself, not a real %s (set %s to the real one)",
                 d->what, d->driver_env);
    } else if (dlsym(h, d->probe) == NULL) {
        snprintf(why, sizeof why, "it exports no %s: not a %s", d->probe, d->what);
    } else if (face == GG_ICPT_FACE_HIP && !hip_major_fits(h, why, sizeof why)) {
        /* why says it */
    }
    if (why[0] != '\0') {
        snprintf(st->error, sizeof st->error, "%s: '%s': %s", chosen_by, path, why);
        dlclose(h);
        return false;
    }
    snprintf(st->path, sizeof st->path, "%s", path);
    atomic_store_explicit(&st->handle, h, memory_order_release);
    return true;
}

/* The folder of the interposer's own file: it is loaded through a link
 * (intercept/libcuda.so.1 in the build tree, gpuguard/intercept/ when
 * installed) to libgpuguard_intercept.so, which sits next to the simulator
 * in both, so the link is resolved first. False when it cannot be told. */
static bool interposer_folder(char *out, size_t size)
{
    Dl_info info;
    char real[PATH_MAX];
    if (!dladdr((const void *)gg_intercept_marker, &info) || info.dli_fname == NULL ||
        realpath(info.dli_fname, real) == NULL)
        return false;
    const char *slash = strrchr(real, '/');
    return slash != NULL && snprintf(out, size, "%.*s", (int)(slash - real), real) < (int)size;
}

/* The simulator's `file` for GPUGUARD_BACKEND=sim: next to the interposer's
 * own file (built or installed together, wherever the tree or the prefix
 * was moved), else in the build tree, else in the install prefix, as
 * configured. `looked` names the folders looked in, for the error. */
static bool sim_path(const char *file, char *out, size_t size, char *looked, size_t looked_size)
{
    char own[PATH_MAX];
    const char *dirs[3];
    int n = 0;
    if (interposer_folder(own, sizeof own))
        dirs[n++] = own;
    dirs[n++] = GG_SIM_BUILD_DIR;
    dirs[n++] = GG_SIM_INSTALL_DIR;
    looked[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (snprintf(out, size, "%s/%s", dirs[i], file) < (int)size && access(out, R_OK) == 0)
            return true;
        size_t used = strlen(looked);
        snprintf(looked + used, looked_size - used, "%s%s", used ? ", " : "", dirs[i]);
    }
    return false;
}

/* Opens the library the environment chooses, else the first system one. */
static bool find_library(gg_icpt_face face)
{
    const face_description *d = &faces[face];
    face_state *st = &state[face];
    const char *v = getenv(d->driver_env);
    if (v != NULL && v[0] != '\0')
        return open_library(face, v, d->driver_env);
    static const char *const sim_backends[] = { "sim", "sim-hip" };
    v = gg__env(GG__ENV_BACKEND);
    if (v != NULL && gg__keyword(v, sim_backends, 2, NULL)) {
        char path[PATH_MAX], looked[512];
        if (!sim_path(d->sim_file, path, sizeof path, looked, sizeof looked)) {
            snprintf(st->error, sizeof st->error, "GPUGUARD_BACKEND=%s: the simulator's %s is in none of: %.400s",
                     v, d->sim_file, looked);
            return false;
        }
        return open_library(face, path, "GPUGUARD_BACKEND=sim");
    }
    v = getenv(d->library_env);
    if (v != NULL && v[0] != '\0')
        return open_library(face, v, d->library_env);
    for (const char *const *p = d->system; *p != NULL; p++)
        if (access(*p, R_OK) == 0 && open_library(face, *p, "the system's places"))
            return true;
    if (st->error[0] == '\0')
        snprintf(st->error, sizeof st->error, "no %s found in the system's places (set %s)", d->what, d->driver_env);
    return false;
}

static void configure(void)
{
    if (gg_icpt_faults_configure())
        atomic_store_explicit(&gg_icpt_watching, 1, memory_order_release);
}

static void load_cuda(void);
static void load_hip(void);

static void load_face(gg_icpt_face face)
{
    pthread_once(&configure_once, configure);
    if (!find_library(face))
        return;
    for (int i = faces[face].first; i < faces[face].end; i++) {
        void *p = dlsym(gg_icpt_library(face), gg_icpt_names[i]);
        gg_icpt_fnptr f;
        /* POSIX: a function's address comes back from dlsym as a void *. */
        memcpy(&f, &p, sizeof p);
        /* Release: a wrapper that sees the pointer sees gg_icpt_watching. */
        atomic_store_explicit(&gg_icpt_real[i], f, memory_order_release);
    }
}

static void load_cuda(void)
{
    load_face(GG_ICPT_FACE_CUDA);
}

static void load_hip(void)
{
    load_face(GG_ICPT_FACE_HIP);
}

/* Set while this thread loads a library: a real library that calls its own
 * exports through its PLT reaches the interposer (they are the global
 * definitions), and such a call made while it is being loaded (its
 * constructors, the HIP version check) must not wait for that load. */
static _Thread_local bool loading;

bool gg_icpt_load(gg_icpt_face face)
{
    if (!loading) {
        loading = true;
        pthread_once(&state[face].once, face == GG_ICPT_FACE_CUDA ? load_cuda : load_hip);
        loading = false;
    }
    return atomic_load_explicit(&state[face].handle, memory_order_acquire) != NULL;
}

bool gg_icpt_loading_now(void)
{
    return loading;
}

void *gg_icpt_wrap_pointer(void *real)
{
    for (int i = 0; i < GG_ICPT_COUNT; i++) {
        gg_icpt_fnptr f = gg_icpt_real_fn((gg_icpt_function)i);
        void *r;
        memcpy(&r, &f, sizeof r);
        if (r != NULL && r == real) {
            void *w;
            memcpy(&w, &gg_icpt_wrappers[i], sizeof w);
            return w;
        }
    }
    /* While watching, an error-returning function the interposer only
     * passes through is handed out as its own trampoline, so that its calls
     * are counted and can be failed as when the program links it by name
     * (the CUDA runtime gets every entry point this way). Otherwise the
     * driver's own pointer: not even the trampoline's jump is added. */
    if (atomic_load_explicit(&gg_icpt_watching, memory_order_acquire) != 0) {
        void *entry = gg_icpt_pass_entry_for(real);
        if (entry != NULL)
            return entry;
    }
    return real;
}
