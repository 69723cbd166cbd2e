/*
 * Internal interface of gpuguard's simulated driver core.
 *
 * The core knows nothing of CUDA or HIP numbering: it speaks sim_status and
 * sim_attr, and the faces (sim_cuda_face.c, later a HIP face) translate. All
 * objects users hold handles to (contexts, streams, events, modules,
 * functions) live in one registry of generation-checked handles, so a stale
 * or forged handle is refused instead of followed.
 *
 * Locking rules (to keep the core deadlock-free):
 *   - registry locks (the allocation lock, a stripe lock): nothing else is
 *     taken while one is held, and never both at once;
 *   - device primary lock -> event lock -> stream run lock (fast mode) ->
 *     context lock -> stream queue lock (a worker takes an event lock or a
 *     context lock only when it holds no queue lock);
 *   - the ground truth's locks (sim_truth.c) come after every core lock:
 *     table lock -> a context's truth log lock. A log lock is taken under a
 *     stream queue lock (acceptance) or a context lock (poison), never the
 *     other way round, and nothing is taken while either is held;
 *   - the progress lock (sim_wait.c) is innermost: predicates passed to
 *     sim_progress_wait() read atomics only and take no lock.
 * No lock is held while a kernel runs.
 */
#ifndef GG_SIM_CORE_H
#define GG_SIM_CORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <time.h>

#include "gpuguard/gg_sim_control.h"
#include "gpuguard/sim_kernel.h"

#define SIM_HIDDEN __attribute__((visibility("hidden")))
#define SIM_EXPORT __attribute__((visibility("default")))

/* ---- status ------------------------------------------------------------ */

typedef enum sim_status {
    SIM_OK = 0,
    SIM_ERR_INVALID_VALUE,
    SIM_ERR_OUT_OF_MEMORY,
    SIM_ERR_NOT_INITIALIZED,
    SIM_ERR_NO_DEVICE,
    SIM_ERR_INVALID_DEVICE,
    SIM_ERR_INVALID_IMAGE,
    SIM_ERR_INVALID_CONTEXT,
    SIM_ERR_CONTEXT_DESTROYED,
    SIM_ERR_FILE_NOT_FOUND,
    SIM_ERR_INVALID_HANDLE,
    SIM_ERR_NOT_FOUND,
    SIM_ERR_NOT_READY,
    SIM_ERR_ILLEGAL_ADDRESS,     /* sticky */
    SIM_ERR_LAUNCH_OUT_OF_RESOURCES,
    SIM_ERR_LAUNCH_TIMEOUT,      /* sticky */
    SIM_ERR_ASSERT,              /* sticky */
    SIM_ERR_LAUNCH_FAILED,       /* sticky */
    SIM_ERR_NOT_SUPPORTED,
    SIM_ERR_NO_BINARY_FOR_GPU,   /* an image with machine code only, or PTX only for newer devices */
    SIM_ERR_MISALIGNED_ADDRESS,  /* sticky: a PTX access not aligned to its size */
    SIM_ERR_UNKNOWN
} sim_status;

/* The statuses of a device fault that poison a context for good. */
static inline bool sim_status_is_sticky(sim_status st)
{
    return st == SIM_ERR_ILLEGAL_ADDRESS || st == SIM_ERR_LAUNCH_FAILED || st == SIM_ERR_ASSERT ||
           st == SIM_ERR_MISALIGNED_ADDRESS || st == SIM_ERR_LAUNCH_TIMEOUT;
}

/* Records why the calling thread's latest failing call failed (printf-like).
 * Read back with gg_sim_last_error_detail(). */
void sim_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *sim_detail_get(void);

/* ---- time -------------------------------------------------------------- */

struct timespec sim_now(void);                      /* CLOCK_MONOTONIC */
struct timespec sim_ts_add_us(struct timespec t, uint64_t us);
bool sim_ts_passed(struct timespec deadline);       /* now >= deadline */
double sim_ts_diff_ms(struct timespec a, struct timespec b); /* b - a */

/* ---- progress: one condition variable for every "wait until" ------------ */

/* Wakes every sim_progress_wait(); call after changing any state a waiter's
 * predicate reads (op completed, context poisoned, stream discarded...). */
void sim_progress_notify(void);
/* Waits until pred(arg) is true or the deadline (NULL: none) passes; returns
 * the last value of pred. */
bool sim_progress_wait(bool (*pred)(void *), void *arg, const struct timespec *deadline);

/* ---- objects and the handle registry ------------------------------------ */

typedef enum sim_kind {
    SIM_KIND_CONTEXT = 1,
    SIM_KIND_STREAM = 2,
    SIM_KIND_EVENT = 3,
    SIM_KIND_MODULE = 4,
    SIM_KIND_FUNCTION = 5
} sim_kind;

struct sim_ctx;

typedef struct sim_obj {
    atomic_uint refs;
    sim_kind kind;
    uint64_t handle;            /* its registry handle, 0 before registration */
    struct sim_ctx *owner;      /* context whose destruction removes it (NULL for contexts) */
    void (*destroy)(struct sim_obj *);
} sim_obj;

void sim_obj_init(sim_obj *o, sim_kind kind, struct sim_ctx *owner, void (*destroy)(sim_obj *));
void sim_obj_retain(sim_obj *o);
void sim_obj_release(sim_obj *o);

/* Registers o; the registry keeps the creator's reference. 0 when full. */
uint64_t sim_registry_add(sim_obj *o);
/* The live object behind handle if it is of that kind, retained; else NULL. */
sim_obj *sim_registry_get(uint64_t handle, sim_kind kind);
/* Unregisters o; true if this call did it (the registry's reference is
 * released). */
bool sim_registry_remove(sim_obj *o);
/* Unregisters every object for which match(o, arg) holds, calls
 * on_removed(o) for each (outside the registry lock), then releases it. */
