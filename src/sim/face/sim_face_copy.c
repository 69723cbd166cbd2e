/*
 * Copies and memsets as both faces do them (sim_face_copy.h).
 */
#include "sim_alloc.h"
#include "sim_face_copy.h"

#include <stdlib.h>
#include <string.h>

/* Checks that [d, d+bytes) starts in a live allocation of c and, if whole,
 * that it also ends inside it; or that it lies in page-locked host memory
 * c's device reaches. */
static sim_status check_range(sim_ctx *c, uint64_t d, size_t bytes, bool whole, bool by_device)
{
    size_t off;
    sim_alloc *a = sim_mem_find(c, d, SIM_CLOCK_NOW, &off);
    /* Page-locked host memory is a device range too under unified
     * addressing (numba memsets a mapped array through its device
     * pointer); the whole range must lie in it. */
    if (!a && sim_host_device_access(c, d, bytes ? bytes : 1))
        return SIM_OK;
    if (!a) {
        if (by_device)
            sim_detail("device address 0x%llx is not in a live allocation of device %d",
                       (unsigned long long)d, c->dev->ordinal);
        else
            sim_detail("device address 0x%llx is not in a live allocation of the context",
                       (unsigned long long)d);
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

sim_status sim_copy_check(sim_ctx *c, const sim_copy_req *q, bool by_device)
{
    bool whole = q->sync;
    switch (q->kind) {
    case SIM_OP_COPY_HTOD:
        return q->host_src ? check_range(c, q->dst, q->bytes, whole, by_device)
                           : SIM_ERR_INVALID_VALUE;
    case SIM_OP_COPY_DTOH:
        return q->host_dst ? check_range(c, q->src, q->bytes, whole, by_device)
                           : SIM_ERR_INVALID_VALUE;
    case SIM_OP_COPY_DTOD: {
        sim_status st = check_range(c, q->dst, q->bytes, whole, by_device);
        return st ? st : check_range(c, q->src, q->bytes, whole, by_device);
    }
    default:
        return check_range(c, q->dst, q->bytes, whole, by_device);
    }
}

sim_op *sim_copy_op(const sim_copy_req *q)
{
    sim_op *op = sim_op_new(q->kind);
    if (!op)
        return NULL;
    if (q->kind == SIM_OP_MEMSET) {
        op->u.set.dst = q->dst;
        op->u.set.value = q->value;
        op->u.set.elem = q->elem_bytes;
        op->u.set.pattern = q->pattern;
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
        /* Pageable memory is read at the call, as the drivers stage it;
         * page-locked memory when the copy runs. */
        if (!q->sync && (q->stage_in_fast_mode || !sim_fast()) &&
            !sim_host_contains(q->host_src, q->bytes)) {
            op->u.copy.staged = sim_malloc(q->bytes);
            if (!op->u.copy.staged) {
                sim_op_free(op);
                return NULL;
            }
            memcpy(op->u.copy.staged, q->host_src, q->bytes);
        }
    }
    return op;
}

sim_status sim_copy_submit(sim_stream *s, sim_op *op, bool sync)
{
    if (!op)
        return SIM_ERR_OUT_OF_MEMORY;
    uint64_t seq = sim_stream_submit(s, op); /* frees op on failure */
    if (!seq)
        return SIM_ERR_CONTEXT_DESTROYED;
    return sync ? sim_stream_finish(s, seq) : SIM_OK;
}

sim_status sim_write_value_submit(sim_ctx *c, sim_stream *s, uint64_t dst, uint64_t value,
                                  unsigned bytes)
{
    sim_host_spend(sim_get_config()->host_us_write_value);
    int supported = 0;
    sim_attr attr = bytes == 8 ? SIM_ATTR_STREAM_MEM_OPS_64 : SIM_ATTR_STREAM_MEM_OPS;
    if (sim_device_attr(c->dev, attr, &supported) != SIM_OK || !supported) {
        sim_detail("device %d does not support %u-bit stream memory operations "
                   "(configuration key stream_mem_ops%s)",
                   c->dev->ordinal, bytes * 8, bytes == 8 ? "_64" : "");
        return SIM_ERR_NOT_SUPPORTED;
    }
    if (dst % bytes != 0) {
        sim_detail("stream write-value: address 0x%llx is not %u-byte aligned",
                   (unsigned long long)dst, bytes);
        return SIM_ERR_INVALID_VALUE;
    }
    if (!sim_host_mapped_contains(c, dst, bytes)) {
        size_t off = 0;
        sim_alloc *a = sim_mem_find(c, dst, SIM_CLOCK_NOW, &off);
        bool inside = a && off + bytes <= a->size;
        sim_alloc_release(a);
        if (!inside) {
            sim_detail("stream write-value: 0x%llx is neither host memory mapped for device %d "
                       "nor a live device allocation of the context",
                       (unsigned long long)dst, c->dev->ordinal);
            return SIM_ERR_INVALID_VALUE;
        }
    }
    if (sim_fast()) { /* no allocation on the fast path */
        sim_op inline_op = { .kind = SIM_OP_WRITE_VALUE };
        inline_op.u.write.dst = dst;
        inline_op.u.write.value = value;
        inline_op.u.write.bytes = bytes;
        return sim_stream_run_inline(s, &inline_op) ? SIM_OK : SIM_ERR_CONTEXT_DESTROYED;
    }
    sim_op *op = sim_op_new(SIM_OP_WRITE_VALUE);
    if (!op)
        return SIM_ERR_OUT_OF_MEMORY;
    op->u.write.dst = dst;
    op->u.write.value = value;
    op->u.write.bytes = bytes;
    return sim_copy_submit(s, op, false);
}
