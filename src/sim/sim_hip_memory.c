/*
 * HIP face: memory.
 *
 * HIP's address space is unified: a device pointer says which device it
 * lives on. So an operation on device memory without an explicit stream
 * (synchronous copies and memsets, hipFree, async calls on the NULL stream)
 * goes to the device that owns the address, whichever device is current,
 * and runs on that device's null stream; an address no device owns is
 * refused with hipErrorInvalidValue. With an explicit stream the stream's
 * device is used and the addresses must be its own (peer copies are not
 * simulated).
 *
 * As in the CUDA face, synchronous copies and memsets check their whole
 * range at the call and wait for the null stream; asynchronous ones check
 * only that the range starts in a live allocation, and running past its end
 * is a sticky hipErrorIllegalAddress when the copy executes. hipFree takes
 * effect for the host at once and never blocks, while work queued before it
 * still sees the memory: the outcome of ROCm's hipFree, which waits for the
 * device first.
 */
#include "sim_hip.h"

#include <stdlib.h>
#include <string.h>

#define SIM_HIP_HOST_MALLOC_FLAGS                                                        \
    (SIM_HIP_HOST_MALLOC_PORTABLE | SIM_HIP_HOST_MALLOC_MAPPED |                        \
     SIM_HIP_HOST_MALLOC_WRITE_COMBINED | SIM_HIP_HOST_MALLOC_NUMA_USER |               \
     SIM_HIP_HOST_MALLOC_COHERENT | SIM_HIP_HOST_MALLOC_NON_COHERENT)

/* The primary context of the device that owns dptr, retained: the current
 * device is asked first. NULL if no device does. */
static sim_ctx *owner_of(uint64_t dptr)
{
    int cur = sim_hip_current_device();
    int n = sim_device_count();
    for (int k = 0; k < n; k++) {
        int i = k == 0 ? cur : (k - 1 < cur ? k - 1 : k);
        sim_device *d = sim_device_get(i);
        sim_ctx *c = d ? sim_hip_primary_if_any(d) : NULL;
        if (!c)
            continue;
        size_t off;
        sim_alloc *a = sim_mem_find(c, dptr, SIM_CLOCK_NOW, &off);
        if (a) {
            sim_alloc_release(a);
            return c;
        }
        sim_obj_release(&c->obj);
    }
    return NULL;
}

