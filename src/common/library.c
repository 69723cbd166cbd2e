/* gg_init / gg_shutdown: choosing and loading a backend, the device list,
 * and the release of everything at shutdown and at process exit. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/abi_struct.h"
#include "common/departed.h"
#include "common/fault.h"
#include "base/alloc.h"
#include "build_paths.h"
#include "common/call.h"
#include "common/chunk.h"
#include "common/fork.h"
#include "common/library.h"
#include "common/poison.h"
#include "common/lifetime.h"
#include "common/process_exit.h"
#include "common/report.h"
#include "common/config.h"
#include "common/context.h"

gg__library gg__lib;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

#define SIM_CUDA_LIBRARY "libgpuguard_sim_cuda.so"
#define SIM_HIP_LIBRARY "libgpuguard_sim_hip.so"

/* The simulator sits next to libgpuguard when installed or built; failing
 * that, in the build tree, then in the install prefix. Returns whether it
 * found `file`; if not, *out is the last place tried and `looked` names
 * every folder looked in, for the error message. */
static bool find_sim_library(const char *file, char *out, size_t size, char *looked, size_t looked_size)
{
    struct place {
        const char *dir;
        int len;
        const char *what;
    } places[3];
    int count = 0;
    Dl_info info;
    if (dladdr((void *)&gg_init, &info) && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash != NULL)
            places[count++] = (struct place){ info.dli_fname, (int)(slash - info.dli_fname), "libgpuguard's folder" };
    }
    places[count++] = (struct place){ GG_SIM_BUILD_DIR, (int)strlen(GG_SIM_BUILD_DIR), "the build tree" };
    places[count++] = (struct place){ GG_SIM_INSTALL_DIR, (int)strlen(GG_SIM_INSTALL_DIR), "the install prefix" };
    looked[0] = '\0';
    for (int i = 0; i < count; i++) {
        bool again = false; /* a folder already looked in (the build tree is usually libgpuguard's) */
        for (int j = 0; j < i; j++)
            again = again || (places[j].len == places[i].len &&
                              strncmp(places[j].dir, places[i].dir, (size_t)places[i].len) == 0);
        if (again)
            continue;
        snprintf(out, size, "%.*s/%s", places[i].len, places[i].dir, file);
        if (access(out, R_OK) == 0)
            return true;
        size_t used = strlen(looked);
        snprintf(looked + used, looked_size - used, "%s%.*s (%s)", used ? ", " : "", places[i].len,
                 places[i].dir, places[i].what);
    }
    return false;
}

static gg__backend_open_result open_backend(const char *backend, gg__backend *out)
{
    char path[1024];
    if (strcmp(backend, "cuda") == 0)
        return gg__cuda_backend_open(gg__lib.config.cuda_library[0] ? gg__lib.config.cuda_library : NULL, out);
    if (strcmp(backend, "hip") == 0)
        return gg__hip_backend_open(gg__lib.config.hip_library[0] ? gg__lib.config.hip_library : NULL, out);
    if (strcmp(backend, "sim") == 0 || strcmp(backend, "sim-hip") == 0) {
        bool hip = strcmp(backend, "sim-hip") == 0;
        const char *configured = hip ? gg__lib.config.hip_library : gg__lib.config.cuda_library;
        const char *file = hip ? SIM_HIP_LIBRARY : SIM_CUDA_LIBRARY;
        char looked[GG_MESSAGE_MAX] = "";
        bool found = true;
        if (configured[0])
            snprintf(path, sizeof path, "%s", configured);
        else
            found = find_sim_library(file, path, sizeof path, looked, sizeof looked);
        gg__backend_open_result opened = hip ? gg__hip_backend_open(path, out) : gg__cuda_backend_open(path, out);
        /* Not found: the loader's message names only the last place. */
        if (opened.status != GG_OK && !found)
            snprintf(opened.message, sizeof opened.message,
                     "cannot load the simulated driver: %s is in none of the folders gpuguard looks in: %.380s; "
                     "build or install it, or set %s to its path",
                     file, looked, hip ? "GPUGUARD_HIP_LIBRARY" : "GPUGUARD_CUDA_LIBRARY");
        return opened;
    }
    /* auto: CUDA, then HIP; report both failures if neither works. */
    gg__backend_open_result cuda = gg__cuda_backend_open(
        gg__lib.config.cuda_library[0] ? gg__lib.config.cuda_library : NULL, out);
    if (cuda.status == GG_OK)
        return cuda;
    gg__backend_open_result hip = gg__hip_backend_open(
        gg__lib.config.hip_library[0] ? gg__lib.config.hip_library : NULL, out);
    if (hip.status == GG_OK)
        return hip;
    gg__backend_open_result both = cuda;
    if (cuda.status == GG_NO_DRIVER && hip.status == GG_NO_DEVICE)
        both.status = GG_NO_DEVICE;
    snprintf(both.message, sizeof both.message, "CUDA: %.240s; HIP: %.240s", cuda.message, hip.message);
    return both;
}

