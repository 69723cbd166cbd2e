/* Buffers (device memory and pinned host memory) and bounds-checked copies. */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "common/abi_struct.h"
#include "common/attribution.h"
#include "common/fault.h"
#include "common/child.h"
#include "common/lifetime.h"
#include "common/wait.h"
#include "common/context.h"

typedef struct buffer_args {
    size_t bytes;
    unsigned flags;
} buffer_args;

static int make_buffer(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    const buffer_args *a = args;
    gg__buffer *buf = (gg__buffer *)o;
    buf->bytes = a->bytes;
    buf->flags = a->flags;
    if (a->flags & GG_BUFFER_HOST_PINNED) {
        *op = GG__OP_HOST_ALLOC;
        return gg__drv(c, *op, c->b->host_alloc(c->b->self, &buf->host_ptr, a->bytes));
    }
    *op = GG__OP_MEM_ALLOC;
    return gg__drv(c, *op, c->b->mem_alloc(c->b->self, &buf->device_ptr, a->bytes));
}

gg_status gg_buffer_create(gg_context ctx, size_t bytes, const gg_buffer_desc *desc, gg_buffer *out)
{
    gg__call c = GG__CALL("gg_buffer_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_create: out is NULL");
    out->id = 0;
    gg_buffer_desc local;
    gg_status read;
    const gg_buffer_desc *d = GG__ABI_IN(&c, desc, &local, gg_buffer_desc, GG_BUFFER_DESC_INIT, &read);
    if (d == NULL)
        return read;
    unsigned flags = d->flags;
    if (bytes == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_create: bytes is 0");
    if (flags & ~(unsigned)GG_BUFFER_HOST_PINNED)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_create: unknown desc->flags 0x%x", flags);
    buffer_args args = { bytes, flags };
    /* gg__create inlined with make_buffer (lifetime.h): the hottest create. */
    gg_status status = gg__create_inline(&c, ctx.id, GG__T_CONTEXT, GG__T_BUFFER, d->tag, make_buffer, &args, &out->id);
    gg_error_info *e = status == GG_OUT_OF_MEMORY ? gg__last_error_slot() : NULL;
    if (e != NULL && e->native_code != 0)
        snprintf(e->message, GG_MESSAGE_MAX, "gg_buffer_create: the driver could not allocate %zu bytes of %s memory%s",
                 bytes, flags & GG_BUFFER_HOST_PINNED ? "pinned host" : "device",
                 c.injected ? " (injected fault)" : "");
    return status;
}

int gg__buffer_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    gg__buffer *buf = (gg__buffer *)o;
    bool pinned = buf->flags & GG_BUFFER_HOST_PINNED;
    *op = pinned ? GG__OP_HOST_FREE : GG__OP_MEM_FREE;
    if (!call_driver || gg__object_borrowed(o)) /* adopted memory its owner keeps */
        return 0;
    return pinned ? gg__drv(c, *op, c->b->host_free(c->b->self, buf->host_ptr))
                  : gg__drv(c, *op, c->b->mem_free(c->b->self, buf->device_ptr));
}

void gg__buffer_describe(const gg__object *o, struct cJSON *json)
{
    const gg__buffer *buf = (const gg__buffer *)o;
    cJSON_AddNumberToObject(json, "bytes", (double)buf->bytes);
    cJSON_AddBoolToObject(json, "pinned_host", (buf->flags & GG_BUFFER_HOST_PINNED) != 0);
}

gg_status gg_buffer_destroy(gg_buffer buf)
{
    return gg__destroy("gg_buffer_destroy", buf.id, GG__T_BUFFER);
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
    gg__leave(&c);
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
    gg_status status = GG_OK;
    if (buf->flags & GG_BUFFER_HOST_PINNED)
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_device_ptr: buffer %s is pinned host memory; "
                          "use gg_buffer_host_ptr", gg__object_label(&buf->h).text);
    else
        *dptr = buf->device_ptr;
    gg__leave(&c);
    return status;
}

gg_status gg_buffer_host_ptr(gg_buffer handle, void **ptr)
{
    gg__call c = GG__CALL("gg_buffer_host_ptr");
    if (ptr == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_host_ptr: ptr is NULL");
    gg__buffer *buf = get_buffer(&c, handle);
    if (buf == NULL)
        return gg__last_error_slot()->status;
    gg_status status = GG_OK;
    if (!(buf->flags & GG_BUFFER_HOST_PINNED))
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_host_ptr: buffer %s is device memory; "
                          "use gg_buffer_device_ptr", gg__object_label(&buf->h).text);
    else
        *ptr = buf->host_ptr;
    gg__leave(&c);
    return status;
}

/* Bounds check before any driver call; overflow-safe. */
static gg_status check_range(gg__call *c, const gg__buffer *buf, const char *what, size_t offset, size_t bytes)
{
    if (buf->flags & GG_BUFFER_HOST_PINNED)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: %s buffer %s is pinned host memory: copy to or from "
                        "its host pointer instead", c->api, what, gg__object_label(&buf->h).text);
    if (bytes == 0)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: bytes is 0", c->api);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: range [%zu, %zu+%zu) is outside %s buffer %s of %zu bytes",
                        c->api, offset, offset, bytes, what, gg__object_label(&buf->h).text, buf->bytes);
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
            return gg__lookup_status();
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
    if ((p.dst = get_buffer(&c, dst)) == NULL) {
        gg__leave(&c);
        return gg__last_error_slot()->status;
    }
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
    if ((p.src = get_buffer(&c, src)) == NULL) {
        gg__leave(&c);
        return gg__last_error_slot()->status;
    }
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
    if ((p.dst = get_buffer(&c, dst)) == NULL || (p.src = get_buffer(&c, src)) == NULL) {
        gg__leave(&c);
        return gg__last_error_slot()->status;
    }
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
    if ((p.dst = get_buffer(&c, dst)) == NULL) {
        gg__leave(&c);
        return gg__last_error_slot()->status;
    }
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