void sim_registry_remove_if(bool (*match)(sim_obj *, void *), void *arg,
                            void (*on_removed)(sim_obj *));
/* The first live object of `kind` in a slot at or after *cursor, retained,
 * and *cursor moved past it; NULL at the end. For scans that must take
 * other locks on each object (no registry lock is held when it returns). */
sim_obj *sim_registry_next(sim_kind kind, uint32_t *cursor);
/* Live counters, for leak checks in tests. */
long sim_live_objects(void);
void sim_live_count_add(long delta);   /* allocations that are not sim_obj */

/* ---- configuration ------------------------------------------------------ */

typedef struct sim_device_config {
    char name[256];
    uint64_t memory_bytes;
    bool watchdog;
    unsigned watchdog_ms;
    unsigned multiprocessors;
    double ns_per_warp_instruction; /* simulated time of a PTX warp-instruction */
    unsigned max_threads_per_block;
    unsigned max_grid[3];
    unsigned max_block[3];
    bool stream_mem_ops;        /* stream write-value operations (32-bit) */
    bool stream_mem_ops_64;     /* 64-bit ones; effective only with stream_mem_ops */
    unsigned allocation_granularity; /* kernels may touch an allocation up to its size rounded
                                      * up to this (a power of two, 1 to 4096; 1: exactly) */
    unsigned index;             /* its place in the configuration's list: the device
                                 * itself, whatever a visibility variable makes its
                                 * ordinal (its UUID is made from it) */
} sim_device_config;

typedef enum sim_mb_action {
    SIM_MB_NONE = 0,
    SIM_MB_FAULT,
    SIM_MB_HANG,
    SIM_MB_OVERRUN,
    SIM_MB_SLOW
} sim_mb_action;

typedef struct sim_misbehave {
    char kernel[128];
    int device;                 /* -1: any device */
    sim_mb_action action;
    unsigned long long launch;  /* 1-based launch of that kernel; 0: every launch */
    unsigned long long block_us;
    bool has_block_us;
    sim_status error;           /* for SIM_MB_FAULT */
    atomic_ullong seen;         /* launches of that kernel seen so far */
} sim_misbehave;

/* What a device fault's sticky error poisons (the "sticky_scope" key). */
typedef enum sim_sticky_scope {
    SIM_STICKY_UNSET = 0,       /* not in the configuration: the face's default */
    SIM_STICKY_PROCESS,         /* every context of the process (sim_process_poison.c) */
    SIM_STICKY_CONTEXT          /* only the faulting context */
} sim_sticky_scope;

typedef struct sim_config {
    int ndevices;
    sim_device_config *devices;
    int nrules;
    sim_misbehave *rules;
    bool fast;                  /* "fast": work completes at submission (sim_stream.c) */
    bool record_launches;       /* "record_launches": keep the ground truth (sim_truth.c) */
    int driver_version;         /* "driver_version" as given; 0: not set (the face's default) */
    sim_sticky_scope sticky_scope; /* "sticky_scope"; a face's check replaces UNSET by its default */
    uint32_t host_us_launch;       /* "host_us": {"launch": N}: host time a launch call takes (µs) */
    uint32_t host_us_write_value;  /* "host_us": {"write_value": N}: the same for a stream write-value */
    bool host_us_launch_given;     /* "launch" was in "host_us" (else the default, sim_config.c) */
} sim_config;

/* Spends `us` microseconds of the calling thread's time (the "host_us"
 * keys: a driver whose calls cost the host that much). 0: returns. */
void sim_host_spend(uint32_t us);

/* Parses the configuration text (NULL: defaults). On error returns
 * SIM_ERR_INVALID_VALUE and writes a message naming the key to err. */
sim_status sim_config_parse(const char *text, sim_config *out, char *err, size_t errlen);
/* Reads GPUGUARD_SIM_CONFIG (text or @path) and parses it. */
sim_status sim_config_load(sim_config *out, char *err, size_t errlen);
void sim_config_free(sim_config *c);
/* "driver_version" of the configuration in GPUGUARD_SIM_CONFIG now, for
 * the calls a driver answers before it is initialised; 0 when the key is
 * absent or the configuration is invalid. Parsed again only when the
 * variable's text changes. */
int sim_config_peek_driver_version(void);
/* "sticky_scope" of the configuration in GPUGUARD_SIM_CONFIG now, as
 * sim_config_peek_driver_version reads it: UNSET when the key is absent or
 * the configuration is invalid. */
sim_sticky_scope sim_config_peek_sticky_scope(void);

/* ---- devices ------------------------------------------------------------ */

typedef enum sim_attr {
    SIM_ATTR_MAX_THREADS_PER_BLOCK,
    SIM_ATTR_MAX_BLOCK_X, SIM_ATTR_MAX_BLOCK_Y, SIM_ATTR_MAX_BLOCK_Z,
    SIM_ATTR_MAX_GRID_X, SIM_ATTR_MAX_GRID_Y, SIM_ATTR_MAX_GRID_Z,
    SIM_ATTR_MAX_SHARED_PER_BLOCK,
    SIM_ATTR_TOTAL_CONSTANT_MEMORY,
    SIM_ATTR_WARP_SIZE,
    SIM_ATTR_MAX_REGISTERS_PER_BLOCK,
    SIM_ATTR_CLOCK_RATE_KHZ,
    SIM_ATTR_MULTIPROCESSORS,
    SIM_ATTR_KERNEL_EXEC_TIMEOUT,
    SIM_ATTR_INTEGRATED,
    SIM_ATTR_CAN_MAP_HOST_MEMORY,
    SIM_ATTR_COMPUTE_MODE,
    SIM_ATTR_CONCURRENT_KERNELS,
    SIM_ATTR_PCI_BUS_ID, SIM_ATTR_PCI_DEVICE_ID, SIM_ATTR_PCI_DOMAIN_ID,
    SIM_ATTR_MAX_THREADS_PER_MULTIPROCESSOR,
    SIM_ATTR_ASYNC_ENGINE_COUNT,
    SIM_ATTR_UNIFIED_ADDRESSING,
    SIM_ATTR_COMPUTE_CAPABILITY_MAJOR, SIM_ATTR_COMPUTE_CAPABILITY_MINOR,
    SIM_ATTR_MAX_SHARED_PER_BLOCK_OPTIN,
    SIM_ATTR_STREAM_MEM_OPS,        /* 32-bit stream write/wait-value operations */
    SIM_ATTR_STREAM_MEM_OPS_64      /* 64-bit ones */
} sim_attr;