/* How long the exit handler waits for calls in progress to leave before it
 * leaves everything to the OS instead: a call that is not waiting for the
 * device leaves in microseconds, and one that waits parks (and ends the
 * wait at once: process_exit.c). */
#define EXIT_DRAIN_MS 100

static void on_process_exit(void)
{
    /* A forked child releases nothing: a parent thread may have held any
     * record lock at the fork, the driver must not be touched, and the
     * memory goes with the process. */
    if (gg__forked_from_initialized())
        return;
    /* From here on a call that the exit would fail parks instead of
     * returning into the program (process_exit.h). */
    gg__process_exit_begin();
    /* A thread may be inside gg_init or gg_shutdown as the process exits:
     * waiting long for it could hang the exit, so past a bound leave
     * everything to the OS. The bound is not 0: a fork() in another thread
     * holds the lock for a moment (fork.c), and an exit that skipped the
     * handler for it would leave the backend set for the children forked
     * after the C library has dropped gpuguard's fork handlers (at the
     * unloading of libgpuguard, late in exit), whose calls would then
     * reach the driver instead of failing FORKED. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += EXIT_DRAIN_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    if (pthread_mutex_timedlock(&init_lock, &until) != 0) {
        gg__process_exit_end();
        return;
    }
    gg__backend *b = gg__backend_get();
    if (b != NULL) {
        /* At exit the driver may already be unloading: report what is alive
         * and release it without a single driver call, but only when no
         * other thread is inside a call: what a busy or parked thread holds
         * is never freed under it. */
        uint64_t live = gg__handle_live_count();
        gg__report_leaks("process exit");
        atomic_store_explicit(&gg__lib.backend, NULL, memory_order_seq_cst);
        if (gg__process_exit_drained(EXIT_DRAIN_MS)) {
            gg__contexts_release_all(false);
            gg__departed_forget_all(NULL);
            b->close(b->self, false);
        }
        /* Last, so that it counts the host allocations of the whole exit. */
        gg__fault_write_report(gg__lib.config.fault_report_path, live, "exit");
    }
    gg__process_exit_end();
    pthread_mutex_unlock(&init_lock);
}

void gg__library_lock(bool take)
{
    if (take)
        pthread_mutex_lock(&init_lock);
    else
        pthread_mutex_unlock(&init_lock);
}

static void register_exit(void)
{
    atexit(on_process_exit);
}

