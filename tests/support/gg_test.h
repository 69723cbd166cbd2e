/* Shared helpers of the Criterion suites that run gpuguard over the
 * simulated driver. */
#ifndef GG_TEST_H
#define GG_TEST_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>

#include "gpuguard/gpuguard.h"

#define GG_TEST_SIM_CUDA GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so"
#define GG_TEST_SIM_CUDA11 GG_TEST_LIB_DIR "/libgpuguard_sim_cuda11.so"
#define GG_TEST_SIM_HIP GG_TEST_LIB_DIR "/libgpuguard_sim_hip.so"

/* The backend a conformance suite runs over (GG_TEST_BACKEND: sim or
 * sim-hip) and the names its driver gives to what the tests count. Over the
 * CUDA face, GG_TEST_SIM_DRIVER_VERSION (e.g. 12020) picks the CUDA driver
 * the simulator imitates: below 12000 the library is
 * libgpuguard_sim_cuda11.so, and gg_test_init_sim_desc adds the version to
 * the simulator's configuration. */
typedef struct gg_test_backend {
    const char *name;       /* the gg_init backend: "sim" or "sim-hip" */
    const char *library;    /* the simulator face it loads */
    bool hip;
    const char *fn_context_destroy, *fn_context_pop, *fn_launch, *fn_get_current;
    const char *illegal_address_name;
} gg_test_backend;
const gg_test_backend *gg_test_backend_in_use(void);
/* GG_TEST_SIM_DRIVER_VERSION over the CUDA face; 0 when unset (the
 * library's default) or over HIP. */
int gg_test_sim_driver_version(void);

/* Asserts a gpuguard call's status, printing the last error when it differs. */
#define GG_EXPECT(expected, call)                                                             \
    do {                                                                                      \
        gg_status gg__got = (call);                                                           \
        if (gg__got != (expected)) {                                                          \
            gg_error_info gg__e = GG_ERROR_INFO_INIT;                                                              \
            gg_last_error(&gg__e);                                                            \
            cr_assert_fail("%s returned %s, expected %s: %s", #call, gg_status_name(gg__got), \
                           gg_status_name(expected), gg__e.message);                          \
        }                                                                                     \
    } while (0)
#define GG_OK_(call) GG_EXPECT(GG_OK, call)

/* Initialises gpuguard over the simulated driver. `sim_config` (JSON or
 * NULL for the default two devices) is handed to the simulator, with
 * "driver_version" added from GG_TEST_SIM_DRIVER_VERSION unless it sets
 * the key itself. */
void gg_test_init_sim(const char *sim_config);
void gg_test_init_sim_desc(const char *sim_config, gg_init_desc *desc);
/* Shuts down and asserts that nothing was left alive before it. */
void gg_test_finish(void);
/* Path of a test kernel module in build/kernels. */
const char *gg_test_kernel_module(const char *name);
/* The last error's message (for cr_assert_str / strstr checks). */
const char *gg_test_last_message(void);

/* An export of the simulator face gpuguard loaded (a driver function such
 * as "cuStreamCreate", or a gg_sim_* control), for tests that call the
 * driver directly, behind gpuguard's back, as interop code does. Fails the
 * test if it is missing. */
void *gg_test_sim_symbol(const char *name);

/* The simulator's own counters and state, read behind gpuguard's back. */
unsigned long long gg_test_sim_total_calls(void);
unsigned long long gg_test_sim_call_count(const char *function);
void *gg_test_sim_current_context(void);
/* Device memory the simulator has allocated on `device` (every context). */
unsigned long long gg_test_sim_device_memory_used(int device);
/* cuCtxCreate_v2 on device 1 directly: pushes a raw context on this thread. */
int gg_test_sim_push_raw_context(void **out);
int gg_test_sim_destroy_raw_context(void *ctx);

/* A context on a simulated device with the core test kernels loaded. */
typedef struct gg_test_rig {
    gg_context ctx;
    gg_module module;
    gg_kernel fill_u32, add_one_u32, touch, sleep_ms, noop, hang_me, trap;
} gg_test_rig;
void gg_test_rig_open(gg_test_rig *rig, int device);

#endif