/* The shared memory one block may use (bytes); also the launch limit. */
#define SIM_MAX_SHARED_PER_BLOCK 49152u
/* What a block may use after opting in (CUDA's ..._OPTIN attribute); the
 * simulator's launches accept only SIM_MAX_SHARED_PER_BLOCK, since opting
 * in (cuFuncSetAttribute) is not simulated. An A100's value. */
#define SIM_MAX_SHARED_PER_BLOCK_OPTIN 166912u
/* What one multiprocessor holds at once (an A100's figures): they bound how
 * many blocks of a launch run side by side (sim_block_slots.c). */
#define SIM_MAX_THREADS_PER_SM 2048u
#define SIM_MAX_BLOCKS_PER_SM 32u
#define SIM_SHARED_PER_SM 167936u

typedef struct sim_device {
    int ordinal;
    const sim_device_config *cfg;
    atomic_ullong mem_used;
    atomic_ullong skew_ns;      /* device time is the wall clock plus this (sim_timeline.c) */
    pthread_mutex_t primary_lock;
    struct sim_ctx *primary;    /* retained while it exists */
    unsigned primary_refs;
    atomic_uint primary_flags;  /* cuDevicePrimaryCtxSetFlags: what GetState reports */
} sim_device;

/* What a face refuses in a configuration that parsed (e.g. a driver version
 * its library does not simulate): SIM_OK, or an error with a message naming
 * the key written to err. It may narrow the devices (a visibility variable
 * such as CUDA_VISIBLE_DEVICES), keeping each one's cfg.index. */
typedef sim_status (*sim_config_check)(sim_config *c, char *err, size_t errlen);
/* Reads the configuration, has `check` (NULL: none) accept it, and sets up
 * the devices; the first success fixes them for the life of the process. */
sim_status sim_init(sim_config_check check);
extern atomic_bool sim_initialized_flag;
/* True after a successful sim_init (checked by every export: inline). */
static inline bool sim_is_initialized(void)
{
    return atomic_load_explicit(&sim_initialized_flag, memory_order_acquire);
}
/* Fast mode ("fast": true), fixed by the first successful init: every
 * operation completes on the calling thread when it is submitted, kernels
 * are not run (sim_stream.c). */
extern atomic_bool sim_fast_flag;
static inline bool sim_fast(void)
{
    return atomic_load_explicit(&sim_fast_flag, memory_order_relaxed);
}
const char *sim_config_error(void);
const sim_config *sim_get_config(void);  /* NULL before a successful init */
int sim_device_count(void);
sim_device *sim_device_get(int ordinal); /* NULL if out of range or no init */
sim_status sim_device_attr(const sim_device *d, sim_attr a, int *out);
sim_status sim_primary_retain(sim_device *d, struct sim_ctx **out);
sim_status sim_primary_release(sim_device *d);
sim_status sim_primary_reset(sim_device *d);
/* Whether the device's primary context is retained by anyone. */
bool sim_primary_active(sim_device *d);

/* ---- contexts ----------------------------------------------------------- */

struct sim_stream;
struct sim_alloc;
struct sim_truth_log;

/* Where one launch's ground-truth record is (sim_truth.c): its context's
 * log, the log's generation when it was written (a gg_sim_truth_reset
 * since makes the slot stale, and writes to it are dropped) and its index. */
typedef struct sim_truth_slot {
    struct sim_truth_log *log;  /* NULL: not recorded */
    uint64_t generation;
    size_t index;
} sim_truth_slot;

typedef struct sim_ctx {
    sim_obj obj;
    sim_device *dev;
    bool primary;
    pthread_mutex_t lock;           /* everything below except the atomics */
    atomic_int sticky;              /* sim_status of the first device fault, or 0 */
    atomic_bool dying;              /* destroyed: no new work, pending work dropped */
    atomic_uint epoch;              /* bumped by a primary reset */
    atomic_ullong clock;            /* submission clock of all its streams */
    /* CU_LIMIT_STACK_SIZE (the CUDA face sets it): each thread's stack, in a
     * GPU's bytes (ptx_inline.h scales it for the interpreter); a launch
     * takes it when submitted. SIM_DEFAULT_STACK_LIMIT at creation. */
    atomic_ullong stack_limit;
    struct sim_stream *null_stream; /* retained */
    struct sim_stream **streams;    /* live workers (weak: removed at worker exit) */
    size_t nstreams, capstreams;
    struct sim_alloc **allocs;      /* sorted by device address */
    size_t nallocs, capallocs;
    struct sim_truth_log *truth;    /* its launches' records, NULL unless recording; set
                                     * before the context is handed out, never changed */
} sim_ctx;

/* What a fresh context's CU_LIMIT_STACK_SIZE is (the H100's, driver 580). */
#define SIM_DEFAULT_STACK_LIMIT 1024u

sim_status sim_ctx_create(sim_device *d, bool primary, sim_ctx **out);
/* Frees everything, never waits for the work it discards. pop_current:
 * also pop it if it is the calling thread's current context (cuCtxDestroy
 * does; a primary context's last release does not). */
