/*
 * The interposer's exports: one wrapper per row of intercept_functions.h,
 * with the driver's own signature, so that a program linked against
 * libcuda.so.1, one that dlsym()s it, and one that goes through
 * cuGetProcAddress all reach them.
 */
#include "intercept.h"

#include <stddef.h>

#define GG_ICPT_EXPORT __attribute__((visibility("default")))

/* The real function behind index `fn`, as the wrapper's own type. */
#define GG_ICPT_REAL(name, params) ((CUresult(*) params)gg_icpt_real[GG_ICPT_##name])

/* Plain: count, inject, forward. The slow path is a function of its own so
 * that the fast path is a load, a compare and a tail call, with no frame. */
#define GG_ICPT_WRAP_PLAIN(name, params, args)                                                     \
    static __attribute__((noinline)) CUresult slow_##name params                                  \
    {                                                                                              \
        gg_icpt_call call;                                                                         \
        CUresult result;                                                                           \
        if (!gg_icpt_enter(GG_ICPT_##name, &call, &result))                                        \
            return result;                                                                         \
        return gg_icpt_leave(&call, GG_ICPT_REAL(name, params) args);                              \
    }                                                                                              \
    GG_ICPT_EXPORT CUresult name params                                                            \
    {                                                                                              \
        if (__builtin_expect(gg_icpt_forwarding() && gg_icpt_real[GG_ICPT_##name] != NULL, 1))     \
            return GG_ICPT_REAL(name, params) args;                                                \
        return slow_##name args; /* also a function the real driver lacks: 500 */                  \
    }

/* cuGetProcAddress (both forms): what the real driver hands out is
 * replaced by the wrapper that stands for it, if there is one. The
 * pointer's identity says which variant the driver chose, so the version
 * reasoning stays the driver's own. */
#define GG_ICPT_WRAP_PROCADDR(name, params, args)                                                  \
    GG_ICPT_EXPORT CUresult name params                                                            \
    {                                                                                              \
        CUresult result;                                                                           \
        gg_icpt_call call;                                                                         \
        if (__builtin_expect(gg_icpt_forwarding() && gg_icpt_real[GG_ICPT_##name] != NULL, 1)) {   \
            result = GG_ICPT_REAL(name, params) args;                                              \
        } else {                                                                                   \
            if (!gg_icpt_enter(GG_ICPT_##name, &call, &result))                                    \
                return result;                                                                     \
            result = gg_icpt_leave(&call, GG_ICPT_REAL(name, params) args);                        \
        }                                                                                          \
        if (result == CUDA_SUCCESS && pfn != NULL && *pfn != NULL)                                 \
            *pfn = gg_icpt_wrap_pointer(*pfn);                                                     \
        return result;                                                                             \
    }

/* A plain wrapper that, when the driver succeeded, runs `then` (which may
 * use the arguments by name). */
#define GG_ICPT_WRAP_THEN(name, params, args, then)                                                \
    GG_ICPT_EXPORT CUresult name params                                                            \
    {                                                                                              \
        if (__builtin_expect(gg_icpt_forwarding() && gg_icpt_real[GG_ICPT_##name] != NULL, 1))     \
            return GG_ICPT_REAL(name, params) args;                                                \
        gg_icpt_call call;                                                                         \
        CUresult result;                                                                           \
        if (!gg_icpt_enter(GG_ICPT_##name, &call, &result))                                        \
            return result;                                                                         \
        result = gg_icpt_leave(&call, GG_ICPT_REAL(name, params) args);                            \
        if (result == CUDA_SUCCESS)                                                                \
            then;                                                                                  \
        return result;                                                                             \
    }

/* cuCtxDestroy, cuCtxDetach: a destroyed context's sticky error goes. */
#define GG_ICPT_WRAP_CTX_DESTROY(name, params, args) GG_ICPT_WRAP_THEN(name, params, args, gg_icpt_context_gone(ctx))
/* cuDevicePrimaryCtxReset: the device's primary context starts afresh. */
#define GG_ICPT_WRAP_PRIMARY_RESET(name, params, args)                                             \
    GG_ICPT_WRAP_THEN(name, params, args, gg_icpt_primary_reset(dev))

#define GG_ICPT_FN(name, params, args, kind) GG_ICPT_WRAP_##kind(name, params, args)
#include "intercept_functions.h"
#undef GG_ICPT_FN

const char *const gg_icpt_names[GG_ICPT_COUNT] = {
#define GG_ICPT_FN(name, params, args, kind) #name,
#include "intercept_functions.h"
#undef GG_ICPT_FN
};

const gg_icpt_fnptr gg_icpt_wrappers[GG_ICPT_COUNT] = {
#define GG_ICPT_FN(name, params, args, kind) (gg_icpt_fnptr)name,
#include "intercept_functions.h"
#undef GG_ICPT_FN
};
