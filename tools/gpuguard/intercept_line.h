/*
 * Which build of the interposer a program gets: the one that presents
 * exactly the wrapped driver functions the real driver beneath exports
 * (src/intercept/README.md, "Which functions it presents").
 *
 * A real driver exports only its own CUDA line's functions, and clients
 * probe by name (numba tries NAME_v2 first, then NAME): an interposer that
 * exported cuCtxGetDevice_v2 over an 11.x or 12.x driver would be believed,
 * and its call would answer CUDA_ERROR_NOT_FOUND. The build makes one
 * variant per line (src/intercept/exports/cuda-lines.txt), each hiding the
 * functions newer than its line; the choice is made from the driver's own
 * exports (dlsym), never from its name or version string.
 */
#ifndef GPUGUARD_TOOLS_INTERCEPT_LINE_H
#define GPUGUARD_TOOLS_INTERCEPT_LINE_H

#include "intercept.h"

/* The override: a variant's name ("cuda11", "cuda12.0", ..., "full"), or
 * "auto" (the default, also when unset or empty). */
#define INTERCEPT_ENV_LINE "GPUGUARD_INTERCEPT_LINE"

/* Points `setup` (interposer_dir, interposer, line, line_origin) at the
 * variant for its driver: with GPUGUARD_INTERCEPT_LINE naming one, that
 * one; else the newest variant all of whose line functions the driver
 * (setup->driver, already checked) exports; the full interposer when there
 * is no CUDA driver (a HIP program). Returns 0, or -1 with the reason on
 * stderr (prefixed by `who`): an unknown override, a variant not built,
 * the driver not loadable. */
int intercept_choose_line(const char *who, intercept_setup *setup);

#endif /* GPUGUARD_TOOLS_INTERCEPT_LINE_H */
