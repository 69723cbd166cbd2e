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

/* Starts a test: the simulator initialised, a context on device 0 current
 * (*ctx), fixtures/<fixture> loaded (*mod); returns kernel `kernel`. */
CUfunction ptx_test_begin(const char *fixture, const char *kernel, CUcontext *ctx, CUmodule *mod);
/* Ends a test: unloads mod, destroys ctx (and its allocations) and checks
 * that nothing of the simulator is left. */
void ptx_test_end(CUcontext ctx, CUmodule mod);
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


/* The relative error taken for the host's references: glibc's double
 * functions are within 2 ulps of double (2^-51; 2^-50 leaves a margin, about
 * 2^-27 of a float ulp), its x87 long double ones within 8 ulps of long
 * double (2^-60, about 2^-8 of a double ulp). */
#define PTX_TEST_REF_ERR_F32 0x1p-50
#define PTX_TEST_REF_ERR_F64 0x1p-60L

/* Runs f(buf0, ..., buf{nbuf-1}, int n) over n threads in blocks of 128:
 * each host[i] (bytes[i] long, at most 12 buffers) is uploaded first and
 * downloaded back after the launch. */
void ptx_test_run_elementwise(CUfunction f, int nbuf, void *const *host, const size_t *bytes, int n);
/* A float uniform in [lo, hi]; a float whose magnitude is log-uniform in
 * [2^lo_exp, 2^hi_exp), negative when sign < 0, positive when sign > 0,
 * either when sign is 0. */
float ptx_test_uniform_f32(uint32_t *seed, float lo, float hi);
float ptx_test_logscale_f32(uint32_t *seed, int lo_exp, int hi_exp, int sign);
/* The largest error seen for one function (fn) against its bound. */
struct ptx_test_max_error {
    const char *fn;
    unsigned bound;
    uint64_t ulps;
    int count;
};
/* Logs "fn: max N ulp over C inputs (bound B)" (criterion's info log), so
 * that reported figures come from the run itself. */
void ptx_test_report(const struct ptx_test_max_error *m);
/* Checks got = fn(x) against a float function's double reference ref
 * (relative error PTX_TEST_REF_ERR_F32): a NaN where the reference is NaN
 * (any NaN: the math library's NaN constants are its own choice), exact
 * bits where it rounds to a zero or an infinity; otherwise at most
 * m->bound ulps from the correctly rounded value. Counts the input and keeps
 * the largest distance in m->ulps. */
void ptx_test_check_f32(struct ptx_test_max_error *m, float x, float got, double ref);
/* The same for a double result and a long double reference
 * (PTX_TEST_REF_ERR_F64). */
void ptx_test_check_f64(struct ptx_test_max_error *m, double x, double got, long double ref);
/* The size of one ulp of a float of magnitude |v| (the denormal spacing
 * 2^-149 below the normal range). */
long double ptx_test_ulp_size_f32(long double v);
/* Asserts that what[i] = got is no NaN and within `budget` (absolute) of
 * exact; returns the error in ulps of exact. */
long double ptx_test_check_budget(const char *what, int i, float got, long double exact, long double budget);
/* Creates a context on device 0 and loads fixture's `kernel`. Where the load
 * is refused and the refusal's text contains `refusal` (".func", "shfl"),
 * the context is destroyed and the test skipped with that text; any other
 * failure fails the test. */
CUfunction ptx_test_load_or_skip(const char *fixture, const char *kernel, const char *refusal, CUcontext *ctx,
                                 CUmodule *mod);

#endif
