/*
 * The interposing driver's parts, as its wrappers see them.
 *
 * Every wrapper (intercept_wrappers.c, one per row of
 * intercept_functions.h and intercept_hip_functions.h) asks gg_icpt_direct()
 * first: once its library is loaded, and while no plan and no report is in
 * force, that is two loads and two tests, and the wrapper tail-calls the
 * real function. Otherwise it goes through gg_icpt_enter / gg_icpt_leave,
 * which load the library on first use, count the call, apply the plan and
 * the sticky errors. The pass-through trampolines (intercept_passthrough.h)
 * use gg_icpt_enter / gg_icpt_leave the same way while watching.
 */
#ifndef GG_INTERCEPT_H
#define GG_INTERCEPT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The drivers' types and prototypes, with cuda.h's and HIP 5.2.3's ABI
 * (src/abi). */
#include "abi/cuda_driver.h"
#include "abi/hip_runtime.h"

/* GG_ICPT_PASS_COUNT: how many pass-through functions there are
 * (generated, intercept_passthrough.h). */
#include "intercept_passthrough_count.h"

/* One index per wrapped function: the CUDA driver's (intercept_functions.h)
 * first, then the HIP runtime's (intercept_hip_functions.h). */
typedef enum gg_icpt_function {
#define GG_ICPT_FN(name, params, args, kind) GG_ICPT_##name,
#include "intercept_functions.h"
#include "intercept_hip_functions.h"
#undef GG_ICPT_FN
    GG_ICPT_COUNT
} gg_icpt_function;

/* How many of them are the CUDA driver's: the rest are HIP's. */
enum {
#define GG_ICPT_FN(name, params, args, kind) GG_ICPT_CUDA_ROW_##name,
#include "intercept_functions.h"
#undef GG_ICPT_FN
    GG_ICPT_CUDA_COUNT
};

/* The two libraries the interposer stands for. Each is loaded on the first
 * call of one of its functions, independently of the other. */
typedef enum gg_icpt_face {
    GG_ICPT_FACE_CUDA,
    GG_ICPT_FACE_HIP,
    GG_ICPT_FACE_COUNT
} gg_icpt_face;

static inline gg_icpt_face gg_icpt_face_of(gg_icpt_function fn)
{
    return (int)fn < GG_ICPT_CUDA_COUNT ? GG_ICPT_FACE_CUDA : GG_ICPT_FACE_HIP;
}

/* Every function whose calls the interposer can count: the wrapped ones
 * (indexes 0 to GG_ICPT_COUNT - 1, a gg_icpt_function), then the
 * pass-through ones (GG_ICPT_COUNT + their row in intercept_passthrough.h),
 * counted only while watching and only where they return an error code. */
#define GG_ICPT_TRACKED_COUNT (GG_ICPT_COUNT + GG_ICPT_PASS_COUNT)

/* The name of tracked function `index`, the library it belongs to, and
 * whether a plan may fail it (it returns an error code). */
const char *gg_icpt_tracked_name(int index);
gg_icpt_face gg_icpt_tracked_face(int index);
bool gg_icpt_tracked_failable(int index);

/* A generic function pointer: each wrapper casts it back to its own type. */
typedef void (*gg_icpt_fnptr)(void);

/* Nonzero once a plan, a report, or a plan that did not parse is in force:
 * every call then takes the slow path. Set before any real pointer below is
 * published, never cleared. */
extern _Atomic int gg_icpt_watching;
/* The real functions, by index: NULL until their library is loaded, and
 * where it lacks one. Published with release order after gg_icpt_watching
 * is final, so that a wrapper that sees a pointer sees the final flag. */
extern _Atomic(gg_icpt_fnptr) gg_icpt_real[GG_ICPT_COUNT];
/* The wrapped functions' names and the wrappers themselves, by index. */
extern const char *const gg_icpt_names[GG_ICPT_COUNT];
extern const gg_icpt_fnptr gg_icpt_wrappers[GG_ICPT_COUNT];

