/*
 * Driver initialisation and the simulated devices.
 *
 * The configuration is read by the first successful sim_init() and kept for
 * the life of the process (devices and misbehave rules are referenced by
 * pointer from then on). A failed init leaves nothing behind and may be
 * retried, e.g. after fixing GPUGUARD_SIM_CONFIG.
 *
 * fork: a child of a process that initialised the driver gets
 * NOT_INITIALIZED from every call, cuInit included, as a driver answers
 * there (NVIDIA: any use of CUDA after fork() is undefined; numba and
 * PyTorch detect it and say "initialized before forking"). Before, the
 * child's calls waited forever for stream workers it does not have. A
 * child forked before any init may initialise its own driver.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
atomic_bool sim_initialized_flag;
static sim_config g_config;
static sim_device *g_devices;
static char g_config_error[512];
atomic_bool sim_fast_flag;
static atomic_bool g_forked_after_init;

static void forked_child(void)
{
    if (atomic_load(&sim_initialized_flag)) {
        atomic_store(&g_forked_after_init, true);
        atomic_store(&sim_initialized_flag, false);
    }
}

sim_status sim_init(sim_config_check check)
{
    if (atomic_load_explicit(&sim_initialized_flag, memory_order_acquire))
        return SIM_OK;
    /* Before the lock: a thread of the parent may have held it at fork. */
    if (atomic_load(&g_forked_after_init)) {
        sim_detail("this process was forked from one that had initialised the driver: the driver cannot be "
                   "used in the child (NVIDIA: use after fork() is undefined; start the child with exec)");
        return SIM_ERR_NOT_INITIALIZED;
    }
    pthread_mutex_lock(&g_init_lock);
    sim_status st = SIM_OK;
    if (atomic_load_explicit(&sim_initialized_flag, memory_order_relaxed))
        goto out;
    sim_config cfg;
    char err[sizeof g_config_error];
    st = sim_config_load(&cfg, err, sizeof err);
    if (st) {
        memcpy(g_config_error, err, sizeof err);
        sim_detail("%s", err);
        goto out;
    }
    if (check && (st = check(&cfg, err, sizeof err)) != SIM_OK) {
        memcpy(g_config_error, err, sizeof err);
        sim_detail("%s", err);
        sim_config_free(&cfg);
        goto out;
    }
    if (cfg.ndevices == 0) {
        snprintf(g_config_error, sizeof g_config_error, "devices: the configuration has no device");
        sim_detail("%s", g_config_error);
        sim_config_free(&cfg);
        st = SIM_ERR_NO_DEVICE;
        goto out;
    }
    sim_device *devs = sim_calloc((size_t)cfg.ndevices, sizeof *devs);
    if (!devs) {
        sim_config_free(&cfg);
        st = SIM_ERR_OUT_OF_MEMORY;
        goto out;
    }
    g_config = cfg;
    for (int i = 0; i < cfg.ndevices; i++) {
        devs[i].ordinal = i;
        devs[i].cfg = &g_config.devices[i];
        atomic_init(&devs[i].mem_used, 0);
        atomic_init(&devs[i].skew_ns, 0);
        atomic_init(&devs[i].primary_flags, 0);
        pthread_mutex_init(&devs[i].primary_lock, NULL);
    }
    g_devices = devs;
    g_config_error[0] = '\0';
    atomic_store_explicit(&sim_fast_flag, cfg.fast, memory_order_relaxed);
    pthread_atfork(NULL, NULL, forked_child);
    atomic_store_explicit(&sim_initialized_flag, true, memory_order_release);
out:
    pthread_mutex_unlock(&g_init_lock);
    return st;
}

const char *sim_config_error(void)
{
    /* Written only under the init lock before initialisation succeeds. */
    pthread_mutex_lock(&g_init_lock);
    const char *e = g_config_error;
    pthread_mutex_unlock(&g_init_lock);
    return e;
}

const sim_config *sim_get_config(void)
{
    return sim_is_initialized() ? &g_config : NULL;
}

int sim_device_count(void)
{
    return sim_is_initialized() ? g_config.ndevices : 0;
}

sim_device *sim_device_get(int ordinal)
{
    if (!sim_is_initialized() || ordinal < 0 || ordinal >= g_config.ndevices)
        return NULL;
    return &g_devices[ordinal];
}

