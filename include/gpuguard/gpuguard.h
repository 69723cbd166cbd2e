/** @page contract The contract every function keeps
 *
 * gpuguard — GPU programs that survive what GPUs do to them.
 *
 * One small C API over the CUDA Driver API and the HIP runtime (both loaded at
 * run time) and over gpuguard's simulated driver (gpuguard/gpuguard.h).
 *
 * Contract shared by every function below:
 *   - It never calls abort() or exit(), and never prints: messages go to the
 *     log callback given to gg_init (silent by default).
 *   - It returns a gg_status (GG_OK is 0). On failure, gg_last_error() gives
 *     this thread's details: the native driver code and name, the gg call, the
 *     driver call, the context/stream and, for a dead context, the culprit.
 *   - Handles are struct-wrapped 64-bit ids; id 0 is invalid. A stale, forged
 *     or wrong-type id is refused with GG_INVALID_HANDLE, never followed.
 *   - Every call that works on an object makes that object's context current
 *     for its driver calls and restores the caller's current context before
 *     it returns, on success and on error.
 *   - In a DEAD context every call fails fast with GG_CONTEXT_DEAD and makes
 *     no driver call; in a child process after fork() calls fail with
 *     GG_FORKED and make no driver call.
 *   - Every function is thread-safe. A call that uses an object keeps it
 *     alive until it returns: a destroy of that object by another thread
 *     waits for the call, or the call fails with GG_INVALID_HANDLE (a wait
 *     gives up with it as soon as its object is destroyed); no call ever
 *     acts on another object than its id names. Destroying an object
 *     twice, from any number of threads, is harmless. A context's destroy
 *     revokes its children's ids and its own in one step: a call on a
 *     child racing it answers with the child as it was (its context's
 *     real id, never 0) or finds the child gone (GG_INVALID_HANDLE), never
 *     half-destroyed. Once any destroy call returns GG_OK, the id it was
 *     given is gone for every thread (also when another thread's context
 *     destroy released the object).
 *   - gg_shutdown racing other calls: they either finish before it releases
 *     anything or fail with GG_NOT_INITIALIZED.
 *   - exit() in one thread while others are inside gpuguard: no call
 *     returns a result the exit made. A call either finishes as it would
 *     have without the exit or blocks until the process ends (a wait the
 *     exit would end; any call begun after the exit began); nothing a busy
 *     thread holds is released under it. The exiting thread's own later
 *     calls (later atexit handlers, destructors) fail with
 *     GG_NOT_INITIALIZED naming the exit.
 *   - A child forked while other threads are inside gpuguard can call every
 *     function (each fails with GG_FORKED, or is a silent release for
 *     destroys) and exit without blocking.
 *
 * Contracts below say, per function, what bad input returns; "a gone id"
 * is an id whose object was destroyed (GG_INVALID_HANDLE, the message
 * saying how it went), "a wrong id" one of another kind, forged or 0.
 *
 * Names (one vocabulary for every kind of object, since 0.3):
 *   - Objects are made by gg_<kind>_create (a new native object:
 *     gg_buffer_create, gg_module_create_from_file / _from_data,
 *     gg_kernel_create) or gg_<kind>_adopt (a handle over a native object
 *     the caller made), and ended by gg_<kind>_destroy, for every kind.
 *     There is no alloc/free, load/unload or get/release pair. gg_free is
 *     not an object's end: it frees memory the library returned (the JSON
 *     strings of gg_objects_json and gg_fault_counts_json), as free() does.
 *   - Queries are bare nouns, gg_<kind>_<noun> (gg_buffer_size,
 *     gg_context_state, gg_config): never "get". A query that can fail
 *     writes an out parameter and returns gg_status; one that cannot
 *     (gg_context_state, gg_backend_name, gg_status_name) returns the value.
 *     A query's noun is never its output struct's name: a function and a
 *     typedef cannot share a name in C, so the query that fills a
 *     gg_device_info is gg_device_properties (not gg_device_info).
 *   - Setters are gg_<kind>_set_<noun> (gg_context_set_watchdog,
 *     gg_kernel_set_chunking, gg_fault_set_plan).
 *   - Actions are verbs: gg_<kind>_<verb> (gg_event_record,
 *     gg_context_recover, gg_launch, gg_memcpy_htod); _query is the
 *     non-blocking poll of what _synchronize waits for.
 *   - Waits: one function per kind, gg_<kind>_synchronize(obj, wait), where
 *     wait is a const gg_wait_desc * (NULL: the library's deadline and
 *     timeout policy; GG_WAIT_MS(ms): a deadline of ms milliseconds).
 *   - Types are gg_ and lower-case words with no _t suffix; constants and
 *     macros GG_ and upper case; names with two underscores (gg__, GG__)
 *     are the library's own.
 *
 * Structs that grow (the ABI, since 0.3). Every struct passed by pointer
 * (the descs and infos) begins with uint32_t struct_size, set by its
 * initialiser macro (GG_<NAME>_INIT: gg_context_desc d =
 * GG_CONTEXT_DESC_INIT;) to sizeof as the program was built. New fields
 * are only ever added at the end, so the size says which fields the
 * program knows. The model is the Linux kernel's extensible syscall
 * structs (clone3, openat2): size-versioned, zero means the default.
 *   - An input struct (a desc) from an older program (struct_size smaller
 *     than this library's) is read as far as it goes; the fields past it
 *     are zero, the defaults. From a newer program (larger), every byte
 *     past this library's struct must be zero, else the call fails with
 *     GG_UNSUPPORTED naming the struct and the first nonzero byte (the
 *     program asks for something this library does not have).
 *   - An output struct (an info) is written up to struct_size and no
 *     further: an older program gets the fields it knows; a newer one gets
 *     zeros past this library's fields.
 *   - struct_size 0 (a struct zero-initialised without its macro) is
 *     refused with GG_INVALID_ARGUMENT naming the struct and the macro; so
 *     is 1 to 3 (too small to hold struct_size itself). A NULL desc still
 *     means all defaults where the function says so. Any other size is
 *     believed: an uninitialised struct_size makes the library read or
 *     write that many bytes (use the macro, or sizeof).
 *   - Value types (handles, gg_dim3) and structs held inside another by
 *     value (gg_culprit in gg_error_info, gg_culprit_candidate in
 *     gg_culprit's array) carry no size: they never travel alone through a
 *     pointer, so their layout is frozen; new information goes into a new
 *     field at the end of the struct that holds them.
 * Why not sokol's way (zero-initialised descs, a canary at both ends, one
 * header compiled into the program): sokol has no ABI across builds, its
 * library is rebuilt with every program; gpuguard is a shared library that
 * programs built against an older header must keep loading. Why not
 * libuv's (reserved fields, opaque handles allocated by the library): a
 * reserved array is a guess at how much will be added, spent once and
 * then a break; opaque descs would need an allocation and a setter per
 * field for what is a plain argument list. A size field costs four bytes,
 * one comparison per call and no guess, and refuses what it cannot serve
 * (a newer program's nonzero field) instead of ignoring it.
 *
 * Versions: GG_VERSION_MAJOR/MINOR/PATCH and GG_VERSION_STRING (from
 * gpuguard/version.h, generated from CMake's project(VERSION)) say which
 * header a program was built with; gg_version() and gg_version_string()
 * which library it runs with. While the major version is 0 every minor
 * version may break the ABI, so the soname carries major.minor
 * (libgpuguard.so.0.3): a 0.2 program never loads 0.3.
 */
#ifndef GPUGUARD_GPUGUARD_H
#define GPUGUARD_GPUGUARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(GG_STATIC_BUILD)
#define GG_API __attribute__((visibility("default")))
#else
#define GG_API
#endif

#include "gpuguard/version.h" /* GG_VERSION_MAJOR, _MINOR, _PATCH, _STRING: generated by CMake */

