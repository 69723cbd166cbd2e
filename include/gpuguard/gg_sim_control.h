/*
 * Simulator-only exports of gpuguard's simulated drivers
 * (libgpuguard_sim_cuda.so and libgpuguard_sim_hip.so: each library has its
 * own, about its own state). Installed with gpuguard. A program reaches
 * them by linking the simulator library (as gpuguard's tests do) or with
 * dlsym on it (the typedefs at the end); gpuguard's backends find
 * gg_sim_identify that way to tell that the "driver" they loaded is the
 * simulator, and put gg_sim_last_error_detail's reason into gpuguard's own
 * error messages (module loads, kernel lookups). None of them needs
 * cuInit/hipInit, none blocks, none prints.
 */
#ifndef GG_SIM_CONTROL_H
#define GG_SIM_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

/* "gpuguard simulated driver <version>"; the HIP face appends " (HIP)". */
const char *gg_sim_identify(void);

/* What a device fault's sticky error (illegal address, launch failed,
 * assert, misaligned address, launch timeout) poisons under the
 * configuration's "sticky_scope": 1 the whole process, as a real CUDA driver
 * does (every context answers it, and no context can be created or
 * retained after it, for the life of the process), 0 only the faulting
 * context. Before a successful cuInit it answers for the configuration in
 * GPUGUARD_SIM_CONFIG now (an invalid one: the default, 1). CUDA face only
 * (libgpuguard_sim_cuda*.so): the HIP face keeps a sticky error to its
 * context and does not export it. */
int gg_sim_sticky_scope(void);

/* Calls of one exported driver function since the start or the last reset.
 * cu_function_name is an exported name ("cuMemAlloc_v2", "hipMalloc") or,
 * on the CUDA face, a base name ("cuMemAlloc"), which sums all its exported
 * versions. Unknown: 0. Calls reached through cuGetProcAddress count under
 * the export they resolve to.
 * Counting is relaxed-atomic: exact once the calling threads are joined. */
unsigned long long gg_sim_call_count(const char *cu_function_name);
/* Calls of every exported cu* (hip*) function. */
unsigned long long gg_sim_total_calls(void);
void gg_sim_reset_counts(void);

/* Why the latest cuInit (HIP: initialisation) failed on the configuration
 * ("" if it did not): names the offending key, e.g.
 * "devices[0].memory_mb: expected an integer". */
const char *gg_sim_last_config_error(void);
/* The reason behind the calling thread's latest error return, when the
 * simulator recorded one ("" otherwise). Valid until the thread's next call. */
const char *gg_sim_last_error_detail(void);

/* Simulator objects still alive: contexts, streams, events, modules,
 * functions, device and page-locked host allocations. Work that a destroyed
 * context abandoned is released by its worker threads shortly after the
 * destroy returns: poll with a deadline before expecting 0. The HIP face
 * does not count its primary contexts and their null streams, which HIP
 * keeps for the life of the process. */
unsigned long long gg_sim_live_objects(void);
/* Bytes of device memory allocated and not freed on a device (0 if none). */
unsigned long long gg_sim_device_memory_used(int device);

/* ---- Ground truth: what the simulated device really did with each launch.
 * The referee of gpuguard's culprit attribution: written by the simulator's
 * own launch path and stream workers, never derived from gpuguard. Off
 * unless the configuration says "record_launches": true (each record costs
 * memory for the life of its context); fast mode records nothing. */
/** What became of a launch (gg_sim_launch_truth::state). */
typedef enum gg_sim_launch_state {
    GG_SIM_LAUNCH_QUEUED = 0,    /**< accepted, not started */
    GG_SIM_LAUNCH_RUNNING = 1,   /**< started, not ended */
    GG_SIM_LAUNCH_COMPLETED = 2, /**< ran to its end without a fault */
    GG_SIM_LAUNCH_FAULTED = 3,   /**< ended by a device fault of its own (the kernel's, or a
                                      "fault" rule): `error` says which */
    GG_SIM_LAUNCH_TIMED_OUT = 4, /**< killed by the device's watchdog */
    GG_SIM_LAUNCH_DISCARDED = 5  /**< never ran, or stopped without a fault of its own: the
                                      context was poisoned by another launch, destroyed or
                                      reset first */
} gg_sim_launch_state;

/** One launch as the simulated device ran it (gg_sim_truth_launches). */
typedef struct gg_sim_launch_truth {
    unsigned long long number;          /**< 1-based order of acceptance in its native context */
    unsigned long long stream;          /**< the stream's handle as the face hands it out
                                             (CUstream / hipStream_t value); 0 for the
                                             context's null stream, however it was named */
    unsigned long long stream_position; /**< 1-based order of acceptance on its stream */
    char kernel[512];                   /**< its name, cut at 511 bytes (kernel_length says) */
    unsigned long long kernel_length;   /**< the whole name's length */
    int state;                          /**< gg_sim_launch_state */
    int error;                          /**< FAULTED / TIMED_OUT: the face's error code; else 0 */
    int poisoned_context;               /**< 1: its fault is the context's sticky error */
    int misbehaviour;                   /**< the configured rule it got: 0 none, 1 fault,
                                             2 hang, 3 overrun, 4 slow */
    unsigned long long started_ns;      /**< CLOCK_MONOTONIC when it started; 0: never */
    unsigned long long ended_ns;        /**< when it ended (any end state); 0: not ended */
} gg_sim_launch_truth;

/* The launches accepted in native context `native_ctx` (a CUcontext /
 * hipCtx_t this library handed out, live or destroyed since recording
 * began), in acceptance order: copies the first `max` into out (out may be
 * NULL when max is 0) and returns how many there are. 0 for an unknown
 * context or with recording off. A snapshot: each record is copied under
 * the lock its writers take, so a record is never torn. */
unsigned long long gg_sim_truth_launches(const void *native_ctx, gg_sim_launch_truth *out,
                                         unsigned long long max);
/* Forgets every recorded launch of every context (a test between cases). */
void gg_sim_truth_reset(void);

/* Function pointer types, for dlsym. */
typedef const char *(*gg_sim_identify_fn)(void);
typedef int (*gg_sim_sticky_scope_fn)(void);
typedef unsigned long long (*gg_sim_call_count_fn)(const char *cu_function_name);
typedef unsigned long long (*gg_sim_total_calls_fn)(void);
typedef void (*gg_sim_reset_counts_fn)(void);
typedef const char *(*gg_sim_last_config_error_fn)(void);
typedef const char *(*gg_sim_last_error_detail_fn)(void);
typedef unsigned long long (*gg_sim_live_objects_fn)(void);
typedef unsigned long long (*gg_sim_device_memory_used_fn)(int device);
typedef unsigned long long (*gg_sim_truth_launches_fn)(const void *native_ctx, gg_sim_launch_truth *out,
                                                      unsigned long long max);
typedef void (*gg_sim_truth_reset_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* GG_SIM_CONTROL_H */