sim_status sim_ctx_destroy(sim_ctx *c, bool pop_current);
/* Primary reset: frees everything, the context stays usable. */
void sim_ctx_reset(sim_ctx *c);
/* Makes the context's error sticky (first one wins) unless it was reset
 * since epoch or is being destroyed; wakes all waiters. Returns whether
 * this call set the sticky error. When it does, and the context records
 * launches, the ground truth is brought up to date before the error is
 * visible to anyone: culprit (the faulting launch's slot, NULL when the
 * fault is not a launch's) is marked FAULTED / TIMED_OUT as the context's
 * poisoner, and every launch still queued in the context, which will never
 * run now, DISCARDED. */
bool sim_ctx_poison(sim_ctx *c, sim_status st, unsigned epoch, const sim_truth_slot *culprit);
/* A device fault of another context poisoned the process (sticky_scope
 * "process"): makes st c's sticky error, unless c has one or is being
 * destroyed, writing the truth first as sim_ctx_poison does (every launch
 * still queued in c DISCARDED; c has no culprit). Takes c's lock: the
 * caller holds no core lock. */
void sim_ctx_poison_bystander(sim_ctx *c, sim_status st);
/* The sticky error, SIM_ERR_CONTEXT_DESTROYED if destroyed, else the
 * process's sticky error (sim_process_sticky), SIM_OK if none. */
sim_status sim_ctx_health(const sim_ctx *c);
sim_ctx *sim_ctx_from_handle(uint64_t h);   /* retained or NULL */
/* The null stream, retained. */
struct sim_stream *sim_ctx_null_stream(sim_ctx *c);

/* ---- the process's sticky error (sim_process_poison.c) ------------------
 * Under "sticky_scope": "process" the first device fault whose sticky error
 * wins its context (sim_ctx_poison) poisons the whole simulated process, as
 * a real CUDA driver does: every other live context answers the error, and
 * creating or retaining a context answers it from then on, for the life of
 * the process. The order keeps the ground truth ahead of the error: claim,
 * poison the other contexts (each writes its truth before its error
 * shows), poison the culprit's context, publish. */
/* Whether the configuration in force has the process poisoned by a fault. */
bool sim_process_scope(void);
/* Claims the process's sticky error for st (a sticky status): true for the
 * first claim in the process only. */
bool sim_process_claim(sim_status st);
/* The claimed error, SIM_OK if none: what creating or retaining a context
 * answers. */
sim_status sim_process_claimed(void);
/* Poisons every live context except culprit with st (the claim's), one at a
 * time (sim_ctx_poison_bystander), with no lock held between them; contexts
 * registered after the claim refuse themselves (sim_ctx_create). */
void sim_process_poison_others(const sim_ctx *culprit, sim_status st);
/* Makes the claimed error every context's health from now on, whatever its
 * own sticky error (a primary context reset during the claim included). */
void sim_process_publish(sim_status st);
extern atomic_int sim_process_sticky_published SIM_HIDDEN;
/* The published process sticky error, SIM_OK if none (read by every health check). */
static inline sim_status sim_process_sticky(void)
{
    return (sim_status)atomic_load_explicit(&sim_process_sticky_published, memory_order_acquire);
}

/* Deep enough for any real program; pushing past it fails cleanly. */
#define SIM_STACK_MAX 64

struct sim_count_block;

/* The calling thread's state, in one TLS block so that an export reaches
 * all of it with one TLS lookup: the stack of current contexts (handles,
 * may be stale) and the face's call counters. */
typedef struct sim_thread {
    uint64_t top;                    /* stack[depth - 1], 0 if empty: read on every call */
    unsigned depth;
    struct sim_count_block *counts;  /* CUDA face: this thread's counters, NULL until its first call */
    uint64_t stack[SIM_STACK_MAX];
} sim_thread;
extern _Thread_local sim_thread sim_t SIM_HIDDEN;

sim_status sim_stack_push(uint64_t h);
sim_status sim_stack_pop(uint64_t *h);
/* The current context's handle, 0 if none. */
static inline uint64_t sim_stack_top(void)
{
    return sim_t.top;
}
void sim_stack_set_top(uint64_t h);         /* replace top, push if empty; 0 pops */
/* Current context, retained: INVALID_CONTEXT if none, CONTEXT_DESTROYED if stale. */
sim_status sim_ctx_current(sim_ctx **out);
/* Current context, retained, and not poisoned (else its sticky error). */
sim_status sim_ctx_enter(sim_ctx **out);

/* ---- memory ------------------------------------------------------------- */

typedef struct sim_alloc {
    uint64_t dptr;
    size_t size;
    size_t span;            /* bytes of host backing (page rounded) */
    size_t extent;          /* what kernels may touch: size rounded up to the device's
                             * allocation_granularity (<= span) */
    void *host;
    atomic_uint refs;
    sim_device *dev;
    uint64_t freed_clock;   /* 0 while live; else ops submitted before it still see it */
    unsigned pending_frees; /* streams that must pass the free before it is retired */
    bool module_data;       /* a module's variables: freed by its unload, not by cuMemFree */
    bool managed;           /* managed memory: dptr == host, the host uses it in place */
} sim_alloc;

/* When looking up from the host, now: freed allocations are invisible. */
#define SIM_CLOCK_NOW UINT64_MAX

sim_status sim_mem_alloc(sim_ctx *c, size_t bytes, uint64_t *dptr);
/* Managed memory (cuMemAllocManaged): like sim_mem_alloc (the same
 * accounting against the device's memory, refusals and table, freed by
 * sim_mem_free), but *dptr is the address of the host mapping holding the
 * bytes, so the host reads and writes the allocation at *dptr directly. */
