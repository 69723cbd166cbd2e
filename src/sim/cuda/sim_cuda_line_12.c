/*
 * libgpuguard_sim_cuda.so imitates CUDA 12.0 to 13.0 drivers: the ones
 * that export cuGetProcAddress_v2 (12.0 introduced it), up to the newest
 * whose variants src/sim/cuda/sim_cuda_procaddr.c knows (13.0).
 */
#include "sim_cuda.h"

const sim_cuda_line sim_cuda_line_in_use = {
    .library = "libgpuguard_sim_cuda.so",
    .default_version = 13000,
    .min_version = 12000,
    .max_version = 13000,
    .other = "use libgpuguard_sim_cuda11.so for an 11.3 to 11.8 driver",
};
