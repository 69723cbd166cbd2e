/*
 * What the interposer (src/intercept) adds to a forwarded driver call with
 * no plan and no report: the same cheap driver functions called N times
 * through the simulator's own pointer and through the interposer's, median
 * of several rounds. The goal is at most 20 ns added per call.
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

typedef int (*get_current_fn)(void **ctx);
typedef int (*get_version_fn)(int *version);

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

/* ns per call of get_current, then of get_version, one round. */
static void round_ns(get_current_fn get_current, get_version_fn get_version, long calls, double out[2])
{
    void *ctx;
    int version;
    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        get_current(&ctx);
    double t1 = now_ns();
    for (long i = 0; i < calls; i++)
        get_version(&version);
    double t2 = now_ns();
    out[0] = (t1 - t0) / (double)calls;
    out[1] = (t2 - t1) / (double)calls;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 5000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (calls < 1 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: bench_intercept_overhead [CALLS_PER_ROUND >= 1] [ROUNDS 1..99]\n");
        return 2;
    }
    const char *sim_path = GG_BENCH_LIB_DIR "/libgpuguard_sim_cuda.so";
    setenv("GPUGUARD_INTERCEPT_DRIVER", sim_path, 1);
    unsetenv("GPUGUARD_INTERCEPT_FAULTS");
    unsetenv("GPUGUARD_INTERCEPT_REPORT");
    void *sim = dlopen(sim_path, RTLD_NOW | RTLD_LOCAL);
    void *icpt = dlopen(GG_BENCH_LIB_DIR "/intercept/libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (sim == NULL || icpt == NULL) {
        fprintf(stderr, "bench_intercept_overhead: %s\n", dlerror());
        return 1;
    }
    get_current_fn direct_current = (get_current_fn)symbol(sim, "cuCtxGetCurrent");
    get_version_fn direct_version = (get_version_fn)symbol(sim, "cuDriverGetVersion");
    get_current_fn icpt_current = (get_current_fn)symbol(icpt, "cuCtxGetCurrent");
    get_version_fn icpt_version = (get_version_fn)symbol(icpt, "cuDriverGetVersion");
    int (*init)(unsigned) = (int (*)(unsigned))symbol(icpt, "cuInit");
    if (init(0) != 0) {
        fprintf(stderr, "bench_intercept_overhead: cuInit through the interposer failed\n");
        return 1;
    }
    double direct[2][99], through[2][99], r[2];
    for (int k = 0; k < rounds; k++) {
        round_ns(direct_current, direct_version, calls, r);
        direct[0][k] = r[0];
        direct[1][k] = r[1];
        round_ns(icpt_current, icpt_version, calls, r);
        through[0][k] = r[0];
        through[1][k] = r[1];
    }
    const char *names[2] = { "cuCtxGetCurrent", "cuDriverGetVersion" };
    printf("%-20s %12s %12s %12s   (median of %d rounds of %ld calls)\n", "function", "direct ns", "interposed",
           "added ns", rounds, calls);
    for (int f = 0; f < 2; f++) {
        qsort(direct[f], (size_t)rounds, sizeof(double), cmp_double);
        qsort(through[f], (size_t)rounds, sizeof(double), cmp_double);
        double d = direct[f][rounds / 2], t = through[f][rounds / 2];
        printf("%-20s %12.2f %12.2f %12.2f\n", names[f], d, t, t - d);
    }
    return 0;
}
