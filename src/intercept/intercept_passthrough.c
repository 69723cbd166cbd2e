/*
 * Resolving the pass-through trampolines (see intercept_passthrough.h).
 */
/* dlvsym: _GNU_SOURCE comes from the build (CMakeLists.txt) */
#include "intercept_passthrough.h"

#include <dlfcn.h>
#include <string.h>

static int cuda_library_missing(void)
{
    return CUDA_ERROR_STUB_LIBRARY;
}

static int hip_library_missing(void)
{
    return hipErrorInsufficientDriver;
}

static int function_missing(void)
{
    return 500; /* CUDA_ERROR_NOT_FOUND, hipErrorNotFound */
}

/* For the functions that return text: never NULL, so that a caller that
 * prints the answer prints why. */
static const char *cuda_library_missing_text(void)
{
    return "gpuguard interposer: no CUDA driver was loaded";
}

static const char *hip_library_missing_text(void)
{
    return "gpuguard interposer: no HIP runtime was loaded";
}

static const char *function_missing_text(void)
{
    return "gpuguard interposer: the real library lacks this function";
}

gg_icpt_fnptr gg_icpt_pass_resolve(size_t index)
{
    const gg_icpt_pass_row *row = &gg_icpt_pass_rows[index];
    gg_icpt_face face = (gg_icpt_face)row->face;
    gg_icpt_fnptr f;
    if (!gg_icpt_load(face)) {
        if (row->returns_text)
            f = (gg_icpt_fnptr)(face == GG_ICPT_FACE_CUDA ? cuda_library_missing_text : hip_library_missing_text);
        else
            f = (gg_icpt_fnptr)(face == GG_ICPT_FACE_CUDA ? cuda_library_missing : hip_library_missing);
        if (gg_icpt_loading_now())
            return f; /* called while a library loads: missing for now, not for good */
    } else {
        void *lib = gg_icpt_library(face);
        void *p = row->version != NULL ? dlvsym(lib, row->name, row->version) : NULL;
        if (p == NULL)
            p = dlsym(lib, row->name);
        /* POSIX: a function's address comes back from dlsym as a void *. */
        memcpy(&f, &p, sizeof f);
        if (f == NULL)
            f = row->returns_text ? (gg_icpt_fnptr)function_missing_text : (gg_icpt_fnptr)function_missing;
    }
    /* Several threads may resolve one slot at once: each stores the same
     * pointer. The trampolines read the slot with a plain load. */
    __atomic_store_n(&gg_icpt_pass_slots[index], f, __ATOMIC_RELEASE);
    return f;
}
