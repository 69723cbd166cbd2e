/*
 * The interposer's slow path: call counts, fault plans, injected sticky
 * errors, and the report, for both the CUDA driver's and the HIP
 * runtime's functions.
 *
 * Plans are gpuguard's (src/base/fault_plan.c), with driver functions as
 * their targets: "function" names one (a base name stands for all its
 * variants), "op" names a gpuguard operation and stands for the driver
 * functions that perform it. Everything here takes one lock: plans are for
 * tests, where a deterministic order of rules matters more than speed.
 *
 * Sticky errors: an async rule lets its call through and latches the
 * error (with no context current it is returned at once instead, as
 * libgpuguard does). CUDA: on the whole process, as a real driver keeps it
 * (measured on an H100, driver 580: docs/DRIVER-FACTS.md): every later call
 * in any context returns it, creating a context or retaining a primary one
 * too, and no destroy or reset forgets it; the calls a program needs to
 * look around and clean up (errors, versions, devices, the context stack,
 * destroys, releases, resets) still answer, as they do on that driver.
 * HIP: on the calling thread's current device (HIP's sticky state is the
 * device's: a HIP program recovers with hipDeviceReset); every call made
 * with that device current returns it, except the same kinds of call and
 * creating or retaining a context; resetting the device forgets it.
 */
#include "intercept.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/json_syntax.h"
#include "base/fault_plan.h"

#define MAX_LATCHED 64

_Static_assert(GG_ICPT_TRACKED_COUNT <= GG_FAULT_TARGETS_MAX, "a plan's target set cannot hold every function");

typedef struct latched_context {
    gg_icpt_face face;
    uintptr_t where; /* the CUDA context, or the HIP device + 1 */
    int device;
    int code;
} latched_context;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static gg__fault_plan *plan;
static int *first_fired;                 /* per rule: the function it first fired on, or -1 */
static uint64_t *first_fired_match;      /* per rule: its match number then (the n of "nth") */
static uint64_t *initial_rng;            /* per rule: its generator's state as parsed, for a forked child */
static char plan_error[512];
static char report_path[PATH_MAX];
/* The process that holds report_path (see claim_report_path); every other
 * process, a forked child included, writes REPORT.<its pid>. */
static pid_t report_owner;
static int report_claim = -1; /* the owner's claim (a socket), -1: none held here */
static _Atomic uint64_t calls[GG_ICPT_TRACKED_COUNT];
static latched_context latched[MAX_LATCHED];
static _Atomic int latched_count;
static bool answers_when_sticky[GG_ICPT_TRACKED_COUNT];

/* Where a CUDA sticky error latches: the process (no context is 1). */
#define CUDA_PROCESS ((uintptr_t)1)

/* ---- what a plan's names mean here ------------------------------------- */

/* gpuguard's operations, as the driver and runtime functions that perform
 * them (base names: every variant is included; wrapped functions and
 * passed-through ones alike). */
