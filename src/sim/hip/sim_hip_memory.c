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

#define GG_ABI_HIP_HOST_MALLOC_FLAGS                                                        \
    (GG_ABI_HIP_HOST_MALLOC_PORTABLE | GG_ABI_HIP_HOST_MALLOC_MAPPED |                        \
     GG_ABI_HIP_HOST_MALLOC_WRITE_COMBINED | GG_ABI_HIP_HOST_MALLOC_NUMA_USER |               \
     GG_ABI_HIP_HOST_MALLOC_COHERENT | GG_ABI_HIP_HOST_MALLOC_NON_COHERENT)

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

/* The device address that decides where the request runs. */
static uint64_t deciding_address(const sim_copy_req *q)
{
    return q->kind == SIM_OP_COPY_DTOH ? q->src : q->dst;
}

/* Runs q (staging pageable sources in fast mode too) on h, or without a
 * stream on the device that owns its address. */
static hipError_t run(sim_copy_req *q, hipStream_t h)
{
    sim_ctx *c;
    sim_stream *s;
    hipError_t r = sim_hip_target(h, ctx_for, deciding_address(q), &c, &s);
    if (r)
        return r;
    q->stage_in_fast_mode = true;
    sim_status st = SIM_OK;
    if (q->bytes && !(st = sim_copy_check(c, q, true)))
        st = sim_copy_submit(s, sim_copy_op(q), q->sync);
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
    const unsigned both = GG_ABI_HIP_HOST_MALLOC_COHERENT | GG_ABI_HIP_HOST_MALLOC_NON_COHERENT;
    sim_status st = SIM_OK;
    if (!ptr || (flags & ~GG_ABI_HIP_HOST_MALLOC_FLAGS) || (flags & both) == both) {
        sim_detail("hipHostMalloc: NULL pointer or flags 0x%x", flags);
        st = SIM_ERR_INVALID_VALUE;
    } else if (size == 0) {
        *ptr = NULL;
    } else if (flags & GG_ABI_HIP_HOST_MALLOC_MAPPED) {
        /* Mapped for the current device: hipHostGetDevicePointer gives its
         * device address and stream write-values may target it. */
        st = sim_host_alloc_mapped(c, size, ptr);
    } else {
        /* The other flags change nothing in the simulation: plain
         * page-aligned host memory, owned by the current device. Unlike
         * ROCm (which maps every hipHostMalloc allocation), it is not
         * mapped: code that needs a device address must ask for it. */
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

/* The device address of mapped host memory: the host address itself, as on
 * ROCm (unified addressing). The memory must come from hipHostMalloc with
 * hipHostMallocMapped on the current device. `flags` is "for extension" in
 * HIP's header and ignored by ROCm; any value is accepted. */
SIM_EXPORT hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
    SIM_HIP_COUNT(hipHostGetDevicePointer);
    (void)flags;
    sim_ctx *c;
    hipError_t r = sim_hip_enter(&c);
    if (r)
        return r;
    uint64_t d = 0;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (!devPtr || !hstPtr)
        sim_detail("hipHostGetDevicePointer: NULL %s", devPtr ? "host pointer" : "result pointer");
    else if (!(st = sim_host_device_pointer(c, hstPtr, &d)))
        *devPtr = (void *)(uintptr_t)d;
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

/* ---- stream write-value operations --------------------------------------- */

/* A write-value on the null stream goes to the current device. */
static hipError_t current_ctx(uint64_t unused, sim_ctx **c)
{
    (void)unused;
    return sim_hip_enter(c);
}

/* hipStreamWriteValue32/64: the store lands when stream h reaches it (after
 * all earlier work of h), and never if the device faults first; the core's
 * write-value operation (sim_write_value_submit) does both. `flags` is
 * "reserved, ignored for now" in HIP's header: ignored here too. The target
 * must be mapped host memory of the stream's device or its device memory,
 * aligned to the width. */
static hipError_t write_value(hipStream_t h, void *ptr, uint64_t value, unsigned bytes)
{
    sim_ctx *c;
    sim_stream *s;
    hipError_t r = sim_hip_target(h, current_ctx, 0, &c, &s);
    if (r)
        return r;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (!ptr)
        sim_detail("hipStreamWriteValue%u: NULL pointer", bytes * 8);
    else
        st = sim_write_value_submit(c, s, SIM_DPTR(ptr), value, bytes);
    sim_obj_release(&s->obj);
    sim_obj_release(&c->obj);
    return sim_hip_result(st);
}

SIM_EXPORT hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value,
                                            unsigned int flags)
{
    SIM_HIP_COUNT(hipStreamWriteValue32);
    (void)flags;
    return write_value(stream, ptr, value, 4);
}

SIM_EXPORT hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value,
                                            unsigned int flags)
{
    SIM_HIP_COUNT(hipStreamWriteValue64);
    (void)flags;
    return write_value(stream, ptr, value, 8);
}

