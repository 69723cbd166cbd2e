/* The real header's sizes of the structs the smaller copy shrinks
 * (real_sizes.c, compiled against the real header). */
#ifndef GG_TESTS_ABI_REAL_SIZES_H
#define GG_TESTS_ABI_REAL_SIZES_H

#include <stddef.h>

extern const size_t abi_real_size_context_desc; /**< sizeof(gg_context_desc) in the library */
extern const size_t abi_real_size_device_info;  /**< sizeof(gg_device_info) in the library */
extern const size_t abi_real_size_error_info;   /**< sizeof(gg_error_info) in the library */
extern const size_t abi_real_size_launch_desc;  /**< sizeof(gg_launch_desc) in the library */

#endif /* GG_TESTS_ABI_REAL_SIZES_H */