static const struct {
    const char *op;
    const char *functions;
} op_functions[] = {
    { "init", "cuInit hipInit" },
    { "driver_version", "cuDriverGetVersion hipDriverGetVersion hipRuntimeGetVersion" },
    { "device_count", "cuDeviceGetCount hipGetDeviceCount" },
    { "device_props", "cuDeviceGet cuDeviceGetName cuDeviceGetAttribute cuDeviceTotalMem cuDeviceComputeCapability "
                      "hipDeviceGet hipDeviceGetName hipDeviceGetAttribute hipDeviceTotalMem" },
    { "context_create", "cuCtxCreate cuDevicePrimaryCtxRetain cuCtxAttach hipDevicePrimaryCtxRetain" },
    { "context_destroy", "cuCtxDestroy cuDevicePrimaryCtxRelease cuCtxDetach hipDevicePrimaryCtxRelease" },
    { "context_get_current", "cuCtxGetCurrent hipCtxGetCurrent" },
    { "context_set_current", "cuCtxSetCurrent hipCtxSetCurrent hipSetDevice" },
    { "context_push", "cuCtxPushCurrent hipCtxPushCurrent" },
    { "context_pop", "cuCtxPopCurrent hipCtxPopCurrent" },
    { "context_synchronize", "cuCtxSynchronize hipDeviceSynchronize" },
    { "context_device", "cuCtxGetDevice hipGetDevice" },
    { "stream_create", "cuStreamCreate cuStreamCreateWithPriority hipStreamCreateWithFlags" },
    { "stream_destroy", "cuStreamDestroy hipStreamDestroy" },
    { "stream_query", "cuStreamQuery hipStreamQuery" },
    { "stream_synchronize", "cuStreamSynchronize hipStreamSynchronize" },
    { "stream_wait_event", "cuStreamWaitEvent hipStreamWaitEvent" },
    { "stream_context", "cuStreamGetCtx" },
    { "stream_write_value", "cuStreamWriteValue32 cuStreamWriteValue64 hipStreamWriteValue32 hipStreamWriteValue64" },
    { "event_create", "cuEventCreate hipEventCreate" },
    { "event_destroy", "cuEventDestroy hipEventDestroy" },
    { "event_record", "cuEventRecord hipEventRecord" },
    { "event_query", "cuEventQuery hipEventQuery" },
    { "event_synchronize", "cuEventSynchronize hipEventSynchronize" },
    { "event_elapsed", "cuEventElapsedTime hipEventElapsedTime" },
    { "alloc", "cuMemAlloc cuMemAllocPitch cuMemAllocManaged cuMemAllocAsync cuMemAllocFromPoolAsync hipMalloc "
               "hipMallocPitch hipMemAllocPitch hipMallocManaged hipMallocAsync hipExtMallocWithFlags hipMalloc3D" },
    { "free", "cuMemFree hipFree" },
    { "host_alloc", "cuMemAllocHost cuMemHostAlloc hipHostMalloc hipHostAlloc hipMallocHost hipMemAllocHost" },
    { "host_free", "cuMemFreeHost hipHostFree" },
    { "copy_htod", "cuMemcpyHtoD cuMemcpyHtoDAsync hipMemcpyHtoD hipMemcpyHtoDAsync" },
    { "copy_dtoh", "cuMemcpyDtoH cuMemcpyDtoHAsync hipMemcpyDtoH hipMemcpyDtoHAsync" },
    { "copy_dtod", "cuMemcpyDtoD cuMemcpyDtoDAsync hipMemcpyDtoD hipMemcpyDtoDAsync" },
    { "memset", "cuMemsetD8 cuMemsetD8Async cuMemsetD16 cuMemsetD16Async cuMemsetD32 cuMemsetD32Async "
                "cuMemsetD2D8 cuMemsetD2D8Async cuMemsetD2D16 cuMemsetD2D16Async cuMemsetD2D32 cuMemsetD2D32Async "
                "hipMemsetD8 hipMemsetD8Async" },
    { "module_load", "cuModuleLoad cuModuleLoadData cuModuleLoadDataEx cuModuleLoadFatBinary hipModuleLoad hipModuleLoadData" },
    { "module_unload", "cuModuleUnload hipModuleUnload" },
    { "kernel_get", "cuModuleGetFunction hipModuleGetFunction" },
    { "launch", "cuLaunchKernel cuLaunch cuLaunchGrid cuLaunchGridAsync cuLaunchKernelEx cuLaunchCooperativeKernel "
                "cuGraphLaunch hipModuleLaunchKernel hipLaunchKernel hipExtLaunchKernel hipLaunchCooperativeKernel" },
    { "kernel_params", "cuFuncGetParamInfo" },
};

/* Whether function `name` is `base` or one of its variants: base +
 * "_v" + digits, then optionally "_ptsz" / "_ptds" (the per-thread default
 * stream's entry points: cuLaunchKernel_ptsz, cuMemcpyHtoD_v2_ptds). */
static bool is_variant_of(const char *name, const char *base, size_t base_len)
{
    if (strncmp(name, base, base_len) != 0)
        return false;
    const char *rest = name + base_len;
    size_t len = strlen(rest);
    if (len >= 5 && (strcmp(rest + len - 5, "_ptsz") == 0 || strcmp(rest + len - 5, "_ptds") == 0))
        len -= 5;
    if (len == 0)
        return true;
    if (len < 3 || rest[0] != '_' || rest[1] != 'v')
        return false;
    for (size_t i = 2; i < len; i++)
        if (rest[i] < '0' || rest[i] > '9')
            return false;
    return true;
}

/* Adds every failable function that `base` (length `len`) stands for. */
static bool add_base(const char *base, size_t len, gg__fault_targets *t)
{
    bool any = false;
    for (int i = 0; i < GG_ICPT_TRACKED_COUNT; i++) {
        if (gg_icpt_tracked_failable(i) && is_variant_of(gg_icpt_tracked_name(i), base, len)) {
            gg__fault_targets_add(t, i);
            any = true;
        }
    }
    return any;
}