static gg_status load_devices(char *message, size_t size)
{
    gg__backend *b = &gg__lib.backend_storage;
    int count = 0;
    int n = b->device_count(b->self, &count);
    if (n != 0) {
        gg__code_class cls = b->classify(n);
        snprintf(message, size, "%s (%s) reports no usable device: %s returned %s", b->name, b->library,
                 b->op_names[GG__OP_DEVICE_COUNT], b->code_name(n));
        return cls.status == GG_NO_DEVICE || cls.status == GG_NO_DRIVER ? cls.status : GG_NO_DEVICE;
    }
    if (count <= 0) {
        snprintf(message, size, "%s (%s) reports no device", b->name, b->library);
        return GG_NO_DEVICE;
    }
    gg__lib.devices = gg__calloc((size_t)count, sizeof *gg__lib.devices);
    if (gg__lib.devices == NULL) {
        snprintf(message, size, "out of host memory for the table of %d devices", count);
        return GG_OUT_OF_MEMORY;
    }
    for (int i = 0; i < count; i++) {
        n = b->device_props(b->self, i, &gg__lib.devices[i]);
        if (n != 0) {
            snprintf(message, size, "%s: querying device %d returned %s", b->name, i, b->code_name(n));
            gg__free(gg__lib.devices);
            gg__lib.devices = NULL;
            return b->classify(n).status;
        }
    }
    gg__lib.device_count = count;
    return GG_OK;
}

gg_status gg_init(const gg_init_desc *desc)
{
    gg__call c = GG__CALL("gg_init");
    if (gg__process_exit_phase() != GG__EXIT_NONE) {
        gg__process_exit_park(); /* returns only on the exiting thread */
        return gg__fail(&c, GG_NOT_INITIALIZED, "gg_init: the process is exiting (exit() was called)");
    }
    pthread_mutex_lock(&init_lock);
    gg__fork_watch(gg__global_locks);
    gg__call_set_context_kill(gg__context_kill);
    if (gg__forked_from_initialized()) {
        pthread_mutex_unlock(&init_lock);
        return gg__fail(&c, GG_FORKED, "gg_init: this process was forked from one that initialised the GPU "
                        "driver; the driver cannot be used after fork() (start workers with spawn)");
    }
    if (gg__backend_get() != NULL) {
        pthread_mutex_unlock(&init_lock);
        return gg__fail(&c, GG_ALREADY_INITIALIZED, "gg_init: already initialised (call gg_shutdown first)");
    }
    gg_init_desc local;
    gg_status status = GG__ABI_COPY_IN(&c, desc, &local, gg_init_desc, GG_INIT_DESC_INIT);
    if (status != GG_OK) {
        pthread_mutex_unlock(&init_lock);
        return status;
    }
    char message[GG_MESSAGE_MAX] = "";
    gg__config config;
    status = gg__config_resolve(&local, &config, message, sizeof message);
    if (status != GG_OK) {
        gg__fault_write_report(config.fault_report_path, 0, "gg_init failed");
        pthread_mutex_unlock(&init_lock);
        return gg__fail(&c, status, "%s", message);
    }
    gg__lib.config = config;

    memset(&gg__lib.backend_storage, 0, sizeof gg__lib.backend_storage);
    gg__backend_open_result opened = open_backend(gg__lib.config.backend, &gg__lib.backend_storage);
    if (opened.status != GG_OK) {
        gg__fault_write_report(gg__lib.config.fault_report_path, 0, "gg_init failed");
        /* As `gpuguard info` does: without a GPU, the simulator still runs. */
        bool real = strncmp(gg__lib.config.backend, "sim", 3) != 0;
        gg__config_release(&gg__lib.config);
        pthread_mutex_unlock(&init_lock);
        c.b = NULL;
        gg_status s = gg__fail(&c, opened.status, "gg_init: %s%s", opened.message,
                               real && (opened.status == GG_NO_DRIVER || opened.status == GG_NO_DEVICE)
                                   ? "; to run without a GPU, use gpuguard's simulated driver "
                                     "(GPUGUARD_BACKEND=sim, or desc.backend = \"sim\")"
                                   : "");
        gg__last_error_slot()->native_code = opened.native_code;
        return s;
    }
    c.b = &gg__lib.backend_storage;
    status = load_devices(message, sizeof message);
    if (status == GG_OK && gg__lib.config.fault_plan_json != NULL) {
        char plan_message[GG_MESSAGE_MAX];
        status = gg__fault_load_plan(gg__lib.config.fault_plan_json, plan_message, sizeof plan_message);
        if (status != GG_OK)
            snprintf(message, sizeof message, "%s: %s", getenv("GPUGUARD_FAULTS") ? "GPUGUARD_FAULTS" : "desc->fault_plan_json",
                     plan_message);
    }
    if (status != GG_OK) {
        gg__fault_write_report(gg__lib.config.fault_report_path, 0, "gg_init failed");
        gg__lib.backend_storage.close(gg__lib.backend_storage.self, true);
        gg__free(gg__lib.devices);
        gg__lib.devices = NULL;
        gg__lib.device_count = 0;
        gg__config_release(&gg__lib.config);
        pthread_mutex_unlock(&init_lock);
        return gg__fail(&c, status, "gg_init: %s", message);
    }
    gg__fork_note_initialized(true);
    gg__lib.fork_generation = gg__fork_generation_now();
    gg__poison_forget();
    pthread_once(&exit_once, register_exit);
    gg__launch_set_watchdog_path(gg__launch_under_watchdog);
    atomic_store_explicit(&gg__lib.backend, &gg__lib.backend_storage, memory_order_release);
    pthread_mutex_unlock(&init_lock);
    gg__log(GG_LOG_INFO, 0, "initialised: backend %s (%s), %d device(s)", gg__lib.backend_storage.name,
            gg__lib.backend_storage.library, gg__lib.device_count);
    return GG_OK;
}

