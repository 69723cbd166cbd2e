/*
 * Page-locked host memory: allocated (cuMemAllocHost, cuMemHostAlloc,
 * hipHostMalloc) or registered (cuMemHostRegister), both kept in one list
 * with the context that made them, which takes them with it when it is
 * destroyed (registered memory is only forgotten, never freed: the
 * program owns it).
 *
 * Under unified addressing (every 64-bit CUDA system) page-locked memory
 * is reached by the device at its host address: cuMemHostGetDevicePointer
 * answers the host address, and device-side calls (memsets, copies,
 * kernels) accept it. Allocated memory is device-accessible whatever its
 * flags, as CUDA documents for unified addressing (the CUDA face allocates
 * it all mapped: an H100 answered cuMemHostGetDevicePointer for
 * cuMemHostAlloc's flags 0 and for cuMemAllocHost, docs/DRIVER-FACTS.md);
 * registered memory when the caller asks it mapped, which the CUDA face
 * (the only caller) does for every registration (measured: an H100 maps a
 * range registered with flags 0 too).
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct host_alloc {
    struct host_alloc *next;
    void *p;
    size_t size;
    sim_ctx *owner;
    bool mapped;            /* also mapped for the device: stream writes may target it */
    bool registered;        /* the program's memory, registered: never freed here */
} host_alloc;

static pthread_mutex_t g_host_lock = PTHREAD_MUTEX_INITIALIZER;
static host_alloc *g_host;

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Links h in; g_host_lock held. */
static void link_locked(host_alloc *h)
{
    h->next = g_host;
    g_host = h;
}

static sim_status host_alloc_flags(sim_ctx *c, size_t bytes, bool mapped, void **p)
{
    if (bytes == 0) {
        sim_detail("allocation of 0 bytes");
        return SIM_ERR_INVALID_VALUE;
    }
    host_alloc *h = sim_calloc(1, sizeof *h);
    void *mem = NULL;
    if (!h || sim_posix_memalign(&mem, page_size(), bytes) != 0) {
        free(h);
        sim_detail("no host memory for %zu page-locked bytes", bytes);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    h->p = mem;
    h->size = bytes;
    h->owner = c;
    h->mapped = mapped;
    pthread_mutex_lock(&g_host_lock);
    link_locked(h);
    pthread_mutex_unlock(&g_host_lock);
    sim_live_count_add(1);
    *p = mem;
    return SIM_OK;
}

sim_status sim_host_alloc(sim_ctx *c, size_t bytes, void **p)
{
    return host_alloc_flags(c, bytes, false, p);
}

sim_status sim_host_alloc_mapped(sim_ctx *c, size_t bytes, void **p)
{
    return host_alloc_flags(c, bytes, true, p);
}

/* The entry holding [q, q+bytes), or NULL; g_host_lock held. */
static host_alloc *host_find(const char *q, size_t bytes)
{
    for (host_alloc *h = g_host; h; h = h->next) {
        const char *b = h->p;
        if (q >= b && q < b + h->size && bytes <= (size_t)(b + h->size - q))
            return h;
    }
    return NULL;
}

/* Whether a context of c's device reaches h at its host address. */
static bool device_reaches(const host_alloc *h, const sim_ctx *c)
{
    return h->owner->dev == c->dev && (!h->registered || h->mapped);
}

sim_status sim_host_register(sim_ctx *c, void *p, size_t bytes, bool mapped, bool *overlaps)
{
    *overlaps = false;
    uintptr_t base = (uintptr_t)p;
    if (!p || bytes == 0 || base > UINTPTR_MAX - bytes) {
        sim_detail("host register: pointer %p, %zu bytes", p, bytes);
        return SIM_ERR_INVALID_VALUE;
    }
    host_alloc *h = sim_calloc(1, sizeof *h);
    if (!h) {
        sim_detail("host register: no memory to record the range");
        return SIM_ERR_OUT_OF_MEMORY;
    }
    h->p = p;
    h->size = bytes;
    h->owner = c;
    h->mapped = mapped;
    h->registered = true;
    /* Measured on an H100 (docs/DRIVER-FACTS.md, "Registered host
     * memory"): a registered range again, or one overlapping it, is
     * HOST_MEMORY_ALREADY_REGISTERED; cuMemHostAlloc's memory is not the
     * program's to register: INVALID_VALUE (an overlap with allocated
     * memory decides first). */
    bool allocated = false;
    pthread_mutex_lock(&g_host_lock);
    for (host_alloc *o = g_host; o; o = o->next) {
        uintptr_t ob = (uintptr_t)o->p;
        if (base < ob + o->size && ob < base + bytes) {
            if (o->registered)
                *overlaps = true;
            else
                allocated = true;
        }
    }
    if (allocated)
        *overlaps = false;
    if (!*overlaps && !allocated)
        link_locked(h);
    pthread_mutex_unlock(&g_host_lock);
    if (*overlaps || allocated) {
        free(h);
        sim_detail("host register: [%p, +%zu) overlaps %s", p, bytes,
                   allocated ? "page-locked memory the driver allocated" : "registered memory");
        return SIM_ERR_INVALID_VALUE;
    }
    return SIM_OK; /* not a live object of the simulator: the memory is the program's */
}

sim_status sim_host_unregister(void *p)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc **pp = &g_host;
    while (*pp && !((*pp)->registered && (*pp)->p == p))
        pp = &(*pp)->next;
    host_alloc *h = *pp;
    if (h)
        *pp = h->next;
    /* Measured on an H100 (docs/DRIVER-FACTS.md): an address inside a
     * registered range, or in cuMemHostAlloc's memory, is INVALID_VALUE;
     * only one the driver has no page-locked memory at is
     * HOST_MEMORY_NOT_REGISTERED. */
    host_alloc *inside = h ? NULL : host_find(p, 1);
    pthread_mutex_unlock(&g_host_lock);
    if (inside) {
        sim_detail("host unregister: %p is inside %s, not the start of a registered range", p,
                   inside->registered ? "a registered range" : "page-locked memory the driver allocated");
        return SIM_ERR_INVALID_VALUE;
    }
    if (!h) {
        sim_detail("host unregister: %p is not registered", p);
        return SIM_ERR_NOT_FOUND;
    }
    free(h);
    return SIM_OK;
}