static bool function_targets(void *self, const char *name, gg__fault_targets *t)
{
    (void)self;
    return add_base(name, strlen(name), t);
}

static bool op_targets(void *self, const char *name, gg__fault_targets *t)
{
    (void)self;
    for (size_t k = 0; k < sizeof op_functions / sizeof op_functions[0]; k++) {
        if (strcmp(name, op_functions[k].op) != 0)
            continue;
        for (const char *p = op_functions[k].functions; *p;) {
            size_t len = strcspn(p, " ");
            add_base(p, len, t);
            p += len + (p[len] == ' ');
        }
        return true;
    }
    return false;
}

static int native_error(gg_status status)
{
    switch (status) {
    case GG_OUT_OF_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
    case GG_LAUNCH_FAILED: return CUDA_ERROR_LAUNCH_FAILED;
    case GG_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case GG_LAUNCH_TIMEOUT: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case GG_NOT_READY: return CUDA_ERROR_NOT_READY;
    case GG_NO_DEVICE: return CUDA_ERROR_NO_DEVICE;
    case GG_INVALID_ARGUMENT: return CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

/* The errors after which a real driver's context is unusable (cuda.h:
 * "the process must be terminated and relaunched" or the context destroyed).
 * HIP's numbers for the errors the plans name are CUDA's (hip_runtime_api.h
 * 5.2.3: hipErrorOutOfMemory 2, hipErrorNoDevice 100, hipErrorNotReady 600,
 * hipErrorIllegalAddress 700, hipErrorLaunchTimeOut 702,
 * hipErrorLaunchFailure 719, hipErrorUnknown 999), so one table serves. */
static bool sticky_code(int code)
{
    return code == 700 || code == 702 || (code >= 714 && code <= 719);
}

static bool kills_context(void *self, gg_status error, bool numeric, int native)
{
    (void)self;
    return sticky_code(numeric ? native : native_error(error));
}

static const gg__fault_naming naming = {
    .op_targets = op_targets,
    .function_targets = function_targets,
    .kills_context = kills_context,
    .numeric_errors = true,
};

/* ---- configuration ------------------------------------------------------ */

static void log_problem(const char *what)
{
    /* gpuguard's own keyword rule: "OFF" and "Off" are "off" too. */
    static const char *const off[] = { "off" };
    const char *level = gg__env(GG__ENV_LOG);
    if (level != NULL && !gg__keyword(level, off, 1, NULL))
        fprintf(stderr, "gpuguard intercept: %s\n", what);
}

static void write_report(const char *written_at);

/* Whether this process counted a call of its own (a forked child starts
 * with none). */
static bool made_calls(void)
{
    for (int i = 0; i < GG_ICPT_TRACKED_COUNT; i++)
        if (atomic_load_explicit(&calls[i], memory_order_relaxed) != 0)
            return true;
    return false;
}

/* Linked -z nodelete (CMakeLists.txt): a dlclose never unloads the
 * interposer, so this runs once, at the process's exit, whatever the
 * program loaded and unloaded before. A process that is not the report
 * path's owner writes its own only when it made calls: a forked child that
 * never touched the driver (a worker, an exec about to happen) leaves no
 * file behind. */
__attribute__((destructor)) static void report_at_exit(void)
{
    if (report_path[0] != '\0' && (report_owner == getpid() || made_calls())) {
        pthread_mutex_lock(&lock);
        write_report("exit");
        pthread_mutex_unlock(&lock);
    }
}

/* Calls a real driver makes answer after a sticky error (HIP: the same
 * kinds of call). */
static void choose_answers_when_sticky(void)
{
    static const char *const bases[] = {
        "hipInit", "hipDriverGetVersion", "hipRuntimeGetVersion", "hipGetDeviceCount", "hipDeviceGet",
        "hipDeviceGetName", "hipDeviceGetAttribute", "hipDeviceTotalMem", "hipSetDevice", "hipGetDevice",
        "hipDeviceReset", "hipDevicePrimaryCtxReset", "hipDevicePrimaryCtxRelease", "hipDevicePrimaryCtxRetain",
        "hipCtxGetCurrent", "hipCtxSetCurrent", "hipCtxPushCurrent", "hipCtxPopCurrent",
        "cuInit", "cuDriverGetVersion", "cuGetErrorName", "cuGetErrorString", "cuGetProcAddress",
        "cuGetExportTable", "cuDeviceGet", "cuDeviceGetCount", "cuDeviceGetName", "cuDeviceGetAttribute",
        "cuDeviceTotalMem", "cuDeviceComputeCapability", "cuDeviceGetPCIBusId", "cuDeviceGetByPCIBusId",
        "cuCtxDestroy", "cuCtxDetach", "cuCtxPopCurrent", "cuCtxPushCurrent", "cuCtxSetCurrent",
        "cuCtxGetCurrent", "cuCtxGetDevice", "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxReset",
        "cuDevicePrimaryCtxGetState",
        /* Not cuCtxCreate nor cuDevicePrimaryCtxRetain: the measured driver
         * answers them with the error (docs/DRIVER-FACTS.md). */
    };
    /* And every device query the interposer only passes through
     * (cuDeviceGetUuid, hipDeviceGetPCIBusId...): a device outlives its
     * contexts' errors. */
    static const char *const prefixes[] = { "cuDeviceGet", "hipDeviceGet", "hipGetDevice" };
    for (int i = 0; i < GG_ICPT_TRACKED_COUNT; i++) {
        const char *name = gg_icpt_tracked_name(i);
        for (size_t k = 0; k < sizeof bases / sizeof bases[0]; k++)
            if (is_variant_of(name, bases[k], strlen(bases[k])))
                answers_when_sticky[i] = true;
        for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
            if (strncmp(name, prefixes[k], strlen(prefixes[k])) == 0)
                answers_when_sticky[i] = true;
    }
}

/* fork() while another thread holds the lock would leave the child a lock
 * that no thread of it will ever release: its first call on the slow path
 * would hang, and a sweep would report a HANG that is the interposer's, not
 * the program's (test_intercept_threads). The lock is taken across fork. */
static void lock_before_fork(void)
{
    pthread_mutex_lock(&lock);
}

static void unlock_after_fork(void)
{
    pthread_mutex_unlock(&lock);
}

/* A forked child is a process of its own to the interposer, as an exec'd
 * one is (it loads a fresh interposer): its calls are counted from zero
 * and the rules start over (an nth rule fires on the child's nth call),
 * and its report is REPORT.<its pid>, never its parent's file. So a
 * parent's report counts the parent's calls only, and every process that
 * used the driver has a report saying what it did. Sticky errors are kept:
 * they stand for the state of contexts the child inherited. */
static void start_over_in_child(void)
{
    for (int i = 0; i < GG_ICPT_TRACKED_COUNT; i++)
        atomic_store_explicit(&calls[i], 0, memory_order_relaxed);
    for (size_t i = 0; plan != NULL && i < plan->count; i++) {
        plan->rules[i].matched = 0;
        plan->rules[i].fired = 0;
        plan->rules[i].rng = initial_rng[i];
        first_fired[i] = -1;
        first_fired_match[i] = 0;
    }
    /* The claim is the parent's: released when the parent ends, not when
     * the last of its children does. */
    if (report_claim >= 0) {
        close(report_claim);
        report_claim = -1;
    }
    pthread_mutex_unlock(&lock);
}

/* A name for `path`'s claim in Linux's abstract socket namespace: the FNV-1a
 * hash of its absolute form (a relative path is the working directory's:
 * the processes of a run may have different ones, but a tool gives an
 * absolute path). */
static void claim_name(const char *path, struct sockaddr_un *addr, socklen_t *len)
{
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) == NULL)
        cwd[0] = '\0';
    uint64_t h = 14695981039346656037ull;
    for (const char *parts[] = { cwd, path[0] != '/' ? "/" : "", path }, **p = parts; p < parts + 3; p++)
        for (const unsigned char *c = (const unsigned char *)*p; *c; c++)
            h = (h ^ *c) * 1099511628211ull;
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    /* sun_path[0] = '\0': abstract, no file; gone when its last descriptor closes. */
    int n = snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "gpuguard-intercept-report-%016llx",
                     (unsigned long long)h);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* One report per process, and the report path for one of them: the first
 * process to make a call with GPUGUARD_INTERCEPT_REPORT set claims it for
 * as long as it lives, by binding a socket name made from the path (bound
 * once at a time; freed by the kernel when the process ends, however it
 * ends). A process that finds the name taken (an exec'd child of the
 * owner, a program it started, another program given the same path at the
 * same time) writes REPORT.<its pid> instead of overwriting the owner's
 * report. One that comes after the owner ended takes the path over, as a
 * rerun with the same path must. Where no such socket can be made (a
 * sandbox), the process owns the path, as before claims existed. */
