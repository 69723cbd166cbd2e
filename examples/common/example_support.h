/* What the examples share: finding kernel images, and printing a failure
 * with everything gg_last_error knows. Small on purpose: copy it along. */
#ifndef GG_EXAMPLE_SUPPORT_H
#define GG_EXAMPLE_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuguard/gpuguard.h"

/* gg_init on the default backend ("auto"), falling back to the simulated
 * driver when no GPU driver or device is found and GPUGUARD_BACKEND is unset. */
gg_status example_init(void);

/* The image file for a device: "<base>.ptx" on CUDA, real or simulated (the
 * simulator's PTX interpreter runs it; "<base>_sim.so", the kernel's C twin,
 * when no PTX was built), "<base>.hsaco" on HIP, "<base>_sim.so" on the
 * simulator's HIP face (it stands for an AMD GPU, which does not run PTX). */
void example_image_name(const gg_device_info *info, const char *base, char *out, size_t size);

/* Where kernel images are: GPUGUARD_KERNEL_DIR, else <executable dir>/../kernels. */
bool example_image_path(const char *file, char *out, size_t size);

/* Prints a failed call's status, message, driver code and culprit to stderr. */
void example_report(const char *program, gg_status status, const char *call);

#endif
