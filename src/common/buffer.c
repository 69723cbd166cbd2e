/* Buffers (device memory and pinned host memory) and bounds-checked copies. */
#include <stdio.h>

#include "common/attribution.h"
#include "common/child.h"
#include "common/lifetime.h"
#include "common/wait.h"

gg_status gg_buffer_alloc_tagged(gg_context ctx_handle, size_t bytes, unsigned flags, const char *tag,
                                 gg_buffer *out)
{
    gg__call c = GG__CALL("gg_buffer_alloc");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_alloc: out is NULL");
    out->id = 0;
    if (bytes == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_alloc: bytes is 0");
    if (flags & ~(unsigned)GG_BUFFER_HOST_PINNED)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_alloc: unknown flags 0x%x", flags);
    gg_status status;
    gg__context *ctx = gg__create_begin(&c, ctx_handle, &status);
    if (ctx == NULL)
        return status;
    bool pinned = flags & GG_BUFFER_HOST_PINNED;
    gg__dptr dptr = 0;
    void *host = NULL;
    gg__op op = pinned ? GG__OP_HOST_ALLOC : GG__OP_MEM_ALLOC;
    int n = pinned ? gg__drv(&c, op, c.b->host_alloc(c.b->self, &host, bytes))
                   : gg__drv(&c, op, c.b->mem_alloc(c.b->self, &dptr, bytes));
    status = gg__check(&c, op, n);
    if (status == GG_OK) {
        gg__buffer *buf = gg__object_new(GG__T_BUFFER);
        if (buf) {
            buf->bytes = bytes;
            buf->flags = flags;
            buf->device_ptr = dptr;
            buf->host_ptr = host;
        }
        out->id = gg__create_record(&c, ctx, buf ? &buf->h : NULL, tag);
        if (out->id == 0) {
            if (pinned)
                c.b->host_free(c.b->self, host);
            else
                c.b->mem_free(c.b->self, dptr);
            status = GG_OUT_OF_MEMORY;
        }
    } else if (status == GG_OUT_OF_MEMORY) {
        snprintf(gg__last_error_slot()->message, GG_MESSAGE_MAX, "gg_buffer_alloc: the driver could not "
                 "allocate %zu bytes of %s memory", bytes, pinned ? "pinned host" : "device");
    }
    gg__create_end(&c, ctx);
    return status;
}

gg_status gg_buffer_alloc(gg_context ctx, size_t bytes, unsigned flags, gg_buffer *out)
{
    return gg_buffer_alloc_tagged(ctx, bytes, flags, NULL, out);
}

gg_status gg_buffer_free(gg_buffer buf)
{
    return gg__destroy_child("gg_buffer_free", buf.id, GG__T_BUFFER);
}

static gg__buffer *get_buffer(gg__call *c, gg_buffer handle)
{
    gg_status status = gg__require_library(c);
    return status == GG_OK ? gg__lookup(c, handle.id, GG__T_BUFFER, "buffer") : NULL;
}

gg_status gg_buffer_size(gg_buffer handle, size_t *bytes)
{
    gg__call c = GG__CALL("gg_buffer_size");
    if (bytes == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_size: bytes is NULL");
    gg__buffer *buf = get_buffer(&c, handle);
    if (buf == NULL)
        return gg__last_error_slot()->status;
    *bytes = buf->bytes;
    return GG_OK;
}

gg_status gg_buffer_device_ptr(gg_buffer handle, uint64_t *dptr)
{
    gg__call c = GG__CALL("gg_buffer_device_ptr");
    if (dptr == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_device_ptr: dptr is NULL");
    gg__buffer *buf = get_buffer(&c, handle);
    if (buf == NULL)
        return gg__last_error_slot()->status;
    if (buf->flags & GG_BUFFER_HOST_PINNED)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_device_ptr: buffer '%s' is pinned host memory; "
                        "use gg_buffer_host_ptr", buf->h.tag);
    *dptr = buf->device_ptr;
    return GG_OK;
}

gg_status gg_buffer_host_ptr(gg_buffer handle, void **ptr)
{
    gg__call c = GG__CALL("gg_buffer_host_ptr");
    if (ptr == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_host_ptr: ptr is NULL");
    gg__buffer *buf = get_buffer(&c, handle);
    if (buf == NULL)
        return gg__last_error_slot()->status;
    if (!(buf->flags & GG_BUFFER_HOST_PINNED))
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_host_ptr: buffer '%s' is device memory; "
                        "use gg_buffer_device_ptr", buf->h.tag);
    *ptr = buf->host_ptr;
    return GG_OK;
}

/* Bounds check before any driver call; overflow-safe. */
static gg_status check_range(gg__call *c, const gg__buffer *buf, const char *what, size_t offset, size_t bytes)
{
    if (buf->flags & GG_BUFFER_HOST_PINNED)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: %s buffer '%s' is pinned host memory: copy to or from "
                        "its host pointer instead", c->api, what, buf->h.tag);
    if (bytes == 0)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: bytes is 0", c->api);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: range [%zu, %zu+%zu) is outside %s buffer '%s' of %zu bytes",
                        c->api, offset, offset, bytes, what, buf->h.tag, buf->bytes);
    return GG_OK;
}

