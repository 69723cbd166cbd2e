/* dlinfo and struct link_map (the path the dynamic linker chose) are GNU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* What the CUDA and HIP loaders share (see loader_common.h). */
#include "common/loader_common.h"

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

gg__backend_open_result gg__loader_result(gg_status status, int native, const char *fmt, ...)
{
    gg__backend_open_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.native_code = native;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r.message, sizeof r.message, fmt, ap);
        va_end(ap);
    }
    return r;
}

/* RTLD_LOCAL: the library's cu* / hip* symbols must not satisfy other
 * libraries' references (the CUDA runtime loads its own libcuda by soname;
 * an application linked against libamdhip64 keeps its own binding).
 * RTLD_NODELETE: after cuInit / hipInit a driver has threads, TLS
 * destructors and exit handlers of its own (ROCr's, the HSA signal
 * handlers), so unmapping it at dlclose crashes the process later (seen
 * with the simulator; CUDA.jl hit it with libcuda). dlclose then only drops
 * our reference; a later open finds it still loaded. */
void *gg__loader_open(const char *name)
{
    (void)dlerror();
    return dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

const char *gg__loader_dl_error(void)
{
    const char *e = dlerror();
    return e != NULL ? e : "unknown dlopen error";
}

void gg__loader_library_path(void *handle, const char *requested, char *out, size_t size)
{
    struct link_map *map = NULL;
    const char *path = requested;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL &&
        map->l_name[0] != '\0')
        path = map->l_name;
    snprintf(out, size, "%s", path);
}