bool sim_host_pointer_info(const void *p, sim_host_pointer *out)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find(p, 1);
    if (h) {
        out->base = (uint64_t)(uintptr_t)h->p;
        out->size = h->size;
        out->ctx_handle = h->owner->obj.handle;
        out->device_ordinal = h->owner->dev->ordinal;
        out->device_mapped = !h->registered || h->mapped;
    }
    pthread_mutex_unlock(&g_host_lock);
    return h != NULL;
}

sim_status sim_host_device_pointer(sim_ctx *c, const void *p, uint64_t *dptr)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find(p, 1);
    sim_status st = SIM_OK;
    if (!h) {
        sim_detail("%p is not page-locked host memory of the simulator", p);
        st = SIM_ERR_INVALID_VALUE;
    } else if (!h->mapped) {
        sim_detail("%p was %s without the device-mapped flag", p, h->registered ? "registered" : "allocated");
        st = SIM_ERR_INVALID_VALUE;
    } else if (h->owner->dev != c->dev) {
        sim_detail("%p is mapped for device %d, not for the current context's device %d", p,
                   h->owner->dev->ordinal, c->dev->ordinal);
        st = SIM_ERR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&g_host_lock);
    if (!st)
        *dptr = (uint64_t)(uintptr_t)p;
    return st;
}

bool sim_host_mapped_contains(sim_ctx *c, uint64_t dptr, size_t bytes)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find((const char *)(uintptr_t)dptr, bytes);
    bool yes = h && h->mapped && h->owner->dev == c->dev;
    pthread_mutex_unlock(&g_host_lock);
    return yes;
}

bool sim_host_mapped_store(uint64_t dptr, uint64_t value, unsigned bytes)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find((const char *)(uintptr_t)dptr, bytes);
    bool ok = h && h->mapped;
    if (ok) {
        /* Atomic: the host may be reading the slot while the stream writes
         * it, as with real mapped memory; readers use atomic loads. */
        if (bytes == 8)
            __atomic_store_n((uint64_t *)(uintptr_t)dptr, value, __ATOMIC_RELEASE);
        else
            __atomic_store_n((uint32_t *)(uintptr_t)dptr, (uint32_t)value, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_host_lock);
    return ok;
}

sim_status sim_host_free(void *p)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc **pp = &g_host;
    while (*pp && ((*pp)->registered || (*pp)->p != p))
        pp = &(*pp)->next;
    host_alloc *h = *pp;
    sim_status st = SIM_OK;
    if (!h) {
        sim_detail("%p is not page-locked host memory of the simulator", p);
        st = SIM_ERR_INVALID_VALUE;
    } else if ((st = sim_ctx_health(h->owner)) == SIM_OK) {
        *pp = h->next;
    }
    pthread_mutex_unlock(&g_host_lock);
    if (st)
        return st;
    free(h->p);
    free(h);
    sim_live_count_add(-1);
    return SIM_OK;
}

void *sim_host_device_access(sim_ctx *c, uint64_t addr, size_t bytes)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find((const char *)(uintptr_t)addr, bytes);
    bool yes = h && device_reaches(h, c);
    pthread_mutex_unlock(&g_host_lock);
    return yes ? (void *)(uintptr_t)addr : NULL;
}

bool sim_host_device_range(sim_ctx *c, uint64_t addr, uint64_t *base, size_t *size)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find((const char *)(uintptr_t)addr, 1);
    bool yes = h && device_reaches(h, c);
    if (yes) {
        *base = (uint64_t)(uintptr_t)h->p;
        *size = h->size;
    }
    pthread_mutex_unlock(&g_host_lock);
    return yes;
}

bool sim_host_contains(const void *p, size_t bytes)
{
    pthread_mutex_lock(&g_host_lock);
    host_alloc *h = host_find(p, bytes);
    bool yes = h && !h->registered;
    pthread_mutex_unlock(&g_host_lock);
    return yes;
}

void sim_host_free_all(sim_ctx *c)
{
    host_alloc *doomed = NULL;
    pthread_mutex_lock(&g_host_lock);
    for (host_alloc **pp = &g_host; *pp;) {
        host_alloc *h = *pp;
        if (h->owner == c) {
            *pp = h->next;
            h->next = doomed;
            doomed = h;
        } else {
            pp = &h->next;
        }
    }
    pthread_mutex_unlock(&g_host_lock);
    while (doomed) {
        host_alloc *h = doomed;
        doomed = h->next;
        if (!h->registered) {
            free(h->p);
            sim_live_count_add(-1);
        }
        free(h);
    }
}