sim_status sim_mem_alloc_managed(sim_ctx *c, size_t bytes, uint64_t *dptr);
sim_status sim_mem_free(sim_ctx *c, uint64_t dptr);
/* A device allocation for a module's variables (sim_module.c): like
 * sim_mem_alloc, but sim_mem_free refuses it (INVALID_VALUE); the module
 * frees it with sim_mem_free_module_data. *out: the allocation, retained. */
sim_status sim_mem_alloc_module_data(sim_ctx *c, size_t bytes, uint64_t *dptr, sim_alloc **out);
sim_status sim_mem_free_module_data(sim_ctx *c, uint64_t dptr);
/* Allocation containing dptr as seen by work submitted at clock, retained;
 * *offset = dptr - base. NULL if none. */
sim_alloc *sim_mem_find(sim_ctx *c, uint64_t dptr, uint64_t clock, size_t *offset);
/* sim_mem_find as a kernel's access sees memory: an allocation spans its
 * extent (its size rounded up to the device's allocation_granularity). */
sim_alloc *sim_mem_find_kernel(sim_ctx *c, uint64_t dptr, uint64_t clock, size_t *offset);
void sim_alloc_release(sim_alloc *a);
/* The live device allocation containing dptr in any context (device
 * addresses are unique in the process, as under UVA), retained, with its
 * context retained in *ctx; NULL if none. */
sim_alloc *sim_mem_find_any(uint64_t dptr, sim_ctx **ctx, size_t *offset);
/* Called by a stream worker when it passes a free op. */
void sim_mem_free_passed(sim_ctx *c, sim_alloc *a);
void sim_mem_free_all(sim_ctx *c);
/* Host pointer for [dptr, dptr+bytes) at clock, or NULL; *pin is the
 * retained allocation to release after use (NULL when the range is
 * page-locked host memory the device reaches, sim_host_device_access). */
void *sim_mem_map(sim_ctx *c, uint64_t dptr, size_t bytes, uint64_t clock, sim_alloc **pin);

sim_status sim_host_alloc(sim_ctx *c, size_t bytes, void **p);
/* Page-locked host memory that is also mapped for the device (CUDA's
 * CU_MEMHOSTALLOC_DEVICEMAP, HIP's hipHostMallocMapped). Its device address
 * is the host address (unified addressing, as on 64-bit CUDA and ROCm). */
sim_status sim_host_alloc_mapped(sim_ctx *c, size_t bytes, void **p);
/* Frees memory from sim_host_alloc*; INVALID_VALUE for anything else
 * (registered memory included). */
sim_status sim_host_free(void *p);
/* True when [p, p+bytes) lies in one page-locked allocation (registered
 * memory is not counted: it is staged like pageable memory). */
bool sim_host_contains(const void *p, size_t bytes);
/* Registers the program's [p, p+bytes) as page-locked for context c
 * (cuMemHostRegister), mapped for the device when mapped; dropped when c
 * is destroyed. INVALID_VALUE for NULL, 0 bytes or a wrapping range, for
 * a range overlapping page-locked memory sim_host_alloc* made, and with
 * *overlaps set when it overlaps only registered ranges; OUT_OF_MEMORY
 * when it cannot be recorded. */
sim_status sim_host_register(sim_ctx *c, void *p, size_t bytes, bool mapped, bool *overlaps);
/* Forgets the registration starting at p. INVALID_VALUE when p is inside
 * a registered range (not its start) or in memory sim_host_alloc* made;
 * NOT_FOUND when p is in no page-locked memory. */
sim_status sim_host_unregister(void *p);
/* The page-locked memory (allocated or registered) holding a byte at p,
 * for cuPointerGetAttribute: its range, the handle and device ordinal of
 * the context that made it, and whether the device reaches it (allocated,
 * or registered with the device-map flag). Copied under the lock: the
 * context may be destroyed right after. */
typedef struct sim_host_pointer {
    uint64_t base;
    size_t size;
    uint64_t ctx_handle;
    int device_ordinal;
    bool device_mapped;
} sim_host_pointer;
/* True and *out filled when p is in page-locked memory; false if not. */
bool sim_host_pointer_info(const void *p, sim_host_pointer *out);
/* The page-locked range a context of c's device reaches that contains
 * addr (sim_host_device_access's rule): true with its start and size. */
bool sim_host_device_range(sim_ctx *c, uint64_t addr, uint64_t *base, size_t *size);
/* [addr, addr + bytes) as a kernel of a context of c's device reaches it
 * through unified addressing: the host address itself when it lies in one
 * page-locked host allocation made for that device (with unified
 * addressing every page-locked allocation is device-accessible at its host
 * address, as on a 64-bit CUDA system) or in a range registered for it with
 * the device-map flag, else NULL. Freeing it while a
 * kernel still reads it is the caller's race, as on a GPU. */
void *sim_host_device_access(sim_ctx *c, uint64_t addr, size_t bytes);
/* The device address of host pointer p: SIM_OK only if [p, p+1) lies in a
 * mapped allocation of context c's device. */
sim_status sim_host_device_pointer(sim_ctx *c, const void *p, uint64_t *dptr);
/* True when [dptr, dptr+bytes) lies in a mapped host allocation usable by
 * context c (owned by a context on c's device). */
bool sim_host_mapped_contains(sim_ctx *c, uint64_t dptr, size_t bytes);
/* Stores `bytes` (4 or 8) of value at dptr if it lies in a mapped host
 * allocation, atomically (release), under the allocation lock so that a
 * concurrent free cannot pull the memory away; false if it does not. */
bool sim_host_mapped_store(uint64_t dptr, uint64_t value, unsigned bytes);
void sim_host_free_all(sim_ctx *c);

/* ---- streams, ops, events ----------------------------------------------- */

