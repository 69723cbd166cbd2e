/* Small helpers for the kernel-level PTX tests (fixtures run through the
 * simulator's CUDA face): loading a fixture, moving buffers, launching, a
 * deterministic random sequence and the bit patterns of floats. Every helper
 * fails the current criterion test on a driver error. */
#ifndef GG_PTX_TEST_SUPPORT_H
#define GG_PTX_TEST_SUPPORT_H

#include "sim_test.h"

#include <stddef.h>
#include <stdint.h>

/* The PTX NaN that NVIDIA GPUs produce for every arithmetic NaN result. */
#define PTX_TEST_NAN_F32 0x7FFFFFFFu
#define PTX_TEST_NAN_F64 0x7FFFFFFFFFFFFFFFull

/* The text of fixtures/<name>, NUL-terminated, in memory the caller frees. */
char *ptx_test_read_fixture(const char *name);
/* Loads fixtures/<fixture> with cuModuleLoadData (PTX text from memory) into
 * the current context, stores the module in *mod and returns kernel `kernel`. */
CUfunction ptx_test_load_kernel(const char *fixture, const char *kernel, CUmodule *mod);
/* Allocates `bytes` of device memory holding a copy of host (zeros if host is
 * NULL). */
CUdeviceptr ptx_test_upload(const void *host, size_t bytes);
/* Copies `bytes` from device address d to host. */
void ptx_test_download(void *host, CUdeviceptr d, size_t bytes);
/* Launches f on the null stream with a grid and block of up to 3 dimensions
 * and `shared` bytes of dynamic shared memory, then synchronises. */
void ptx_test_run(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shared, void **args);
/* The next value of a xorshift32 sequence (state *s, never 0). */
uint32_t ptx_test_random(uint32_t *s);
/* The bit patterns of a float and a double, and floats made from them. */
uint32_t ptx_test_f32_bits(float f);
uint64_t ptx_test_f64_bits(double d);
float ptx_test_f32_from_bits(uint32_t u);
double ptx_test_f64_from_bits(uint64_t u);
/* The bits a GPU stores for the float result f: f's own bits, or PTX's one
 * canonical NaN when f is a NaN (the host's NaNs differ in sign and payload). */
uint32_t ptx_test_gpu_f32_bits(float f);
uint64_t ptx_test_gpu_f64_bits(double d);
/* How many floats lie between a and b, plus one if they differ (0 when
 * their bits are equal; +0 and -0 are 1 apart): the distance in units in the
 * last place. Neither may be a NaN. */
uint32_t ptx_test_ulp_distance_f32(float a, float b);
/* The same distance between two doubles. Neither may be a NaN. */
uint64_t ptx_test_ulp_distance_f64(double a, double b);
/* How many ulps `got` lies from the correctly rounded value of a function
 * whose reference value `ref` (computed in higher precision) has a relative
 * error of at most ref_err: every value within ref_err of ref rounds to a
 * float between lo and hi, and the result is got's distance from the nearer
 * of them (0 when got lies between them). So the reference's own error can
 * only forgive, never add, an ulp where the rounding of ref is uncertain.
 * ref must not be a NaN; got must not be a NaN. */
uint32_t ptx_test_ulps_from_ref_f32(float got, double ref, double ref_err);
/* The same for a double result and a long double reference. */
uint64_t ptx_test_ulps_from_ref_f64(double got, long double ref, long double ref_err);

#endif