static void claim_report_path(void)
{
    report_owner = getpid();
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    struct sockaddr_un addr;
    socklen_t len;
    claim_name(report_path, &addr, &len);
    if (bind(fd, (const struct sockaddr *)&addr, len) == 0) {
        report_claim = fd;
        return;
    }
    if (errno == EADDRINUSE)
        report_owner = 0; /* another process holds it */
    close(fd);
}

bool gg_icpt_faults_configure(void)
{
    pthread_atfork(lock_before_fork, unlock_after_fork, start_over_in_child);
    choose_answers_when_sticky();
    const char *path = getenv("GPUGUARD_INTERCEPT_REPORT");
    if (path != NULL && path[0] != '\0') {
        snprintf(report_path, sizeof report_path, "%s", path);
        claim_report_path();
    }
    const char *value = getenv("GPUGUARD_INTERCEPT_FAULTS");
    if (value != NULL) {
        gg_status status;
        char message[512];
        char *text = gg__fault_plan_text(value, "GPUGUARD_INTERCEPT_FAULTS", &status, message, sizeof message);
        if (text != NULL) {
            status = gg__fault_plan_parse(text, &naming, &plan, message, sizeof message);
            gg__free(text);
        }
        if (status == GG_OK && plan->count > 0) {
            first_fired = gg__malloc(plan->count * sizeof *first_fired);
            first_fired_match = gg__calloc(plan->count, sizeof *first_fired_match);
            initial_rng = gg__calloc(plan->count, sizeof *initial_rng);
            if (first_fired == NULL || first_fired_match == NULL || initial_rng == NULL) {
                status = GG_OUT_OF_MEMORY;
                snprintf(message, sizeof message, "GPUGUARD_INTERCEPT_FAULTS: out of memory for the plan");
                gg__fault_plan_free(plan);
                plan = NULL;
                gg__free(first_fired);
                gg__free(first_fired_match);
                gg__free(initial_rng);
                first_fired = NULL;
                first_fired_match = NULL;
                initial_rng = NULL;
            }
            for (size_t i = 0; plan != NULL && i < plan->count; i++) {
                first_fired[i] = -1;
                initial_rng[i] = plan->rules[i].rng;
            }
        }
        if (status != GG_OK) {
            snprintf(plan_error, sizeof plan_error, "GPUGUARD_INTERCEPT_FAULTS: %s", message);
            log_problem(plan_error);
        }
    }
    return plan != NULL || plan_error[0] != '\0' || report_path[0] != '\0';
}

