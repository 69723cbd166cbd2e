/* Shared set-up of the benchmarks: gpuguard over the simulated driver in
 * this build tree, a context and the core test kernels. */
#ifndef GG_BENCH_SUPPORT_H
#define GG_BENCH_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuguard/gpuguard.h"

static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void bench_check(gg_status s, const char *what)
{
    if (s != GG_OK) {
        gg_error_info e = GG_ERROR_INFO_INIT;
        gg_last_error(&e);
        fprintf(stderr, "%s: %s: %s\n", what, gg_status_name(s), e.message);
        exit(1);
    }
}

static inline void bench_init_sim(const char *sim_config, const gg_init_desc *extra)
{
    if (sim_config)
        setenv("GPUGUARD_SIM_CONFIG", sim_config, 1);
    gg_init_desc desc = extra ? *extra : (gg_init_desc)GG_INIT_DESC_INIT;
    desc.backend = "sim";
    desc.cuda_library = GG_BENCH_LIB_DIR "/libgpuguard_sim_cuda.so";
    bench_check(gg_init(&desc), "gg_init");
}

#endif