typedef enum sim_op_kind {
    SIM_OP_COPY_HTOD,
    SIM_OP_COPY_DTOH,
    SIM_OP_COPY_DTOD,
    SIM_OP_MEMSET,
    SIM_OP_LAUNCH,
    SIM_OP_RECORD,
    SIM_OP_WAIT,
    SIM_OP_FREE,
    SIM_OP_WRITE_VALUE,         /* a 4- or 8-byte store, in stream order */
    SIM_OP_HOST_CALL            /* a client's host function (sim_host_call) */
} sim_op_kind;

struct sim_event;
struct sim_launch;

/* A client's host function queued on a stream (cuStreamAddCallback,
 * cuLaunchHostFunc): the stream's worker calls run(), the face's
 * trampoline, once the stream's earlier work is done, in stream order. */
typedef struct sim_host_call {
    void (*run)(const struct sim_host_call *hc, sim_status health);
    void (*fn)(void);           /* the client's function; run() casts it back */
    void *user;                 /* the client's argument */
    uint64_t stream;            /* the stream handle the client named */
    bool despite_errors;        /* also run, with the error, once the context is
                                 * poisoned (a callback); otherwise skipped then */
} sim_host_call;

typedef struct sim_op {
    struct sim_op *next;
    sim_op_kind kind;
    uint64_t seq;           /* position in its stream */
    uint64_t clock;         /* position in its context */
    uint64_t ready_ns;      /* device time when it was submitted (sim_timeline.c) */
    union {
        struct { uint64_t dst, src; void *host; void *staged; size_t bytes; } copy;
        struct {
            uint64_t dst;
            unsigned char value;    /* elem 1: the byte */
            unsigned char elem;     /* bytes per element: 0 or 1 (value), 2 or 4 (pattern) */
            uint32_t pattern;       /* elem 2 or 4: the element, repeated */
            size_t bytes;
        } set;
        struct { uint64_t dst; uint64_t value; unsigned bytes; } write;
        struct sim_launch *launch;
        struct { struct sim_event *ev; uint64_t rec; } record;
        struct { struct sim_stream *target; uint64_t seq; } wait;
        sim_alloc *free;
        sim_host_call host;
    } u;
} sim_op;

typedef struct sim_stream {
    sim_obj obj;
    sim_ctx *ctx;               /* retained */
    bool is_null;
    bool blocking;              /* synchronizes with the null stream */
    bool per_thread;            /* a thread's per-thread default stream (blocking; the
                                 * ground truth names it CU_STREAM_PER_THREAD, 0x2);
                                 * set before the thread first submits to it */
    pthread_mutex_t run_lock;   /* fast mode: numbers and runs one op at a time */
    pthread_mutex_t qlock;
    pthread_cond_t qcv;
    sim_op *head, *tail;
    atomic_bool closing;        /* exit once the queue is empty (written under qlock) */
    atomic_ullong submitted;
    atomic_ullong completed;
    atomic_bool discard;        /* drop pending work, cancel the running launch */
    uint64_t truth_launches;    /* launches recorded on it since truth_generation (its
                                 * ground-truth positions); both under its context's
                                 * truth log lock */
    uint64_t truth_generation;
    atomic_ullong cursor_ns;    /* device time at which its latest op ended
                                 * (sim_timeline.c); written by whoever runs its ops */
} sim_stream;

#define SIM_STREAM_NON_BLOCKING 1u
/* The handle value that names the calling thread's per-thread default
 * stream (CU_STREAM_PER_THREAD): what the ground truth records for it. */
#define SIM_PER_THREAD_STREAM_VALUE 0x2u

sim_status sim_stream_create(sim_ctx *c, unsigned flags, bool is_null, sim_stream **out);
/* Returns at once; the worker exits after the pending work. */
void sim_stream_close(sim_stream *s);
/* Close and drop all pending work (context destroyed or reset); the
 * launches still queued are marked DISCARDED in the ground truth before it
 * returns. */
void sim_stream_abandon(sim_stream *s);
/* Marks the launches queued on s DISCARDED in the ground truth (they will
 * never run: the context is poisoned or abandoned). Takes the queue lock. */
void sim_stream_truth_discard_queued(sim_stream *s);
/* Queues op (takes ownership); applies legacy null-stream ordering. On
 * failure the op is freed. Returns op's sequence number or 0. In fast mode
 * the op runs on the calling thread before this returns. */
uint64_t sim_stream_submit(sim_stream *s, sim_op *op);
/* sim_stream_submit for a launch op, whose ground-truth record (when the
 * context records) is made under the queue lock as the op is queued, so
 * that acceptance order is queue order: SIM_OK, INVALID_HANDLE (the stream
 * is closing) or OUT_OF_MEMORY (no room for the record). Not fast mode. */
sim_status sim_stream_submit_launch(sim_stream *s, sim_op *op);
/* Fast mode only: takes the stream's next sequence number for work that is
 * already complete (a launch whose kernel is not run, an event record), as
 * if an op had been submitted and run. Returns it, or 0 if the stream is
 * closing. */
uint64_t sim_stream_submit_done(sim_stream *s);
/* Fast mode only: runs op, which the caller owns (e.g. on its stack) and
 * which holds no reference, as a submission would; returns its sequence
 * number, or 0 if the stream is closing. Saves the allocation of ops that
 * are submitted on hot paths (write-values). */
uint64_t sim_stream_run_inline(sim_stream *s, sim_op *op);
/* Queues a copy of *hc on s (in fast mode: runs it now, on this thread):
 * SIM_OK, INVALID_HANDLE (s is closing) or OUT_OF_MEMORY. A host call the
 * context's destroy or reset drops is never called. */
sim_status sim_stream_host_call(sim_stream *s, const sim_host_call *hc);
sim_op *sim_op_new(sim_op_kind kind);
void sim_op_free(sim_op *op);
/* ---- device time (sim_timeline.c) ---------------------------------------
 * The clock events read and a PTX launch's %globaltimer starts from: the
 * wall clock while the device idles, the simulated time of its work. */