/* ---- the slow path ------------------------------------------------------ */

/* What a sticky error latches on for a call of `face`: the current CUDA
 * context, or the HIP thread's current device + 1; 0 for none. */
static uintptr_t current_place(gg_icpt_face face)
{
    if (face == GG_ICPT_FACE_HIP) {
        int dev = -1;
        hipError_t (*get)(int *) = (hipError_t(*)(int *))gg_icpt_real_fn(GG_ICPT_hipGetDevice);
        if (get == NULL || get(&dev) != hipSuccess || dev < 0)
            return 0;
        return (uintptr_t)dev + 1;
    }
    CUcontext ctx = NULL;
    CUresult (*get)(CUcontext *) = (CUresult(*)(CUcontext *))gg_icpt_real_fn(GG_ICPT_cuCtxGetCurrent);
    if (get == NULL || get(&ctx) != CUDA_SUCCESS)
        return 0;
    return (uintptr_t)ctx;
}

static int current_device(gg_icpt_face face)
{
    if (face == GG_ICPT_FACE_HIP) {
        uintptr_t place = current_place(face);
        return place == 0 ? -1 : (int)(place - 1);
    }
    CUdevice dev = -1;
    CUresult (*get)(CUdevice *) = (CUresult(*)(CUdevice *))gg_icpt_real_fn(GG_ICPT_cuCtxGetDevice);
    if (get == NULL || get(&dev) != CUDA_SUCCESS)
        return -1;
    return dev;
}

/* A rule's "device" filter: the calling thread's current device (-1: none).
 * Calls have no kernel here ("kernel" filters are refused at parse). */
