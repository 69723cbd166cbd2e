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

/* Function pointer types, for dlsym. */
typedef const char *(*gg_sim_identify_fn)(void);
typedef unsigned long long (*gg_sim_call_count_fn)(const char *cu_function_name);
typedef unsigned long long (*gg_sim_total_calls_fn)(void);
typedef void (*gg_sim_reset_counts_fn)(void);
typedef const char *(*gg_sim_last_config_error_fn)(void);
typedef const char *(*gg_sim_last_error_detail_fn)(void);
typedef unsigned long long (*gg_sim_live_objects_fn)(void);
typedef unsigned long long (*gg_sim_device_memory_used_fn)(int device);

#ifdef __cplusplus
}
#endif

#endif /* GG_SIM_CONTROL_H */
