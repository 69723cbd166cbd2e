/*
 * What a client that probes the driver by name finds in the libcuda.so.1 it
 * gets (numba 0.56 tries NAME_v2, then NAME): run by test_intercept_lines.sh
 * under `gpuguard run`. Each argument +NAME must be found by dlsym in that
 * library, -NAME must not; the library must be gpuguard's interposer
 * (gg_intercept_marker), else the test would prove nothing about it. With
 * --call first, cuCtxGetDevice (and cuCtxGetDevice_v2 where it is found)
 * must answer device 0 in device 0's primary context. Prints one line per
 * check; exits 1 when one fails, 2 on bad usage.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef int (*init_fn)(unsigned int);
typedef int (*device_get_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*set_current_fn)(void *);
typedef int (*ctx_get_device_fn)(int *);
typedef int (*ctx_get_device_v2_fn)(int *, void *);

/* A function pointer from dlsym, without the object-to-function cast warning. */
#define LOOKUP(lib, type, name) ((type)(unsigned long)dlsym((lib), (name)))

static int failures;

static void check(bool ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failures += !ok;
}

/* cuCtxGetDevice (and _v2 where exported) in device 0's primary context. */
static void call_ctx_get_device(void *lib)
{
    init_fn init = LOOKUP(lib, init_fn, "cuInit");
    device_get_fn device_get = LOOKUP(lib, device_get_fn, "cuDeviceGet");
    retain_fn retain = LOOKUP(lib, retain_fn, "cuDevicePrimaryCtxRetain");
    set_current_fn set_current = LOOKUP(lib, set_current_fn, "cuCtxSetCurrent");
    ctx_get_device_fn get_device = LOOKUP(lib, ctx_get_device_fn, "cuCtxGetDevice");
    ctx_get_device_v2_fn get_device_v2 = LOOKUP(lib, ctx_get_device_v2_fn, "cuCtxGetDevice_v2");
    if (!init || !device_get || !retain || !set_current || !get_device) {
        check(false, "the context functions are exported");
        return;
    }
    int device = -1, answer = -1;
    void *ctx = NULL;
    check(init(0) == 0 && device_get(&device, 0) == 0 && retain(&ctx, device) == 0 && set_current(ctx) == 0,
          "device 0's primary context made current");
    int rc = get_device(&answer);
    printf("cuCtxGetDevice: %d, device %d\n", rc, answer);
    check(rc == 0 && answer == device, "cuCtxGetDevice answers the context's device");
    if (get_device_v2 != NULL) {
        answer = -1;
        rc = get_device_v2(&answer, ctx);
        printf("cuCtxGetDevice_v2: %d, device %d\n", rc, answer);
        check(rc == 0 && answer == device, "cuCtxGetDevice_v2 answers the context's device");
    }
}

int main(int argc, char **argv)
{
    int first = 1;
    bool call = argc > 1 && strcmp(argv[1], "--call") == 0;
    first += call;
    if (argc <= first) {
        fprintf(stderr, "usage: line_probe [--call] {+NAME|-NAME}...\n");
        return 2;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("FAILED: dlopen libcuda.so.1: %s\n", dlerror());
        return 1;
    }
    check(dlsym(lib, "gg_intercept_marker") != NULL, "libcuda.so.1 is gpuguard's interposer");
    for (int i = first; i < argc; i++) {
        if (argv[i][0] != '+' && argv[i][0] != '-') {
            fprintf(stderr, "line_probe: %s: neither +NAME nor -NAME\n", argv[i]);
            return 2;
        }
        bool found = dlsym(lib, argv[i] + 1) != NULL;
        char what[200];
        snprintf(what, sizeof what, "%s %s", argv[i] + 1, found ? "found" : "absent");
        check(found == (argv[i][0] == '+'), what);
    }
    if (call)
        call_ctx_get_device(lib);
    return failures ? 1 : 0;
}
