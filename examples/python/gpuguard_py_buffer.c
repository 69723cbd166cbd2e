/*
 * Buffer: device memory, and copies between it and Python's bytes-like
 * objects (bytes, bytearray, memoryview, array, numpy arrays).
 *
 * Reads are synchronous, so the bytes are complete when they return and no
 * copy can land later in memory Python has freed; writes may be queued on a
 * stream (the driver has read a pageable source by the time an asynchronous
 * host-to-device copy returns).
 */
#include <stdio.h>

#include "gpuguard_py.h"

GGPY_CHILD_GETTERS(buffer, ggpy_Buffer)

ggpy_Buffer *ggpy_buffer_new(ggpy_Context *ctx, Py_ssize_t nbytes, const char *tag)
{
    if (ctx->h.id == 0)
        return (ggpy_Buffer *)ggpy_closed("Context");
    gg_buffer h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_buffer_create(ctx->h, (size_t)nbytes, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = tag }, &h));
    if (r.status != GG_OK)
        return (ggpy_Buffer *)ggpy_raise(&r);
    ggpy_Buffer *b = PyObject_New(ggpy_Buffer, &ggpy_BufferType);
    if (b == NULL) {
        GGPY_RELEASE(gg_buffer_destroy(h));
        return NULL;
    }
    b->h = h;
    b->ctx = (ggpy_Context *)Py_NewRef(ctx);
    b->nbytes = (size_t)nbytes;
    b->owner = NULL;
    b->exports = 0;
    return b;
}

static void buffer_dealloc(ggpy_Buffer *self)
{
    gg_buffer h = self->h;
    self->h.id = 0;
    if (h.id != 0)
        GGPY_RELEASE(gg_buffer_destroy(h));
    Py_XDECREF(self->owner); /* after the free: gpuguard is done with the memory */
    Py_XDECREF(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *buffer_close(ggpy_Buffer *self, PyObject *unused)
{
    (void)unused;
    gg_buffer h = self->h;
    if (h.id == 0)
        Py_RETURN_NONE;
    if (self->exports > 0)
        return ggpy_raise_status(GG_BUSY, "Buffer.close: %zd DLPack tensor(s) exported from it are still in use",
                                 self->exports);
    self->h.id = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_buffer_destroy(h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

/* The byte count of a copy: `nbytes` if given, else the rest of the buffer
 * after `offset`. -1 with an exception when offset is past the end. */
static Py_ssize_t rest(const ggpy_Buffer *b, Py_ssize_t offset, Py_ssize_t nbytes)
{
    if (nbytes >= 0)
        return nbytes;
    if ((size_t)offset > b->nbytes) {
        ggpy_raise_status(GG_INVALID_ARGUMENT, "offset %zd is past the end of the buffer (%zu bytes)", offset,
                          b->nbytes);
        return -1;
    }
    return (Py_ssize_t)(b->nbytes - (size_t)offset);
}

PyObject *ggpy_buffer_write_view(ggpy_Buffer *self, Py_buffer *view, Py_ssize_t offset, ggpy_Stream *stream)
{
    if (self->h.id == 0)
        return ggpy_closed("Buffer");
    if (view->len == 0)
        Py_RETURN_NONE;
    /* Safe with a stream too: the driver has read a pageable source by the
     * time an asynchronous host-to-device copy returns. */
    ggpy_result r;
    GGPY_NOGIL(r, gg_memcpy_htod(self->h, (size_t)offset, view->buf, (size_t)view->len, ggpy_stream_handle(stream)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *buffer_write(ggpy_Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "data", "offset", "stream", NULL };
    Py_buffer view;
    Py_ssize_t offset = 0;
    ggpy_Stream *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|O&$O&:write", kwlist, &view, ggpy_size_converter, &offset,
                                     ggpy_stream_converter, &stream))
        return NULL;
    PyObject *done = ggpy_buffer_write_view(self, &view, offset, stream);
    PyBuffer_Release(&view);
    return done;
}

static PyObject *buffer_read(ggpy_Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "nbytes", "offset", NULL };
    Py_ssize_t nbytes = -1, offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O&O&:read", kwlist, ggpy_size_converter, &nbytes, ggpy_size_converter,
                                     &offset))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Buffer");
    if ((nbytes = rest(self, offset, nbytes)) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, nbytes);
    if (out == NULL || nbytes == 0)
        return out;
    /* Synchronous, so the bytes are complete (and no copy can land in
     * freed memory) whatever happens: a timed-out wait never starts it. */
    ggpy_result r;
    GGPY_NOGIL(r, gg_memcpy_dtoh(PyBytes_AS_STRING(out), self->h, (size_t)offset, (size_t)nbytes, GG_NO_STREAM));
    if (r.status != GG_OK) {
        Py_DECREF(out);
        return ggpy_raise(&r);
    }
    return out;
}

static PyObject *buffer_read_into(ggpy_Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "target", "offset", NULL };
    Py_buffer view;
    Py_ssize_t offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "w*|O&:read_into", kwlist, &view, ggpy_size_converter, &offset))
        return NULL;
    PyObject *done = NULL;
    if (self->h.id == 0) {
        done = ggpy_closed("Buffer");
    } else if (view.len == 0) {
        done = Py_NewRef(Py_None);
    } else {
        ggpy_result r;
        GGPY_NOGIL(r, gg_memcpy_dtoh(view.buf, self->h, (size_t)offset, (size_t)view.len, GG_NO_STREAM));
        done = r.status == GG_OK ? Py_NewRef(Py_None) : ggpy_raise(&r);
    }
    PyBuffer_Release(&view);
    return done;
}

