/*
 * What the CUDA driver's and the HIP runtime's loaders (src/cuda/cuda_loader.c,
 * src/hip/hip_loader.c) do alike: open the library, say which file the
 * dynamic linker chose, and build the open result a backend returns.
 */
#ifndef GPUGUARD_LOADER_COMMON_H
#define GPUGUARD_LOADER_COMMON_H

#include <stddef.h>

#include "common/backend.h"

/* An open result with `status`, the driver's `native` code (0: none) and a
 * message formatted from `fmt` (NULL: no message). */
gg__backend_open_result gg__loader_result(gg_status status, int native, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* dlopen of `name` (a path or a soname to search for) as a driver library
 * is opened: RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, with dlerror cleared
 * first. NULL when it cannot be loaded (gg__loader_dl_error says why). */
void *gg__loader_open(const char *name);

/* dlerror's text, never NULL (a failure may leave none). */
const char *gg__loader_dl_error(void);

/* Writes into out (size bytes) the file the dynamic linker chose for
 * `handle`, opened as `requested` (a bare soname is searched for: users
 * need to know which library was found); `requested` itself when the
 * linker does not say. */
void gg__loader_library_path(void *handle, const char *requested, char *out, size_t size);

#endif
