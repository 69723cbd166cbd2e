/*
 * The GPU acceptance suite's shared interface: what a check is given, how it
 * reports, and the helpers every check uses to reach a device through
 * gpuguard. Each check runs in its own child process (gpu_check.c), so a
 * check may call gg_init with its own settings, leave a context dead, hang
 * or crash without touching the others.
 */
#ifndef GG_GPU_CHECK_H
#define GG_GPU_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpuguard/gpuguard.h"

typedef enum gc_verdict { GC_PASS = 0, GC_FAIL = 1, GC_SKIP = 2 } gc_verdict;

/* What a check reports: its verdict, one line saying what it saw, and its
 * figures (a JSON object: statuses, times, counts) for the report. */
typedef struct gc_result {
    gc_verdict verdict;
    char message[1024];
    cJSON *figures;
} gc_result;

/* The run's settings, the same for every check. */
typedef struct gc_env {
    const char *backend;      /* "auto", "cuda", "hip", "sim", "sim-hip" */
    int device;
    const char *kernel_image; /* the module image of kernels/gpu_check.* for this backend */
    const char *self_exe;     /* this program, for helper processes */
    const char *run_dir;      /* a private folder for the run's scratch files */
    const char *python;       /* interpreter for the Python checks */
    const char *python_dir;   /* where gpuguard_py is built */
    const char *script_dir;   /* tests/gpu in the source tree */
    bool simulated;           /* the device is gpuguard's simulator: timing bounds are not checked */
    bool hip;                 /* the HIP backend */
    bool quick;               /* shorter benchmarks */
} gc_env;

typedef void (*gc_check_fn)(const gc_env *env, gc_result *r);

/* ---- reporting ---------------------------------------------------------- */

/* Marks the check FAIL with a message (the first failure's message is kept)
 * and returns false, so that `if (!x) return gc_fail(...)` reads well. */
bool gc_fail(gc_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* SKIP with the reason, unless the check has already failed. */
void gc_skip(gc_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message of a passing check (what it saw); ignored after a failure. */
void gc_note(gc_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void gc_figure_num(gc_result *r, const char *key, double value);
void gc_figure_str(gc_result *r, const char *key, const char *value);
void gc_figure_bool(gc_result *r, const char *key, bool value);
/* The thread's last gpuguard error as a figure: status, native code and
 * name, calls, culprit, message. */
void gc_figure_last_error(gc_result *r, const char *key);

/* GG_OK, or FAIL naming `what` and gpuguard's last error. */
bool gc_ok(gc_result *r, gg_status status, const char *what);
/* `got` must be `want`; else FAIL naming both and the last error. */
bool gc_expect(gc_result *r, gg_status got, gg_status want, const char *what);

/* ---- a device through gpuguard ---------------------------------------- */

/* gg_init with env's backend over `desc` (NULL: the defaults). */
bool gc_init(gc_result *r, const gc_env *env, const gg_init_desc *desc);

/* A context on env's device, the suite's kernels loaded, one stream. */
typedef struct gc_session {
    gg_context ctx;
    gg_module module;
    gg_stream stream;
} gc_session;

bool gc_open(gc_result *r, const gc_env *env, const char *tag, gc_session *s);
bool gc_kernel(gc_result *r, const gc_session *s, const char *name, gg_kernel *k);
/* One launch of `kernel` on `stream` with a 1-D grid. */
gg_status gc_launch(gg_kernel kernel, gg_stream stream, uint32_t blocks, uint32_t threads,
                    void **params, uint32_t count);
/* fill_u32 then add_one_u32 over n values on s->stream, read back, and every
 * value must be value + 1: the context computes. */
bool gc_computes(gc_result *r, const gc_session *s, uint32_t n, uint32_t value);
/* The stray store (oob_store far past a small buffer) on s->stream, then a
 * synchronize that must report it: GG_ILLEGAL_ADDRESS. */
bool gc_kill_with_stray_store(gc_result *r, const gc_session *s);

/* ---- processes and time -------------------------------------------------- */

double gc_now_ms(void);

/* Runs this program as `self_exe --helper NAME` with env's settings, at most
 * timeout_s; its stdout and stderr (at most cap bytes each) go to out/err.
 * Returns the wait status, or -1 (and FAIL) if it could not run or timed out. */
int gc_run_helper(gc_result *r, const gc_env *env, const char *name, unsigned timeout_s,
                  char *out, size_t out_cap, char *err, size_t err_cap);

/* Whether the gpuguard library in use exports `symbol` (features other
 * open issues add, such as gg_stream_native). */
bool gc_library_has(const char *symbol);

/* After a kernel's sticky error in s->ctx: recovery as the driver allows it.
 * CUDA keeps the error for the whole process (docs/DRIVER-FACTS.md):
 * gg_context_recover and gg_context_create must refuse with
 * GG_PROCESS_POISONED saying only a new process can use the GPU, and the
 * context stays DEAD (*recovered false). HIP: gg_context_recover must
 * succeed (*recovered true; the caller checks that it computes). False,
 * with r failed, when the library does otherwise. */
bool gc_recover_as_the_driver_allows(gc_result *r, const gc_env *env, gc_session *s, bool *recovered);

#endif
