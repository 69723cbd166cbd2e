/* Compiled against the real gpuguard.h (not the smaller copy): the sizes
 * the library has, so that abi_older can prove its header's structs are
 * really smaller (the test would pass vacuously otherwise). */
#include <gpuguard/gpuguard.h>

#include "real_sizes.h"

const size_t abi_real_size_context_desc = sizeof(gg_context_desc);
const size_t abi_real_size_device_info = sizeof(gg_device_info);
const size_t abi_real_size_error_info = sizeof(gg_error_info);
const size_t abi_real_size_launch_desc = sizeof(gg_launch_desc);