sim_status sim_device_attr(const sim_device *d, sim_attr a, int *out)
{
    const sim_device_config *c = d->cfg;
    switch (a) {
    case SIM_ATTR_MAX_THREADS_PER_BLOCK: *out = (int)c->max_threads_per_block; break;
    case SIM_ATTR_MAX_BLOCK_X: *out = (int)c->max_block[0]; break;
    case SIM_ATTR_MAX_BLOCK_Y: *out = (int)c->max_block[1]; break;
    case SIM_ATTR_MAX_BLOCK_Z: *out = (int)c->max_block[2]; break;
    case SIM_ATTR_MAX_GRID_X: *out = (int)c->max_grid[0]; break;
    case SIM_ATTR_MAX_GRID_Y: *out = (int)c->max_grid[1]; break;
    case SIM_ATTR_MAX_GRID_Z: *out = (int)c->max_grid[2]; break;
    case SIM_ATTR_MAX_SHARED_PER_BLOCK: *out = (int)SIM_MAX_SHARED_PER_BLOCK; break;
    case SIM_ATTR_TOTAL_CONSTANT_MEMORY: *out = 65536; break;
    case SIM_ATTR_WARP_SIZE: *out = 32; break;
    case SIM_ATTR_MAX_REGISTERS_PER_BLOCK: *out = 65536; break;
    case SIM_ATTR_CLOCK_RATE_KHZ: *out = 1000000; break;
    case SIM_ATTR_MULTIPROCESSORS: *out = (int)c->multiprocessors; break;
    case SIM_ATTR_KERNEL_EXEC_TIMEOUT: *out = c->watchdog ? 1 : 0; break;
    case SIM_ATTR_INTEGRATED: *out = 0; break;
    case SIM_ATTR_CAN_MAP_HOST_MEMORY: *out = 1; break; /* sim_host_alloc_mapped */
    case SIM_ATTR_COMPUTE_MODE: *out = 0; break;
    case SIM_ATTR_CONCURRENT_KERNELS: *out = 1; break;
    case SIM_ATTR_PCI_BUS_ID: *out = (int)c->index + 1; break; /* physical: CUDA_VISIBLE_DEVICES keeps it */
    case SIM_ATTR_PCI_DEVICE_ID: *out = 0; break;
    case SIM_ATTR_PCI_DOMAIN_ID: *out = 0; break;
    case SIM_ATTR_MAX_THREADS_PER_MULTIPROCESSOR: *out = (int)SIM_MAX_THREADS_PER_SM; break;
    case SIM_ATTR_ASYNC_ENGINE_COUNT: *out = 1; break;
    case SIM_ATTR_UNIFIED_ADDRESSING: *out = 1; break;
    case SIM_ATTR_COMPUTE_CAPABILITY_MAJOR: *out = 8; break;
    case SIM_ATTR_COMPUTE_CAPABILITY_MINOR: *out = 0; break;
    case SIM_ATTR_MAX_SHARED_PER_BLOCK_OPTIN: *out = (int)SIM_MAX_SHARED_PER_BLOCK_OPTIN; break;
    case SIM_ATTR_STREAM_MEM_OPS: *out = c->stream_mem_ops ? 1 : 0; break;
    case SIM_ATTR_STREAM_MEM_OPS_64: *out = c->stream_mem_ops && c->stream_mem_ops_64 ? 1 : 0; break;
    default: return SIM_ERR_INVALID_VALUE;
    }
    return SIM_OK;
}

/* Primary contexts: one per device, created by the first retain, destroyed
 * by the last release, reset in place by a reset. The context object keeps
 * its handle across resets, as CUDA's primary context does.
 *
 * A poisoned process (sticky_scope "process", sim_process_poison.c) retains
 * nothing: retain answers the process's sticky error and counts no
 * reference. A reset there destroys the primary context instead (its
 * handle answers CONTEXT_DESTROYED, as a driver's does after a reset in a
 * poisoned process) and keeps the references counted, so that each retain
 * made before is still released once with success. */
sim_status sim_primary_retain(sim_device *d, sim_ctx **out)
{
    pthread_mutex_lock(&d->primary_lock);
    sim_status st = sim_process_claimed();
    if (st) {
        sim_detail("device %d: a device fault poisoned the process: its primary context cannot be "
                   "retained (sticky_scope \"process\"; only a new process computes)", d->ordinal);
        goto out;
    }
    if (!d->primary) {
        sim_ctx *c;
        st = sim_ctx_create(d, true, &c);
        if (st)
            goto out;
        d->primary = c;         /* keeps the creation reference */
    }
    d->primary_refs++;
    sim_obj_retain(&d->primary->obj);
    *out = d->primary;
out:
    pthread_mutex_unlock(&d->primary_lock);
    return st;
}

sim_status sim_primary_release(sim_device *d)
{
    pthread_mutex_lock(&d->primary_lock);
    sim_ctx *doomed = NULL;
    sim_status st = SIM_OK;
    /* The context may be gone with references left: a reset destroyed it
     * in a poisoned process. */
    if (d->primary_refs == 0) {
        sim_detail("device %d: primary context released more often than retained", d->ordinal);
        st = SIM_ERR_INVALID_CONTEXT;
    } else if (--d->primary_refs == 0) {
        doomed = d->primary;
        d->primary = NULL;
    }
    pthread_mutex_unlock(&d->primary_lock);
    if (doomed) {
        sim_ctx_destroy(doomed, false);
        sim_obj_release(&doomed->obj);
    }
    return st;
}

bool sim_primary_active(sim_device *d)
{
    pthread_mutex_lock(&d->primary_lock);
    bool active = d->primary != NULL && d->primary_refs > 0;
    pthread_mutex_unlock(&d->primary_lock);
    return active;
}

sim_status sim_primary_reset(sim_device *d)
{
    pthread_mutex_lock(&d->primary_lock);
    sim_ctx *doomed = NULL;
    if (d->primary && sim_process_claimed() != SIM_OK) {
        doomed = d->primary;
        d->primary = NULL;
    } else if (d->primary) {
        sim_ctx_reset(d->primary);
    }
    pthread_mutex_unlock(&d->primary_lock);
    if (doomed) {
        sim_ctx_destroy(doomed, false);
        sim_obj_release(&doomed->obj);
    }
    return SIM_OK;
}

/* Below this many microseconds sim_host_spend spins rather than sleeps. */
#define SIM_HOST_SPIN_MAX_US 200u

void sim_host_spend(uint32_t us)
{
    if (us == 0)
        return;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)us * 1000u;
    until.tv_sec += (time_t)(ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    /* Short times are spun, as a driver's call spends them on the CPU: a
     * sleep would take the kernel's timer slack (about 50 us) on top, five
     * times the default launch's 20. Long ones are slept to the deadline,
     * restarted after a signal. Either way the call takes at least `us`. */
    if (us < SIM_HOST_SPIN_MAX_US) {
        struct timespec now;
        do
            clock_gettime(CLOCK_MONOTONIC, &now);
        while (now.tv_sec < until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec));
        return;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
}