static hipError_t healthy(sim_ctx *c)
{
    sim_status st = sim_ctx_health(c);
    if (st)
        sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

/* The context for an operation on dptr without an explicit stream, retained
 * and healthy: its owner's, or the current device's when no device owns it
 * (whose checks then refuse the address). */
static hipError_t ctx_for(uint64_t dptr, sim_ctx **c)
{
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    *c = owner_of(dptr);
    return *c ? healthy(*c) : sim_hip_enter(c);
}

/* The context and stream for an operation on dptr queued on h, retained. */
static hipError_t target(hipStream_t h, uint64_t dptr, sim_ctx **c, sim_stream **s)
{
    hipError_t r;
    if (sim_hip_is_null_stream(h)) {
        r = ctx_for(dptr, c);
    } else {
        if ((r = sim_hip_init()))
            return r;
        sim_stream *us = (sim_stream *)sim_registry_get(SIM_HANDLE(h), SIM_KIND_STREAM);
        if (!us) {
            sim_detail("stream %p is not a live stream", (void *)h);
            return hipErrorInvalidHandle;
        }
        *c = us->ctx;
        sim_obj_retain(&(*c)->obj);
        sim_obj_release(&us->obj);
        r = healthy(*c);
    }
    if (r)
        return r;
    sim_status st = sim_hip_stream_of(h, *c, s);
    if (st)
        sim_obj_release(&(*c)->obj);
    return sim_hip_result(st);
}

/* Checks that [d, d+bytes) starts in a live allocation of c and, if whole,
 * that it also ends inside it. */
static sim_status check_range(sim_ctx *c, uint64_t d, size_t bytes, bool whole)
{
    size_t off;
    sim_alloc *a = sim_mem_find(c, d, SIM_CLOCK_NOW, &off);
    if (!a) {
        sim_detail("device address 0x%llx is not in a live allocation of device %d",
                   (unsigned long long)d, c->dev->ordinal);
        return SIM_ERR_INVALID_VALUE;
    }
    bool fits = bytes <= a->size - off;
    sim_alloc_release(a);
    if (whole && !fits) {
        sim_detail("device range 0x%llx + %zu runs past the end of its allocation",
                   (unsigned long long)d, bytes);
        return SIM_ERR_INVALID_VALUE;
    }
    return SIM_OK;
}

typedef struct copy_req {
    sim_op_kind kind;
    uint64_t dst, src;       /* device addresses */
    void *host_dst;
    const void *host_src;
    size_t bytes;
    unsigned char value;     /* SIM_OP_MEMSET */
    hipStream_t stream;
    bool sync;
} copy_req;

/* The device address that decides where the request runs. */
static uint64_t deciding_address(const copy_req *q)
{
    return q->kind == SIM_OP_COPY_DTOH ? q->src : q->dst;
}

static sim_status checks(sim_ctx *c, const copy_req *q)
{
    bool whole = q->sync;
    switch (q->kind) {
    case SIM_OP_COPY_HTOD:
        return q->host_src ? check_range(c, q->dst, q->bytes, whole) : SIM_ERR_INVALID_VALUE;
    case SIM_OP_COPY_DTOH:
        return q->host_dst ? check_range(c, q->src, q->bytes, whole) : SIM_ERR_INVALID_VALUE;
    case SIM_OP_COPY_DTOD: {
        sim_status st = check_range(c, q->dst, q->bytes, whole);
        return st ? st : check_range(c, q->src, q->bytes, whole);
    }
    default:
        return check_range(c, q->dst, q->bytes, whole);
    }
}

static sim_op *make_op(const copy_req *q)
{
    sim_op *op = sim_op_new(q->kind);
    if (!op)
        return NULL;
    if (q->kind == SIM_OP_MEMSET) {
        op->u.set.dst = q->dst;
        op->u.set.value = q->value;
        op->u.set.bytes = q->bytes;
        return op;
    }
    op->u.copy.dst = q->dst;
    op->u.copy.src = q->src;
    op->u.copy.bytes = q->bytes;
    if (q->kind == SIM_OP_COPY_DTOH)
        op->u.copy.host = q->host_dst;
    if (q->kind == SIM_OP_COPY_HTOD) {
        op->u.copy.host = (void *)(uintptr_t)q->host_src;
        /* Pageable memory is read at the call (HIP stages it); page-locked
         * memory when the copy runs. */
        if (!q->sync && !sim_host_contains(q->host_src, q->bytes)) {
            op->u.copy.staged = malloc(q->bytes);
            if (!op->u.copy.staged) {
                sim_op_free(op);
                return NULL;
            }
            memcpy(op->u.copy.staged, q->host_src, q->bytes);
        }
    }
    return op;
}

static hipError_t run(const copy_req *q)
{
    sim_ctx *c;
    sim_stream *s;
    hipError_t r = target(q->stream, deciding_address(q), &c, &s);
    if (r)
        return r;
    sim_status st = SIM_OK;
    if (q->bytes && !(st = checks(c, q))) {
        sim_op *op = make_op(q);
        uint64_t seq = op ? sim_stream_submit(s, op) : 0; /* submit frees op on failure */
        if (!op)
            st = SIM_ERR_OUT_OF_MEMORY;
        else if (!seq)
            st = SIM_ERR_CONTEXT_DESTROYED;
        else if (q->sync)
            st = sim_stream_finish(s, seq);
    }
    sim_obj_release(&s->obj);
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

/* ---- allocation --------------------------------------------------------- */

/* Size 0 gives NULL and success, as in HIP. */
SIM_EXPORT hipError_t hipMalloc(void **ptr, size_t size)
{
    SIM_HIP_COUNT(hipMalloc);
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    sim_status st = ptr ? SIM_OK : SIM_ERR_INVALID_VALUE;
    uint64_t d = 0;
    if (!st && size)
        st = sim_mem_alloc(c, size, &d);
    if (!st)
        *ptr = (void *)(uintptr_t)d;
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

/* NULL is a no-op; any device's memory may be freed from any thread. */
SIM_EXPORT hipError_t hipFree(void *ptr)
{
    SIM_HIP_COUNT(hipFree);
    hipError_t r = sim_hip_init();
    if (r || !ptr)
        return r;
    sim_ctx *c = owner_of(SIM_DPTR(ptr));
    if (!c) {
        if ((r = sim_hip_enter(&c)))
            return r;
        sim_obj_release(&c->obj);
        sim_detail("%p is not device memory of any device", ptr);
        return hipErrorInvalidValue;
    }
    sim_status st = sim_ctx_health(c);
    if (!st)
        st = sim_mem_free(c, SIM_DPTR(ptr));
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    SIM_HIP_COUNT(hipHostMalloc);
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    const unsigned both = SIM_HIP_HOST_MALLOC_COHERENT | SIM_HIP_HOST_MALLOC_NON_COHERENT;
    sim_status st = SIM_OK;
    if (!ptr || (flags & ~SIM_HIP_HOST_MALLOC_FLAGS) || (flags & both) == both) {
        sim_detail("hipHostMalloc: NULL pointer or flags 0x%x", flags);
        st = SIM_ERR_INVALID_VALUE;
    } else if (size == 0) {
        *ptr = NULL;
    } else {
        /* The flags change nothing in the simulation: the memory is plain
         * page-aligned host memory, owned by the current device. */
        st = sim_host_alloc(c, size, ptr);
    }
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipHostFree(void *ptr)
{
    SIM_HIP_COUNT(hipHostFree);
    hipError_t r = sim_hip_init();
    if (r || !ptr)
        return r;
    return sim_hip_result(sim_host_free(ptr));
}

/* ---- copies and memsets ------------------------------------------------- */

SIM_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)
{
    SIM_HIP_COUNT(hipMemcpyHtoD);
    copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = SIM_DPTR(dst), .host_src = src,
                   .bytes = sizeBytes, .sync = true };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
    SIM_HIP_COUNT(hipMemcpyDtoH);
    copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = SIM_DPTR(src), .host_dst = dst,
                   .bytes = sizeBytes, .sync = true };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
    SIM_HIP_COUNT(hipMemcpyDtoD);
    copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = SIM_DPTR(dst), .src = SIM_DPTR(src),
                   .bytes = sizeBytes, .sync = true };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes,
                                         hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemcpyHtoDAsync);
    copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = SIM_DPTR(dst), .host_src = src,
                   .bytes = sizeBytes, .stream = stream };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes,
                                         hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemcpyDtoHAsync);
    copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = SIM_DPTR(src), .host_dst = dst,
                   .bytes = sizeBytes, .stream = stream };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src,
                                         size_t sizeBytes, hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemcpyDtoDAsync);
    copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = SIM_DPTR(dst), .src = SIM_DPTR(src),
                   .bytes = sizeBytes, .stream = stream };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count)
{
    SIM_HIP_COUNT(hipMemsetD8);
    copy_req q = { .kind = SIM_OP_MEMSET, .dst = SIM_DPTR(dest), .value = value,
                   .bytes = count, .sync = true };
    return run(&q);
}

SIM_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                                       hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemsetD8Async);
    copy_req q = { .kind = SIM_OP_MEMSET, .dst = SIM_DPTR(dest), .value = value,
                   .bytes = count, .stream = stream };
    return run(&q);
}
