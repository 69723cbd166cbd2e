/*
 * CUDA face: pitched copies (cuMemcpy2D, cuMemcpy2DAsync,
 * cuMemcpy2DUnaligned, cuMemcpy3D, cuMemcpy3DAsync), which PyCUDA uses to
 * move non-contiguous arrays.
 *
 * A copy is Depth slices of Height rows of WidthInBytes bytes; row y of
 * slice z of each side starts at ((Z + z) * height + Y + y) * pitch + X
 * from its base (a 2D copy: one slice). Every device side's whole extent
 * (first row's start to last row's end: offsets only grow with y and z)
 * is checked at the call, for the async forms too: an out-of-range copy is
 * CUDA_ERROR_INVALID_VALUE, never a fault. Rows are then queued as ordinary
 * 1D copies on the stream (one copy when both sides are contiguous), so
 * ordering, staging of pageable memory and the synchronous forms' wait are
 * the 1D copies' (sim_cuda_memory.c). Host-to-host copies are done at the
 * call.
 *
 * CU_MEMORYTYPE_UNIFIED addresses are device memory when they fall in an
 * allocation of the context, else host memory (UVA: a host pointer is its
 * own address). Arrays are not simulated: CUDA_ERROR_NOT_SUPPORTED.
 */
#include "sim_cuda.h"

#include <string.h>

/* One side of a copy, resolved. */
typedef struct side {
    bool device;
    uint64_t dptr;          /* device: base address */
    unsigned char *host;    /* host: base address */
    size_t x, y, z, pitch, height;
} side;

/* The copy's shape. */
typedef struct shape {
    size_t width, height, depth;
} shape;

