/*
 * The backend table: the only way src/common reaches a driver.
 *
 * src/common knows nothing of CUDA or HIP. A backend (src/cuda, src/hip)
 * fills one gg__backend with function pointers over its driver, plus its own
 * error table. Every driver call returns the driver's native code (0 is
 * success); src/common classifies it through the backend's error table, which
 * says the portable status and whether the code is sticky (kills the context).
 *
 * Native objects are opaque pointers (or a 64-bit device address). Calls that
 * work inside a context are made by src/common with that context current
 * (ctx_set_current), so these functions never take a context argument unless
 * they create or destroy one.
 */
#ifndef GPUGUARD_BACKEND_H
#define GPUGUARD_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "gpuguard/gpuguard.h"

typedef void *gg__nctx;     /* CUcontext / HIP device-context */
typedef void *gg__nstream;  /* CUstream / hipStream_t; NULL = default stream */
typedef void *gg__nevent;
typedef void *gg__nmodule;
typedef void *gg__nfunc;
typedef uint64_t gg__dptr;  /* device address */

/* Every driver operation, for error reports and the fault gate. The second
 * column is the portable operation name used in fault plans. */
#define GG__OP_LIST(X)                               \
    X(INIT, "init")                                  \
    X(DRIVER_VERSION, "driver_version")              \
    X(DEVICE_COUNT, "device_count")                  \
    X(DEVICE_PROPS, "device_props")                  \
    X(CTX_CREATE, "context_create")                  \
    X(CTX_DESTROY, "context_destroy")                \
    X(CTX_GET_CURRENT, "context_get_current")        \
    X(CTX_SET_CURRENT, "context_set_current")        \
    X(CTX_PUSH, "context_push")                      \
    X(CTX_POP, "context_pop")                        \
    X(CTX_SYNCHRONIZE, "context_synchronize")        \
    X(STREAM_CREATE, "stream_create")                \
    X(STREAM_DESTROY, "stream_destroy")              \
    X(STREAM_QUERY, "stream_query")                  \
    X(STREAM_SYNCHRONIZE, "stream_synchronize")      \
    X(STREAM_WAIT_EVENT, "stream_wait_event")        \
    X(EVENT_CREATE, "event_create")                  \
    X(EVENT_DESTROY, "event_destroy")                \
    X(EVENT_RECORD, "event_record")                  \
    X(EVENT_QUERY, "event_query")                    \
    X(EVENT_SYNCHRONIZE, "event_synchronize")        \
    X(EVENT_ELAPSED, "event_elapsed")                \
    X(MEM_ALLOC, "alloc")                            \
    X(MEM_FREE, "free")                              \
    X(HOST_ALLOC, "host_alloc")                      \
    X(HOST_FREE, "host_free")                        \
    X(MEMCPY_HTOD, "copy_htod")                      \
    X(MEMCPY_DTOH, "copy_dtoh")                      \
    X(MEMCPY_DTOD, "copy_dtod")                      \
    X(MEMSET, "memset")                              \
    X(MODULE_LOAD, "module_load")                    \
    X(MODULE_UNLOAD, "module_unload")                \
    X(MODULE_GET_FUNCTION, "kernel_get")             \
    X(LAUNCH, "launch")                              \
    X(KERNEL_PARAMS, "kernel_params")                \
    X(HOST_ALLOC_MAPPED, "host_alloc_mapped")        \
    X(HOST_FREE_MAPPED, "host_free_mapped")          \
    X(STREAM_WRITE_VALUE, "stream_write_value")      \
    X(CTX_DEVICE, "context_device")                  \
    X(STREAM_CONTEXT, "stream_context")              \
    X(POINTER_QUERY, "pointer_query")

typedef enum gg__op {
#define GG__OP_ENUM(name, str) GG__OP_##name,
    GG__OP_LIST(GG__OP_ENUM)
#undef GG__OP_ENUM
    GG__OP_COUNT
} gg__op;

/* What the backend reports for a device. */
typedef struct gg__device_props {
    char name[GG_NAME_MAX];
    uint64_t total_memory;
    bool watchdog;          /* KERNEL_EXEC_TIMEOUT attribute */
    bool simulated;         /* the loaded library is gpuguard's simulator */
    int multiprocessors;
    int max_threads_per_block;
    int max_block[3];
    int max_grid[3];
    /* Dynamic + static shared memory one block may use, in bytes: without
     * opting in, and the most a kernel may opt in to (CUDA's
     * MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; HIP has no opt-in and reports its
     * one limit in both). 0: the driver did not say (do not check). */
    int max_shared_per_block;
    int max_shared_per_block_optin;
    /* The device says it runs stream write-value operations
     * (stream_write_value) of 32 and of 64 bits. From the device's own
     * attributes, never from names or versions; false when the backend or
     * driver lacks the entry points. */
    bool stream_write_value_32;
    bool stream_write_value_64;
} gg__device_props;

