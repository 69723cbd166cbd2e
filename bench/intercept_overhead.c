/*
 * What the interposer (src/intercept) adds to a forwarded call with no plan
 * and no report: the same cheap functions called N times through the
 * simulator's own pointer and through the interposer's, median of several
 * rounds: two wrapped CUDA driver functions, a wrapped HIP one, and a HIP
 * function the interposer only passes through (a trampoline). The issue's
 * goal is at most 20 ns added per call.
 *
 *   build/bin/bench_intercept_overhead [CALLS_PER_ROUND] [ROUNDS]
 *
 * Run it on a quiet machine; it is never a test (tests must not time).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The measured functions take a pointer (int f(void *)) or an error code
 * (const char *f(int): hipGetErrorName, a pass-through trampoline). */
typedef int (*pointer_arg_fn)(void *out);
typedef const char *(*code_arg_fn)(int code);

typedef struct measured {
    const char *name;
    const char *how; /* what the interposer does with it */
    int face;        /* 0: CUDA (libcuda.so.1 over the simulator), 1: HIP (libamdhip64.so.5) */
    int code_arg;
    void *direct, *through;
    double direct_ns[99], through_ns[99];
} measured;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *symbol(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        fprintf(stderr, "bench_intercept_overhead: %s: %s\n", name, dlerror());
        exit(1);
    }
    return p;
}

/* ns per call of `f`, one round of `calls`. */
static double round_ns(const measured *m, void *f, long calls)
{
    long scratch[8];
    double t0 = now_ns();
    if (m->code_arg) {
        code_arg_fn g;
        memcpy(&g, &f, sizeof g);
        for (long i = 0; i < calls; i++)
            if (g((int)(i & 1) + 1) == NULL)
                exit(1);
    } else {
        pointer_arg_fn g;
        memcpy(&g, &f, sizeof g);
        for (long i = 0; i < calls; i++)
            g(scratch);
    }
    return (now_ns() - t0) / (double)calls;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 5000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (calls < 1 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: bench_intercept_overhead [CALLS_PER_ROUND >= 1] [ROUNDS 1..99]\n");
        return 2;
    }
    const char *sim_paths[2] = { GG_BENCH_LIB_DIR "/libgpuguard_sim_cuda.so", GG_BENCH_LIB_DIR "/libgpuguard_sim_hip.so" };
    setenv("GPUGUARD_INTERCEPT_DRIVER", sim_paths[0], 1);
    setenv("GPUGUARD_INTERCEPT_HIP_RUNTIME", sim_paths[1], 1);
    unsetenv("GPUGUARD_INTERCEPT_FAULTS");
    unsetenv("GPUGUARD_INTERCEPT_REPORT");
    void *sim[2] = { dlopen(sim_paths[0], RTLD_NOW | RTLD_LOCAL), dlopen(sim_paths[1], RTLD_NOW | RTLD_LOCAL) };
    void *icpt = dlopen(GG_BENCH_LIB_DIR "/intercept/libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (sim[0] == NULL || sim[1] == NULL || icpt == NULL) {
        fprintf(stderr, "bench_intercept_overhead: %s\n", dlerror());
        return 1;
    }
    measured m[] = {
        { "cuCtxGetCurrent", "wrapped", 0, 0, NULL, NULL, { 0 }, { 0 } },
        { "cuDriverGetVersion", "wrapped", 0, 0, NULL, NULL, { 0 }, { 0 } },
        { "hipGetDevice", "wrapped", 1, 0, NULL, NULL, { 0 }, { 0 } },
        { "hipGetErrorName", "pass-through", 1, 1, NULL, NULL, { 0 }, { 0 } },
    };
    size_t count = sizeof m / sizeof m[0];
    for (size_t i = 0; i < count; i++) {
        m[i].direct = symbol(sim[m[i].face], m[i].name);
        m[i].through = symbol(icpt, m[i].name);
    }
    int (*cu_init)(unsigned) = (int (*)(unsigned))symbol(icpt, "cuInit");
    int (*hip_init)(unsigned) = (int (*)(unsigned))symbol(icpt, "hipInit");
    if (cu_init(0) != 0 || hip_init(0) != 0) {
        fprintf(stderr, "bench_intercept_overhead: cuInit or hipInit through the interposer failed\n");
        return 1;
    }
    for (int k = 0; k < rounds; k++) {
        for (size_t i = 0; i < count; i++) {
            m[i].direct_ns[k] = round_ns(&m[i], m[i].direct, calls);
            m[i].through_ns[k] = round_ns(&m[i], m[i].through, calls);
        }
    }
    printf("%-20s %-13s %10s %11s %9s   (median of %d rounds of %ld calls)\n", "function", "interposer",
           "direct ns", "interposed", "added ns", rounds, calls);
    for (size_t i = 0; i < count; i++) {
        qsort(m[i].direct_ns, (size_t)rounds, sizeof(double), cmp_double);
        qsort(m[i].through_ns, (size_t)rounds, sizeof(double), cmp_double);
        double d = m[i].direct_ns[rounds / 2], t = m[i].through_ns[rounds / 2];
        printf("%-20s %-13s %10.2f %11.2f %9.2f\n", m[i].name, m[i].how, d, t, t - d);
    }
    return 0;
}
