/* A kernel with more parameters than gpuguard keeps the sizes of
 * (GG__KNOWN_PARAMS, 64), for tests/core/test_bounds.c. Declared by hand:
 * GG_SIM_KERNEL_PARAMS counts at most 32 arguments. The first 64 are 4
 * bytes; parameter 64 is 4 bytes too (a chunk offset would fit), 65 is 16
 * bytes (one the chunked path must never point at its 8-byte offset). */
#include <stdint.h>

#include "gpuguard/sim_kernel.h"

#define FOUR4 4u, 4u, 4u, 4u
#define SIXTEEN4 FOUR4, FOUR4, FOUR4, FOUR4
GG_SIM_PARAMS_DECLARE const unsigned gg_sim_params__wide66[];
GG_SIM_PARAMS_LINKAGE const unsigned gg_sim_params__wide66[] = {
    66u, SIXTEEN4, SIXTEEN4, SIXTEEN4, SIXTEEN4, 4u, 16u };

GG_SIM_KERNEL(wide66)
{
    (void)b;
}