static int rule_device(const void *self)
{
    return current_device(*(const gg_icpt_face *)self);
}

/* The sticky error latched on `where` of `face`, or 0. Under the lock. */
static int latched_on(gg_icpt_face face, uintptr_t where)
{
    for (int i = 0; where != 0 && i < atomic_load(&latched_count); i++)
        if (latched[i].face == face && latched[i].where == where)
            return latched[i].code;
    return 0;
}

bool gg_icpt_enter(int fn, gg_icpt_call *call, int *result)
{
    gg_icpt_face face = gg_icpt_tracked_face(fn);
    call->fn = fn;
    call->where = 0;
    call->latch = 0;
    bool loaded = gg_icpt_load(face); /* reads the plan first */
    bool watching = atomic_load_explicit(&gg_icpt_watching, memory_order_acquire) != 0;
    /* Counted even when the call cannot be forwarded: the report then says
     * what the program asked of a library that was not there. */
    if (watching)
        atomic_fetch_add_explicit(&calls[fn], 1, memory_order_relaxed);
    if (!loaded) {
        *result = gg_icpt_no_library_error(face);
        return false;
    }
    if (fn < GG_ICPT_COUNT && gg_icpt_real_fn((gg_icpt_function)fn) == NULL) {
        *result = 500; /* CUDA_ERROR_NOT_FOUND, hipErrorNotFound: the real library lacks it */
        return false;
    }
    if (!watching)
        return true;
    if (plan_error[0] != '\0' && (fn == GG_ICPT_cuInit || fn == GG_ICPT_hipInit)) {
        *result = 1; /* CUDA_ERROR_INVALID_VALUE, hipErrorInvalidValue */
        return false;
    }
    int injected = 0;
    pthread_mutex_lock(&lock);
    if (atomic_load(&latched_count) > 0 && !answers_when_sticky[fn])
        injected = latched_on(face, face == GG_ICPT_FACE_CUDA ? CUDA_PROCESS : current_place(face));
    bool fired = false;
    const gg__fault_call rule_call = { .target = fn, .self = &face, .device = rule_device };
    gg__fault_rule *r;
    for (size_t i = 0; plan != NULL && injected == 0 && call->latch == 0 &&
                       (r = gg__fault_plan_next_fired(plan, &rule_call, &i)) != NULL;
         i++) {
        fired = true;
        if (first_fired[i] < 0) {
            first_fired[i] = fn;
            first_fired_match[i] = r->matched;
        }
        int code = r->has_native_error ? r->native_error : native_error(r->error);
        uintptr_t where = r->async ? current_place(face) : 0;
        if (where != 0 && face == GG_ICPT_FACE_CUDA)
            where = CUDA_PROCESS;
        if (where != 0) {
            call->where = where;
            call->latch = code;
        } else {
            injected = code;
        }
    }
    /* A run that crashes after its fault never writes the exit report. */
    if (fired && report_path[0] != '\0')
        write_report("fault");
    pthread_mutex_unlock(&lock);
    if (injected != 0) {
        *result = injected;
        return false;
    }
    return true;
}

