/*
 * The interposer's exports: one wrapper per row of intercept_functions.h
 * (the CUDA driver's) and intercept_hip_functions.h (the HIP runtime's),
 * with the real signatures, so that a program linked against libcuda.so.1
 * or libamdhip64.so.5, one that dlsym()s them, and one that goes through
 * cuGetProcAddress all reach them.
 */
#include "intercept.h"

#include <stddef.h>

#define GG_ICPT_EXPORT __attribute__((visibility("default")))

/* The real function behind index `fn`, as the wrapper's own type. */
#define GG_ICPT_REAL(rtype, name, params) ((rtype(*) params)gg_icpt_real_fn(GG_ICPT_##name))

/* Count, inject, forward; then, when the call succeeded, `then` (which may
 * use the arguments by name; `fast_then` on the fast path, where no sticky
 * error can be latched, so only what must always happen). The slow path is a function of its own so
 * that the fast path is two loads, two tests and a tail call, with no
 * frame. */
#define GG_ICPT_WRAP(rtype, name, params, args, then, fast_then)                                          \
    static __attribute__((noinline)) rtype slow_##name params                                     \
    {                                                                                              \
        gg_icpt_call call;                                                                         \
        int result;                                                                                \
        if (!gg_icpt_enter(GG_ICPT_##name, &call, &result))                                        \
            return (rtype)result;                                                                  \
        result = gg_icpt_leave(&call, (int)GG_ICPT_REAL(rtype, name, params) args);                \
        if (result == 0)                                                                           \
            then;                                                                                  \
        return (rtype)result;                                                                      \
    }                                                                                              \
    GG_ICPT_EXPORT rtype name params                                                               \
    {                                                                                              \
        gg_icpt_fnptr direct = gg_icpt_direct(GG_ICPT_##name);                                     \
        if (__builtin_expect(direct != NULL, 1)) {                                                 \
            rtype result = ((rtype(*) params)direct) args;                                         \
            if (result == 0)                                                                       \
                fast_then;                                                                         \
            return result;                                                                         \
        }                                                                                          \
        return slow_##name args; /* also: not loaded yet, no library, a function it lacks */       \
    }

#define GG_ICPT_NOTHING ((void)0)

#define GG_ICPT_WRAP_PLAIN(name, params, args) GG_ICPT_WRAP(CUresult, name, params, args, GG_ICPT_NOTHING, GG_ICPT_NOTHING)
#define GG_ICPT_WRAP_HIP_PLAIN(name, params, args) GG_ICPT_WRAP(hipError_t, name, params, args, GG_ICPT_NOTHING, GG_ICPT_NOTHING)

/* cuGetProcAddress (both forms): what the real driver hands out is
 * replaced by the wrapper that stands for it, if there is one. The
 * pointer's identity says which variant the driver chose, so the version
 * reasoning stays the driver's own. */
#define GG_ICPT_WRAP_PROCADDR(name, params, args)                                                  \
    GG_ICPT_WRAP(CUresult, name, params, args, GG_ICPT_WRAP_PFN, GG_ICPT_WRAP_PFN)
#define GG_ICPT_WRAP_PFN                                                                           \
    do {                                                                                           \
        if (pfn != NULL && *pfn != NULL)                                                           \
            *pfn = gg_icpt_wrap_pointer(*pfn);                                                     \
    } while (0)
/* cuCtxDestroy, cuCtxDetach: a destroyed context's sticky error goes. */
#define GG_ICPT_WRAP_CTX_DESTROY(name, params, args)                                               \
    GG_ICPT_WRAP(CUresult, name, params, args, gg_icpt_context_gone(ctx), GG_ICPT_NOTHING)
/* cuDevicePrimaryCtxReset: the device's primary context starts afresh. */
#define GG_ICPT_WRAP_PRIMARY_RESET(name, params, args)                                             \
    GG_ICPT_WRAP(CUresult, name, params, args, gg_icpt_primary_reset(GG_ICPT_FACE_CUDA, dev), GG_ICPT_NOTHING)
/* hipDevicePrimaryCtxReset, hipDeviceReset: so does HIP's device. */
#define GG_ICPT_WRAP_HIP_PRIMARY_RESET(name, params, args)                                         \
    GG_ICPT_WRAP(hipError_t, name, params, args, gg_icpt_primary_reset(GG_ICPT_FACE_HIP, dev), GG_ICPT_NOTHING)
#define GG_ICPT_WRAP_HIP_DEVICE_RESET(name, params, args)                                          \
    GG_ICPT_WRAP(hipError_t, name, params, args, gg_icpt_hip_device_reset(), GG_ICPT_NOTHING)

#define GG_ICPT_FN(name, params, args, kind) GG_ICPT_WRAP_##kind(name, params, args)
#include "intercept_functions.h"
#include "intercept_hip_functions.h"
#undef GG_ICPT_FN

const char *const gg_icpt_names[GG_ICPT_COUNT] = {
#define GG_ICPT_FN(name, params, args, kind) #name,
#include "intercept_functions.h"
#include "intercept_hip_functions.h"
#undef GG_ICPT_FN
};

const gg_icpt_fnptr gg_icpt_wrappers[GG_ICPT_COUNT] = {
#define GG_ICPT_FN(name, params, args, kind) (gg_icpt_fnptr)name,
#include "intercept_functions.h"
#include "intercept_hip_functions.h"
#undef GG_ICPT_FN
};
