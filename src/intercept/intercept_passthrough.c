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

/* What a watched call that must not reach the library returns: set by
 * gg_icpt_pass_resolve just before the lazy stub jumps here, on the same
 * thread, with the caller's arguments (ignored). */
static _Thread_local int answer;

static int answer_without_calling(void)
{
    return answer;
}

/* The real functions, once looked up (NULL: not yet). */
static _Atomic(gg_icpt_fnptr) real[GG_ICPT_PASS_COUNT];

/* The library's own function for row `index` (its library loaded), or the
 * one that says it lacks it; looked up once. */
static gg_icpt_fnptr real_function(size_t index)
{
    gg_icpt_fnptr f = atomic_load_explicit(&real[index], memory_order_acquire);
    if (f != NULL)
        return f;
    const gg_icpt_pass_row *row = &gg_icpt_pass_rows[index];
    void *lib = gg_icpt_library((gg_icpt_face)row->face);
    void *p = row->version != NULL ? dlvsym(lib, row->name, row->version) : NULL;
    if (p == NULL)
        p = dlsym(lib, row->name);
    /* POSIX: a function's address comes back from dlsym as a void *. */
    memcpy(&f, &p, sizeof f);
    if (f == NULL)
        f = row->result == GG_ICPT_PASS_TEXT ? (gg_icpt_fnptr)function_missing_text : (gg_icpt_fnptr)function_missing;
    /* Several threads may look one up at once: each stores the same pointer. */
    atomic_store_explicit(&real[index], f, memory_order_release);
    return f;
}

/* A watched call of error-returning row `index` (its library loaded or
 * not): counted, the plan and the sticky errors applied. */
static gg_icpt_fnptr watched_call(size_t index, gg_icpt_fnptr f)
{
    gg_icpt_call call;
    int result = 0;
    if (!gg_icpt_enter(GG_ICPT_COUNT + (int)index, &call, &result)) {
        answer = result;
        return (gg_icpt_fnptr)answer_without_calling;
    }
    /* An async rule latches before the call instead of after it (the
     * interposer never sees a pass-through return): the call itself still
     * goes through, and the calls after it fail, as for a wrapped one. */
    gg_icpt_leave(&call, 0);
    return f;
}

/* Defined by the generated assembly: trampoline i's own address. */
extern const gg_icpt_fnptr gg_icpt_pass_entries[GG_ICPT_PASS_COUNT];

void *gg_icpt_pass_entry_for(void *driver_pointer)
{
    for (size_t i = 0; i < GG_ICPT_PASS_COUNT; i++) {
        const gg_icpt_pass_row *row = &gg_icpt_pass_rows[i];
        if (row->face != GG_ICPT_FACE_CUDA || row->result != GG_ICPT_PASS_ERROR)
            continue;
        gg_icpt_fnptr f = real_function(i);
        void *p;
        memcpy(&p, &f, sizeof p);
        if (p == driver_pointer) {
            memcpy(&p, &gg_icpt_pass_entries[i], sizeof p);
            return p;
        }
    }
    return NULL;
}

gg_icpt_fnptr gg_icpt_pass_resolve(size_t index)
{
    const gg_icpt_pass_row *row = &gg_icpt_pass_rows[index];
    gg_icpt_face face = (gg_icpt_face)row->face;
    bool loaded = gg_icpt_load(face); /* reads the plan first: gg_icpt_watching is final after it */
    gg_icpt_fnptr f;
    if (!loaded) {
        if (row->result == GG_ICPT_PASS_TEXT)
            f = (gg_icpt_fnptr)(face == GG_ICPT_FACE_CUDA ? cuda_library_missing_text : hip_library_missing_text);
        else
            f = (gg_icpt_fnptr)(face == GG_ICPT_FACE_CUDA ? cuda_library_missing : hip_library_missing);
        if (gg_icpt_loading_now())
            return f; /* called while a library loads: missing for now, not for good */
    } else {
        f = real_function(index);
    }
    if (row->result == GG_ICPT_PASS_ERROR && atomic_load_explicit(&gg_icpt_watching, memory_order_acquire) != 0)
        return watched_call(index, f); /* the slot keeps its lazy stub: every call comes back here */
    /* Several threads may resolve one slot at once: each stores the same
     * pointer. The trampolines read the slot with a plain load. */
    __atomic_store_n(&gg_icpt_pass_slots[index], f, __ATOMIC_RELEASE);
    return f;
}