int gg_icpt_leave(const gg_icpt_call *call, int result)
{
    if (call->latch == 0)
        return result;
    gg_icpt_face face = gg_icpt_tracked_face(call->fn);
    pthread_mutex_lock(&lock);
    int n = atomic_load(&latched_count);
    if (latched_on(face, call->where) == 0 && n < MAX_LATCHED) {
        latched[n] = (latched_context){
            .face = face, .where = call->where, .device = current_device(face), .code = call->latch
        };
        atomic_store(&latched_count, n + 1);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

/* Removes latched entry i. Under the lock. */
static void forget(int i)
{
    int n = atomic_load(&latched_count);
    latched[i] = latched[n - 1];
    atomic_store(&latched_count, n - 1);
}

void gg_icpt_context_gone(CUcontext ctx)
{
    /* A CUDA sticky error is the process's: destroying the context that
     * met it does not bring the driver back (measured). */
    (void)ctx;
}

void gg_icpt_primary_reset(gg_icpt_face face, int dev)
{
    if (face == GG_ICPT_FACE_CUDA)
        return; /* nor does a primary reset (measured) */
    pthread_mutex_lock(&lock);
    for (int i = atomic_load(&latched_count) - 1; i >= 0; i--)
        if (latched[i].face == face && latched[i].device == dev)
            forget(i);
    pthread_mutex_unlock(&lock);
}

void gg_icpt_hip_device_reset(void)
{
    int dev = current_device(GG_ICPT_FACE_HIP);
    if (dev >= 0)
        gg_icpt_primary_reset(GG_ICPT_FACE_HIP, dev);
}

/* ---- the report --------------------------------------------------------- */

/* Writes GPUGUARD_INTERCEPT_REPORT. Under the lock. */
static void write_report(const char *written_at)
{
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return;
    if (plan != NULL)
        cJSON_AddStringToObject(root, "plan", plan->source);
    else
        cJSON_AddNullToObject(root, "plan");
    if (plan_error[0] != '\0')
        cJSON_AddStringToObject(root, "plan_error", plan_error);
    else
        cJSON_AddNullToObject(root, "plan_error");
    /* "driver": the CUDA driver's path ("" when none was loaded); the HIP
     * runtime's under "hip_runtime", only once a hip* function was called. */
    cJSON_AddStringToObject(root, "driver", gg_icpt_driver_path(GG_ICPT_FACE_CUDA));
    if (gg_icpt_driver_error(GG_ICPT_FACE_CUDA)[0] != '\0')
        cJSON_AddStringToObject(root, "driver_error", gg_icpt_driver_error(GG_ICPT_FACE_CUDA));
    if (gg_icpt_driver_path(GG_ICPT_FACE_HIP)[0] != '\0')
        cJSON_AddStringToObject(root, "hip_runtime", gg_icpt_driver_path(GG_ICPT_FACE_HIP));
    if (gg_icpt_driver_error(GG_ICPT_FACE_HIP)[0] != '\0')
        cJSON_AddStringToObject(root, "hip_runtime_error", gg_icpt_driver_error(GG_ICPT_FACE_HIP));
    cJSON *counts = cJSON_AddObjectToObject(root, "calls");
    for (int i = 0; i < GG_ICPT_TRACKED_COUNT; i++) {
        uint64_t n = atomic_load_explicit(&calls[i], memory_order_relaxed);
        if (n != 0)
            cJSON_AddNumberToObject(counts, gg_icpt_tracked_name(i), (double)n);
    }
    cJSON *rules = cJSON_AddArrayToObject(root, "rules");
    for (size_t i = 0; plan != NULL && i < plan->count; i++) {
        const gg__fault_rule *r = &plan->rules[i];
        cJSON *rj = cJSON_CreateObject();
        cJSON_AddNumberToObject(rj, "rule", (double)i);
        cJSON_AddStringToObject(rj, r->target_field, r->target_name);
        cJSON_AddNumberToObject(rj, "matched", (double)r->matched);
        cJSON_AddNumberToObject(rj, "fired", (double)r->fired);
        if (first_fired[i] >= 0) {
            cJSON_AddStringToObject(rj, "first_fired_call", gg_icpt_tracked_name(first_fired[i]));
            cJSON_AddNumberToObject(rj, "first_fired_match", (double)first_fired_match[i]);
        } else {
            cJSON_AddNullToObject(rj, "first_fired_call");
            cJSON_AddNullToObject(rj, "first_fired_match");
        }
        cJSON_AddItemToArray(rules, rj);
    }
    cJSON_AddStringToObject(root, "written_at", written_at);
    /* Whose calls these are: the owner of the path, or the process named
     * in REPORT.<pid>. */
    cJSON_AddNumberToObject(root, "pid", (double)getpid());
    /* Valid UTF-8 whatever the plan, a path or a driver's message held
     * (json_syntax.h): a reader's JSON parser must be able to read it. */
    char *text = gg__json_valid_utf8(cJSON_Print(root));
    cJSON_Delete(root);
    char target[PATH_MAX + 32];
    if (report_owner == getpid())
        snprintf(target, sizeof target, "%s", report_path);
    else
        snprintf(target, sizeof target, "%s.%ld", report_path, (long)getpid());
    /* Written whole to a temporary file and renamed, so that a reader never
     * sees half a report (a crash may follow the fault at once). */
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", report_path, (long)getpid());
    FILE *f = text ? fopen(tmp, "w") : NULL;
    if (f != NULL) {
        bool ok = fputs(text, f) >= 0;
        ok = fclose(f) == 0 && ok;
        if (!ok || rename(tmp, target) != 0)
            log_problem("cannot write the report");
    } else {
        log_problem("cannot write the report");
    }
    free(text);
}