/* The device time s's next op would start at if it were submitted now. */
uint64_t sim_timeline_now(const sim_stream *s);
/* Stamps op, as it is submitted on s, with the device time it is ready at. */
void sim_timeline_submitted(const sim_stream *s, sim_op *op);
/* The device time op starts at on s: once s's earlier work has ended and
 * not before op was submitted. Called by whoever runs s's ops. */
uint64_t sim_timeline_start(const sim_stream *s, const sim_op *op);
/* An op of s ended at device time end_ns: s's next op starts no earlier,
 * and the device's clock has reached it. Called by whoever runs s's ops. */
void sim_timeline_ended(sim_stream *s, uint64_t end_ns);
/* sim_timeline_ended for an op that took no device time and started at
 * at_ns, a time device time has already reached: only s's cursor moves. */
void sim_timeline_reached(sim_stream *s, uint64_t at_ns);
/* CLOCK_MONOTONIC in ns: the device time of work that runs in real time
 * (copies do not count; C-function kernels and misbehave rules do). */
uint64_t sim_wall_ns(void);

sim_status sim_stream_query(sim_stream *s);
sim_status sim_stream_sync(sim_stream *s);
/* Waits until op seq has run or been discarded, even in a poisoned context
 * (a synchronous copy must not return while the worker still touches the
 * caller's buffer); returns the context's health. */
sim_status sim_stream_finish(sim_stream *s, uint64_t seq);
/* Waits for every stream of the context. */
sim_status sim_ctx_sync(sim_ctx *c);

typedef struct sim_event {
    sim_obj obj;
    sim_ctx *ctx;               /* retained */
    bool timing;
    pthread_mutex_t lock;       /* last_stream/last_seq/when */
    atomic_ullong records;      /* records issued */
    atomic_ullong done;         /* highest record number completed */
    uint64_t when_ns;           /* device time of the latest completed record */
    sim_stream *last_stream;    /* retained */
    uint64_t last_seq;
} sim_event;

#define SIM_EVENT_DISABLE_TIMING 2u

sim_status sim_event_create(sim_ctx *c, unsigned flags, sim_event **out);
sim_status sim_event_record(sim_event *e, sim_stream *s);
sim_status sim_event_query(sim_event *e);
sim_status sim_event_sync(sim_event *e);
sim_status sim_event_elapsed(sim_event *a, sim_event *b, float *ms);
sim_status sim_stream_wait_event(sim_stream *s, sim_event *e);
/* Record number rec of e was reached, at device time when_ns. */
void sim_event_complete(sim_event *e, uint64_t rec, uint64_t when_ns);

/* ---- modules and launches ----------------------------------------------- */

struct ptx_module;
struct ptx_kernel;

typedef struct sim_module {
    sim_obj obj;
    void *dl;                   /* a shared object of host C kernels, or NULL */
    struct ptx_module *ptx;     /* PTX text, decoded (src/sim/ptx), or NULL */
    /* A PTX module's .global/.const bytes as a device allocation of its
     * context (sim_module.c says why): its address (0: the module has no
     * such variables) and the allocation, retained until the module is
     * freed because ptx->data points into it. */
    uint64_t data_dptr;
    sim_alloc *data_alloc;
    int ptx_version;            /* .version major*10+minor; 0: not PTX */
    unsigned max_registers;     /* the CU_JIT_MAX_REGISTERS it was linked with; 0: none */
    pthread_mutex_t lock;
    struct sim_function **fns;  /* handed out, so the same name gives the same handle */
    size_t nfns, capfns;
} sim_module;

typedef struct sim_function {
    sim_obj obj;
    sim_module *mod;            /* retained: keeps the code mapped */
    gg_sim_kernel_fn fn;        /* a host C kernel, or NULL for a PTX kernel */
    const struct ptx_kernel *ptx; /* a PTX kernel of mod->ptx, or NULL */
    unsigned nparams;
    const unsigned *sizes;
    const unsigned *aligns;     /* a PTX kernel's declared alignments; NULL: guessed (sim_function_param_offset) */
    size_t param_bytes;         /* bytes of the copied-parameter buffer */
    char *name;                 /* owned; any length (numba's mangled names pass 200) */
    void *face_state;           /* the CUDA face's settings of the function
                                 * (sim_cuda_legacy.c), freed with it */
} sim_function;

sim_status sim_module_load_path(sim_ctx *c, const char *path, sim_module **out);
/* Loads a module image (PTX text, a fatbin or cubin with PTX, an ELF
 * shared object, "gg-sim-module:<path>"). jit_max_registers: the
 * CU_JIT_MAX_REGISTERS the load was given (0: none), which bounds the
 * NUM_REGS of a PTX module's kernels (sim_function_register_bound) unless
 * the image carries its own cap (SIM_JIT_MAX_REGISTERS_LINE). */
sim_status sim_module_load_data(sim_ctx *c, const void *image, unsigned jit_max_registers, sim_module **out);
sim_status sim_module_unload(sim_module *m);
sim_status sim_module_function(sim_module *m, const char *name, sim_function **out);
/* A PTX module's .global or .const variable called name: its device
 * address and size. NOT_FOUND when the module has none of that name (or
 * is not PTX). */
sim_status sim_module_global(sim_module *m, const char *name, uint64_t *dptr, size_t *bytes);
/* Where parameter index of f sits in a CUDA parameter buffer (the `extra`
 * form of a launch, cuParamSetv, cuFuncGetParamInfo): each parameter at
 * the next multiple of its alignment. A PTX kernel's alignments are the
 * declared ones (.param .align N); a host C kernel's are guessed from the
 * size: the largest power of two up to 16 dividing it. index < f->nparams. */
size_t sim_function_param_offset(const sim_function *f, unsigned index);