static PyObject *buffer_fill(ggpy_Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "value", "nbytes", "offset", "stream", NULL };
    int value = 0;
    Py_ssize_t nbytes = -1, offset = 0;
    ggpy_Stream *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i|O&O&$O&:fill", kwlist, &value, ggpy_size_converter, &nbytes,
                                     ggpy_size_converter, &offset, ggpy_stream_converter, &stream))
        return NULL;
    if (value < 0 || value > 255)
        return ggpy_raise_status(GG_INVALID_ARGUMENT, "fill: value %d is not a byte (0..255)", value);
    if (self->h.id == 0)
        return ggpy_closed("Buffer");
    if ((nbytes = rest(self, offset, nbytes)) < 0)
        return NULL;
    if (nbytes == 0)
        Py_RETURN_NONE;
    ggpy_result r;
    GGPY_NOGIL(r, gg_memset(self->h, (size_t)offset, (uint8_t)value, (size_t)nbytes, ggpy_stream_handle(stream)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *buffer_copy_from(ggpy_Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "src", "nbytes", "dst_offset", "src_offset", "stream", NULL };
    ggpy_Buffer *src = NULL;
    Py_ssize_t nbytes = -1, dst_offset = 0, src_offset = 0;
    ggpy_Stream *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|O&$O&O&O&:copy_from", kwlist, &ggpy_BufferType, &src,
                                     ggpy_size_converter, &nbytes, ggpy_size_converter, &dst_offset, ggpy_size_converter,
                                     &src_offset, ggpy_stream_converter, &stream))
        return NULL;
    if (self->h.id == 0 || src->h.id == 0)
        return ggpy_closed("Buffer");
    if ((nbytes = rest(src, src_offset, nbytes)) < 0)
        return NULL;
    if (nbytes == 0)
        Py_RETURN_NONE;
    ggpy_result r;
    GGPY_NOGIL(r, gg_memcpy_dtod(self->h, (size_t)dst_offset, src->h, (size_t)src_offset, (size_t)nbytes,
                                 ggpy_stream_handle(stream)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *buffer_get_nbytes(ggpy_Buffer *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(self->nbytes);
}

static PyObject *buffer_get_device_ptr(ggpy_Buffer *self, void *closure)
{
    (void)closure;
    if (self->h.id == 0)
        return ggpy_closed("Buffer");
    uint64_t dptr = 0;
    ggpy_result r;
    ggpy_capture(&r, gg_buffer_device_ptr(self->h, &dptr));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyLong_FromUnsignedLongLong(dptr);
}

static Py_ssize_t buffer_length(ggpy_Buffer *self)
{
    return (Py_ssize_t)self->nbytes;
}

static PyObject *buffer_repr(ggpy_Buffer *self)
{
    /* PyUnicode_FromFormat has no %llx: the id is formatted here. */
    char id[24];
    snprintf(id, sizeof id, "0x%llx", (unsigned long long)self->h.id);
    return PyUnicode_FromFormat("<" GGPY_MODULE ".Buffer %s, %zu bytes%s>", id, self->nbytes,
                                self->h.id ? "" : " (closed)");
}

static PyMethodDef buffer_methods[] = {
    { "close", (PyCFunction)buffer_close, METH_NOARGS, "Frees the buffer (harmless twice)." },
    { "write", GGPY_FN(buffer_write), METH_VARARGS | METH_KEYWORDS,
      "write(data, offset=0, *, stream=None): copies a bytes-like object in. Without a stream it is\n"
      "synchronous; with one it is queued on it (data may be reused at once)." },
    { "read", GGPY_FN(buffer_read), METH_VARARGS | METH_KEYWORDS,
      "read(nbytes=None, offset=0) -> bytes: a synchronous copy out (after all earlier work)." },
    { "read_into", GGPY_FN(buffer_read_into), METH_VARARGS | METH_KEYWORDS,
      "read_into(target, offset=0): fills a writable bytes-like object (bytearray, memoryview,\n"
      "array, numpy array), synchronously." },
    { "fill", GGPY_FN(buffer_fill), METH_VARARGS | METH_KEYWORDS,
      "fill(value, nbytes=None, offset=0, *, stream=None): sets bytes to value (0..255)." },
    { "__dlpack__", GGPY_FN(ggpy_buffer_dlpack), METH_VARARGS | METH_KEYWORDS,
      "__dlpack__(stream=None) -> a 'dltensor' capsule: the buffer as a 1-D uint8 DLPack tensor,\n"
      "kept alive (and un-closable) until the consumer's deleter runs." },
    { "__dlpack_device__", (PyCFunction)ggpy_buffer_dlpack_device, METH_NOARGS,
      "(kDLCUDA = 2 or kDLROCM = 10, device)" },
    { "copy_from", GGPY_FN(buffer_copy_from), METH_VARARGS | METH_KEYWORDS,
      "copy_from(src, nbytes=None, *, dst_offset=0, src_offset=0, stream=None): device-to-device copy." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef buffer_getset[] = {
    GGPY_CHILD_GETSET(buffer),
    { "nbytes", (getter)buffer_get_nbytes, NULL, "size in bytes", NULL },
    { "__cuda_array_interface__", (getter)ggpy_buffer_array_interface, NULL,
      "the CUDA array interface (version 3): a byte array at device_ptr; reading it waits for the\n"
      "context's queued work, so 'stream' is None (no synchronization needed)", NULL },
    { "device_ptr", (getter)buffer_get_device_ptr, NULL, "the device address (for a 'P' parameter use the Buffer)",
      NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyMappingMethods buffer_mapping = {
    .mp_length = (lenfunc)buffer_length,
};

PyTypeObject ggpy_BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".Buffer",
    .tp_basicsize = sizeof(ggpy_Buffer),
    .tp_dealloc = (destructor)buffer_dealloc,
    .tp_repr = (reprfunc)buffer_repr,
    .tp_as_mapping = &buffer_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Device memory of a Context (made by Context.alloc() or Context.upload()). len() is its size.",
    .tp_methods = buffer_methods,
    .tp_getset = buffer_getset,
};