/* Classification of a native code by the backend's error table. */
typedef struct gg__code_class {
    gg_status status;       /* portable status (GG_OK for 0, GG_NOT_READY for pending) */
    bool sticky;            /* the context is dead after this code */
    bool deinitialized;     /* the driver is shutting down: treat cleanup as done */
} gg__code_class;

typedef struct gg__backend gg__backend;

struct gg__backend {
    const char *name;               /* "cuda" or "hip" */
    void *self;                     /* the backend's own state (loaded library, pointers) */
    const char *library;            /* path or soname actually loaded */
    const char *op_names[GG__OP_COUNT]; /* driver function per op, e.g. "cuMemAlloc_v2" */
    /* True when a device has one context shared by all its users (HIP): every
     * gg context on it is then treated as a primary context, reset when it
     * is recovered or destroyed dead. */
    bool one_context_per_device;
    /* True when a sticky error of one context reaches every context of the
     * process, and no context can be made in it afterwards (measured on
     * CUDA: docs/DRIVER-FACTS.md, "Sticky errors reach the whole
     * process"). GPUGUARD_STICKY_SCOPE overrides it (poison.h). */
    bool sticky_process_wide;

    /* Error table: pure functions, callable at any time (even after close). */
    gg__code_class (*classify)(int native);
    const char *(*code_name)(int native);     /* "CUDA_ERROR_..."; never NULL */
    int (*native_for_status)(gg_status status); /* for injected faults */

    /* The entry points the backend resolved (optional: NULL when it does not
     * report them). False past the last one. Makes no driver call. */
    bool (*entry_point)(void *self, size_t index, gg_entry_point_info *out);

    /* Devices */
    int (*driver_version)(void *self, int *version);
    int (*device_count)(void *self, int *count);
    int (*device_props)(void *self, int device, gg__device_props *out);

    /* Contexts. ctx_create leaves the caller's current context as it was.
     * use_primary: retain the device's primary context instead (destroy then
     * releases it; reset_primary resets it for recovery). */
    int (*ctx_create)(void *self, int device, bool use_primary, gg__nctx *out);
    int (*ctx_destroy)(void *self, int device, bool use_primary, gg__nctx ctx);
    /* Resets the device's primary context (recovery of a primary context):
     * destroys all its resources; the next ctx_create(use_primary) gets a fresh one. */
    int (*ctx_reset_primary)(void *self, int device);
    /* Optional (NULL: none): how many times the backend reset the device's
     * primary context on its own (HIP's ctx_create resets a device a sticky
     * error poisoned), so that records of work on it can be known void. */
    unsigned (*device_resets)(void *self, int device);
    int (*ctx_get_current)(void *self, gg__nctx *out);  /* NULL when none */
    int (*ctx_set_current)(void *self, gg__nctx ctx);    /* NULL clears */
    int (*ctx_push)(void *self, gg__nctx ctx);
    int (*ctx_pop)(void *self, gg__nctx *out);
    int (*ctx_synchronize)(void *self);

    /* Streams (created non-blocking: no implicit sync with the default stream) */
    int (*stream_create)(void *self, gg__nstream *out);
    int (*stream_destroy)(void *self, gg__nstream s);
    int (*stream_query)(void *self, gg__nstream s);        /* 0 done, NOT_READY pending */
    int (*stream_synchronize)(void *self, gg__nstream s);  /* blocks: used only when no deadline applies */
    int (*stream_wait_event)(void *self, gg__nstream s, gg__nevent e);

    /* Events (with timing) */
    int (*event_create)(void *self, gg__nevent *out);
    int (*event_destroy)(void *self, gg__nevent e);
    int (*event_record)(void *self, gg__nevent e, gg__nstream s);
    int (*event_query)(void *self, gg__nevent e);
    int (*event_synchronize)(void *self, gg__nevent e);
    int (*event_elapsed)(void *self, float *ms, gg__nevent start, gg__nevent end);

    /* Memory. Copies and memsets with stream == NULL and async == false are
     * the driver's synchronous forms; with async they are queued on s. */
    int (*mem_alloc)(void *self, gg__dptr *out, size_t bytes);
    int (*mem_free)(void *self, gg__dptr p);
    int (*host_alloc)(void *self, void **out, size_t bytes);
    int (*host_free)(void *self, void *p);
    int (*memcpy_htod)(void *self, gg__dptr dst, const void *src, size_t bytes, gg__nstream s, bool async);
    int (*memcpy_dtoh)(void *self, void *dst, gg__dptr src, size_t bytes, gg__nstream s, bool async);
    int (*memcpy_dtod)(void *self, gg__dptr dst, gg__dptr src, size_t bytes, gg__nstream s, bool async);
    int (*memset_d8)(void *self, gg__dptr dst, uint8_t value, size_t bytes, gg__nstream s, bool async);