gg_status gg_shutdown(void)
{
    pthread_mutex_lock(&init_lock);
    gg__backend *b = gg__backend_get();
    if (b == NULL) {
        pthread_mutex_unlock(&init_lock);
        return GG_OK;
    }
    if (gg__forked_from_initialized()) {
        /* In a forked child the inherited driver state must not be touched,
         * nor any record lock a parent thread may have held: everything is
         * left to the process's exit; calls fail NOT_INITIALIZED from here. */
        atomic_store_explicit(&gg__lib.backend, NULL, memory_order_seq_cst);
        pthread_mutex_unlock(&init_lock);
        return GG_OK;
    }
    uint64_t live = gg__handle_live_count();
    gg__report_leaks("gg_shutdown");
    /* Calls racing the shutdown: from here on every call fails with
     * NOT_INITIALIZED; those inside are waited for (pin.c, rule S). */
    atomic_store_explicit(&gg__lib.backend, NULL, memory_order_seq_cst);
    gg__pins_wait_all(0);
    gg__contexts_release_all(true);
    gg__departed_forget_all(b);
    /* After the releases, so that it counts their host allocations too. */
    gg__fault_write_report(gg__lib.config.fault_report_path, live, "gg_shutdown");
    gg__fault_clear_plan();
    b->close(b->self, true);
    gg__free(gg__lib.devices);
    gg__lib.devices = NULL;
    gg__lib.device_count = 0;
    gg__config_release(&gg__lib.config);
    gg__object_pools_release();
    gg__intern_release();
    memset(&gg__lib.config, 0, sizeof gg__lib.config);
    pthread_mutex_unlock(&init_lock);
    return GG_OK;
}

gg_status gg_config(gg_init_desc *out)
{
    gg__call c = GG__CALL("gg_config");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_config: out is NULL");
    gg_status status = GG__ABI_OUT_CHECK(&c, out, gg_init_desc, GG_INIT_DESC_INIT);
    if (status != GG_OK)
        return status;
    status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    const gg__config *cfg = &gg__lib.config;
    gg_init_desc resolved = {
        .backend = cfg->backend,
        .cuda_library = cfg->cuda_library,
        .hip_library = cfg->hip_library,
        .log_fn = cfg->log_fn,
        .log_user = cfg->log_user,
        .log_level = cfg->log_level,
        .wait_timeout_ms = cfg->wait_timeout_ms,
        .cleanup = cfg->cleanup,
        .timeout_policy = cfg->timeout_policy,
        .watchdog = cfg->watchdog,
        .watchdog_budget_ms = cfg->watchdog_budget_ms,
        .sync_launches = cfg->sync_launches,
        .timeline = cfg->timeline,
        .timeline_stride = cfg->timeline_stride,
        .timeline_budget_percent = cfg->timeline_budget_percent,
        .fault_plan_json = cfg->fault_plan_json,
    };
    gg__abi_out(out, &resolved, sizeof resolved);
    gg__leave(&c);
    return GG_OK;
}