static CUresult resolve_side(sim_ctx *c, CUmemorytype type, const void *host, uint64_t dev,
                             const char *which, side *out)
{
    switch (type) {
    case CU_MEMORYTYPE_HOST:
        out->device = false;
        out->host = (unsigned char *)(uintptr_t)host;
        break;
    case CU_MEMORYTYPE_DEVICE:
        out->device = true;
        out->dptr = dev;
        break;
    case CU_MEMORYTYPE_UNIFIED: {
        size_t off;
        sim_alloc *a = sim_mem_find(c, dev, SIM_CLOCK_NOW, &off);
        out->device = a != NULL;
        sim_alloc_release(a);
        out->dptr = dev;
        out->host = (unsigned char *)(uintptr_t)dev;
        break;
    }
    case CU_MEMORYTYPE_ARRAY:
        sim_detail("pitched copy: the %s is a CUDA array, which the simulator does not model", which);
        return CUDA_ERROR_NOT_SUPPORTED;
    default:
        sim_detail("pitched copy: %s memory type %d is not a CUmemorytype", which, (int)type);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!out->device && !out->host) {
        sim_detail("pitched copy: the %s host pointer is NULL", which);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* Offset of row y of slice z of s, or false on overflow. */
static bool row_offset(const side *s, size_t z, size_t y, size_t *out)
{
    size_t slice, row;
    return !__builtin_add_overflow(s->z, z, &slice) &&
           !__builtin_mul_overflow(slice, s->height, &row) &&
           !__builtin_add_overflow(row, s->y, &row) && !__builtin_add_overflow(row, y, &row) &&
           !__builtin_mul_overflow(row, s->pitch, out) && !__builtin_add_overflow(*out, s->x, out);
}

/* Offset of a row, once extent() has found no overflow. */
static size_t row_at(const side *s, size_t z, size_t y)
{
    return ((s->z + z) * s->height + s->y + y) * s->pitch + s->x;
}

/* The extent of s's rows: [first row's start, last row's end) relative to
 * its base; false on overflow. */
static bool extent(const side *s, const shape *sh, size_t *start, size_t *bytes)
{
    size_t last;
    if (!row_offset(s, 0, 0, start) || !row_offset(s, sh->depth - 1, sh->height - 1, &last) ||
        __builtin_add_overflow(last, sh->width, &last))
        return false;
    *bytes = last - *start;
    return true;
}

/* [dptr, dptr+bytes) lies in one live allocation of c. */
static sim_status check_device(sim_ctx *c, uint64_t dptr, size_t bytes)
{
    unsigned char probe;
    sim_copy_req q = { .kind = SIM_OP_COPY_DTOH, .src = dptr, .host_dst = &probe,
                       .bytes = bytes, .sync = true };
    return sim_copy_check(c, &q, false);
}

/* A 1D copy request for bytes at offsets so/dof of src and dst. */
static sim_copy_req request(const side *src, const side *dst, size_t so, size_t dof, size_t bytes,
                            bool sync)
{
    sim_copy_req q = { .bytes = bytes, .sync = sync };
    q.kind = src->device ? (dst->device ? SIM_OP_COPY_DTOD : SIM_OP_COPY_DTOH) : SIM_OP_COPY_HTOD;
    if (src->device)
        q.src = src->dptr + so;
    else
        q.host_src = src->host + so;
    if (dst->device)
        q.dst = dst->dptr + dof;
    else
        q.host_dst = dst->host + dof;
    return q;
}

static bool contiguous(const side *s, const shape *sh)
{
    if (sh->height == 1 && sh->depth == 1)
        return true;
    return s->pitch == sh->width && (sh->depth == 1 || s->height == sh->height);
}

/* Queues the rows on s (a synchronous copy waits for its last one). */
static sim_status queue_rows(sim_stream *s, const side *src, const side *dst, const shape *sh,
                             bool sync)
{
    if (contiguous(src, sh) && contiguous(dst, sh)) {
        sim_copy_req q = request(src, dst, row_at(src, 0, 0), row_at(dst, 0, 0),
                                 sh->width * sh->height * sh->depth, sync);
        return sim_copy_submit(s, sim_copy_op(&q), sync);
    }
    for (size_t z = 0; z < sh->depth; z++)
        for (size_t y = 0; y < sh->height; y++) {
            bool last = z + 1 == sh->depth && y + 1 == sh->height;
            sim_copy_req q = request(src, dst, row_at(src, z, y), row_at(dst, z, y), sh->width, sync);
            sim_status st = sim_copy_submit(s, sim_copy_op(&q), sync && last);
            if (st)
                return st;
        }
    return SIM_OK;
}

/* Checks the request's geometry and bounds, then carries it out. */
static sim_status run_copy(sim_ctx *c, sim_stream *s, const side *src, const side *dst,
                           const shape *sh, bool sync)
{
    if ((sh->height > 1 || sh->depth > 1) && (sh->width > src->pitch || sh->width > dst->pitch)) {
        sim_detail("pitched copy: WidthInBytes %zu is larger than a pitch (source %zu, "
                   "destination %zu)",
                   sh->width, src->pitch, dst->pitch);
        return SIM_ERR_INVALID_VALUE;
    }
    if (sh->depth > 1 && (sh->height > src->height || sh->height > dst->height)) {
        sim_detail("pitched copy: Height %zu is larger than a side's height (source %zu, "
                   "destination %zu)",
                   sh->height, src->height, dst->height);
        return SIM_ERR_INVALID_VALUE;
    }
    size_t s0, sbytes, d0, dbytes;
    if (!extent(src, sh, &s0, &sbytes) || !extent(dst, sh, &d0, &dbytes)) {
        sim_detail("pitched copy: the rows' offsets overflow");
        return SIM_ERR_INVALID_VALUE;
    }
    sim_status st = src->device ? check_device(c, src->dptr + s0, sbytes) : SIM_OK;
    if (!st && dst->device)
        st = check_device(c, dst->dptr + d0, dbytes);
    if (st)
        return st;
    if (src->device || dst->device)
        return queue_rows(s, src, dst, sh, sync);
    for (size_t z = 0; z < sh->depth; z++)
        for (size_t y = 0; y < sh->height; y++)
            memmove(dst->host + row_at(dst, z, y), src->host + row_at(src, z, y), sh->width);
    return SIM_OK;
}

/* Both faces of the request resolved, on stream h of the current context. */
static CUresult pitched_copy(CUmemorytype stype, const void *shost, uint64_t sdev, side src,
                             CUmemorytype dtype, void *dhost, uint64_t ddev, side dst,
                             const shape *sh, CUstream h, bool sync)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    r = resolve_side(c, stype, shost, sdev, "source", &src);
    if (!r)
        r = resolve_side(c, dtype, dhost, ddev, "destination", &dst);
    if (!r && sh->width && sh->height && sh->depth) {
        sim_stream *s;
        sim_status st = sim_cuda_stream(h, c, &s);
        if (!st) {
            st = run_copy(c, s, &src, &dst, sh, sync);
            sim_obj_release(&s->obj);
        }
        r = sim_cuda_result(st);
    }
    sim_obj_release(&c->obj);
    return r;
}

static CUresult copy2d(const CUDA_MEMCPY2D *p, CUstream h, bool sync)
{
    if (!p) {
        if (!sim_is_initialized())
            return CUDA_ERROR_NOT_INITIALIZED;
        sim_detail("cuMemcpy2D: pCopy is NULL");
        return CUDA_ERROR_INVALID_VALUE;
    }
    side src = { .x = p->srcXInBytes, .y = p->srcY, .pitch = p->srcPitch };
    side dst = { .x = p->dstXInBytes, .y = p->dstY, .pitch = p->dstPitch };
    shape sh = { p->WidthInBytes, p->Height, 1 };
    return pitched_copy(p->srcMemoryType, p->srcHost, p->srcDevice, src, p->dstMemoryType,
                        p->dstHost, p->dstDevice, dst, &sh, h, sync);
}

static CUresult copy3d(const CUDA_MEMCPY3D *p, CUstream h, bool sync)
{
    if (!p || p->reserved0 || p->reserved1 || p->srcLOD || p->dstLOD) {
        if (!sim_is_initialized())
            return CUDA_ERROR_NOT_INITIALIZED;
        sim_detail("cuMemcpy3D: pCopy is NULL, or a reserved field or a LOD is not 0");
        return CUDA_ERROR_INVALID_VALUE;
    }
    side src = { .x = p->srcXInBytes, .y = p->srcY, .z = p->srcZ, .pitch = p->srcPitch,
                 .height = p->srcHeight };
    side dst = { .x = p->dstXInBytes, .y = p->dstY, .z = p->dstZ, .pitch = p->dstPitch,
                 .height = p->dstHeight };
    shape sh = { p->WidthInBytes, p->Height, p->Depth };
    return pitched_copy(p->srcMemoryType, p->srcHost, p->srcDevice, src, p->dstMemoryType,
                        p->dstHost, p->dstDevice, dst, &sh, h, sync);
}

SIM_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
    SIM_COUNT(cuMemcpy2D_v2);
    return copy2d(pCopy, NULL, true);
}

/* The simulator has no alignment rules for pitched copies: the same copy. */
SIM_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy)
{
    SIM_COUNT(cuMemcpy2DUnaligned_v2);
    return copy2d(pCopy, NULL, true);
}

SIM_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    SIM_COUNT(cuMemcpy2DAsync_v2);
    return copy2d(pCopy, hStream, false);
}

SIM_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy)
{
    SIM_COUNT(cuMemcpy3D_v2);
    return copy3d(pCopy, NULL, true);
}

SIM_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    SIM_COUNT(cuMemcpy3DAsync_v2);
    return copy3d(pCopy, hStream, false);
}