/* The real function for `fn` when the call can go straight to it, else
 * NULL (not loaded, missing, or watching). Two loads and two tests. */
static inline gg_icpt_fnptr gg_icpt_direct(gg_icpt_function fn)
{
    gg_icpt_fnptr f = atomic_load_explicit(&gg_icpt_real[fn], memory_order_acquire);
    if (f == NULL || atomic_load_explicit(&gg_icpt_watching, memory_order_relaxed) != 0)
        return NULL;
    return f;
}

/* The real function for `fn` as loaded (NULL where it lacks one). */
static inline gg_icpt_fnptr gg_icpt_real_fn(gg_icpt_function fn)
{
    return atomic_load_explicit(&gg_icpt_real[fn], memory_order_acquire);
}

/* ---- loading (intercept_driver.c) ---------------------------------------- */

/* Loads `face`'s real library once (reading the plan first, once for
 * both); false when there is none, and every call of that face fails. */
bool gg_icpt_load(gg_icpt_face face);
/* Whether this thread is inside gg_icpt_load (then a face not loaded yet
 * reads as missing, for now only). */
bool gg_icpt_loading_now(void);
/* The dlopen handle of `face`'s real library (NULL: not loaded, or none). */
void *gg_icpt_library(gg_icpt_face face);
/* The path of the library `face`'s calls are forwarded to ("" before
 * loading or when none was found), and why none was (or ""). */
const char *gg_icpt_driver_path(gg_icpt_face face);
const char *gg_icpt_driver_error(gg_icpt_face face);
/* What every call of `face` returns when its library is missing: CUDA's
 * CUDA_ERROR_STUB_LIBRARY (34, as NVIDIA's stub library answers), HIP's
 * hipErrorInsufficientDriver (35). */
int gg_icpt_no_library_error(gg_icpt_face face);
/* The real pointer `real` as the wrapper that stands for it, or, while
 * watching, the pass-through trampoline of the same function, or `real`
 * itself (cuGetProcAddress's answers). */
void *gg_icpt_wrap_pointer(void *real);
/* The pass-through trampoline of the error-returning CUDA driver function
 * whose real address is `driver_pointer`, or NULL (intercept_passthrough.c;
 * always NULL where there are no trampolines). */
void *gg_icpt_pass_entry_for(void *driver_pointer);

/* ---- the slow path (intercept_faults.c) --------------------------------- */

/* What gg_icpt_enter decided, for gg_icpt_leave. */
typedef struct gg_icpt_call {
    int fn; /* a tracked function's index */
    uintptr_t where; /* what a sticky error latches on: the CUDA context, or the HIP device + 1 */
    int latch;       /* an async rule fired: the sticky error to latch after the call */
} gg_icpt_call;

/* Sets up `call` for tracked function `fn`; false when the call must not
 * reach the driver (*result says what to return: an injected error, a
 * latched sticky error, the no-library error, or, for a wrapped function,
 * 500 (CUDA_ERROR_NOT_FOUND / hipErrorNotFound) when the real library lacks
 * it). */
bool gg_icpt_enter(int fn, gg_icpt_call *call, int *result);
/* After the driver returned `result`: latches an async fault; the result. */
int gg_icpt_leave(const gg_icpt_call *call, int result);
/* A CUDA context was destroyed, or a device's primary context reset (CUDA
 * or HIP), or hipDeviceReset reset the current device: the sticky error
 * latched there goes with it. */
void gg_icpt_context_gone(CUcontext ctx);
void gg_icpt_primary_reset(gg_icpt_face face, int dev);
void gg_icpt_hip_device_reset(void);
/* Reads the plan and the report path from the environment (at load);
 * true when calls must take the slow path (a plan, a report, or a plan
 * that did not parse). */
bool gg_icpt_faults_configure(void);

#endif