    /* Modules and launches */
    int (*module_load_file)(void *self, gg__nmodule *out, const char *path);
    int (*module_load_data)(void *self, gg__nmodule *out, const void *image, size_t bytes);
    int (*module_unload)(void *self, gg__nmodule m);
    int (*module_get_function)(void *self, gg__nfunc *out, gg__nmodule m, const char *name);
    /* Grid and block as the caller's gg_dim3 (a launch's desc, unpacked
     * only here, into the driver's arguments). */
    int (*launch)(void *self, gg__nfunc f, const gg_dim3 *grid, const gg_dim3 *block,
                  unsigned shared_bytes, gg__nstream s, void **params);

    /* Optional entries (NULL when the backend has none; a backend that has
     * the entry but whose driver lacks the call returns its NOT_SUPPORTED
     * code, classified GG_UNSUPPORTED). */

    /* The kernel's parameters as the driver knows them. Returns 0 with
     * *known true, *count the number of parameters and sizes[i] (bytes) for
     * i < min(*count, max_sizes); or 0 with *known false and *count 0 when
     * the driver cannot tell (CUDA before 12.4, HIP): then nothing about the
     * parameters can be checked. Another native code is a failure of the
     * query (dead context, bad function). sizes may be NULL when max_sizes
     * is 0. CUDA makes *count + 1 driver calls: ask once per kernel. */
    int (*kernel_params)(void *self, gg__nfunc f, bool *known, size_t *count, size_t *sizes,
                         size_t max_sizes);

    /* Page-locked host memory mapped for the device of the current context
     * (cuMemHostAlloc(DEVICEMAP) + cuMemHostGetDevicePointer; hipHostMalloc
     * (mapped) + hipHostGetDevicePointer): *host for the host, *dev for
     * stream_write_value. Both 0/NULL on failure (nothing stays allocated).
     * It belongs to the current context: it stays readable by the host
     * after the context dies (sticky error) and is freed by the driver when
     * the context is destroyed or reset, so read it before recovering.
     * Free it with host_free_mapped while the context lives. */
    int (*host_alloc_mapped)(void *self, void **host, gg__dptr *dev, size_t bytes);
    int (*host_free_mapped)(void *self, void *host);

    /* Queues on stream s (NULL: default stream) a store of `value` at device
     * address addr, executed in stream order: after all earlier work of s
     * completes, and never if the context dies first. wide: 64-bit store
     * (addr 8-byte aligned; needs props.stream_write_value_64); else the
     * low 32 bits (addr 4-byte aligned; props.stream_write_value_32). Host
     * readers of the target must use atomic (or volatile) loads. */
    int (*stream_write_value)(void *self, gg__nstream s, gg__dptr addr, uint64_t value,
                              bool wide);

    /* Adoption of objects made outside gpuguard (gg_*_adopt). */

    /* The device ordinal of native context ctx (made current for the query
     * and the caller's current context restored; an invalid context is the
     * driver's refusal). */
    int (*ctx_device)(void *self, gg__nctx ctx, int *device);
    /* Whether ctx is `device`'s primary context, without changing anyone's
     * references (NULL: the backend cannot tell; HIP's contexts are all
     * primary, one_context_per_device). */
    int (*ctx_is_primary)(void *self, int device, gg__nctx ctx, bool *primary);
    /* The native context of stream s (a real stream, not the default). */
    int (*stream_context)(void *self, gg__nstream s, gg__nctx *out);
    /* The device allocation containing p, as the driver knows it: its
     * context, start address and size. The driver's refusal when it knows
     * no allocation there (CUDA: CUDA_ERROR_INVALID_VALUE). */
    int (*pointer_range)(void *self, gg__dptr p, gg__nctx *ctx, gg__dptr *base, size_t *bytes);

    /* The driver function module_load_data calls ("cuModuleLoadData"),
     * named in its errors instead of op_names[GG__OP_MODULE_LOAD] (the
     * file form). NULL: the op's name is right for both. */
    const char *module_load_data_call;

    /* Only over gpuguard's simulated driver (NULL otherwise): the reason
     * the simulator recorded for the calling thread's latest failing call
     * (gg_sim_last_error_detail), "" when none. The simulator does not
     * clear it on success, so read it only right after a failing call
     * whose failure paths all record one (module loads, kernel lookups). */
    const char *(*driver_error_detail)(void *self);

    /* Releases the backend (dlclose). `driver_alive` false: the process is
     * exiting and the driver may be unloading, so make no driver call. */
    void (*close)(void *self, bool driver_alive);
};

/* Result of opening a backend: on failure, status and a message naming what
 * was tried (library paths, missing symbol, stub library). */
typedef struct gg__backend_open_result {
    gg_status status;
    int native_code;
    char message[GG_MESSAGE_MAX];
} gg__backend_open_result;

/* Backend constructors. `library` NULL means the backend's default search
 * (libcuda.so.1; libamdhip64.so.6 then .so.5). On success *out is filled and
 * the driver is initialised (cuInit / hipInit). */
gg__backend_open_result gg__cuda_backend_open(const char *library, gg__backend *out);
gg__backend_open_result gg__hip_backend_open(const char *library, gg__backend *out);

#endif /* GPUGUARD_BACKEND_H */
