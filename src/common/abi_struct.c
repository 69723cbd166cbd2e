/* The one place that applies the rules of the structs that grow
 * (abi_struct.h; the model is the Linux kernel's copy_struct_from_user). */
#include "common/abi_struct.h"

#include <string.h>

/* struct_size must at least hold itself. */
#define GG__ABI_MIN_SIZE sizeof(uint32_t)

_Alignas(max_align_t) const unsigned char gg__abi_zeros[GG__ABI_ZEROS_SIZE];

#define GG__ABI_FITS(type) _Static_assert(sizeof(type) <= GG__ABI_ZEROS_SIZE, #type " is larger than gg__abi_zeros")
GG__ABI_FITS(gg_init_desc);
GG__ABI_FITS(gg_context_desc);
GG__ABI_FITS(gg_wait_desc);
GG__ABI_FITS(gg_stream_desc);
GG__ABI_FITS(gg_event_desc);
GG__ABI_FITS(gg_buffer_desc);
GG__ABI_FITS(gg_module_desc);
GG__ABI_FITS(gg_launch_desc);
GG__ABI_FITS(gg_chunk_desc);
GG__ABI_FITS(gg_adopt_desc);
GG__ABI_FITS(gg_chunk_stats);
GG__ABI_FITS(gg_chunk_progress);
GG__ABI_FITS(gg_device_info);
GG__ABI_FITS(gg_error_info);
GG__ABI_FITS(gg_entry_point_info);

const void *gg__abi_in_copy(gg__call *c, const void *user, void *local, size_t lib_size, const char *name,
                            const char *init, gg_status *status)
{
    *status = GG_OK;
    memset(local, 0, lib_size);
    uint32_t *local_size = local;
    *local_size = (uint32_t)lib_size;
    if (user == NULL)
        return local;
    uint32_t user_size = *(const uint32_t *)user;
    if (user_size < GG__ABI_MIN_SIZE) {
        *status = gg__fail(c, GG_INVALID_ARGUMENT,
                           "%s: %s.struct_size is %u: initialise it with %s (struct_size = sizeof(%s))", c->api,
                           name, user_size, init, name);
        return NULL;
    }
    if (user_size > lib_size) {
        /* A newer program: what this library lacks must be unused (zero). */
        const unsigned char *bytes = user;
        for (size_t i = lib_size; i < user_size; i++)
            if (bytes[i] != 0) {
                *status = gg__fail(c, GG_UNSUPPORTED,
                                   "%s: %s has %u bytes and this library (gpuguard %s) knows %zu: byte %zu is "
                                   "not zero, a field this library does not have",
                                   c->api, name, user_size, gg_version_string(), lib_size, i);
                return NULL;
            }
    }
    size_t n = user_size < lib_size ? user_size : lib_size;
    memcpy((unsigned char *)local + GG__ABI_MIN_SIZE, (const unsigned char *)user + GG__ABI_MIN_SIZE,
           n - GG__ABI_MIN_SIZE);
    return local;
}

gg_status gg__abi_out_check(gg__call *c, const void *user, const char *name, const char *init)
{
    uint32_t user_size = *(const uint32_t *)user;
    if (user_size >= GG__ABI_MIN_SIZE)
        return GG_OK;
    if (c == NULL)
        return GG_INVALID_ARGUMENT;
    return gg__fail(c, GG_INVALID_ARGUMENT,
                    "%s: %s.struct_size is %u: initialise it with %s (struct_size = sizeof(%s))", c->api, name,
                    user_size, init, name);
}

void gg__abi_out(void *user, const void *local, size_t lib_size)
{
    uint32_t user_size = *(const uint32_t *)user;
    size_t n = user_size < lib_size ? user_size : lib_size;
    unsigned char *dst = user;
    memcpy(dst + GG__ABI_MIN_SIZE, (const unsigned char *)local + GG__ABI_MIN_SIZE, n - GG__ABI_MIN_SIZE);
    if (user_size > lib_size)
        memset(dst + lib_size, 0, user_size - lib_size);
}
