/*
 * CUDA face: memory. Synchronous copies and memsets run on the current
 * context's null stream (so they order with earlier work like CUDA's) and
 * wait for it; their whole range is checked at the call. Asynchronous ones
 * check only that the range starts in a live allocation: running past its
 * end is a device fault (ILLEGAL_ADDRESS, sticky) when the copy executes.
 * An asynchronous copy to pageable host memory completes before it returns
 * (to_pageable).
 */
#include "sim_cuda.h"

/* CUDA: an asynchronous copy from device to pageable host memory returns
 * only once the copy has completed (the driver copies through a staging
 * buffer); only page-locked destinations get a copy that is still running
 * on return. Registered memory (cuMemHostRegister) counts as pageable
 * here: the copy completes before the call returns, which is stricter
 * than a driver, never wrong. numba reads such an array right after. */
static bool to_pageable(const sim_copy_req *q)
{
    return q->kind == SIM_OP_COPY_DTOH && !sim_host_contains(q->host_dst, q->bytes);
}

/* Runs q on stream h of the current context; a memset or synchronous copy
 * waits for it. */
static CUresult do_copy(const sim_copy_req *q, CUstream h)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_OK;
    if (q->bytes && !(st = sim_copy_check(c, q, false))) {
        sim_op *op = sim_copy_op(q);
        sim_stream *s;
        if (!op)
            st = SIM_ERR_OUT_OF_MEMORY;
        else if ((st = sim_cuda_stream(h, c, &s)))
            sim_op_free(op);
        else {
            st = sim_copy_submit(s, op, q->sync || to_pageable(q));
            sim_obj_release(&s->obj);
        }
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    SIM_COUNT(cuMemAlloc_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    uint64_t d = 0;
    sim_status st = dptr ? sim_mem_alloc(c, bytesize, &d) : SIM_ERR_INVALID_VALUE;
    if (!st)
        *dptr = d;
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* Under unified addressing a device address names its allocation and so
 * its context: cuMemFree frees it from that context whether or not it is
 * current (numba frees a reset context's memory with none current, and its
 * suites pass on real drivers). A current context's sticky error still
 * comes first; with none current, the owner's; an address in no context
 * with none current is INVALID_CONTEXT, as before. */
SIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    SIM_COUNT(cuMemFree_v2);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_ctx *cur = NULL, *owner = NULL;
    size_t off;
    bool has_current = sim_ctx_current(&cur) == SIM_OK;
    sim_status st = has_current ? sim_ctx_health(cur) : SIM_OK;
    sim_alloc *a = st ? NULL : sim_mem_find_any(dptr, &owner, &off);
    if (a) {
        sim_alloc_release(a);
        st = has_current ? SIM_OK : sim_ctx_health(owner);
        if (!st)
            st = sim_mem_free(owner, dptr);
        sim_obj_release(&owner->obj);
    } else if (!st) {
        if (has_current)
            st = sim_mem_free(cur, dptr); /* its own error for an unknown address */
        else
            st = sim_ctx_current(&cur);   /* INVALID_CONTEXT, with its detail */
    }
    if (has_current)
        sim_obj_release(&cur->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    SIM_COUNT(cuMemAllocHost_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    /* Mapped, as all page-locked memory under unified addressing: an H100
     * answers cuMemHostGetDevicePointer for it (docs/DRIVER-FACTS.md). */
    sim_status st = pp ? sim_host_alloc_mapped(c, bytesize, pp) : SIM_ERR_INVALID_VALUE;
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuMemFreeHost(void *p)
{
    SIM_COUNT(cuMemFreeHost);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return sim_cuda_result(sim_host_free(p));
}

SIM_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
    SIM_COUNT(cuMemcpyHtoD_v2);
    sim_copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = dst, .host_src = src,
                       .bytes = bytes, .sync = true };
    return do_copy(&q, NULL);
}

SIM_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
    SIM_COUNT(cuMemcpyDtoH_v2);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = src, .host_dst = dst,
                       .bytes = bytes, .sync = true };
    return do_copy(&q, NULL);
}

SIM_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    SIM_COUNT(cuMemcpyDtoD_v2);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = dst, .src = src,
                       .bytes = bytes, .sync = true };
    return do_copy(&q, NULL);
}

SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    SIM_COUNT(cuMemcpyHtoDAsync_v2);
    sim_copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = dst, .host_src = src, .bytes = bytes };
    return do_copy(&q, s);
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    SIM_COUNT(cuMemcpyDtoHAsync_v2);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = src, .host_dst = dst, .bytes = bytes };
    return do_copy(&q, s);
}

SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    SIM_COUNT(cuMemcpyDtoDAsync_v2);
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = dst, .src = src, .bytes = bytes };
    return do_copy(&q, s);
}

SIM_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n)
{
    SIM_COUNT(cuMemsetD8_v2);
    sim_copy_req q = { .kind = SIM_OP_MEMSET, .dst = dst, .value = uc, .bytes = n, .sync = true };
    return do_copy(&q, NULL);
}

SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s)
{
    SIM_COUNT(cuMemsetD8Async);
    sim_copy_req q = { .kind = SIM_OP_MEMSET, .dst = dst, .value = uc, .bytes = n };
    return do_copy(&q, s);
}

/* ---- mapped host memory and stream write-value operations ------------- */

/* CUmemhostalloc flags (cuda.h): PORTABLE, DEVICEMAP, WRITECOMBINED. */
#define CU_MEMHOSTALLOC_KNOWN 0x07u
/* CUstreamWriteValue_flags: DEFAULT 0, NO_MEMORY_BARRIER 1 (the simulator's
 * writes are always ordered, which the flag permits). */
#define CU_STREAM_WRITE_VALUE_KNOWN 0x1u

SIM_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    SIM_COUNT(cuMemHostAlloc);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (!pp || (Flags & ~CU_MEMHOSTALLOC_KNOWN))
        sim_detail("cuMemHostAlloc: %s", pp ? "unknown flags" : "NULL result pointer");
    else /* DEVICEMAP or not: an H100 maps flags 0 alike (docs/DRIVER-FACTS.md, "Mapped host memory") */
        st = sim_host_alloc_mapped(c, bytesize, pp);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    SIM_COUNT(cuMemHostGetDevicePointer_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    uint64_t d = 0;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (!pdptr || Flags != 0) /* "Flags: Options (must be 0)" */
        sim_detail("cuMemHostGetDevicePointer: %s", pdptr ? "flags must be 0" : "NULL result pointer");
    else if (!(st = sim_host_device_pointer(c, p, &d)))
        *pdptr = d;
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* Every form of cuStreamWriteValue32/64: the value lands when stream h
 * reaches it. */
static CUresult write_value(CUstream h, CUdeviceptr addr, uint64_t value, unsigned bytes,
                            unsigned int flags)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_stream *s = NULL;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (flags & ~CU_STREAM_WRITE_VALUE_KNOWN)
        sim_detail("cuStreamWriteValue: unknown flags 0x%x", flags);
    else if (!(st = sim_cuda_stream(h, c, &s))) {
        st = sim_write_value_submit(s->ctx, s, addr, value, bytes);
        sim_obj_release(&s->obj);
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                         unsigned int flags)
{
    SIM_COUNT(cuStreamWriteValue32);
    return write_value(stream, addr, value, 4, flags);
}

SIM_EXPORT CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                            unsigned int flags)
{
    SIM_COUNT(cuStreamWriteValue32_v2);
    return write_value(stream, addr, value, 4, flags);
}

SIM_EXPORT CUresult cuStreamWriteValue64(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                         unsigned int flags)
{
    SIM_COUNT(cuStreamWriteValue64);
    return write_value(stream, addr, value, 8, flags);
}

SIM_EXPORT CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                            unsigned int flags)
{
    SIM_COUNT(cuStreamWriteValue64_v2);
    return write_value(stream, addr, value, 8, flags);
}

/* What cuPointerGetAttribute tells of one allocation the driver knows. */
typedef struct pointer_facts {
    uint64_t ctx_handle;
    int ordinal;
    unsigned memory_type;
    bool managed;
    bool host_address;   /* HOST_POINTER answers the address itself */
    bool device_address; /* DEVICE_POINTER answers the address itself */
    uint64_t base;
    size_t size;
} pointer_facts;

