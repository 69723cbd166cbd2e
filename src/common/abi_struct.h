/* Reading and writing the public structs that grow (gpuguard.h, "Structs
 * that grow"): every desc and info begins with uint32_t struct_size, the
 * sizeof the caller was built with. Each entry point reads a caller's desc
 * through gg__abi_in and writes an info through gg__abi_out_check and
 * gg__abi_out, so the rules live in one place:
 *   input:  0 (or 1-3) refused naming the struct and its macro; smaller:
 *           what is there, the rest zero (defaults); larger: every byte
 *           past the library's struct must be zero, else GG_UNSUPPORTED
 *           naming the first nonzero byte;
 *   output: 0 (or 1-3) refused; the first struct_size bytes written and
 *           nothing past them; bytes past the library's struct zeroed. */
#ifndef GG_COMMON_ABI_STRUCT_H
#define GG_COMMON_ABI_STRUCT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/call.h"

/* The slow path of gg__abi_in: user NULL, or a size other than the
 * library's. Fills local (lib_size bytes) from user; NULL: all zero. Sets
 * local's struct_size to lib_size. Returns local, or NULL with *status the
 * failure (recorded through gg__fail on c, naming `name` and `init`). */
const void *gg__abi_in_copy(gg__call *c, const void *user, void *local, size_t lib_size, const char *name,
                            const char *init, gg_status *status);

/* Zero bytes enough for any public struct (abi_struct.c checks the
 * sizes): what a NULL desc reads as, without a copy. */
#define GG__ABI_ZEROS_SIZE 2048
extern const unsigned char gg__abi_zeros[GG__ABI_ZEROS_SIZE];

/* The struct to read for the caller's input struct `user`: user itself
 * when its struct_size is the library's (no copy: the common case, and the
 * launch path's); for a NULL user, all zeros (gg__abi_zeros: its
 * struct_size reads 0, which no reader looks at); else local filled as
 * gg__abi_in_copy says. NULL when the struct is refused, and then only
 * *status is written (the failure): the fast paths store nothing. Callers
 * for which a NULL desc is an error check it first. */
static inline const void *gg__abi_in(gg__call *c, const void *user, void *local, size_t lib_size, const char *name,
                                     const char *init, gg_status *status)
{
    if (user == NULL)
        return gg__abi_zeros;
    if (*(const uint32_t *)user == lib_size)
        return user;
    return gg__abi_in_copy(c, user, local, lib_size, name, init, status);
}

/* GG__ABI_IN(c, desc, &local, gg_context_desc, GG_CONTEXT_DESC_INIT, &status):
 * gg__abi_in with the struct's size and names filled in. */
#define GG__ABI_IN(c, user, local, type, init, status) \
    gg__abi_in((c), (user), (local), sizeof(type), #type, #init, (status))

/* Copies the caller's input struct into *local (all of it, whatever the
 * sizes; for paths that keep a copy anyway): GG_OK, or the refusal as
 * gg__abi_in_copy records it. */
static inline gg_status gg__abi_copy_in(gg__call *c, const void *user, void *local, size_t lib_size, const char *name,
                                        const char *init)
{
    /* The two common cases inline, with lib_size a constant (a few
     * stores, as the struct copy of 0.2 was): NULL, and the library's size. */
    if (user == NULL) {
        memset(local, 0, lib_size);
        *(uint32_t *)local = (uint32_t)lib_size;
        return GG_OK;
    }
    if (*(const uint32_t *)user == lib_size) {
        memcpy(local, user, lib_size);
        return GG_OK;
    }
    gg_status status;
    gg__abi_in_copy(c, user, local, lib_size, name, init, &status);
    return status;
}

#define GG__ABI_COPY_IN(c, user, local, type, init) gg__abi_copy_in((c), (user), (local), sizeof(type), #type, #init)

/* Whether the caller's output struct `user` (not NULL) has a usable
 * struct_size: GG_OK, or GG_INVALID_ARGUMENT recorded on c (with c NULL:
 * returned without recording, for gg_last_error, which must leave this
 * thread's record as it was). */
gg_status gg__abi_out_check(gg__call *c, const void *user, const char *name, const char *init);

#define GG__ABI_OUT_CHECK(c, user, type, init) gg__abi_out_check((c), (user), #type, #init)

/* Copies the library's filled struct `local` (lib_size bytes) into the
 * caller's `user` (checked by gg__abi_out_check), up to user's struct_size
 * and no further: bytes past lib_size (a newer caller's fields) are
 * zeroed; user's struct_size is left as the caller set it. */
void gg__abi_out(void *user, const void *local, size_t lib_size);

#endif /* GG_COMMON_ABI_STRUCT_H */
