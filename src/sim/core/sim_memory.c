/*
 * Device memory and managed memory (page-locked host memory:
 * sim_host_memory.c).
 *
 * Device addresses are fake: they are handed out from a range starting at
 * SIM_VA_BASE that is reserved PROT_NONE when the kernel lets us, with an
 * unmapped guard gap after each allocation and no reuse, so a host
 * dereference of a device pointer crashes and a stale device pointer never
 * aliases a newer allocation. The bytes live in a separate anonymous mapping
 * found through the context's table (sorted by address).
 *
 * A free takes effect for the host at once (the memory counts as free, new
 * copies to it are refused), but work submitted before the free still sees
 * the allocation until every stream of the context has passed the free —
 * the same outcome as CUDA, whose cuMemFree waits for the device.
 *
 * Managed memory (cuMemAllocManaged) is an allocation of the same table
 * whose device address is its host mapping's address: the host reads and
 * writes it in place and kernels, which run on the host, reach the same
 * bytes. It has no guard gap (a stale managed pointer may alias a later
 * mapping of the process, as a stale host pointer may).
 *
 * Managed memory does not count against the device's memory (mem_used,
 * cuMemGetInfo): an H100 (CONCURRENT_MANAGED_ACCESS 1) gives more than it
 * holds (total + 1 byte, 4 x total: docs/DRIVER-FACTS.md), since its pages
 * live on the device only while touched there, and a free memory report
 * counts what the device holds. Here the pages are the host's, reserved
 * with MAP_NORESERVE, so an untouched page costs nothing; the bound is the
 * simulator's address range (SIM_VA_SPAN), as for device memory.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIM_VA_BASE 0x7d0000000000ull
#define SIM_VA_SPAN (1ull << 40)
#define SIM_VA_GUARD (64ull << 10)

static pthread_once_t g_va_once = PTHREAD_ONCE_INIT;
static atomic_ullong g_va_next = SIM_VA_BASE;

static void reserve_va(void)
{
#ifdef MAP_FIXED_NOREPLACE
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE;
#else
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#endif
    void *want = (void *)(uintptr_t)SIM_VA_BASE;
    void *p = mmap(want, SIM_VA_SPAN, PROT_NONE, flags, -1, 0);
    /* Best effort: if the range is taken, the addresses are still fake and
     * almost surely unmapped. */
    if (p != MAP_FAILED && p != want)
        munmap(p, SIM_VA_SPAN);
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static void alloc_release_final(sim_alloc *a)
{
    munmap(a->host, a->span);
    free(a);
    sim_live_count_add(-1);
}

void sim_alloc_release(sim_alloc *a)
{
    if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
        alloc_release_final(a);
}

static bool account(sim_device *d, uint64_t bytes)
{
    unsigned long long used = atomic_load(&d->mem_used);
    do {
        if (bytes > d->cfg->memory_bytes - used)
            return false;
    } while (!atomic_compare_exchange_weak(&d->mem_used, &used, used + bytes));
    return true;
}

