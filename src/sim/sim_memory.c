/*
 * Device memory and page-locked host memory.
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

sim_status sim_mem_alloc(sim_ctx *c, size_t bytes, uint64_t *dptr)
{
    if (bytes == 0) {
        sim_detail("allocation of 0 bytes");
        return SIM_ERR_INVALID_VALUE;
    }
    pthread_once(&g_va_once, reserve_va);
    size_t pg = page_size();
    if (bytes > SIM_VA_SPAN)
        return SIM_ERR_OUT_OF_MEMORY;
    size_t span = (bytes + pg - 1) / pg * pg;
    if (!account(c->dev, span)) {
        sim_detail("device %d: %zu bytes requested, memory_mb exhausted", c->dev->ordinal, bytes);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    uint64_t va = atomic_fetch_add(&g_va_next, span + SIM_VA_GUARD);
    sim_alloc *a = sim_calloc(1, sizeof *a);
    void *host = mmap(NULL, span, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (va + span > SIM_VA_BASE + SIM_VA_SPAN || !a || host == MAP_FAILED) {
        if (host != MAP_FAILED)
            munmap(host, span);
        free(a);
        atomic_fetch_sub(&c->dev->mem_used, span);
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
    atomic_init(&a->refs, 1); /* the table's reference */
    sim_live_count_add(1);
    if (!table_insert(c, a)) {
        atomic_fetch_sub(&c->dev->mem_used, span);
        sim_alloc_release(a);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    *dptr = va;
    return SIM_OK;
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
    if (!a)
        return NULL;
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
    atomic_fetch_sub(&c->dev->mem_used, a->span);
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
            atomic_fetch_sub(&list[i]->dev->mem_used, list[i]->span);
        sim_alloc_release(list[i]);
    }
    free(list);
}

/* ---- page-locked host memory: plain page-aligned memory, tracked ---- */

typedef struct host_alloc {
    struct host_alloc *next;
    void *p;
    size_t size;
    sim_ctx *owner;
    bool mapped;            /* also mapped for the device: stream writes may target it */
} host_alloc;

static pthread_mutex_t g_host_lock = PTHREAD_MUTEX_INITIALIZER;
static host_alloc *g_host;

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
        return SIM_ERR_OUT_OF_MEMORY;
    }
    h->p = mem;
    h->size = bytes;
    h->owner = c;
    h->mapped = mapped;
    pthread_mutex_lock(&g_host_lock);
    h->next = g_host;
    g_host = h;
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

/* The allocation holding [q, q+bytes), or NULL; g_host_lock held. */
static host_alloc *host_find(const char *q, size_t bytes)
{
    for (host_alloc *h = g_host; h; h = h->next) {
        const char *b = h->p;
        if (q >= b && q < b + h->size && bytes <= (size_t)(b + h->size - q))
            return h;
    }
    return NULL;
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
        sim_detail("%p was allocated without the device-mapped flag", p);
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
    while (*pp && (*pp)->p != p)
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
    bool yes = h && h->owner->dev == c->dev;
    pthread_mutex_unlock(&g_host_lock);
    return yes ? (void *)(uintptr_t)addr : NULL;
}

bool sim_host_contains(const void *p, size_t bytes)
{
    pthread_mutex_lock(&g_host_lock);
    bool yes = host_find(p, bytes) != NULL;
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
        free(h->p);
        free(h);
        sim_live_count_add(-1);
    }
}
