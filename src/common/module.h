/* Modules and kernels: what other files ask of them (module.c). */
#ifndef GPUGUARD_MODULE_H
#define GPUGUARD_MODULE_H

#include "common/call.h"

/* Reads what the driver knows of a new kernel's parameters into its record
 * (gg_kernel_create and gg_kernel_adopt). Context entered. */
void gg__kernel_read_params(gg__call *c, gg__kernel *k);

#endif /* GPUGUARD_MODULE_H */