/** GG_VERSION_MAJOR, _MINOR and _PATCH in one number, as gg_version() gives it. */
#define GG_VERSION_NUMBER(major, minor, patch) \
    (((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8) | (uint32_t)(patch))

/** The initialiser of a struct that grows (see "Structs that grow"):
 * struct_size set, every other field zero. In C a designated initialiser;
 * C++ (before C++20) has none, and a braced first value alone draws
 * -Wmissing-field-initializers, so there a value-initialised struct is
 * returned with its size set. */
#ifdef __cplusplus
extern "C++" {
template <typename T> static inline T gg__struct_init(void)
{
    T value = T();
    value.struct_size = (uint32_t)sizeof(T);
    return value;
}
}
#define GG__STRUCT_INIT(type) gg__struct_init<type>()
#else
#define GG__STRUCT_INIT(type) { .struct_size = (uint32_t)sizeof(type) }
#endif

/** The version of the library running (not of the header the program was
 * built with: see GG_VERSION_NUMBER): (major << 16) | (minor << 8) | patch.
 * Needs no gg_init; thread-safe; records no error. */
GG_API uint32_t gg_version(void);
/** The version of the library running as text, "0.3.0". A static string;
 * needs no gg_init; thread-safe; records no error. */
GG_API const char *gg_version_string(void);

/* ------------------------------------------------------------------------ */
/* Statuses. Add-only: new statuses go last, numbers never change.          */
/* ------------------------------------------------------------------------ */

#define GG_STATUS_LIST(X)                                                        \
    X(OK, 0, "success")                                                          \
    X(INVALID_ARGUMENT, 1, "an argument is invalid")                             \
    X(INVALID_HANDLE, 2, "the handle is stale, forged or of the wrong type")     \
    X(WRONG_CONTEXT, 3, "objects from two different contexts were mixed")        \
    X(NOT_INITIALIZED, 4, "gg_init has not been called")                         \
    X(NO_DRIVER, 5, "no usable GPU driver library was found")                    \
    X(NO_DEVICE, 6, "the driver reports no usable device")                       \
    X(OUT_OF_MEMORY, 7, "out of device or host memory")                          \
    X(NOT_READY, 8, "work is still pending")                                     \
    X(TIMEOUT, 9, "a host-side wait passed its deadline")                        \
    X(LAUNCH_TIMEOUT, 10, "the watchdog killed a kernel that ran too long")      \
    X(LAUNCH_FAILED, 11, "a kernel launch failed on the device")                 \
    X(ILLEGAL_ADDRESS, 12, "a kernel or copy touched an illegal address")        \
    X(CONTEXT_DEAD, 13, "the context died earlier; see gg_context_death")        \
    X(FORKED, 14, "GPU objects cannot be used in a child after fork(); use spawn") \
    X(CANCELLED, 15, "the operation was cancelled by the caller")                \
    X(WATCHDOG_RISK, 16, "launch refused: it would overrun the watchdog")        \
    X(UNSUPPORTED, 17, "the operation is not supported by this backend")         \
    X(DRIVER, 18, "the driver reported an error (see the native code)")          \
    X(ALREADY_INITIALIZED, 19, "gg_init was already called")                     \
    X(BUSY, 20, "the object is in use by another operation")                     \
    X(INTERNAL, 21, "internal error in gpuguard")                                \
    X(PROCESS_POISONED, 22, "a sticky error reached the whole process: only a new process can use the GPU")

/** What every call returns: GG_OK (0) or why it failed (the list above,
 * with each status's message; gg_status_name, gg_status_string). */
typedef enum gg_status {
#define GG__STATUS_ENUM(name, num, msg) GG_##name = num,
    GG_STATUS_LIST(GG__STATUS_ENUM)
#undef GG__STATUS_ENUM
    GG__STATUS_COUNT
} gg_status;

/** The status's name, "GG_CONTEXT_DEAD"-style; "GG_UNKNOWN_STATUS" for a
 * number not in the list. Never NULL, a static string. Needs no gg_init;
 * thread-safe; records no error. */
GG_API const char *gg_status_name(gg_status status);
/** The status's one-line human message; "unknown status" for a number not
 * in the list. Never NULL, a static string. Needs no gg_init; thread-safe;
 * records no error. */
GG_API const char *gg_status_string(gg_status status);

/* ------------------------------------------------------------------------ */
/* Handles                                                                  */
/* ------------------------------------------------------------------------ */

/** A context: a device's address space and work queues (gg_context_create). */
typedef struct gg_context { uint64_t id; /**< 0: none */ } gg_context;
/** A stream: a queue of work in a context, run in order (gg_stream_create). */
typedef struct gg_stream { uint64_t id; /**< 0: none (GG_NO_STREAM, the default stream) */ } gg_stream;
/** An event: a point in a stream's work, for waits and timing (gg_event_create). */
typedef struct gg_event { uint64_t id; /**< 0: none */ } gg_event;
/** A buffer: device or pinned host memory (gg_buffer_create). */
typedef struct gg_buffer { uint64_t id; /**< 0: none */ } gg_buffer;
/** A module: loaded device code (gg_module_create_from_file, gg_module_create_from_data). */
typedef struct gg_module { uint64_t id; /**< 0: none */ } gg_module;
/** A kernel: one function of a module (gg_kernel_create). */
typedef struct gg_kernel { uint64_t id; /**< 0: none */ } gg_kernel;

/** The null stream: in a call, "the context's default stream". A value of
 * type gg_stream with id 0, valid in C (a compound literal) and in C++
 * (a value-initialised temporary). */
#ifdef __cplusplus
#define GG_NO_STREAM (gg_stream())
#else
#define GG_NO_STREAM ((gg_stream){0})
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

/* Names and tags keep GG_NAME_MAX - 1 bytes and a terminator: a longer
 * tag is truncated (always terminated); a longer fault-plan kernel filter
 * is refused naming the bound. A kernel name longer than that (numba's and
 * C++ templates' mangled names pass 200 bytes) is shortened where a record
 * has GG_NAME_MAX bytes for it (culprits): its first
 * GG_NAME_SHORT_PREFIX bytes, '~', and 16 hex digits of a 64-bit FNV-1a
 * hash of the whole name. No kernel name has a '~' (PTX and C identifiers
 * cannot), so a shortened name is never another kernel's whole name; two
 * names share a shortened form only if they share the prefix and the hash
 * collides (about one chance in 2^64 per pair). gg_kernel_full_name
 * gives the whole name back. Messages keep GG_MESSAGE_MAX - 1 bytes,
 * truncated and terminated. (Crossed by tests/core/test_bounds.c.) */
#define GG_NAME_MAX 64
#define GG_MESSAGE_MAX 512
#define GG_NAME_SHORT_PREFIX 45

/** How sure the culprit is. Certainty is a proof: EXACT only when no other
 * launch can have failed; a launch is named only from its own record. */
typedef enum gg_attribution {
    GG_ATTRIBUTION_NONE = 0,   /**< no launch is blamed: the error is not from a launch, or
                                    launches gpuguard cannot judge may be to blame (another gg
                                    context's on the same native context: HIP has one per
                                    device, a primary context is everyone's; with sticky errors
                                    that reach the whole process (CUDA), any other gg context's;
                                    the message says whose) */
    GG_ATTRIBUTION_EXACT = 1,  /**< exactly one launch could have failed */
    GG_ATTRIBUTION_WINDOW = 2  /**< one of several unobserved launches failed, or one whose
                                    record was overwritten (see gg_culprit) */
} gg_attribution;

/** One suspect launch: with completion timelines, the first unfinished
 * launch of one stream. kernel_name "" and sequence 0: a launch whose
 * record was overwritten (more launches were queued behind it than
 * GPUGUARD_LAUNCH_RECORDS keeps): located on its stream, name and number
 * unknown (the number is given, with the name "", when the records kept
 * after it prove it). */
typedef struct gg_culprit_candidate {
    char kernel_name[GG_NAME_MAX]; /**< the launch's kernel ("" when its record was overwritten) */
    gg_stream stream;              /**< 0 = the default stream (or a destroyed stream's id) */
    uint64_t sequence;             /**< its launch sequence number (1-based, per context; 0: unknown) */
} gg_culprit_candidate;

/* Candidates listed in a gg_culprit (80 bytes each); candidate_count is
 * whole, and the message says how many more there were (crossed by
 * tests/core/test_bounds.c). */
#define GG_CULPRIT_CANDIDATES_MAX 4

/** The launch blamed for a context's death (gg_error_info::culprit,
 * gg_context_death). */
typedef struct gg_culprit {
    gg_attribution certainty;      /**< how sure: NONE, EXACT or WINDOW */
    char kernel_name[GG_NAME_MAX]; /**< suspect: EXACT the culprit; WINDOW the oldest suspect
                                        ("" when its record was overwritten) */
    gg_stream stream;              /**< stream of the suspect (0 = default stream) */
    uint64_t sequence;             /**< launch sequence number of the suspect (1-based, per context;
                                        0: unknown, its record overwritten) */
    uint64_t window_first;         /**< WINDOW: bounds proven for the suspects' sequence numbers
                                        (a suspect whose record was overwritten widens them) */
    uint64_t window_last;          /**< WINDOW: the last of those bounds */
    uint32_t window_count;         /**< number of candidate launches (1 when EXACT) */
    /** With completion timelines, the first unfinished launch of each stream
     * that had one (EXACT: exactly one stream did); the first
     * GG_CULPRIT_CANDIDATES_MAX of candidate_count are listed. 0 without
     * timelines. */
    uint32_t candidate_count;
    gg_culprit_candidate candidates[GG_CULPRIT_CANDIDATES_MAX]; /**< the listed candidates */
} gg_culprit;

/** A thread's last failure, in full (gg_last_error). */
typedef struct gg_error_info {
    uint32_t struct_size; /**< sizeof(gg_error_info) as the caller was built: GG_ERROR_INFO_INIT sets it */
    gg_status status;                  /**< what the failed call returned (GG_OK: nothing failed yet) */
    int32_t native_code;               /**< the driver's own code; 0 when none */
    const char *native_name;           /**< e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"; "" when none */
    const char *gg_call;               /**< e.g. "gg_stream_synchronize" */
    const char *driver_call;           /**< e.g. "cuStreamQuery"; "" when none */
    gg_context context;                /**< the context and stream the call was on, */
    gg_stream stream;                  /**< 0 when none: their ids also when a destroy
                                            racing the call made it give up */
    gg_culprit culprit;                /**< for a dead context: the launch blamed */
    char message[GG_MESSAGE_MAX];      /**< what happened, in words (a copy) */
} gg_error_info;
/** A gg_error_info with struct_size set and every other field zero (the defaults). */
#define GG_ERROR_INFO_INIT GG__STRUCT_INIT(gg_error_info)

/** Copies this thread's last failure into *info: the last call of this
 * thread that failed, whatever succeeded since. GG_OK (status GG_OK in
 * *info when nothing failed yet); info NULL: GG_INVALID_ARGUMENT (and the
 * record is left as it was). The strings in *info are static or live until
 * gg_shutdown; message is a copy. Needs no gg_init; per thread, so
 * thread-safe. */
GG_API gg_status gg_last_error(gg_error_info *info);

/* ------------------------------------------------------------------------ */
/* Library                                                                  */
/* ------------------------------------------------------------------------ */

/** How much the library says through the log callback (gg_init_desc). */
typedef enum gg_log_level {
    GG_LOG_OFF = 0,   /**< nothing */
    GG_LOG_ERROR = 1, /**< errors only */
    GG_LOG_WARN = 2,  /**< warnings and errors */
    GG_LOG_INFO = 3,  /**< information, warnings and errors */
    GG_LOG_DEBUG = 4  /**< everything, debugging detail included */
} gg_log_level;

/* Called for each message at or below the configured level. `object_id` is
 * the handle concerned (0 if none). Must not call back into gpuguard. */
typedef void (*gg_log_fn)(void *user, gg_log_level level, uint64_t object_id,
                          const char *message);

/** What cleanup in a dead context says about the driver calls it skips. */
typedef enum gg_cleanup_policy {
    GG_CLEANUP_DEFAULT = 0,  /**< = WARN_ONCE */
    GG_CLEANUP_SILENT = 1,   /**< skipped driver calls are not mentioned */
    GG_CLEANUP_COUNTED = 2,  /**< counted (gg_context_skipped_cleanups), logged at debug */
    GG_CLEANUP_WARN_ONCE = 3 /**< one warning per context summarising what was skipped */
} gg_cleanup_policy;

/** What a launch that may overrun the display watchdog does. */
typedef enum gg_watchdog_policy {
    GG_WATCHDOG_DEFAULT = 0, /**< = AUTO_CHUNK */
    GG_WATCHDOG_AUTO_CHUNK = 1, /**< chunk chunkable kernels, refuse risky others */
    GG_WATCHDOG_REFUSE = 2,     /**< refuse risky launches, never chunk implicitly */
    GG_WATCHDOG_ALLOW = 3       /**< launch as asked */
} gg_watchdog_policy;

/** What a passed wait deadline does. The library's policy (gg_init_desc,
 * GPUGUARD_TIMEOUT_POLICY=kill|return) applies to every wait; one wait can
 * choose otherwise through its gg_wait_desc (wait->on_timeout). */
typedef enum gg_timeout_policy {
    GG_TIMEOUT_DEFAULT = 0,       /**< the library's policy (whose default is KILLS_CONTEXT) */
    GG_TIMEOUT_KILLS_CONTEXT = 1, /**< a passed wait deadline marks the context DEAD: the
                                       work is presumed hung, and a hung queue cannot be
                                       cancelled on GPUs */
    GG_TIMEOUT_RETURNS = 2        /**< only the wait fails (GG_TIMEOUT); the context stays
                                       ALIVE and the work goes on: for polling */
} gg_timeout_policy;

/** Exact culprits from completion timelines: after each launch the device
 * writes the launch's number into host memory, in stream order (a stream
 * memory operation), so a dead context shows which launch on each stream
 * never completed. */
typedef enum gg_timeline_mode {
    GG_TIMELINE_AUTO = 0, /**< on where the device reports stream memory operations */
    GG_TIMELINE_ON = 1,   /**< on wherever the driver has the calls, whatever the device reports */
    GG_TIMELINE_OFF = 2   /**< never: culprits come from what was observed complete */
} gg_timeline_mode;

/** gg_init's settings (GG_INIT_DESC_INIT: zero means the default). */
typedef struct gg_init_desc {
    uint32_t struct_size; /**< sizeof(gg_init_desc) as the caller was built: GG_INIT_DESC_INIT sets it */
    const char *backend;        /**< "auto" (NULL), "cuda", "hip", "sim", "sim-hip" */
    const char *cuda_library;   /**< path to libcuda.so.1 (or the simulator) */
    const char *hip_library;    /**< path to libamdhip64.so */
    gg_log_fn log_fn;           /**< the log callback; NULL: no messages */
    void *log_user;             /**< passed to log_fn as is */
    gg_log_level log_level;     /**< 0 = OFF unless log_fn set, then WARN */
    uint32_t wait_timeout_ms;   /**< default deadline of waits; 0 = 10000 */
    gg_cleanup_policy cleanup;  /**< what cleanup in a dead context reports */
    gg_timeout_policy timeout_policy; /**< what a passed wait deadline does */
    gg_watchdog_policy watchdog; /**< what a launch that may overrun the watchdog does */
    uint32_t watchdog_budget_ms; /**< 0 = 2000 (Windows TDR's default) */
    bool sync_launches;         /**< synchronize after every launch (exact attribution) */
    const char *fault_plan_json; /**< a fault plan (JSON text) to inject; NULL: none */
    gg_timeline_mode timeline;  /**< completion timelines (GPUGUARD_TIMELINE) */
    /** Never read: the 4 bytes of tail padding the struct had before the
     * members below were added (a caller built then counts them in its
     * struct_size, holding whatever its padding held). */
    uint32_t reserved_tail_0_3_0;
    /** Mark every Nth launch of a stream, 1 to GG_TIMELINE_STRIDE_MAX
     * (GPUGUARD_TIMELINE_STRIDE); 0: 1 with GG_TIMELINE_ON, measured with
     * GG_TIMELINE_AUTO (gg_timeline_info). Above 1 a culprit is a WINDOW of
     * at most N launches per stream. Not with GG_TIMELINE_OFF. */
    uint32_t timeline_stride;
    /** GG_TIMELINE_AUTO: the most a launch's completion mark may cost, in
     * percent of the launch's own host time, before auto marks fewer
     * launches (GPUGUARD_TIMELINE_BUDGET, 1 to 10000); 0 = 50. */
    uint32_t timeline_budget_percent;
} gg_init_desc;
/** The largest gg_init_desc::timeline_stride. */
#define GG_TIMELINE_STRIDE_MAX 64
/** A gg_init_desc with struct_size set and every other field zero (the defaults). */
#define GG_INIT_DESC_INIT GG__STRUCT_INIT(gg_init_desc)

/** Loads a backend and initialises the library. A NULL desc, or
 * GG_INIT_DESC_INIT with nothing set, means the defaults (a desc with
 * struct_size 0: GG_INVALID_ARGUMENT); desc's strings are copied. Environment variables override
 * the desc: GPUGUARD_BACKEND (auto|cuda|hip|sim|sim-hip),
 * GPUGUARD_CUDA_LIBRARY, GPUGUARD_HIP_LIBRARY, GPUGUARD_LOG (off|error|warn|
 * info|debug), GPUGUARD_WAIT_TIMEOUT_MS, GPUGUARD_TIMEOUT_POLICY
 * (kill|return), GPUGUARD_WATCHDOG (auto|refuse|allow, optionally
 * ":BUDGET_MS"), GPUGUARD_SYNC_LAUNCHES (0|1), GPUGUARD_TIMELINE (auto|on|off),
 * GPUGUARD_TIMELINE_STRIDE (1 to GG_TIMELINE_STRIDE_MAX), GPUGUARD_TIMELINE_BUDGET
 * (percent, 1 to 10000),
 * GPUGUARD_LAUNCH_RECORDS (a power of two from 1 to 65536: launches kept per
 * stream), GPUGUARD_FAULTS (JSON text,
 * or a file's path after an '@'; a file with a NUL byte is refused),
 * GPUGUARD_FAULT_REPORT (a path in an existing, writable folder:
 * gg_fault_counts_json is written there at gg_shutdown or exit),
 * GPUGUARD_FAIL_HOST_ALLOC (N: the N-th host allocation gpuguard makes
 * fails, once; for `gpuguard sweep --host-alloc`), GPUGUARD_STICKY_SCOPE
 * (auto|process|context: how far a sticky error reaches, gg_context_recover). Every keyword of every
 * variable is matched ignoring ASCII case, whatever the locale
 * (GPUGUARD_TIMELINE=ON, GPUGUARD_LOG=Debug); paths are taken as written;
 * numbers are plain decimal digits (no spaces or signs).
 *
 * Returns GG_OK; GG_INVALID_ARGUMENT for an out-of-range desc field or an
 * invalid variable (the message names it and what it accepts);
 * GG_ALREADY_INITIALIZED if already initialised; GG_FORKED in a child
 * forked from an initialised process; GG_NO_DRIVER / GG_NO_DEVICE naming
 * the libraries tried (and suggesting the simulated driver);
 * GG_INVALID_ARGUMENT for a malformed fault plan. On failure nothing stays
 * loaded and gg_init may be called again. Thread-safe (one of several
 * concurrent gg_init calls wins, the others get GG_ALREADY_INITIALIZED). */
GG_API gg_status gg_init(const gg_init_desc *desc);

/** Destroys everything still alive (reporting it through the log as a
 * leak), writes GPUGUARD_FAULT_REPORT, unloads the backend, and allows a
 * later gg_init. Every id becomes gone. Calls running in other threads
 * finish first or fail with GG_NOT_INITIALIZED. Never calls a driver that
 * reports it is shutting down. Always GG_OK, also when not initialised
 * (nothing to do) and in a forked child (it releases without driver
 * calls). Thread-safe. */
GG_API gg_status gg_shutdown(void);

/** The settings in force after defaults and environment: every zero of
 * the desc given to gg_init is resolved (backend "auto" stays "auto"). The
 * strings in *out belong to the library and are valid until gg_shutdown.
 * GG_OK; out NULL: GG_INVALID_ARGUMENT; GG_NOT_INITIALIZED before gg_init;
 * GG_FORKED in a forked child. Thread-safe. */
GG_API gg_status gg_config(gg_init_desc *out);

/** "cuda" or "hip": the backend in use (over the simulator too: see
 * gg_device_info.simulated); "" before gg_init. A static string. Records
 * no error; thread-safe. */
GG_API const char *gg_backend_name(void);
/** The driver's version as the driver reports it (CUDA: 12040 for 12.4,
 * from cuDriverGetVersion; HIP: hipDriverGetVersion's number). GG_OK;
 * GG_NOT_INITIALIZED before gg_init; GG_FORKED in a forked child; version
 * NULL: GG_INVALID_ARGUMENT; the driver's refusal as classified.
 * Thread-safe. */
GG_API gg_status gg_driver_version(int *version);

/** One driver entry point the backend resolved at gg_init, and the variant
 * (ABI) gpuguard calls it through. The strings are static or live in the
 * loaded backend: valid until gg_shutdown. */
typedef struct gg_entry_point_info {
    uint32_t struct_size; /**< sizeof(gg_entry_point_info) as the caller was built: GG_ENTRY_POINT_INFO_INIT sets it */
    const char *name;        /**< base name: "cuCtxCreate", "hipMalloc" */
    const char *variant;     /**< the symbol called: "cuCtxCreate_v3"; NULL when the
                                  driver has none (an optional entry point) */
    int abi_version;         /**< the driver version that variant appeared in (CUDA:
                                  the version asked of cuGetProcAddress); 0 if unversioned */
    const char *resolved_by; /**< "cuGetProcAddress_v2", "cuGetProcAddress" or "dlsym" */
    bool required;           /**< gg_init fails without it */
} gg_entry_point_info;
/** A gg_entry_point_info with struct_size set and every other field zero (the defaults). */
#define GG_ENTRY_POINT_INFO_INIT GG__STRUCT_INIT(gg_entry_point_info)

/** Describes the index-th entry point of the backend in use (0, 1, ... in a
 * fixed order), for diagnostics such as `gpuguard info --verbose`.
 * GG_OK and *info filled; GG_INVALID_ARGUMENT when info is NULL or index is
 * past the last entry point (the message says how many there are);
 * GG_NOT_INITIALIZED before gg_init; GG_UNSUPPORTED when the backend does
 * not report its entry points. Makes no driver call; thread-safe. */
GG_API gg_status gg_driver_entry_point(size_t index, gg_entry_point_info *info);

/* ------------------------------------------------------------------------ */
/* Devices and contexts                                                     */
/* ------------------------------------------------------------------------ */

/** A device as read at gg_init (gg_device_properties). */
typedef struct gg_device_info {
    uint32_t struct_size; /**< sizeof(gg_device_info) as the caller was built: GG_DEVICE_INFO_INIT sets it */
    char name[GG_NAME_MAX];     /**< the driver's name for it */
    const char *backend;        /**< "cuda" or "hip" */
    bool simulated;             /**< the device belongs to gpuguard's simulated driver */
    bool watchdog;              /**< kernels have a run-time limit (display attached) */
    uint64_t total_memory;      /**< bytes of device memory */
    int multiprocessors;        /**< streaming multiprocessors (compute units) */
    int max_threads_per_block;  /**< the most threads a block may have */
    int max_block[3];           /**< the largest block, per dimension */
    int max_grid[3];            /**< the largest grid, per dimension */
} gg_device_info;
/** A gg_device_info with struct_size set and every other field zero (the defaults). */
#define GG_DEVICE_INFO_INIT GG__STRUCT_INIT(gg_device_info)

/** How many devices the driver reported at gg_init (at least 1: gg_init
 * fails with GG_NO_DEVICE otherwise). GG_OK; count NULL:
 * GG_INVALID_ARGUMENT; GG_NOT_INITIALIZED before gg_init; GG_FORKED in a
 * forked child. Makes no driver call; thread-safe. */
GG_API gg_status gg_device_count(int *count);
/** Describes device `device` (0 .. count-1) as read at gg_init. GG_OK;
 * info NULL or a device that does not exist: GG_INVALID_ARGUMENT (the
 * message says how many there are); GG_NOT_INITIALIZED before gg_init;
 * GG_FORKED in a forked child. info->backend is static. Makes no driver
 * call; thread-safe. */
GG_API gg_status gg_device_properties(int device, gg_device_info *info);

/** How one wait behaves (GG_WAIT_DESC_INIT, or GG_WAIT_MS: zero means the default). */
typedef struct gg_wait_desc {
    uint32_t struct_size; /**< sizeof(gg_wait_desc) as the caller was built: GG_WAIT_DESC_INIT sets it */
    uint32_t timeout_ms;          /**< the deadline; 0: the library's default */
    gg_timeout_policy on_timeout; /**< what a passed deadline does; DEFAULT: the library's */
    unsigned flags;               /**< none defined yet: must be 0 */
} gg_wait_desc;
/** A gg_wait_desc with struct_size set and every other field zero (the defaults). */
#define GG_WAIT_DESC_INIT GG__STRUCT_INIT(gg_wait_desc)
/** A pointer to a wait of `ms` milliseconds under the library's timeout
 * policy, for one call: gg_stream_synchronize(s, GG_WAIT_MS(1000)). A
 * compound literal (C99 and later; C++ has none: declare a gg_wait_desc
 * with GG_WAIT_DESC_INIT and set timeout_ms). Lives until the end of the
 * enclosing block. */
#ifndef __cplusplus
#define GG_WAIT_MS(ms) (&(const gg_wait_desc){ .struct_size = (uint32_t)sizeof(gg_wait_desc), .timeout_ms = (ms) })
#endif

/* Every wait (gg_context_synchronize, gg_stream_synchronize,
 * gg_event_synchronize) takes a const gg_wait_desc *: NULL means the
 * library's deadline and timeout policy (gg_init_desc); otherwise the
 * wait's own deadline (timeout_ms, 0: the library's) and policy
 * (on_timeout: with GG_TIMEOUT_RETURNS a passed deadline returns
 * GG_TIMEOUT and leaves the context ALIVE, for polling, whatever the
 * library's policy). A wait desc with struct_size 0, on_timeout out of
 * range or unknown flags: GG_INVALID_ARGUMENT before anything else. */

/** A context's state (gg_context_state). Type names are gg_ and lower-case
 * words, without a _t suffix; this one is not gg_context_state because
 * that is the function's name. */
typedef enum gg_state {
    GG_STATE_INVALID = 0, /**< a gone or wrong id, or before gg_init */
    GG_STATE_ALIVE = 1,   /**< usable */
    GG_STATE_DEAD = 2,    /**< a sticky error or a passed deadline killed it: see gg_context_death */
    GG_STATE_FORKED = 3   /**< inherited through fork(): unusable in this process */
} gg_state;

/** gg_context_create's settings (GG_CONTEXT_DESC_INIT: zero means the default). */
typedef struct gg_context_desc {
    uint32_t struct_size; /**< sizeof(gg_context_desc) as the caller was built: GG_CONTEXT_DESC_INIT sets it */
    const char *tag;             /**< creation tag shown in leak reports and dumps */
    bool use_primary;            /**< share the device's primary context (CUDA runtime interop) */
    uint32_t watchdog_budget_ms; /**< 0 = library default */
    gg_watchdog_policy watchdog; /**< 0 = library default */
} gg_context_desc;
/** A gg_context_desc with struct_size set and every other field zero (the defaults). */
#define GG_CONTEXT_DESC_INIT GG__STRUCT_INIT(gg_context_desc)

/** Creates a context on `device`. On CUDA each call makes an independent
 * context (desc->use_primary: the device's primary context instead). On HIP
 * a device has one context: every gg context on it is a view of that
 * primary context, shares its fate (a sticky error kills them all) and is
 * recovered by resetting the device; use one gg context per HIP device.
 * A NULL desc means all defaults; desc->tag is copied. The caller's
 * current context is left as it was. GG_OK and *out set; out NULL, a
 * device that does not exist or a desc->watchdog out of range:
 * GG_INVALID_ARGUMENT, *out {0}; 4096 live contexts: GG_OUT_OF_MEMORY;
 * GG_NOT_INITIALIZED, GG_FORKED; a poisoned process (see
 * gg_context_recover): GG_PROCESS_POISONED, with no driver call when
 * gpuguard saw the poisoning death, else from the driver's answer (a
 * sticky code); other driver failures as classified (GG_NO_DEVICE,
 * GG_OUT_OF_MEMORY, GG_DRIVER...). The caller owns the context:
 * gg_context_destroy it (gg_shutdown reports it as a leak). */
GG_API gg_status gg_context_create(int device, const gg_context_desc *desc, gg_context *out);
/** Destroys the context and every object in it (children first), after
 * every call still using one of them has returned. Destroying the 0 id or a
 * gone id is harmless (GG_OK, debug log); another kind's id:
 * GG_INVALID_HANDLE. If the context is on this thread's context stack
 * (anywhere in it) it is removed from it and from the driver's. A DEAD context's
 * native context is still destroyed (that frees its memory); a failure there
 * is a warning. Children are released without driver calls when DEAD/FORKED. */
GG_API gg_status gg_context_destroy(gg_context ctx);
/** ALIVE, DEAD or FORKED; GG_STATE_INVALID for a gone or wrong id or before
 * gg_init. Records no error, makes no driver call; thread-safe (a state
 * read while another thread kills or recovers the context is one or the
 * other). */
GG_API gg_state gg_context_state(gg_context ctx);
/** The first cause of death of the context: status, native code, the
 * call and the culprit launch (status GG_OK in *info when the context is
 * alive). GG_OK; info NULL: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE; GG_NOT_INITIALIZED. Works on a DEAD context and in a
 * forked child (it makes no driver call). */
GG_API gg_status gg_context_death(gg_context ctx, gg_error_info *info);
/** Replaces a DEAD context's native context with a fresh one on the same
 * device; the id stays valid and ALIVE, every old child id becomes gone
 * (their calls in other threads are waited for, or give up with
 * GG_INVALID_HANDLE). GG_OK, also for an ALIVE context (nothing to do);
 * a gone or wrong id: GG_INVALID_HANDLE; an inherited context in a forked
 * child: GG_FORKED; GG_NOT_INITIALIZED; the driver's failure to create
 * the new context as classified (the context then stays DEAD). Concurrent
 * recovers of one context recreate it once.
 *
 * Sticky errors that reach the whole process: on CUDA (measured on an H100
 * with driver 580: docs/DRIVER-FACTS.md) a kernel's illegal address, trap
 * or failed assert in any context makes every context of the process fail
 * with it, and no context can be made in the process again, even after
 * every one is destroyed. So the first such death poisons the process:
 * every other gg context dies with it at once (gg_context_death: status
 * GG_PROCESS_POISONED, naming the first death; no culprit of its own), and
 * gg_context_recover and gg_context_create answer GG_PROCESS_POISONED
 * (without tearing anything down: destroy the contexts as usual). Only a
 * new process can use the GPU. An injected sticky fault poisons the process
 * the same way. GPUGUARD_STICKY_SCOPE=process|context|auto overrides the
 * backend's answer (auto: CUDA process, HIP context, the simulator its
 * "sticky_scope" setting). Deadlines (GG_TIMEOUT) and faults that do not
 * kill a context never poison. */
GG_API gg_status gg_context_recover(gg_context ctx);
/** Waits for all work in the context, within wait's deadline (NULL: the
 * library's; see gg_wait_desc). GG_OK when all is done; GG_TIMEOUT when
 * the deadline passes (under the timeout policy KILLS_CONTEXT the context
 * is then DEAD, blamed on the oldest unfinished launch); a bad wait desc:
 * GG_INVALID_ARGUMENT; a device error of any launch as classified (sticky
 * ones kill the context, naming the culprit); a gone or wrong id:
 * GG_INVALID_HANDLE, also when another thread destroys the context during
 * the wait; GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED. Thread-safe. */
GG_API gg_status gg_context_synchronize(gg_context ctx, const gg_wait_desc *wait);
/** The context's device. device NULL: GG_INVALID_ARGUMENT; a gone or wrong
 * id: GG_INVALID_HANDLE (*device untouched). */
GG_API gg_status gg_context_device(gg_context ctx, int *device);
/** How many driver calls cleanup skipped in this context because it was
 * DEAD/FORKED. count NULL: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE. */
GG_API gg_status gg_context_skipped_cleanups(gg_context ctx, uint64_t *count);

/** How a context's completion timeline was set up (gg_context_timeline). */
typedef enum gg_timeline_basis {
    GG_TIMELINE_BASIS_NONE = 0,      /**< no timeline: off, or the device or driver has none */
    GG_TIMELINE_BASIS_SET = 1,       /**< the stride was set (GG_TIMELINE_ON, timeline_stride) */
    GG_TIMELINE_BASIS_MEASURING = 2, /**< auto is timing launches; every launch is marked meanwhile */
    GG_TIMELINE_BASIS_MEASURED = 3   /**< auto chose the stride from the times below */
} gg_timeline_basis;

/** A context's completion timeline and what auto measured. With
 * GG_TIMELINE_AUTO a context times the host cost of its launches 17 to 48
 * (the driver's launch call, and its completion mark) and then keeps a mark
 * after every launch unless the median mark costs more than the budget
 * (percent of the median launch) while the device keeps up with the host
 * (its streams idle when launched to, in at least half the samples: when
 * the device is behind, the host's cost is hidden). Otherwise it marks
 * every Nth launch, N the smallest power of two that brings a mark's share
 * under the budget (at most GG_TIMELINE_STRIDE_MAX), and a culprit becomes
 * a WINDOW of at most N launches per stream. */
typedef struct gg_timeline_info {
    uint32_t struct_size; /**< sizeof(gg_timeline_info) as the caller was built: GG_TIMELINE_INFO_INIT sets it */
    gg_timeline_basis basis;     /**< how the stride was set, or that auto is still measuring */
    uint32_t stride;             /**< a mark every `stride` launches of a stream (1: exact); 0 with no timeline */
    uint32_t budget_percent;     /**< the budget auto weighed against (gg_init_desc::timeline_budget_percent) */
    uint32_t samples;            /**< launches timed (MEASURED: those that reached the driver and were marked) */
    uint32_t samples_device_idle; /**< of them, launched onto a stream whose work was all complete */
    uint64_t launch_ns;          /**< median host time of the launch call (MEASURED) */
    uint64_t mark_ns;            /**< median host time of its completion mark (MEASURED) */
    const char *why;             /**< the decision in words (a static string) */
} gg_timeline_info;
/** A gg_timeline_info with struct_size set and every other field zero. */
#define GG_TIMELINE_INFO_INIT GG__STRUCT_INIT(gg_timeline_info)
/** Fills *info for the context (thread-safe; a snapshot while auto
 * measures). info NULL or a bad struct_size: GG_INVALID_ARGUMENT; a gone
 * or wrong id: GG_INVALID_HANDLE (*info untouched). */
GG_API gg_status gg_context_timeline(gg_context ctx, gg_timeline_info *info);

/** Pushes ctx on this thread's context stack, mirrored on the driver's
 * stack (so CUDA runtime code called meanwhile runs in it). GG_OK; a gone
 * or wrong id: GG_INVALID_HANDLE; a DEAD context: GG_CONTEXT_DEAD; 64
 * deep: GG_INVALID_ARGUMENT; GG_FORKED, GG_NOT_INITIALIZED; the driver's
 * refusal as classified. Per thread: other threads' stacks are untouched. */
GG_API gg_status gg_context_push(gg_context ctx);
/** Pops this thread's context stack (and the driver's); *popped (may be
 * NULL) gets the popped id. GG_OK; an empty stack: GG_INVALID_ARGUMENT;
 * popping a context destroyed by another thread meanwhile pops the
 * driver's entry and gives its (gone) id; GG_FORKED, GG_NOT_INITIALIZED. */
GG_API gg_status gg_context_pop(gg_context *popped);
/** The top of this thread's stack ({0} with GG_OK when empty). ctx NULL:
 * GG_INVALID_ARGUMENT; GG_NOT_INITIALIZED. Makes no driver call. */
GG_API gg_status gg_context_current(gg_context *ctx);

/* ------------------------------------------------------------------------ */
/* Streams and events                                                       */
/* ------------------------------------------------------------------------ */

/** Options of a stream (GG_STREAM_DESC_INIT: zero means the default; a NULL desc
 * means all defaults). The tag names it in errors, logs and dumps. */
typedef struct gg_stream_desc {
    uint32_t struct_size; /**< sizeof(gg_stream_desc) as the caller was built: GG_STREAM_DESC_INIT sets it */
    const char *tag;   /**< NULL: none */
    unsigned flags;    /**< none defined yet: must be 0 */
} gg_stream_desc;
/** A gg_stream_desc with struct_size set and every other field zero (the defaults). */
#define GG_STREAM_DESC_INIT GG__STRUCT_INIT(gg_stream_desc)

/** Creates a stream in ctx (non-blocking: no implicit ordering with the
 * default stream). GG_OK and *out set; out NULL or unknown desc->flags:
 * GG_INVALID_ARGUMENT; a gone or wrong context id, or a context destroyed
 * during the call: GG_INVALID_HANDLE; a DEAD context: GG_CONTEXT_DEAD;
 * GG_FORKED, GG_NOT_INITIALIZED; the driver's refusal as classified.
 * *out is {0} on every failure. desc->tag is copied. The stream belongs
 * to the context: destroyed with it at the latest. */
GG_API gg_status gg_stream_create(gg_context ctx, const gg_stream_desc *desc, gg_stream *out);
/** Destroys the stream once calls using it have returned (a wait on it
 * gives up with GG_INVALID_HANDLE); its pending work is not waited for.
 * GG_OK; 0 or a gone id: GG_OK (harmless); another kind's id:
 * GG_INVALID_HANDLE; in a DEAD context or a forked child the record is
 * released without driver calls (GG_OK). Same for every destroy below. */
GG_API gg_status gg_stream_destroy(gg_stream stream);
/** Whether the stream's work is done, without waiting: GG_OK when all
 * work is done, GG_NOT_READY while pending (not an error: gg_last_error
 * is left as it was); a device error of its work as classified (sticky
 * ones kill the context); a gone or wrong id: GG_INVALID_HANDLE;
 * GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED. */
GG_API gg_status gg_stream_query(gg_stream stream);
/** Waits for the stream's work, within wait's deadline (NULL: the
 * library's; see gg_wait_desc). GG_OK; GG_TIMEOUT when the deadline passes
 * (under the timeout policy KILLS_CONTEXT the context is then DEAD, blamed
 * on the stream's oldest unfinished launch); a bad wait desc:
 * GG_INVALID_ARGUMENT; otherwise as gg_stream_query, and GG_INVALID_HANDLE
 * when another thread destroys the stream during the wait. */
GG_API gg_status gg_stream_synchronize(gg_stream stream, const gg_wait_desc *wait);
/** Makes the stream's later work wait for the event's last record (on the
 * device; the host does not wait). GG_OK; a gone or wrong id (either):
 * GG_INVALID_HANDLE; stream and event in two contexts: GG_WRONG_CONTEXT;
 * GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED; the driver's refusal as
 * classified. */
GG_API gg_status gg_stream_wait_event(gg_stream stream, gg_event event);
/** The stream's context. GG_OK and *ctx set to the context's id; ctx NULL:
 * GG_INVALID_ARGUMENT; a gone or wrong id: GG_INVALID_HANDLE. While
 * another thread destroys the context, the answer is GG_OK with that
 * context's id (the call came first: the destroy waits for it) or, once
 * the destroy has revoked the stream, GG_INVALID_HANDLE; never GG_OK with
 * id 0 or another context's id. */
GG_API gg_status gg_stream_context(gg_stream stream, gg_context *ctx);

/** Options of an event, as gg_stream_desc. */
typedef struct gg_event_desc {
    uint32_t struct_size; /**< sizeof(gg_event_desc) as the caller was built: GG_EVENT_DESC_INIT sets it */
    const char *tag;   /**< NULL: none */
    unsigned flags;    /**< none defined yet: must be 0 */
} gg_event_desc;
/** A gg_event_desc with struct_size set and every other field zero (the defaults). */
#define GG_EVENT_DESC_INIT GG__STRUCT_INIT(gg_event_desc)

/** Creates an event in ctx, with timing (for gg_event_elapsed_ms). GG_OK
 * and *out set; bad input, failures (GG_INVALID_ARGUMENT,
 * GG_INVALID_HANDLE, GG_CONTEXT_DEAD...) and ownership as
 * gg_stream_create. */
GG_API gg_status gg_event_create(gg_context ctx, const gg_event_desc *desc, gg_event *out);
/** Destroys the event: 0 or a gone id GG_OK, as gg_stream_destroy. */
GG_API gg_status gg_event_destroy(gg_event event);
/** Records the event on `stream` (GG_NO_STREAM: the event's context's
 * default stream): it completes when the stream's earlier work does.
 * GG_OK; a gone or wrong id (either): GG_INVALID_HANDLE; stream and event
 * in two contexts: GG_WRONG_CONTEXT; GG_CONTEXT_DEAD, GG_FORKED,
 * GG_NOT_INITIALIZED; the driver's refusal as classified. */
GG_API gg_status gg_event_record(gg_event event, gg_stream stream);
/** Whether the event's last record has completed, without waiting
 * (GG_OK for an event never recorded): GG_OK, GG_NOT_READY (not an
 * error); otherwise as gg_stream_query. */
GG_API gg_status gg_event_query(gg_event event);
/** Waits for the event's last record, within wait's deadline (NULL: the
 * library's; see gg_wait_desc); GG_TIMEOUT and the rest as
 * gg_stream_synchronize. Thread-safe. */
GG_API gg_status gg_event_synchronize(gg_event event, const gg_wait_desc *wait);
/** Device time between two completed records, in milliseconds. GG_OK;
 * ms NULL: GG_INVALID_ARGUMENT; a gone or wrong id (either):
 * GG_INVALID_HANDLE; events of two contexts: GG_WRONG_CONTEXT; either
 * record not complete: GG_NOT_READY; never recorded: the driver's refusal
 * as classified; GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED. */
GG_API gg_status gg_event_elapsed_ms(gg_event start, gg_event end, float *ms);

/* ------------------------------------------------------------------------ */
/* Buffers and copies                                                       */
/* ------------------------------------------------------------------------ */

/** The kind of memory a buffer is (gg_buffer_desc::flags). */
typedef enum gg_buffer_flags {
    GG_BUFFER_DEVICE = 0,     /**< device memory */
    GG_BUFFER_HOST_PINNED = 1 /**< page-locked host memory */
} gg_buffer_flags;

/** Options of a buffer (GG_BUFFER_DESC_INIT; NULL: device memory, no tag). */
typedef struct gg_buffer_desc {
    uint32_t struct_size; /**< sizeof(gg_buffer_desc) as the caller was built: GG_BUFFER_DESC_INIT sets it */
    const char *tag;   /**< NULL: none */
    unsigned flags;    /**< gg_buffer_flags: GG_BUFFER_DEVICE (0) or GG_BUFFER_HOST_PINNED */
} gg_buffer_desc;
/** A gg_buffer_desc with struct_size set and every other field zero (the defaults). */
#define GG_BUFFER_DESC_INIT GG__STRUCT_INIT(gg_buffer_desc)

/** Allocates `bytes` of device memory, or of pinned host memory with
 * GG_BUFFER_HOST_PINNED. out NULL, bytes 0 or unknown desc->flags:
 * GG_INVALID_ARGUMENT; context ids as gg_stream_create; the driver out of
 * memory: GG_OUT_OF_MEMORY naming the size ("(injected fault)" when a fault
 * plan made it fail). *out is {0} on every failure. The buffer belongs to
 * the context: freed with it at the latest. */
GG_API gg_status gg_buffer_create(gg_context ctx, size_t bytes, const gg_buffer_desc *desc, gg_buffer *out);
/** Frees the buffer: 0 or a gone id GG_OK, as gg_stream_destroy. */
GG_API gg_status gg_buffer_destroy(gg_buffer buf);
/** The buffer's size. bytes NULL: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE (never another buffer's size). */
GG_API gg_status gg_buffer_size(gg_buffer buf, size_t *bytes);
/** The device address (device buffers) for kernel parameters. dptr NULL or a
 * pinned host buffer: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE. */
GG_API gg_status gg_buffer_device_ptr(gg_buffer buf, uint64_t *dptr);
/** The host address (pinned host buffers). ptr NULL or a device buffer:
 * GG_INVALID_ARGUMENT; a gone or wrong id: GG_INVALID_HANDLE. */
GG_API gg_status gg_buffer_host_ptr(gg_buffer buf, void **ptr);

/** Copies `bytes` from host memory `src` into device buffer `dst` at
 * dst_offset. With a stream: asynchronous on it (src must stay valid until
 * the stream's work is done). With GG_NO_STREAM: synchronous, after earlier
 * work in the context. Offsets and sizes are checked against the buffer
 * before any driver call. GG_OK; src NULL, bytes 0, a range outside the
 * buffer or a pinned host buffer: GG_INVALID_ARGUMENT (naming the
 * buffer); a gone or wrong id: GG_INVALID_HANDLE; buffer and stream of two
 * contexts: GG_WRONG_CONTEXT; GG_CONTEXT_DEAD, GG_FORKED,
 * GG_NOT_INITIALIZED; a device error (this copy's or an earlier launch's)
 * as classified. The same contract holds for the three calls below. */
GG_API gg_status gg_memcpy_htod(gg_buffer dst, size_t dst_offset, const void *src, size_t bytes,
                                gg_stream stream);
/** Copies `bytes` of device buffer `src` from src_offset into host memory
 * `dst` (dst NULL: GG_INVALID_ARGUMENT); stream, checks and the other
 * statuses as gg_memcpy_htod. */
GG_API gg_status gg_memcpy_dtoh(void *dst, gg_buffer src, size_t src_offset, size_t bytes,
                                gg_stream stream);
/** Copies `bytes` between two device buffers of one context (two
 * contexts: GG_WRONG_CONTEXT); stream, checks and statuses as
 * gg_memcpy_htod. */
GG_API gg_status gg_memcpy_dtod(gg_buffer dst, size_t dst_offset, gg_buffer src,
                                size_t src_offset, size_t bytes, gg_stream stream);
/** Sets `bytes` of device buffer `dst` from `offset` to `value` (bytes 0
 * or a range outside the buffer: GG_INVALID_ARGUMENT); stream, checks and
 * the other statuses as gg_memcpy_htod. */
GG_API gg_status gg_memset(gg_buffer dst, size_t offset, uint8_t value, size_t bytes,
                           gg_stream stream);

/* ------------------------------------------------------------------------ */
/* Modules, kernels, launches                                               */
/* ------------------------------------------------------------------------ */

/** Options of a module (GG_MODULE_DESC_INIT; NULL: all defaults). */
typedef struct gg_module_desc {
    uint32_t struct_size; /**< sizeof(gg_module_desc) as the caller was built: GG_MODULE_DESC_INIT sets it */
    const char *tag;   /**< NULL: the path (load_file) or none (load_data) */
    unsigned flags;    /**< none defined yet: must be 0 */
} gg_module_desc;
/** A gg_module_desc with struct_size set and every other field zero (the defaults). */
#define GG_MODULE_DESC_INIT GG__STRUCT_INIT(gg_module_desc)

/** Loads a module from a file: PTX, cubin or fatbin on CUDA, a code
 * object on HIP, a simulator kernel module (a shared object, see
 * gpuguard/sim_kernel.h) on the simulated driver. GG_OK and *out set; out
 * NULL, path NULL or empty, or unknown desc->flags: GG_INVALID_ARGUMENT;
 * context ids as gg_stream_create; a driver refusal as classified (a bad
 * image: GG_INVALID_ARGUMENT; no code for this device: GG_UNSUPPORTED),
 * naming the driver call and the path, and on the simulator its reason.
 * *out is {0} on every failure. The module belongs to the context. */
GG_API gg_status gg_module_create_from_file(gg_context ctx, const char *path, const gg_module_desc *desc,
                                            gg_module *out);
/** Loads a module from an image in memory (copied by the driver: the
 * caller may free it on return). As gg_module_create_from_file, with image NULL
 * or bytes 0: GG_INVALID_ARGUMENT; errors name cuModuleLoadData /
 * hipModuleLoadData. */
GG_API gg_status gg_module_create_from_data(gg_context ctx, const void *image, size_t bytes,
                                            const gg_module_desc *desc, gg_module *out);
/** Unloads the module and destroys every kernel made from it (their ids go
 * gone, whether or not gg_kernel_destroy was called): 0 or a gone id GG_OK,
 * as gg_stream_destroy. */
GG_API gg_status gg_module_destroy(gg_module module);
/** Makes a kernel handle for the function `name` of the module. Each call
 * makes a new handle, the caller's own (two calls for one name give two
 * ids, each with its own timing history and chunking setting); the native
 * function is the module's and is not released. out NULL, name NULL or
 * empty: GG_INVALID_ARGUMENT; a gone or wrong module id, or a module
 * destroyed during the call: GG_INVALID_HANDLE; no such kernel: the
 * driver's NOT_FOUND as classified (on the simulator, with its reason:
 * e.g. a kernel without GG_SIM_KERNEL_PARAMS). *out is {0} on every
 * failure. The kernel lives until gg_kernel_destroy or until its module
 * (for an adopted kernel, its context) is destroyed, whichever is first. */
GG_API gg_status gg_kernel_create(gg_module module, const char *name, gg_kernel *out);
/** Destroys the kernel handle (gg_kernel_create's or gg_kernel_adopt's):
 * the id goes gone; the native function stays its module's (a kernel has
 * no native release). 0 or a gone id: GG_OK, as gg_stream_destroy. */
GG_API gg_status gg_kernel_destroy(gg_kernel kernel);
/** The kernel's name (valid until gg_shutdown). name NULL:
 * GG_INVALID_ARGUMENT; a gone or wrong id: GG_INVALID_HANDLE. */
GG_API gg_status gg_kernel_name(gg_kernel kernel, const char **name);
/** The whole name of a kernel that a culprit (or any GG_NAME_MAX record)
 * names by its shortened form (see GG_NAME_MAX): *full is the name of a
 * kernel gpuguard has loaded since gg_init whose shortened form is name,
 * valid until gg_shutdown; a kernel's whole name gives itself.
 * name or full NULL, or no kernel of that name or shortened form:
 * GG_INVALID_ARGUMENT, *full NULL (the message says which). Makes no driver
 * call; thread-safe. */
GG_API gg_status gg_kernel_full_name(const char *name, const char **full);

/** A grid or block size, as CUDA's dim3. */
typedef struct gg_dim3 {
    uint32_t x; /**< the first dimension */
    uint32_t y; /**< the second dimension */
    uint32_t z; /**< the third dimension */
} gg_dim3;

/** One launch (gg_launch, gg_launch_chunked). */
typedef struct gg_launch_desc {
    uint32_t struct_size; /**< sizeof(gg_launch_desc) as the caller was built: GG_LAUNCH_DESC_INIT sets it */
    gg_kernel kernel;       /**< the kernel to run */
    gg_stream stream;       /**< GG_NO_STREAM: the context's default stream */
    gg_dim3 grid;           /**< blocks; every component >= 1 (a 0 is refused: it is
                                 usually a size computed from an empty input) */
    gg_dim3 block;          /**< threads per block; every component >= 1 */
    uint32_t shared_bytes;  /**< dynamic shared memory per block */
    void **params;          /**< array of pointers to each parameter, as cuLaunchKernel */
    uint32_t param_count;   /**< number of entries in params (checked for chunking) */
} gg_launch_desc;
/** A gg_launch_desc with struct_size set and every other field zero (the defaults). */
#define GG_LAUNCH_DESC_INIT GG__STRUCT_INIT(gg_launch_desc)

/** Sends the launch and records it (kernel, stream, sequence number) for
 * attribution; with a completion timeline (gg_timeline_mode), also writes
 * the launch's number behind it on its stream. Asynchronous: kernel faults
 * surface at a later call, which names this launch as the culprit.
 * Parameters are copied at the call.
 * Checked before the driver sees it, each a GG_INVALID_ARGUMENT naming the
 * limit and the value: desc NULL; params NULL with param_count > 0; a grid
 * or block component of 0; param_count against the kernel's parameter
 * count where the driver reports it (CUDA 12.4+ drivers through
 * cuFuncGetParamInfo, and the simulator; unknown on older CUDA drivers and
 * on HIP, and then not checked; the parameters' sizes cannot be checked,
 * since params holds only pointers); block dimensions, threads per block,
 * grid dimensions and shared_bytes against the device's limits (a limit
 * the driver does not report is not checked). A gone or wrong id:
 * GG_INVALID_HANDLE; kernel and stream of two contexts: GG_WRONG_CONTEXT;
 * on a watchdog device, a launch predicted to overrun the budget:
 * GG_WATCHDOG_RISK (or it runs chunked, under AUTO_CHUNK for a chunkable
 * kernel); GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED; the driver's
 * refusal as classified. Thread-safe. */
GG_API gg_status gg_launch(const gg_launch_desc *desc);

/* ------------------------------------------------------------------------ */
/* Watchdog-safe chunked launches                                           */
/* ------------------------------------------------------------------------ */

/* A device with a kernel run-time limit (a display-attached GPU: Windows
 * TDR, X on Linux) kills any launch that runs too long, and the context with
 * it. A chunked launch splits the grid along one dimension into slices of
 * blocks, passes each slice's first block index to the kernel through a
 * uint32_t parameter (the kernel adds it to its block index), times each
 * slice with events, sizes the next one to a target time well under the
 * budget (growth at most 2x a slice, shrink at once), and synchronizes
 * between slices so that batching drivers cannot merge them and the display
 * gets the GPU back. gg_launch_chunked returns when the whole grid is done.
 * The next slice is predicted from the last one's time per row, so a grid
 * whose cost per row changes sharply (an image with a costly middle) should
 * map rows to slices in an interleaved order (see examples/render).
 * A plain launch on a watchdog device is refused (WATCHDOG_RISK, policies
 * AUTO_CHUNK and REFUSE) when the kernel's timing history predicts more than
 * half the budget. */

/** How far a chunked launch got (passed to gg_chunk_progress_fn). */
typedef struct gg_chunk_progress {
    uint32_t struct_size; /**< set by the library to its sizeof(gg_chunk_progress): a callback built against a
                               later header reads a field only if struct_size covers it */
    uint64_t blocks_done;     /**< blocks of the grid finished so far */
    uint64_t blocks_total;    /**< blocks in the whole grid */
    uint32_t slices;          /**< slices finished so far */
    float last_slice_ms;      /**< device time of the slice just finished */
} gg_chunk_progress;
/** A gg_chunk_progress with struct_size set and every other field zero (for tests of callbacks). */
#define GG_CHUNK_PROGRESS_INIT GG__STRUCT_INIT(gg_chunk_progress)

/* Called after each slice; return false to cancel (GG_CANCELLED, the context
 * stays ALIVE and the blocks already done stay done). Must not call gpuguard
 * functions on the same stream. */
typedef bool (*gg_chunk_progress_fn)(void *user, const gg_chunk_progress *progress);

/** How gg_launch_chunked slices a grid (GG_CHUNK_DESC_INIT: zero means the default). */
typedef struct gg_chunk_desc {
    uint32_t struct_size; /**< sizeof(gg_chunk_desc) as the caller was built: GG_CHUNK_DESC_INIT sets it */
    uint32_t offset_param;    /**< index in params of the uint32_t block offset */
    uint32_t dimension;       /**< 0 = x, 1 = y, 2 = z: the dimension sliced */
    float target_ms;          /**< slice time to aim for; 0 = a quarter of the
                                   watchdog budget on a watchdog device, else one
                                   slice for the whole grid */
    float max_ms;             /**< a slice slower than this shrinks the next one
                                   hard; 0 = half the budget */
    uint32_t first_slice;     /**< rows of blocks in the first slice; 0 = from the
                                   kernel's timing history (half the target's worth),
                                   or 1 row without one */
    uint32_t slice_timeout_ms; /**< host deadline per slice; 0 = the default wait */
    gg_chunk_progress_fn progress; /**< called after each slice; NULL: none */
    void *progress_user;      /**< passed to progress as is */
} gg_chunk_desc;
/** A gg_chunk_desc with struct_size set and every other field zero (the defaults). */
#define GG_CHUNK_DESC_INIT GG__STRUCT_INIT(gg_chunk_desc)

/** What a chunked launch did (gg_launch_chunked). */
typedef struct gg_chunk_stats {
    uint32_t struct_size; /**< sizeof(gg_chunk_stats) as the caller was built: GG_CHUNK_STATS_INIT sets it */
    uint32_t slices;          /**< slices launched */
    uint64_t blocks;          /**< blocks run, all slices together */
    float largest_slice_ms;   /**< the longest slice's device time */
    float total_ms;           /**< wall time of the whole chunked launch */
    float device_ms;          /**< sum of the slices' device times */
    double ms_per_block;      /**< the kernel's timing history after this launch: the
                                   figure gg_kernel_timing returns and the watchdog
                                   check predicts with (device_ms / blocks is this
                                   launch's own mean) */
} gg_chunk_stats;
/** A gg_chunk_stats with struct_size set and every other field zero (the defaults). */
#define GG_CHUNK_STATS_INIT GG__STRUCT_INIT(gg_chunk_stats)

/** Runs desc's launch in slices. desc->params[chunk->offset_param] is
 * replaced by each slice's offset (the caller's value is ignored), so
 * desc->param_count must cover it. Errors: GG_INVALID_ARGUMENT for a bad
 * chunk descriptor (offset parameter out of range, negative or NaN target,
 * zero-sized grid after defaults, dimension > 2), GG_CANCELLED, and any
 * launch or wait error (the dead-context machinery applies). stats may be
 * NULL. Blocks the calling thread until the grid is done. */
GG_API gg_status gg_launch_chunked(const gg_launch_desc *desc, const gg_chunk_desc *chunk, gg_chunk_stats *stats);

/** Declares a kernel chunkable: on a watchdog device, under the AUTO_CHUNK
 * policy, a plain gg_launch of it then runs chunked (and so waits for the
 * whole grid before returning). offset_param as in gg_chunk_desc: where the
 * driver reports the kernel's parameters, it must name one of them that is
 * 4 bytes wide (GG_INVALID_ARGUMENT otherwise); where it does not, each
 * chunked launch checks it against its param_count instead. GG_OK;
 * dimension > 2: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE; GG_NOT_INITIALIZED. Makes no driver call; the last
 * call wins. */
GG_API gg_status gg_kernel_set_chunking(gg_kernel kernel, uint32_t offset_param, uint32_t dimension);

/** The kernel's timing history: measured device time per block (0 if
 * nothing was measured yet) and how many launches or slices it rests on.
 * GG_OK; either pointer NULL: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE; GG_NOT_INITIALIZED. Makes no driver call. */
GG_API gg_status gg_kernel_timing(gg_kernel kernel, double *ms_per_block, uint64_t *samples);

/** Sets the watchdog policy and budget of a context (GG_WATCHDOG_DEFAULT,
 * budget 0: the library's) for its later launches. GG_OK; a policy out of
 * range: GG_INVALID_ARGUMENT; a gone or wrong id, or a context destroyed
 * during the call: GG_INVALID_HANDLE; GG_NOT_INITIALIZED. Makes no driver
 * call. */
GG_API gg_status gg_context_set_watchdog(gg_context ctx, gg_watchdog_policy policy, uint32_t budget_ms);

/* ------------------------------------------------------------------------ */
/* Interop: native handles out, foreign objects in                          */
/* ------------------------------------------------------------------------ */

/** The driver's own context behind ctx (CUcontext on CUDA, hipCtx_t on
 * HIP), for libraries that take one. Valid while the gg context lives and
 * is not recovered (a recover replaces it: ask again); the caller must not
 * destroy it. Still returned for a DEAD or FORKED context (so the caller
 * can tear down its own state around it); makes no driver call. GG_OK;
 * native NULL: GG_INVALID_ARGUMENT; a gone or wrong id: GG_INVALID_HANDLE
 * (*native NULL); GG_NOT_INITIALIZED. */
GG_API gg_status gg_context_native(gg_context ctx, void **native);
/** The driver's own stream (CUstream / hipStream_t), as gg_context_native:
 * valid while the gg stream lives, never to be destroyed by the caller,
 * returned in a DEAD or FORKED context too. Work the caller queues on it
 * directly is ordered with gpuguard's work on the stream (it is the same
 * stream), but gpuguard neither sees nor attributes it. GG_OK; native
 * NULL: GG_INVALID_ARGUMENT; a gone or wrong id: GG_INVALID_HANDLE;
 * GG_NOT_INITIALIZED. */
GG_API gg_status gg_stream_native(gg_stream stream, void **native);
/** The driver's own event (CUevent / hipEvent_t); as gg_stream_native:
 * GG_OK; native NULL: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE; GG_NOT_INITIALIZED. */
GG_API gg_status gg_event_native(gg_event event, void **native);
/** The driver's own module (CUmodule / hipModule_t); as gg_stream_native:
 * GG_OK; native NULL: GG_INVALID_ARGUMENT; a gone or wrong id:
 * GG_INVALID_HANDLE; GG_NOT_INITIALIZED. */
GG_API gg_status gg_module_native(gg_module module, void **native);
/** The driver's own function (CUfunction / hipFunction_t); as
 * gg_stream_native: GG_OK; native NULL: GG_INVALID_ARGUMENT; a gone or
 * wrong id: GG_INVALID_HANDLE; GG_NOT_INITIALIZED. */
GG_API gg_status gg_kernel_native(gg_kernel kernel, void **native);

/** How an object made outside gpuguard is adopted (GG_ADOPT_DESC_INIT; a NULL
 * desc means all zero: not owned, no reset). */
typedef struct gg_adopt_desc {
    uint32_t struct_size; /**< sizeof(gg_adopt_desc) as the caller was built: GG_ADOPT_DESC_INIT sets it */
    const char *tag;     /**< creation tag, as for gpuguard's own objects */
    bool take_ownership; /**< gpuguard destroys/frees the native object with its gg object */
    bool allow_reset;    /**< contexts: recovery may destroy or reset the native context */
} gg_adopt_desc;
/** A gg_adopt_desc with struct_size set and every other field zero (the defaults). */
#define GG_ADOPT_DESC_INIT GG__STRUCT_INIT(gg_adopt_desc)

/* Adopted objects are gg objects like any other: checked handles, culprit
 * attribution, the DEAD state and fail-fast, deadlines on waits, fault
 * injection, chunked launches. What differs is ownership. Without
 * take_ownership gpuguard never destroys, frees or resets the native
 * object: destroying the gg object (or its context, or gg_shutdown) only
 * releases the id, and the owner must keep the native object alive until
 * then. With take_ownership the native object becomes gpuguard's, released
 * as gpuguard's own are (the caller must not release it any more); on
 * failure ownership stays with the caller. A sticky error caused by work
 * gpuguard did not submit is found at gpuguard's next synchronizing call
 * in that context and reported with no culprit. */

/** Adopts a native context (CUcontext; on HIP a hipCtx_t, i.e. a device's
 * primary context). gpuguard makes it current for its own calls, as any
 * gg context, and restores the caller's current context after. A device's
 * primary context (PyTorch's, CuPy's, the CUDA runtime's; every HIP
 * context) is recognised as one (cuDevicePrimaryCtxGetState, then a retain
 * and release to compare, which leave its reference count as it was) and
 * is never cuCtxDestroy'ed. Owned: gg_context_destroy destroys an ordinary
 * context (cuCtxDestroy) and releases a primary one once
 * (cuDevicePrimaryCtxRelease: gpuguard takes over one of the caller's
 * references, which the caller must not release any more).
 * gg_context_recover of a DEAD adopted context is refused (GG_UNSUPPORTED,
 * the message saying why) unless allow_reset: it would destroy the native
 * context, or reset the device's primary context, and with it everything
 * its owner holds; with allow_reset it does: an ordinary context is
 * destroyed; a primary context is reset (cuDevicePrimaryCtxReset: every
 * allocation of every user of that primary context in the process is
 * gone), the owner's reference is left with the owner (released only if
 * gpuguard owned it), and gpuguard retains the fresh primary context for
 * itself. Either way the fresh native context is gpuguard's own (owned,
 * not adopted). GG_OK
 * and *out set; out NULL or native_ctx NULL: GG_INVALID_ARGUMENT; a native
 * context that is a live gg context already (adopted, or created by
 * gpuguard): GG_INVALID_ARGUMENT naming it; a native context the driver
 * does not know: GG_INVALID_HANDLE or GG_INVALID_ARGUMENT with the
 * driver's code (also when asking whether it is a primary context fails);
 * a backend that cannot tell a context's device, or take_ownership or
 * allow_reset where it cannot tell a primary context: GG_UNSUPPORTED; 4096 live contexts or no host memory: GG_OUT_OF_MEMORY;
 * GG_NOT_INITIALIZED, GG_FORKED. */
GG_API gg_status gg_context_adopt(void *native_ctx, const gg_adopt_desc *desc, gg_context *out);
/** Adopts a native stream (CUstream / hipStream_t) of ctx's native
 * context; launches, copies and waits on it are gpuguard's, and work
 * queued on the native stream directly stays ordered with them. Owned:
 * gg_stream_destroy destroys it. GG_OK and *out set; out NULL, or
 * native_stream NULL (the default stream: pass GG_NO_STREAM instead):
 * GG_INVALID_ARGUMENT; a stream that is a gg stream of ctx already, or
 * that the driver does not know (HIP: hipStreamGetFlags): GG_INVALID_ARGUMENT
 * naming it; a stream of another context: GG_WRONG_CONTEXT (checked with
 * cuStreamGetCtx; not checked on HIP, whose runtime cannot tell a
 * stream's device in 5.2.3: such a stream is accepted); a gone or wrong
 * ctx: GG_INVALID_HANDLE;
 * GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED. */
GG_API gg_status gg_stream_adopt(gg_context ctx, void *native_stream, const gg_adopt_desc *desc, gg_stream *out);
/** Adopts `bytes` of device memory at device_ptr in ctx (from cuMemAlloc,
 * a caching allocator, another library); copies and launches check their
 * ranges against `bytes`. Checked against the allocation the driver knows
 * there (cuPointerGetAttribute; on HIP hipPointerGetAttribute's range and
 * device ordinal, HIP 5.0 and later; not checked where the runtime lacks
 * it). Owned: gg_buffer_destroy frees it (cuMemFree), so an owned
 * buffer must be a whole allocation. GG_OK and *out set; out NULL,
 * device_ptr 0, bytes 0 or a range that wraps: GG_INVALID_ARGUMENT; an
 * address in no allocation the driver knows, a range past the end of its
 * allocation, take_ownership of part of an allocation, or an address that
 * is a buffer of ctx already: GG_INVALID_ARGUMENT naming it; memory of
 * another context: GG_WRONG_CONTEXT; a gone or wrong ctx:
 * GG_INVALID_HANDLE; GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED. */
GG_API gg_status gg_buffer_adopt(gg_context ctx, uint64_t device_ptr, size_t bytes, const gg_adopt_desc *desc,
                                 gg_buffer *out);
/** Adopts a native function (CUfunction / hipFunction_t) loaded in ctx's
 * native context as kernel `name` (copied; errors, culprits and fault
 * plans name the kernel by it; desc->tag defaults to it). A function has
 * no native release: ownership changes nothing, and the kernel lives until
 * its context is destroyed (it belongs to no gg module). Its parameters
 * are read as gg_kernel_create reads them. GG_OK and *out set; out NULL,
 * native_function NULL, name NULL or empty, or a function that is a gg
 * kernel of ctx already: GG_INVALID_ARGUMENT; a gone or wrong ctx:
 * GG_INVALID_HANDLE; GG_CONTEXT_DEAD, GG_FORKED, GG_NOT_INITIALIZED. */
GG_API gg_status gg_kernel_adopt(gg_context ctx, void *native_function, const char *name,
                                 const gg_adopt_desc *desc, gg_kernel *out);

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                              */
/* ------------------------------------------------------------------------ */

/** Every live object as JSON (contexts with their state and children,
 * ids, tags, who created them). *json is allocated by the library: free
 * it with gg_free. GG_OK; json NULL: GG_INVALID_ARGUMENT; out of memory:
 * GG_OUT_OF_MEMORY (*json NULL); GG_NOT_INITIALIZED. Makes no driver call;
 * a snapshot (objects created or destroyed meanwhile may or may not be
 * in it). Always valid JSON in valid UTF-8: tags and names (the program's
 * and the driver's bytes, tags cut at GG_NAME_MAX - 1 bytes, possibly
 * inside a character) are written with each byte that does not belong to
 * a valid UTF-8 sequence replaced by U+FFFD. */
GG_API gg_status gg_objects_json(char **json);
/** Frees a string the library allocated (gg_objects_json,
 * gg_fault_counts_json): memory, not an object (see "Names" above). NULL: nothing. Needs no gg_init (and may be
 * called after gg_shutdown); thread-safe. */
GG_API void gg_free(void *p);
/** Number of live objects of all kinds (handles in the table). GG_OK;
 * count NULL: GG_INVALID_ARGUMENT; GG_NOT_INITIALIZED. Makes no driver
 * call. */
GG_API gg_status gg_live_objects(uint64_t *count);

/* ------------------------------------------------------------------------ */
/* Fault injection                                                          */
/* ------------------------------------------------------------------------ */

/** Loads a fault plan (JSON), replacing any plan in force. Every driver call
 * passes one gate; a rule that matches a call returns its error instead of
 * calling the driver ("immediate"), or lets the call through and latches the
 * error on the context so that it surfaces at the next synchronizing call
 * ("async", as real launch failures do). Injected errors go through the same
 * machinery as real ones. Plan format:
 *
 *   {"seed": 7, "rules": [
 *     {"op": "alloc", "nth": 3, "error": "out_of_memory"},
 *     {"op": "launch", "kernel": "scale", "from": 2, "to": 4,
 *      "error": "illegal_address", "mode": "async"},
 *     {"op": "stream_synchronize", "every": 5, "error": "launch_timeout"},
 *     {"op": "copy_dtoh", "probability": 0.25, "device": 1, "error": "launch_failed"}]}
 *
 * "op": alloc, free, host_alloc, host_free, copy_htod, copy_dtoh, copy_dtod,
 * memset, launch, stream_create, stream_destroy, stream_query,
 * stream_synchronize, stream_wait_event, event_create, event_destroy,
 * event_record, event_query, event_synchronize, event_elapsed, module_load,
 * module_unload, kernel_get, context_create, context_destroy,
 * context_synchronize, context_push, context_pop, context_device,
 * stream_context, pointer_query (the adoption checks), or "*" (any). Which calls
 * (counted per rule, among the calls its op and filters match, from 1): "nth"
 * (exactly that one), "from" [and "to"] (a range, open-ended without "to"),
 * "every" (each k-th), "probability" (0..1, drawn from the plan's "seed";
 * reproducible for a given sequence of calls); none of them = every call.
 * Filters: "device", "kernel" (launch and kernel_get only). "error":
 * out_of_memory, launch_failed, illegal_address, launch_timeout, not_ready,
 * no_device, invalid_argument, driver. The text must be exactly one JSON
 * value, an object with "rules" (and optionally "seed", a whole number from
 * 0 to 2^53) or an array of rules, with nothing but whitespace after it. An
 * empty list of rules is valid: it injects nothing and counts every call
 * (gg_fault_counts_json), which is what `gpuguard sweep`'s counting run
 * uses; an object without "rules" is refused. A malformed plan is refused
 * with GG_INVALID_ARGUMENT naming the rule and the field (a syntax error:
 * the byte offset and what was expected there), GG_OUT_OF_MEMORY when host
 * memory ran out; the plan in force is then left as it was. Beyond JSON's
 * grammar, a plan is refused (naming the byte offset) when a string holds
 * bytes that are not UTF-8 (overlong forms, surrogates, raw or as an
 * unpaired \uD800-style escape, code points above U+10FFFF, stray or
 * missing continuation bytes) or a NUL (\u0000: "alloc\u0000junk" would
 * otherwise run as "alloc"), or when an object names a member twice
 * (readers disagree on which one counts; the message names the member).
 * Requires gg_init. */
GG_API gg_status gg_fault_set_plan(const char *json);
/** Removes the plan (errors already latched on contexts stay). GG_OK, also
 * when there is none; GG_NOT_INITIALIZED; GG_FORKED. Thread-safe. */
GG_API gg_status gg_fault_clear(void);
/** Calls seen per operation since the plan was loaded, and each rule's hits:
 * {"plan": TEXT or null, "calls": {"alloc": 3, ...}, "rules": [{"rule": 0,
 * "op": "alloc", "matched": 3, "fired": 1}], "live_objects": N,
 * "host_allocations": {"made": N, "fail_at": N, "failed": BOOL}}. A rule
 * with a "kernel" filter also has "kernel": NAME. "plan" is
 * the text of the plan in force (null: none), so that a tool that set one
 * can tell whether the program replaced it. Always valid JSON in valid
 * UTF-8 (what a plan holds was checked when it was loaded; any other byte
 * that is not UTF-8 would be written as U+FFFD). Free *json with gg_free.
 * GG_OK; json NULL: GG_INVALID_ARGUMENT; out of memory: GG_OUT_OF_MEMORY;
 * GG_NOT_INITIALIZED. Thread-safe. */
GG_API gg_status gg_fault_counts_json(char **json);

#ifdef __cplusplus
}
#endif

#endif /* GPUGUARD_GPUGUARD_H */