/* Index of the first allocation whose base is > dptr; caller holds c->lock. */
static size_t upper_bound(const sim_ctx *c, uint64_t dptr)
{
    size_t lo = 0, hi = c->nallocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->allocs[mid]->dptr <= dptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool table_insert(sim_ctx *c, sim_alloc *a)
{
    pthread_mutex_lock(&c->lock);
    bool ok = !atomic_load(&c->dying);
    if (ok && c->nallocs == c->capallocs) {
        size_t cap = c->capallocs ? c->capallocs * 2 : 16;
        sim_alloc **n = sim_realloc(c->allocs, cap * sizeof *n);
        if (n) {
            c->allocs = n;
            c->capallocs = cap;
        } else {
            ok = false;
        }
    }
    if (ok) {
        size_t at = upper_bound(c, a->dptr);
        memmove(&c->allocs[at + 1], &c->allocs[at], (c->nallocs - at) * sizeof *c->allocs);
        c->allocs[at] = a;
        c->nallocs++;
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

/* What an allocation counts against its device's memory: its span, or 0
 * for managed memory (oversubscribed, as on a GPU with concurrent managed
 * access: see the top of the file). */
static uint64_t counted_bytes(bool managed, size_t span)
{
    return managed ? 0 : span;
}

/* A device allocation, or with managed a managed one: its bytes are the
 * host mapping itself, at the same address for the host and for kernels
 * (kernels run on the host here), so the host reads and writes it
 * directly. A managed allocation does not count against the device's
 * memory (counted_bytes) and has no guard gap: its address is wherever
 * the host mapping landed. */
static sim_status alloc_bytes(sim_ctx *c, size_t bytes, bool managed, uint64_t *dptr)
{
    if (bytes == 0) {
        sim_detail("allocation of 0 bytes");
        return SIM_ERR_INVALID_VALUE;
    }
    pthread_once(&g_va_once, reserve_va);
    size_t pg = page_size();
    if (bytes > SIM_VA_SPAN) {
        sim_detail("device %d: %zu bytes requested, more than the simulator's address range",
                   c->dev->ordinal, bytes);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    size_t span = (bytes + pg - 1) / pg * pg;
    uint64_t counted = counted_bytes(managed, span);
    if (!account(c->dev, counted)) {
        sim_detail("device %d: %zu bytes requested, memory_mb exhausted", c->dev->ordinal, bytes);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    uint64_t va = managed ? 0 : atomic_fetch_add(&g_va_next, span + SIM_VA_GUARD);
    sim_alloc *a = sim_calloc(1, sizeof *a);
    void *host = mmap(NULL, span, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (managed && host != MAP_FAILED)
        va = (uint64_t)(uintptr_t)host;
    /* A managed address inside the fake range (possible only when its
     * reservation failed) could later alias a device address: refused. */
    bool in_fake_range = va >= SIM_VA_BASE && va - SIM_VA_BASE < SIM_VA_SPAN;
    if ((managed ? in_fake_range : va + span > SIM_VA_BASE + SIM_VA_SPAN) || !a || host == MAP_FAILED) {
        if (host != MAP_FAILED)
            munmap(host, span);
        free(a);
        atomic_fetch_sub(&c->dev->mem_used, counted);
        sim_detail("device %d: no host memory or address range left for %zu bytes",
                   c->dev->ordinal, bytes);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    a->dptr = va;
    a->size = bytes;
    a->span = span;
    {
        size_t g = c->dev->cfg->allocation_granularity ? c->dev->cfg->allocation_granularity : 1;
        size_t extent = (bytes + g - 1) / g * g;
        a->extent = extent < span ? extent : span;
    }
    a->host = host;
    a->dev = c->dev;
    a->managed = managed;
    atomic_init(&a->refs, 1); /* the table's reference */
    sim_live_count_add(1);
    if (!table_insert(c, a)) {
        atomic_fetch_sub(&c->dev->mem_used, counted);
        sim_alloc_release(a);
        sim_detail("the context is being destroyed, or its allocation table could not grow");
        return SIM_ERR_OUT_OF_MEMORY;
    }
    *dptr = va;
    return SIM_OK;
}

sim_status sim_mem_alloc(sim_ctx *c, size_t bytes, uint64_t *dptr)
{
    return alloc_bytes(c, bytes, false, dptr);
}

sim_status sim_mem_alloc_managed(sim_ctx *c, size_t bytes, uint64_t *dptr)
{
    return alloc_bytes(c, bytes, true, dptr);
}

static sim_alloc *find(sim_ctx *c, uint64_t dptr, uint64_t clock, size_t *offset, bool by_kernel)
{
    sim_alloc *found = NULL;
    pthread_mutex_lock(&c->lock);
    size_t at = upper_bound(c, dptr);
    if (at > 0) {
        sim_alloc *a = c->allocs[at - 1];
        bool visible = a->freed_clock == 0 || clock < a->freed_clock;
        if (visible && dptr - a->dptr < (by_kernel && a->extent ? a->extent : a->size)) {
            found = a;
            atomic_fetch_add(&a->refs, 1);
            *offset = (size_t)(dptr - a->dptr);
        }
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

sim_alloc *sim_mem_find(sim_ctx *c, uint64_t dptr, uint64_t clock, size_t *offset)
{
    return find(c, dptr, clock, offset, false);
}

sim_alloc *sim_mem_find_kernel(sim_ctx *c, uint64_t dptr, uint64_t clock, size_t *offset)
{
    return find(c, dptr, clock, offset, true);
}

sim_alloc *sim_mem_find_any(uint64_t dptr, sim_ctx **ctx, size_t *offset)
{
    uint32_t cursor = 0;
    sim_obj *o;
    /* Context by context, with no registry lock held while a context's
     * own lock is taken. */
    while ((o = sim_registry_next(SIM_KIND_CONTEXT, &cursor)) != NULL) {
        sim_ctx *c = (sim_ctx *)o;
        sim_alloc *a = sim_mem_find(c, dptr, SIM_CLOCK_NOW, offset);
        if (a) {
            *ctx = c;
            return a;
        }
        sim_obj_release(o);
    }
    return NULL;
}

void *sim_mem_map(sim_ctx *c, uint64_t dptr, size_t bytes, uint64_t clock, sim_alloc **pin)
{
    size_t off;
    sim_alloc *a = sim_mem_find(c, dptr, clock, &off);
    if (!a) {
        /* Page-locked host memory reached at its host address (unified
         * addressing): nothing to pin, freeing it under running work is
         * the program's race, as on a GPU. */
        *pin = NULL;
        return sim_host_device_access(c, dptr, bytes ? bytes : 1);
    }
    if (bytes > a->size - off) {
        sim_alloc_release(a);
        return NULL;
    }
    *pin = a;
    return (char *)a->host + off;
}

/* Removes a from the table if present; caller holds c->lock. */
static bool table_remove_locked(sim_ctx *c, sim_alloc *a)
{
    size_t at = upper_bound(c, a->dptr);
    if (at == 0 || c->allocs[at - 1] != a)
        return false;
    memmove(&c->allocs[at - 1], &c->allocs[at], (c->nallocs - at) * sizeof *c->allocs);
    c->nallocs--;
    return true;
}

/* Streams of c, retained, for queueing the free behind their work. */
static sim_stream **snapshot_streams(sim_ctx *c, size_t *n)
{
    sim_stream **list = sim_malloc((c->nstreams ? c->nstreams : 1) * sizeof *list);
    *n = 0;
    if (!list)
        return NULL;
    for (size_t i = 0; i < c->nstreams; i++) {
        sim_obj_retain(&c->streams[i]->obj);
        list[(*n)++] = c->streams[i];
    }
    return list;
}

sim_status sim_mem_alloc_module_data(sim_ctx *c, size_t bytes, uint64_t *dptr, sim_alloc **out)
{
    sim_status st = sim_mem_alloc(c, bytes, dptr);
    if (st)
        return st;
    size_t off;
    sim_alloc *a = sim_mem_find(c, *dptr, SIM_CLOCK_NOW, &off);
    if (!a) { /* the context died in between */
        sim_mem_free(c, *dptr);
        return SIM_ERR_CONTEXT_DESTROYED;
    }
    pthread_mutex_lock(&c->lock);
    a->module_data = true;
    pthread_mutex_unlock(&c->lock);
    *out = a;
    return SIM_OK;
}

/* The user's frees (module false) may not free a module's variables. */
static sim_status free_allocation(sim_ctx *c, uint64_t dptr, bool module)
{
    pthread_mutex_lock(&c->lock);
    size_t at = upper_bound(c, dptr);
    sim_alloc *a = at ? c->allocs[at - 1] : NULL;
    if (!a || a->dptr != dptr || a->freed_clock || a->module_data != module) {
        /* Decided under the lock: once it is released, a stream worker may
         * drop the last reference to an allocation being freed. */
        bool module_variables = a && a->dptr == dptr && !a->freed_clock && a->module_data;
        pthread_mutex_unlock(&c->lock);
        if (module_variables)
            sim_detail("0x%llx holds a module's variables: it is freed when the module is unloaded",
                       (unsigned long long)dptr);
        else
            sim_detail("0x%llx is not the start of a live allocation of this context",
                       (unsigned long long)dptr);
        return SIM_ERR_INVALID_VALUE;
    }
    a->freed_clock = atomic_fetch_add(&c->clock, 1);
    size_t n;
    sim_stream **streams = snapshot_streams(c, &n);
    a->pending_frees = (unsigned)n + 1; /* +1: ours, dropped below */
    pthread_mutex_unlock(&c->lock);
    atomic_fetch_sub(&c->dev->mem_used, counted_bytes(a->managed, a->span));
    for (size_t i = 0; i < n; i++) {
        sim_op *op = sim_op_new(SIM_OP_FREE);
        bool queued = false;
        if (op) {
            atomic_fetch_add(&a->refs, 1);
            op->u.free = a;
            queued = sim_stream_submit(streams[i], op) != 0; /* frees op on failure */
        }
        if (!queued)
            sim_mem_free_passed(c, a);
        sim_obj_release(&streams[i]->obj);
    }
    free(streams);
    sim_mem_free_passed(c, a); /* our own share */
    return SIM_OK;
}

sim_status sim_mem_free(sim_ctx *c, uint64_t dptr)
{
    return free_allocation(c, dptr, false);
}

sim_status sim_mem_free_module_data(sim_ctx *c, uint64_t dptr)
{
    return free_allocation(c, dptr, true);
}

void sim_mem_free_passed(sim_ctx *c, sim_alloc *a)
{
    bool retire = false;
    pthread_mutex_lock(&c->lock);
    if (a->pending_frees && --a->pending_frees == 0)
        retire = table_remove_locked(c, a);
    pthread_mutex_unlock(&c->lock);
    if (retire)
        sim_alloc_release(a); /* the table's reference */
}

void sim_mem_free_all(sim_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    sim_alloc **list = c->allocs;
    size_t n = c->nallocs;
    c->allocs = NULL;
    c->nallocs = c->capallocs = 0;
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++) {
        if (!list[i]->freed_clock)
            atomic_fetch_sub(&list[i]->dev->mem_used, counted_bytes(list[i]->managed, list[i]->span));
        sim_alloc_release(list[i]);
    }
    free(list);
}