/* What cuFuncGetAttribute reports of a kernel's resources. */
typedef struct sim_function_info {
    bool is_ptx;                /* false: a host C kernel (all below 0) */
    unsigned max_threads;       /* .maxntid / .reqntid product; 0: not declared */
    unsigned static_shared;     /* static .shared bytes: its own and the module scope's */
    unsigned const_bytes;       /* the module's .const variables' bytes */
    unsigned local_bytes;       /* .local bytes per thread */
    unsigned nregs;             /* registers per thread (sim_function_get_info) */
    int ptx_version;            /* .version as major*10+minor */
} sim_function_info;
/* Registers a thread may use on every CUDA architecture since compute 3.5:
 * a real driver's NUM_REGS never exceeds it. */
#define SIM_MAX_REGISTERS_PER_THREAD 255u
/* The smallest CU_JIT_MAX_REGISTERS ptxas honours (a smaller one is raised
 * to it): 24 on every architecture from sm_75 to sm_120 (ptxas 13.0, and
 * the H100's driver: docs/DRIVER-FACTS.md, "Register caps"). */
#define SIM_MIN_REGISTER_CAP 24u
/* NUM_REGS of a function: its virtual registers, bounded by .maxnreg when
 * the PTX declares one (0: none; it wins over the JIT option), else by
 * CU_JIT_MAX_REGISTERS (0: none), each raised to SIM_MIN_REGISTER_CAP and
 * ignored above SIM_MAX_REGISTERS_PER_THREAD, which bounds it always. An
 * upper bound on what ptxas allocates, which the simulator does not model. */
unsigned sim_function_register_bound(unsigned virtual_registers, unsigned maxnreg, unsigned jit_max_registers);
/* The first line cuLinkComplete gives a linked image when the link had
 * CU_JIT_MAX_REGISTERS (followed by the value and a newline): a PTX
 * comment, so the image stays PTX, that carries the cap to the module
 * loaded from it, as a real cubin carries its kernels' register counts. */
#define SIM_JIT_MAX_REGISTERS_LINE "// gpuguard simulated driver: CU_JIT_MAX_REGISTERS "
/* What cuFuncGetAttribute reports of f: nregs is
 * sim_function_register_bound of the slots its .reg declarations take, its
 * .maxnreg and the module's CU_JIT_MAX_REGISTERS: a bound the registers a
 * real ptxas allocates also respect, not that number (not modelled). */
void sim_function_get_info(const sim_function *f, sim_function_info *out);
/* Whether len bytes of PTX text would load (the JIT linker checks each
 * input as it is added, then their concatenation): SIM_OK, or
 * INVALID_IMAGE with the parser's "PTX line N: ..." as the detail, or
 * "PTX: \"name\" is defined twice" for a kernel or variable name defined
 * twice. link_input: one input of a link, which may be a library without
 * .entry and may call functions another input defines (checked when the
 * link completes). */
sim_status sim_module_check_ptx(const char *text, size_t len, bool link_input);

typedef struct sim_launch_desc {
    sim_function *fn;
    gg_sim_dim3 grid, block;
    unsigned shared_bytes;
    void **params;
} sim_launch_desc;

/* Validates and queues a launch on s. */
sim_status sim_launch_submit(sim_stream *s, const sim_launch_desc *d);
/* Runs a launch on the stream worker, starting at device time start_ns;
 * poisons the context on a fault. Returns how much device time it took:
 * a PTX kernel's simulated time (sim_timeline.c), else the wall-clock time
 * it ran. */
uint64_t sim_launch_run(sim_stream *s, struct sim_launch *l, uint64_t clock, uint64_t start_ns);
/* Frees a launch; one accepted and never ended is marked DISCARDED first. */
void sim_launch_free(struct sim_launch *l);
/* Ground truth of a launch op being queued (called under the queue lock):
 * makes its record. SIM_OK or OUT_OF_MEMORY. */
sim_status sim_launch_truth_accept(struct sim_launch *l);
/* The launch will never run (discarded by its worker, or still queued when
 * its context was poisoned, destroyed or reset): marks it DISCARDED. */
void sim_launch_truth_discard(struct sim_launch *l);

/* ---- ground truth of launches (sim_truth.c) ------------------------------ */

/* A log for context c when the configuration records launches (else
 * c->truth stays NULL): SIM_OK or OUT_OF_MEMORY. Before registration. */
sim_status sim_truth_attach(sim_ctx *c);
/* Makes c's log findable by c's handle (after registration). */
void sim_truth_publish(sim_ctx *c);
/* c is being freed: its log stays readable until gg_sim_truth_reset. */
void sim_truth_detach(sim_ctx *c);
/* Records a launch accepted on s (under s's queue lock): number, stream
 * handle (0 for the null stream), position on the stream, kernel and the
 * misbehaviour it got; QUEUED. *slot says where (log NULL: not recording). */
sim_status sim_truth_accept(sim_stream *s, const char *kernel, sim_mb_action misbehaviour,
                            sim_truth_slot *slot);
/* QUEUED -> RUNNING, with the start time. */
void sim_truth_started(const sim_truth_slot *slot);
/* QUEUED or RUNNING -> state (COMPLETED, FAULTED, TIMED_OUT, DISCARDED:
 * gg_sim_launch_state), with the end time, the core status of a fault and
 * whether it poisoned the context. A record already ended is left alone. */
void sim_truth_ended(const sim_truth_slot *slot, int state, sim_status error, bool poisoned);
/* Copies the records of the context whose handle is context_handle (see
 * gg_sim_truth_launches); face_error numbers a core status as the face does. */
unsigned long long sim_truth_copy(uint64_t context_handle, gg_sim_launch_truth *out,
                                  unsigned long long max, int (*face_error)(sim_status));
/* Forgets every record (gg_sim_truth_reset). */
void sim_truth_reset(void);

#endif /* GG_SIM_CORE_H */
