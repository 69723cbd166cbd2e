/* Helpers shared by the HIP face's test suites. */
#ifndef GG_SIM_HIP_TEST_H
#define GG_SIM_HIP_TEST_H

#include <criterion/criterion.h>
#include <time.h>

#include "gpuguard/gg_sim_control.h"
#include "sim_hip.h"

#define HIP_OK(call)                                                                   \
    do {                                                                               \
        hipError_t r_ = (call);                                                        \
        cr_assert_eq(r_, hipSuccess, "%s -> %d %s (%s)", #call, (int)r_,               \
                     hipGetErrorName(r_), gg_sim_last_error_detail());                 \
    } while (0)

#define HIP_IS(call, want)                                                             \
    do {                                                                               \
        hipError_t r_ = (call);                                                        \
        cr_assert_eq(r_, (want), "%s -> %d %s, expected %d (%s)", #call, (int)r_,      \
                     hipGetErrorName(r_), (int)(want), gg_sim_last_error_detail());    \
    } while (0)

/* The header's flag macros, for tests that read like HIP code. */
#define hipStreamDefault GG_ABI_HIP_STREAM_DEFAULT
#define hipStreamNonBlocking GG_ABI_HIP_STREAM_NON_BLOCKING
#define hipStreamPerThread ((hipStream_t)(uintptr_t)GG_ABI_HIP_STREAM_PER_THREAD)
#define hipHostMallocDefault 0u
#define hipHostMallocPortable GG_ABI_HIP_HOST_MALLOC_PORTABLE
#define hipHostMallocMapped GG_ABI_HIP_HOST_MALLOC_MAPPED
#define hipHostMallocCoherent GG_ABI_HIP_HOST_MALLOC_COHERENT
#define hipHostMallocNonCoherent GG_ABI_HIP_HOST_MALLOC_NON_COHERENT

/* Device pointer arithmetic (hipDeviceptr_t is void *). */
#define DPTR_AT(p, off) ((void *)((char *)(p) + (off)))

/* Device 0 kills launches after 100 ms, device 1 has no watchdog; splice
 * other keys after it: SIM_HIP_TEST_WD_DEVICES ",\"misbehave\":[...]}". */
#define SIM_HIP_TEST_WD_DEVICES                                                        \
    "{\"devices\":[{\"name\":\"wd\",\"watchdog\":true,\"watchdog_ms\":100},"           \
    "{\"name\":\"nowd\"}]"
#define SIM_HIP_TEST_FAST_WATCHDOG SIM_HIP_TEST_WD_DEVICES "}"

#define SIM_HIP_TEST_KERNELS GG_TEST_KERNEL_DIR "/sim_test_kernels.so"

/* Sets GPUGUARD_SIM_CONFIG (NULL: unset) and calls hipInit, which must work. */
void sim_hip_test_init(const char *config);
/* Loads build/kernels/sim_test_kernels.so on the current device. */
hipModule_t sim_hip_test_module(void);
hipFunction_t sim_hip_test_kernel(hipModule_t m, const char *name);
/* Polls hipStreamQuery / hipEventQuery until not NOT_READY or timeout_ms. */
hipError_t sim_hip_test_poll_stream(hipStream_t s, int timeout_ms);
hipError_t sim_hip_test_poll_event(hipEvent_t e, int timeout_ms);
struct timespec sim_hip_test_now(void);
double sim_hip_test_ms_since(struct timespec t0);
void sim_hip_test_sleep_ms(int ms);
/* Asserts that every object the test made has been released and no device
 * memory is in use (within 10 s: abandoned work is released by worker
 * threads after a reset). The primary contexts are not counted. */
void sim_hip_test_assert_no_leaks(void);

#endif
