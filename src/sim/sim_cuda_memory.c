/*
 * CUDA face: memory. Synchronous copies and memsets run on the current
 * context's null stream (so they order with earlier work like CUDA's) and
 * wait for it; their whole range is checked at the call. Asynchronous ones
 * check only that the range starts in a live allocation: running past its
 * end is a device fault (ILLEGAL_ADDRESS, sticky) when the copy executes.
 */
#include "sim_cuda.h"

#include <stdlib.h>
#include <string.h>

/* Checks that [d, d+bytes) starts in a live allocation of c and, if whole,
 * that it also ends inside it. */
static sim_status check_range(sim_ctx *c, CUdeviceptr d, size_t bytes, bool whole)
{
    size_t off;
    sim_alloc *a = sim_mem_find(c, d, SIM_CLOCK_NOW, &off);
    if (!a) {
        sim_detail("device address 0x%llx is not in a live allocation of the context", d);
        return SIM_ERR_INVALID_VALUE;
    }
    bool fits = bytes <= a->size - off;
    sim_alloc_release(a);
    if (whole && !fits) {
        sim_detail("device range 0x%llx + %zu runs past the end of its allocation", d, bytes);
        return SIM_ERR_INVALID_VALUE;
    }
    return SIM_OK;
}

/* Queues op on stream h of c; if sync, waits for it. Takes the op. */
static sim_status submit(sim_ctx *c, CUstream h, sim_op *op, bool sync)
{
    sim_stream *s;
    sim_status st = sim_cuda_stream(h, c, &s);
    if (st) {
        sim_op_free(op);
        return st;
    }
    uint64_t seq = sim_stream_submit(s, op);
    if (!seq)
        st = SIM_ERR_CONTEXT_DESTROYED;
    else if (sync)
        st = sim_stream_finish(s, seq);
    sim_obj_release(&s->obj);
    return st;
}

typedef struct copy_req {
    sim_op_kind kind;
    CUdeviceptr dst, src;
    void *host_dst;
    const void *host_src;
    size_t bytes;
    CUstream stream;
    bool sync;
} copy_req;

static sim_status copy_checks(sim_ctx *c, const copy_req *q)
{
    bool whole = q->sync;
    sim_status st = SIM_OK;
    switch (q->kind) {
    case SIM_OP_COPY_HTOD:
        st = q->host_src ? check_range(c, q->dst, q->bytes, whole) : SIM_ERR_INVALID_VALUE;
        break;
    case SIM_OP_COPY_DTOH:
        st = q->host_dst ? check_range(c, q->src, q->bytes, whole) : SIM_ERR_INVALID_VALUE;
        break;
    default:
        st = check_range(c, q->dst, q->bytes, whole);
        if (!st)
            st = check_range(c, q->src, q->bytes, whole);
        break;
    }
    return st;
}

static sim_op *copy_op(const copy_req *q)
{
    sim_op *op = sim_op_new(q->kind);
    if (!op)
        return NULL;
    op->u.copy.dst = q->dst;
    op->u.copy.src = q->src;
    op->u.copy.bytes = q->bytes;
    if (q->kind == SIM_OP_COPY_DTOH)
        op->u.copy.host = q->host_dst;
    if (q->kind == SIM_OP_COPY_HTOD) {
        op->u.copy.host = (void *)(uintptr_t)q->host_src;
        /* Pageable memory is read at the call, as CUDA stages it; page-locked
         * memory is read when the copy runs (in fast mode: at the call). */
        if (!q->sync && !sim_fast() && !sim_host_contains(q->host_src, q->bytes)) {
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

static CUresult do_copy(const copy_req *q)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_OK;
    if (q->bytes && !(st = copy_checks(c, q))) {
        sim_op *op = copy_op(q);
        st = op ? submit(c, q->stream, op, q->sync) : SIM_ERR_OUT_OF_MEMORY;
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

static CUresult do_memset(CUdeviceptr dst, unsigned char v, size_t n, CUstream h, bool sync)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_OK;
    if (n && !(st = check_range(c, dst, n, sync))) {
        sim_op *op = sim_op_new(SIM_OP_MEMSET);
        if (op) {
            op->u.set.dst = dst;
            op->u.set.value = v;
            op->u.set.bytes = n;
        }
        st = op ? submit(c, h, op, sync) : SIM_ERR_OUT_OF_MEMORY;
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

SIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    SIM_COUNT(cuMemFree_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = sim_mem_free(c, dptr);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    SIM_COUNT(cuMemAllocHost_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = pp ? sim_host_alloc(c, bytesize, pp) : SIM_ERR_INVALID_VALUE;
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
    copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = dst, .host_src = src, .bytes = bytes, .sync = true };
    return do_copy(&q);
}

SIM_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
    SIM_COUNT(cuMemcpyDtoH_v2);
    copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = src, .host_dst = dst, .bytes = bytes, .sync = true };
    return do_copy(&q);
}

SIM_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    SIM_COUNT(cuMemcpyDtoD_v2);
    copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = dst, .src = src, .bytes = bytes, .sync = true };
    return do_copy(&q);
}

SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    SIM_COUNT(cuMemcpyHtoDAsync_v2);
    copy_req q = { .kind = SIM_OP_COPY_HTOD, .dst = dst, .host_src = src, .bytes = bytes, .stream = s };
    return do_copy(&q);
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    SIM_COUNT(cuMemcpyDtoHAsync_v2);
    copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = src, .host_dst = dst, .bytes = bytes, .stream = s };
    return do_copy(&q);
}

SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    SIM_COUNT(cuMemcpyDtoDAsync_v2);
    copy_req q = { .kind = SIM_OP_COPY_DTOD, .dst = dst, .src = src, .bytes = bytes, .stream = s };
    return do_copy(&q);
}

SIM_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n)
{
    SIM_COUNT(cuMemsetD8_v2);
    return do_memset(dst, uc, n, NULL, true);
}

SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s)
{
    SIM_COUNT(cuMemsetD8Async);
    return do_memset(dst, uc, n, s, false);
}
