/* Shared by the HIP backend's suites: the libraries they run over. */
#ifndef GG_HIP_TEST_H
#define GG_HIP_TEST_H

#include "common/backend.h"

/* Debian 12's HIP runtime (libamdhip64-dev); tests that need it skip
 * without it. */
#define GG_TEST_REAL_HIP "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5"

/* gpuguard's simulated driver, HIP face; tests that need it skip until it
 * is built. */
#define GG_TEST_SIM_HIP GG_TEST_LIB_DIR "/libgpuguard_sim_hip.so"

/* The fakes of tests/hip/fake_libamdhip.c (paths set by CMake):
 * GG_FAKE_HIP, and GG_FAKE_HIP_NO_LAUNCH without hipModuleLaunchKernel. */

/* Calls the fake's counter `name`(arg) (fake_hip_resets, ...). */
int hip_test_fake_count(const char *name, int arg);

#endif