const char *gg_backend_name(void)
{
    gg__backend *b = gg__backend_get();
    if (b == NULL)
        gg__process_exit_park(); /* "" would be the exit's answer, not the library's */
    return b ? b->name : "";
}

gg_status gg_driver_version(int *version)
{
    gg__call c = GG__CALL("gg_driver_version");
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    if (version == NULL) {
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_driver_version: version is NULL");
    } else {
        int n = gg__drv(&c, GG__OP_DRIVER_VERSION, c.b->driver_version(c.b->self, version));
        status = gg__check(&c, GG__OP_DRIVER_VERSION, n);
    }
    gg__leave(&c);
    return status;
}

gg_status gg_driver_entry_point(size_t index, gg_entry_point_info *info)
{
    gg__call c = GG__CALL("gg_driver_entry_point");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    if (info == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_driver_entry_point: info is NULL");
    if (c.b->entry_point == NULL)
        return gg__fail(&c, GG_UNSUPPORTED,
                        "gg_driver_entry_point: the %s backend does not report its entry points",
                        c.b->name);
    status = GG__ABI_OUT_CHECK(&c, info, gg_entry_point_info, GG_ENTRY_POINT_INFO_INIT);
    if (status != GG_OK)
        return status;
    gg_entry_point_info entry = GG_ENTRY_POINT_INFO_INIT;
    bool found = c.b->entry_point(c.b->self, index, &entry);
    gg__abi_out(info, &entry, sizeof entry);
    if (!found) {
        size_t count = 0;
        gg_entry_point_info ignored;
        while (c.b->entry_point(c.b->self, count, &ignored))
            count++;
        return gg__fail(&c, GG_INVALID_ARGUMENT,
                        "gg_driver_entry_point: index %zu is past the last entry point "
                        "(the %s backend has %zu)",
                        index, c.b->name, count);
    }
    return GG_OK;
}

gg_status gg_device_count(int *count)
{
    gg__call c = GG__CALL("gg_device_count");
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    if (count == NULL)
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_device_count: count is NULL");
    else
        *count = gg__lib.device_count;
    gg__leave(&c);
    return status;
}

gg_status gg_device_properties(int device, gg_device_info *info)
{
    gg__call c = GG__CALL("gg_device_properties");
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    if (info == NULL) {
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_device_properties: info is NULL");
    } else if ((status = GG__ABI_OUT_CHECK(&c, info, gg_device_info, GG_DEVICE_INFO_INIT)) != GG_OK) {
        /* refused: the message says why */
    } else if (device < 0 || device >= gg__lib.device_count) {
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_device_properties: device %d does not exist (%d device(s))",
                          device, gg__lib.device_count);
    } else {
        const gg__device_props *p = &gg__lib.devices[device];
        gg_device_info d = GG_DEVICE_INFO_INIT;
        memcpy(d.name, p->name, sizeof d.name);
        d.backend = c.b->name;
        d.simulated = p->simulated;
        d.watchdog = p->watchdog;
        d.total_memory = p->total_memory;
        d.multiprocessors = p->multiprocessors;
        d.max_threads_per_block = p->max_threads_per_block;
        memcpy(d.max_block, p->max_block, sizeof d.max_block);
        memcpy(d.max_grid, p->max_grid, sizeof d.max_grid);
        gg__abi_out(info, &d, sizeof d);
    }
    gg__leave(&c);
    return status;
}

void gg__global_locks(bool take)
{
    if (take) {
        gg__library_lock(true);
        gg__fault_lock(true);
        gg__context_list_lock(true);
        gg__object_locks(true);
        gg__handle_table_locks(true);
    } else {
        gg__handle_table_locks(false);
        gg__object_locks(false);
        gg__context_list_lock(false);
        gg__fault_lock(false);
        gg__library_lock(false);
    }
}
