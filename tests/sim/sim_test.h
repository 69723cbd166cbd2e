/* Helpers shared by the simulated driver's test suites. */
#ifndef GG_SIM_TEST_H
#define GG_SIM_TEST_H

#include <criterion/criterion.h>
#include <time.h>

#include "gpuguard/gg_sim_control.h"
#include "sim_cuda.h"

#define CU_OK(call)                                                                    \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        cr_assert_eq(r_, CUDA_SUCCESS, "%s -> %d (%s)", #call, (int)r_,                \
                     gg_sim_last_error_detail());                                      \
    } while (0)

#define CU_IS(call, want)                                                              \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        cr_assert_eq(r_, (want), "%s -> %d, expected %d (%s)", #call, (int)r_,         \
                     (int)(want), gg_sim_last_error_detail());                         \
    } while (0)

/* Device list with a fast watchdog, to splice into a config ending with
 * other keys: SIM_TEST_WD_DEVICES ",\"misbehave\":[...]}". */
#define SIM_TEST_WD_DEVICES                                                            \
    "{\"devices\":[{\"name\":\"wd\",\"watchdog\":true,\"watchdog_ms\":100},"           \
    "{\"name\":\"nowd\"}]"

/* A config with a fast watchdog: device 0 kills launches after 100 ms,
 * device 1 has no watchdog. */
#define SIM_TEST_FAST_WATCHDOG                                                         \
    "{\"devices\":[{\"name\":\"wd\",\"watchdog\":true,\"watchdog_ms\":100},"           \
    "{\"name\":\"nowd\"}]}"

/* Sets GPUGUARD_SIM_CONFIG (NULL: unset) and calls cuInit, which must work. */
void sim_test_init(const char *config);
/* Creates a context on dev (current on this thread). */
CUcontext sim_test_ctx(int dev);
/* Loads build/kernels/sim_test_kernels.so into the current context. */
CUmodule sim_test_module(void);
CUfunction sim_test_kernel(CUmodule m, const char *name);
/* Polls cuStreamQuery / cuEventQuery until not NOT_READY or timeout_ms. */
CUresult sim_test_poll_stream(CUstream s, int timeout_ms);
CUresult sim_test_poll_event(CUevent e, int timeout_ms);
double sim_test_ms_since(struct timespec t0);
struct timespec sim_test_now(void);
void sim_test_sleep_ms(int ms);
/* Asserts that every simulator object has been released (within 10 s:
 * abandoned work is released by worker threads after the destroy). */
void sim_test_assert_no_leaks(void);

#endif