/* The facts of the device or managed allocation (any context: under UVA a
 * device address names one allocation in the process) or page-locked host
 * memory holding ptr; false when the driver knows no memory there. */
static bool pointer_facts_of(CUdeviceptr ptr, pointer_facts *f)
{
    sim_ctx *c = NULL;
    size_t off = 0;
    sim_alloc *a = sim_mem_find_any(ptr, &c, &off);
    if (a) {
        *f = (pointer_facts){ .ctx_handle = c->obj.handle, .ordinal = c->dev->ordinal,
                              .memory_type = SIM_CU_MEMORYTYPE_DEVICE, .managed = a->managed,
                              .host_address = a->managed, .device_address = true,
                              .base = a->dptr, .size = a->size };
        sim_alloc_release(a);
        sim_obj_release(&c->obj);
        return true;
    }
    sim_host_pointer h;
    if (!sim_host_pointer_info((const void *)(uintptr_t)ptr, &h))
        return false;
    *f = (pointer_facts){ .ctx_handle = h.ctx_handle, .ordinal = h.device_ordinal,
                          .memory_type = SIM_CU_MEMORYTYPE_HOST, .managed = false,
                          .host_address = true, .device_address = h.device_mapped,
                          .base = h.base, .size = h.size };
    return true;
}

/* What CUDA answers for memory it knows: device memory from cuMemAlloc,
 * managed memory, and page-locked host memory (allocated or registered).
 * An address in none (pageable memory included) is CUDA_ERROR_INVALID_VALUE
 * whatever the attribute; attributes beyond these nine:
 * CUDA_ERROR_NOT_SUPPORTED with a detail (the real driver answers them).
 *
 * Measured on an H100, driver 580.159.04 (docs/DRIVER-FACTS.md, "Host,
 * managed and mapped memory"): managed memory is MEMORY_TYPE DEVICE (2,
 * not UNIFIED), IS_MANAGED 1, MAPPED 1, DEVICE_POINTER and HOST_POINTER
 * the address itself; page-locked host memory (cuMemHostAlloc with any
 * flags, cuMemAllocHost, ranges registered with DEVICEMAP) MEMORY_TYPE
 * HOST (1), IS_MANAGED 0, MAPPED 1, DEVICE_POINTER and HOST_POINTER the
 * address itself; pageable memory INVALID_VALUE for every attribute.
 * HOST_POINTER of memory cuMemAlloc made: INVALID_VALUE (it has no host
 * address); MAPPED of it 1 (backed by an allocation, cuda.h's meaning;
 * not measured). A range registered without DEVICEMAP answers as host
 * memory but DEVICE_POINTER INVALID_VALUE, as cuMemHostGetDevicePointer
 * (UNVERIFIED, as that refusal). */
SIM_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    SIM_COUNT(cuPointerGetAttribute);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!data) {
        sim_detail("cuPointerGetAttribute: data is NULL");
        return CUDA_ERROR_INVALID_VALUE;
    }
    pointer_facts f;
    if (!pointer_facts_of(ptr, &f)) {
        sim_detail("cuPointerGetAttribute: 0x%llx is in no device allocation, managed or page-locked memory",
                   (unsigned long long)ptr);
        return CUDA_ERROR_INVALID_VALUE;
    }
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = (CUcontext)(uintptr_t)f.ctx_handle;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = f.memory_type;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        if (!f.device_address) {
            sim_detail("cuPointerGetAttribute: %p was registered without the device-map flag",
                       (void *)(uintptr_t)ptr);
            return CUDA_ERROR_INVALID_VALUE;
        }
        *(CUdeviceptr *)data = ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!f.host_address) {
            sim_detail("cuPointerGetAttribute: device memory at 0x%llx has no host address",
                       (unsigned long long)ptr);
            return CUDA_ERROR_INVALID_VALUE;
        }
        *(void **)data = (void *)(uintptr_t)ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = f.managed ? 1 : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = f.ordinal;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = f.base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = f.size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = 1; /* every allocation the driver knows is backed */
        return CUDA_SUCCESS;
    }
    sim_detail("cuPointerGetAttribute: attribute %u is not simulated", (unsigned)attribute);
    return CUDA_ERROR_NOT_SUPPORTED;
}