/* ---- copies and memsets ------------------------------------------------- */

SIM_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)
{
    SIM_HIP_COUNT(hipMemcpyHtoD);
    sim_copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = SIM_DPTR(dst), .host_src = src,
                       .bytes = sizeBytes, .sync = true };
    return run(&q, NULL);
}

SIM_EXPORT hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
    SIM_HIP_COUNT(hipMemcpyDtoH);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = SIM_DPTR(src), .host_dst = dst,
                       .bytes = sizeBytes, .sync = true };
    return run(&q, NULL);
}

SIM_EXPORT hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
    SIM_HIP_COUNT(hipMemcpyDtoD);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = SIM_DPTR(dst), .src = SIM_DPTR(src),
                       .bytes = sizeBytes, .sync = true };
    return run(&q, NULL);
}

SIM_EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes,
                                         hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemcpyHtoDAsync);
    sim_copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = SIM_DPTR(dst), .host_src = src,
                       .bytes = sizeBytes };
    return run(&q, stream);
}

SIM_EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes,
                                         hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemcpyDtoHAsync);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = SIM_DPTR(src), .host_dst = dst,
                       .bytes = sizeBytes };
    return run(&q, stream);
}

SIM_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src,
                                         size_t sizeBytes, hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemcpyDtoDAsync);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = SIM_DPTR(dst), .src = SIM_DPTR(src),
                       .bytes = sizeBytes };
    return run(&q, stream);
}

SIM_EXPORT hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count)
{
    SIM_HIP_COUNT(hipMemsetD8);
    sim_copy_req q = { .kind = SIM_OP_MEMSET, .dst = SIM_DPTR(dest), .value = value,
                       .bytes = count, .sync = true };
    return run(&q, NULL);
}

SIM_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                                       hipStream_t stream)
{
    SIM_HIP_COUNT(hipMemsetD8Async);
    sim_copy_req q = { .kind = SIM_OP_MEMSET, .dst = SIM_DPTR(dest), .value = value,
                       .bytes = count };
    return run(&q, stream);
}

/* The attributes gpuguard's adoption checks use; the others (among them
 * HIP_POINTER_ATTRIBUTE_CONTEXT, which ROCm does not support either) are
 * hipErrorNotSupported. */
SIM_EXPORT hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr)
{
    SIM_HIP_COUNT(hipPointerGetAttribute);
    hipError_t r = sim_hip_init();
    if (r)
        return r;
    if (!data) {
        sim_detail("hipPointerGetAttribute: data is NULL");
        return hipErrorInvalidValue;
    }
    if (attribute != HIP_POINTER_ATTRIBUTE_DEVICE_POINTER && attribute != HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL &&
        attribute != HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR && attribute != HIP_POINTER_ATTRIBUTE_RANGE_SIZE) {
        sim_detail("hipPointerGetAttribute: attribute %u is not simulated", (unsigned)attribute);
        return hipErrorNotSupported;
    }
    sim_ctx *c = NULL;
    size_t off = 0;
    sim_alloc *a = sim_mem_find_any((uint64_t)(uintptr_t)ptr, &c, &off);
    if (!a) {
        sim_detail("hipPointerGetAttribute: %p is not in a live device allocation", ptr);
        return hipErrorInvalidValue;
    }
    if (attribute == HIP_POINTER_ATTRIBUTE_DEVICE_POINTER)
        *(hipDeviceptr_t *)data = ptr;
    else if (attribute == HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        *(int *)data = c->dev->ordinal;
    else if (attribute == HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR)
        *(hipDeviceptr_t *)data = (hipDeviceptr_t)(uintptr_t)a->dptr;
    else
        *(size_t *)data = a->size;
    sim_alloc_release(a);
    sim_obj_release(&c->obj);
    return hipSuccess;
}