/* Everything a copy needs, resolved and checked before any driver call. */
typedef struct copy_plan {
    gg__op op;
    gg__buffer *dst, *src;
    gg__stream *stream;   /* NULL: synchronous */
} copy_plan;

/* Looks up the stream (if any), checks contexts, enters the context and,
 * for a synchronous copy, waits under the default deadline for earlier work
 * so that a hung queue turns into TIMEOUT instead of a copy that never returns. */
static gg_status copy_begin(gg__call *c, copy_plan *p, gg_stream s)
{
    gg__buffer *anchor = p->dst ? p->dst : p->src;
    if (s.id != 0) {
        p->stream = gg__lookup(c, s.id, GG__T_STREAM, "stream");
        if (p->stream == NULL)
            return GG_INVALID_HANDLE;
        c->stream = p->stream;
        gg_status status = gg__check_same_context(c, &anchor->h, "buffer", &p->stream->h, "stream");
        if (status != GG_OK)
            return status;
    }
    if (p->dst && p->src) {
        gg_status status = gg__check_same_context(c, &p->dst->h, "destination buffer", &p->src->h, "source buffer");
        if (status != GG_OK)
            return status;
    }
    gg_status status = gg__enter(c, anchor->h.context);
    if (status == GG_OK && p->stream == NULL)
        status = gg__context_wait(c, anchor->h.context, 0);
    return status;
}

gg_status gg_memcpy_htod(gg_buffer dst, size_t dst_offset, const void *src, size_t bytes, gg_stream s)
{
    gg__call c = GG__CALL("gg_memcpy_htod");
    copy_plan p = { .op = GG__OP_MEMCPY_HTOD };
    if (src == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_memcpy_htod: src is NULL");
    if ((p.dst = get_buffer(&c, dst)) == NULL)
        return gg__last_error_slot()->status;
    gg_status status = check_range(&c, p.dst, "destination", dst_offset, bytes);
    if (status == GG_OK)
        status = copy_begin(&c, &p, s);
    if (status == GG_OK) {
        int n = gg__drv(&c, p.op, c.b->memcpy_htod(c.b->self, p.dst->device_ptr + dst_offset, src, bytes,
                                                  p.stream ? p.stream->native : NULL, p.stream != NULL));
        status = gg__check(&c, p.op, n);
    }
    gg__leave(&c);
    return status;
}

gg_status gg_memcpy_dtoh(void *dst, gg_buffer src, size_t src_offset, size_t bytes, gg_stream s)
{
    gg__call c = GG__CALL("gg_memcpy_dtoh");
    copy_plan p = { .op = GG__OP_MEMCPY_DTOH };
    if (dst == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_memcpy_dtoh: dst is NULL");
    if ((p.src = get_buffer(&c, src)) == NULL)
        return gg__last_error_slot()->status;
    gg_status status = check_range(&c, p.src, "source", src_offset, bytes);
    if (status == GG_OK)
        status = copy_begin(&c, &p, s);
    if (status == GG_OK) {
        int n = gg__drv(&c, p.op, c.b->memcpy_dtoh(c.b->self, dst, p.src->device_ptr + src_offset, bytes,
                                                  p.stream ? p.stream->native : NULL, p.stream != NULL));
        status = gg__check(&c, p.op, n);
    }
    gg__leave(&c);
    return status;
}

gg_status gg_memcpy_dtod(gg_buffer dst, size_t dst_offset, gg_buffer src, size_t src_offset, size_t bytes,
                         gg_stream s)
{
    gg__call c = GG__CALL("gg_memcpy_dtod");
    copy_plan p = { .op = GG__OP_MEMCPY_DTOD };
    if ((p.dst = get_buffer(&c, dst)) == NULL || (p.src = get_buffer(&c, src)) == NULL)
        return gg__last_error_slot()->status;
    gg_status status = check_range(&c, p.dst, "destination", dst_offset, bytes);
    if (status == GG_OK)
        status = check_range(&c, p.src, "source", src_offset, bytes);
    if (status == GG_OK)
        status = copy_begin(&c, &p, s);
    if (status == GG_OK) {
        int n = gg__drv(&c, p.op, c.b->memcpy_dtod(c.b->self, p.dst->device_ptr + dst_offset,
                                                  p.src->device_ptr + src_offset, bytes,
                                                  p.stream ? p.stream->native : NULL, p.stream != NULL));
        status = gg__check(&c, p.op, n);
    }
    gg__leave(&c);
    return status;
}

gg_status gg_memset(gg_buffer dst, size_t offset, uint8_t value, size_t bytes, gg_stream s)
{
    gg__call c = GG__CALL("gg_memset");
    copy_plan p = { .op = GG__OP_MEMSET };
    if ((p.dst = get_buffer(&c, dst)) == NULL)
        return gg__last_error_slot()->status;
    gg_status status = check_range(&c, p.dst, "destination", offset, bytes);
    if (status == GG_OK)
        status = copy_begin(&c, &p, s);
    if (status == GG_OK) {
        int n = gg__drv(&c, p.op, c.b->memset_d8(c.b->self, p.dst->device_ptr + offset, value, bytes,
                                                p.stream ? p.stream->native : NULL, p.stream != NULL));
        status = gg__check(&c, p.op, n);
    }
    gg__leave(&c);
    return status;
}
