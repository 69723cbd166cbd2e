/*
 * libgpuguard_sim_cuda11.so imitates CUDA 11.3 to 11.8 drivers: they export
 * cuGetProcAddress (11.3) but not cuGetProcAddress_v2 (12.0), nor any other
 * name introduced after 11.8 (sim_cuda11.map keeps those out).
 */
#include "sim_cuda.h"

const sim_cuda_line sim_cuda_line_in_use = {
    .library = "libgpuguard_sim_cuda11.so",
    .default_version = 11040,
    .min_version = 11030,
    .max_version = 11080,
    .other = "use libgpuguard_sim_cuda.so for a 12.0 to 13.0 driver",
};
