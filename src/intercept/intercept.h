/*
 * The interposing driver's parts, as its wrappers see them.
 *
 * Every wrapper (intercept_wrappers.c, one per row of
 * intercept_functions.h) asks gg_icpt_forwarding() first: while no plan,
 * no report and no injected sticky error is in force, that is one acquire
 * load, and the wrapper calls the real driver's function directly. Otherwise
 * it goes through gg_icpt_enter / gg_icpt_leave, which load the driver on
 * first use, count the call, apply the plan and the sticky errors.
 */
#ifndef GG_INTERCEPT_H
#define GG_INTERCEPT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The driver's types, as the simulator declares them with cuda.h's ABI. */
#include "sim_cuda.h"

/* One index per wrapped function, in intercept_functions.h's order. */
typedef enum gg_icpt_function {
#define GG_ICPT_FN(name, params, args, kind) GG_ICPT_##name,
#include "intercept_functions.h"
#undef GG_ICPT_FN
    GG_ICPT_COUNT
} gg_icpt_function;

/* A generic function pointer: each wrapper casts it back to its own type. */
typedef void (*gg_icpt_fnptr)(void);

typedef enum gg_icpt_mode {
    GG_ICPT_MODE_UNLOADED, /* the real driver is not loaded yet */
    GG_ICPT_MODE_FORWARD,  /* nothing to do but call the real driver */
    GG_ICPT_MODE_WATCH,    /* a plan, a report or a sticky error is in force */
    GG_ICPT_MODE_BROKEN    /* no real driver: every call fails */
} gg_icpt_mode;

extern _Atomic int gg_icpt_mode_now;
/* The real driver's functions, by index (NULL where it lacks one). */
extern gg_icpt_fnptr gg_icpt_real[GG_ICPT_COUNT];
/* The wrapped functions' names and the wrappers themselves, by index. */
extern const char *const gg_icpt_names[GG_ICPT_COUNT];
extern const gg_icpt_fnptr gg_icpt_wrappers[GG_ICPT_COUNT];

static inline bool gg_icpt_forwarding(void)
{
    return atomic_load_explicit(&gg_icpt_mode_now, memory_order_acquire) == GG_ICPT_MODE_FORWARD;
}

/* ---- loading (intercept_driver.c) ---------------------------------------- */

/* Loads the real driver once; the mode afterwards. */
gg_icpt_mode gg_icpt_load(void);
/* The path of the driver calls are forwarded to ("" before loading or when
 * none was found), and why none was (or ""). */
const char *gg_icpt_driver_path(void);
const char *gg_icpt_driver_error(void);
/* The real pointer `real` as the wrapper that stands for it, or `real`
 * itself when no wrapper does (cuGetProcAddress's answers). */
void *gg_icpt_wrap_pointer(void *real);

/* ---- the slow path (intercept_faults.c) --------------------------------- */

/* What gg_icpt_enter decided, for gg_icpt_leave. */
typedef struct gg_icpt_call {
    gg_icpt_function fn;
    CUcontext ctx;  /* current at entry, where a sticky error was latched */
    int latch;      /* an async rule fired: the sticky error to latch after the call */
} gg_icpt_call;

/* Sets up `call`; false when the call must not reach the driver (*result
 * says what to return: an injected error, a latched sticky error, or
 * CUDA_ERROR_STUB_LIBRARY when there is no real driver). */
bool gg_icpt_enter(gg_icpt_function fn, gg_icpt_call *call, CUresult *result);
/* After the driver returned `result`: latches an async fault; the result. */
CUresult gg_icpt_leave(const gg_icpt_call *call, CUresult result);
/* A context was destroyed, or a device's primary context reset: its
 * latched sticky error goes with it. */
void gg_icpt_context_gone(CUcontext ctx);
void gg_icpt_primary_reset(CUdevice dev);
/* Reads the plan and the report path from the environment (at load);
 * true when calls must take the slow path (a plan, a report, or a plan
 * that did not parse). */
bool gg_icpt_faults_configure(void);

#endif
