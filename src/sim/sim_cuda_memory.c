/*
 * CUDA face: memory. Synchronous copies and memsets run on the current
 * context's null stream (so they order with earlier work like CUDA's) and
 * wait for it; their whole range is checked at the call. Asynchronous ones
 * check only that the range starts in a live allocation: running past its
 * end is a device fault (ILLEGAL_ADDRESS, sticky) when the copy executes.
 */
#include "sim_cuda.h"

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
            st = sim_copy_submit(s, op, q->sync);
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
