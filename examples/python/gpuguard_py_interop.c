/*
 * Interop with other GPU libraries (CuPy, PyTorch, Numba...): the CUDA
 * array interface (version 3) on Buffer, the CUDA stream protocol on
 * Stream, and adoption of their streams and memory (gg_stream_adopt,
 * gg_buffer_adopt) without copying. Adopted objects are never released
 * by gpuguard: the Stream or Buffer keeps the foreign object alive instead,
 * so its memory cannot go while gpuguard may use it.
 *
 * Synchronisation follows the array interface's rule: the consumer must
 * make its work wait for the producer's 'stream' (None: nothing to wait
 * for; 1 and 2: the legacy and per-thread default streams). gpuguard's
 * Buffers are written on whichever stream the caller chose, so exporting
 * one waits for its context's queued work and says None; adopting or
 * launching on a foreign array waits for the stream it names.
 */
#include "gpuguard_py.h"

#include <stdlib.h>
#include <string.h>

/* ---- exporting ------------------------------------------------------------ */

PyObject *ggpy_buffer_array_interface(ggpy_Buffer *self, void *closure)
{
    (void)closure;
    if (self->h.id == 0)
        return ggpy_closed("Buffer");
    uint64_t dptr = 0;
    ggpy_result r;
    ggpy_capture(&r, gg_buffer_device_ptr(self->h, &dptr));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    GGPY_NOGIL(r, gg_context_synchronize(self->ctx->h, NULL));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return Py_BuildValue("{s:(n),s:s,s:(KO),s:O,s:i,s:O}", "shape", (Py_ssize_t)self->nbytes, "typestr", "|u1",
                         "data", (unsigned long long)dptr, Py_False, "strides", Py_None, "version", 3, "stream",
                         Py_None);
}

PyObject *ggpy_stream_cuda_stream(ggpy_Stream *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Stream");
    void *native = NULL;
    ggpy_result r;
    ggpy_capture(&r, gg_stream_native(self->h, &native));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return Py_BuildValue("(iK)", 0, (unsigned long long)(uintptr_t)native);
}

PyObject *ggpy_context_native_handle(ggpy_Context *self, void *closure)
{
    (void)closure;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    void *native = NULL;
    ggpy_result r;
    ggpy_capture(&r, gg_context_native(self->h, &native));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)native);
}

/* ---- the stream a foreign object names ------------------------------------ */

/* The stream handle of obj: __cuda_stream__() -> (0, handle), or an int.
 * 0 with *out set, or -1 with an exception. */
static int stream_handle_of(PyObject *obj, unsigned long long *out)
{
    PyObject *protocol = NULL, *value = obj;
    if (!PyLong_Check(obj)) {
        if (!PyObject_HasAttrString(obj, "__cuda_stream__")) {
            PyErr_Format(PyExc_TypeError, "expected an object with __cuda_stream__ or a stream handle (int), not %s",
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        protocol = PyObject_CallMethod(obj, "__cuda_stream__", NULL);
        if (protocol == NULL)
            return -1;
        if (!PyTuple_Check(protocol) || PyTuple_GET_SIZE(protocol) != 2 ||
            !PyLong_Check(PyTuple_GET_ITEM(protocol, 0)) || PyLong_AsLong(PyTuple_GET_ITEM(protocol, 0)) != 0 ||
            !PyLong_Check(PyTuple_GET_ITEM(protocol, 1))) {
            PyErr_Format(PyExc_TypeError, "%s.__cuda_stream__() returned %R, not (0, handle)", Py_TYPE(obj)->tp_name,
                         protocol);
            Py_DECREF(protocol);
            return -1;
        }
        value = PyTuple_GET_ITEM(protocol, 1);
    }
    *out = PyLong_AsUnsignedLongLong(value);
    Py_XDECREF(protocol);
    return PyErr_Occurred() ? -1 : 0;
}

/* Makes gpuguard's later work wait for the producer's stream, as the array
 * interface's rule asks: 1 and 2 are the default streams (the context's
 * synchronize waits for them); another handle is adopted for the wait and
 * released (the stream stays its owner's). 0 or -1 with an exception. */
static int wait_for_producer(ggpy_Context *ctx, PyObject *stream)
{
    if (stream == NULL || stream == Py_None)
        return 0;
    if (!PyLong_Check(stream)) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__['stream'] is %R, not None or an int", stream);
        return -1;
    }
    unsigned long long handle = PyLong_AsUnsignedLongLong(stream);
    if (PyErr_Occurred())
        return -1;
    if (handle == 0) {
        PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__['stream'] is 0, which the protocol forbids");
        return -1;
    }
    ggpy_result r;
    if (handle <= 2) {
        GGPY_NOGIL(r, gg_context_synchronize(ctx->h, NULL));
    } else {
        gg_stream waited = { 0 };
        GGPY_NOGIL(r, gg_stream_adopt(ctx->h, (void *)(uintptr_t)handle, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = "producer" },
                                       &waited));
        if (r.status == GG_INVALID_ARGUMENT && strstr(r.info.message, "already") != NULL) {
            /* One of gpuguard's own streams (or one adopted already). */
            GGPY_NOGIL(r, gg_context_synchronize(ctx->h, NULL));
        } else if (r.status == GG_OK) {
            GGPY_NOGIL(r, gg_stream_synchronize(waited, NULL));
            GGPY_RELEASE(gg_stream_destroy(waited));
        }
    }
    if (r.status != GG_OK) {
        ggpy_raise(&r);
        return -1;
    }
    return 0;
}

/* ---- the memory a foreign array describes --------------------------------- */

typedef struct array_view {
    uint64_t address;
    size_t nbytes;
    PyObject *stream; /* borrowed from the interface dict: None, NULL or an int */
} array_view;

static int interface_error(PyObject *obj, const char *what)
{
    PyErr_Format(PyExc_ValueError, "%s.__cuda_array_interface__: %s", Py_TYPE(obj)->tp_name, what);
    return -1;
}

/* Reads a C-contiguous array's extent from its interface dict `cai`.
 * 0 or -1 with an exception. */
static int read_interface(PyObject *obj, PyObject *cai, array_view *v)
{
    if (!PyDict_Check(cai))
        return interface_error(obj, "is not a dict");
    PyObject *data = PyDict_GetItemString(cai, "data");
    PyObject *shape = PyDict_GetItemString(cai, "shape");
    PyObject *typestr = PyDict_GetItemString(cai, "typestr");
    PyObject *strides = PyDict_GetItemString(cai, "strides");
    PyObject *mask = PyDict_GetItemString(cai, "mask");
    v->stream = PyDict_GetItemString(cai, "stream");
    if (data == NULL || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 || !PyLong_Check(PyTuple_GET_ITEM(data, 0)))
        return interface_error(obj, "'data' is not (address, read_only)");
    if (PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) != 0)
        return interface_error(obj, "the memory is read-only; a gpuguard Buffer may be written");
    v->address = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (PyErr_Occurred())
        return -1;
    if (mask != NULL && mask != Py_None)
        return interface_error(obj, "masked arrays are not supported");
    const char *ts = typestr != NULL && PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : NULL;
    long itemsize = ts != NULL && strlen(ts) >= 3 ? strtol(ts + 2, NULL, 10) : 0;
    if (itemsize <= 0)
        return interface_error(obj, "'typestr' is not a type string such as '<f4'");
    if (shape == NULL || !PyTuple_Check(shape))
        return interface_error(obj, "'shape' is not a tuple");
    Py_ssize_t dims = PyTuple_GET_SIZE(shape);
    size_t count = 1, expected_stride = (size_t)itemsize;
    if (strides != NULL && strides != Py_None && (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != dims))
        return interface_error(obj, "'strides' does not match 'shape'");
    for (Py_ssize_t i = dims - 1; i >= 0; i--) {
        Py_ssize_t extent = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        if (extent < 0)
            return PyErr_Occurred() ? -1 : interface_error(obj, "'shape' has a negative extent");
        if (strides != NULL && strides != Py_None && extent > 1) {
            Py_ssize_t stride = PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i));
            if (stride < 0 && PyErr_Occurred())
                return -1;
            if ((size_t)stride != expected_stride)
                return interface_error(obj, "the array is not C-contiguous (copy it first)");
        }
        if (extent != 0 && count > SIZE_MAX / (size_t)extent)
            return interface_error(obj, "the array's size overflows");
        count *= (size_t)extent;
        expected_stride *= (size_t)(extent > 0 ? extent : 1);
    }
    if (count > SIZE_MAX / (size_t)itemsize)
        return interface_error(obj, "the array's size overflows");
    v->nbytes = count * (size_t)itemsize;
    return 0;
}

/* The interface dict of obj (new reference), NULL with no exception when
 * obj has none, NULL with one when reading it failed. */
static PyObject *interface_of(PyObject *obj)
{
    PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (cai == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();
    return cai;
}

int ggpy_array_interface_address(ggpy_Context *ctx, PyObject *obj, uint64_t *out)
{
    PyObject *cai = interface_of(obj);
    if (cai == NULL)
        return PyErr_Occurred() ? -1 : 0;
    array_view v;
    int rc = read_interface(obj, cai, &v);
    if (rc == 0)
        rc = wait_for_producer(ctx, v.stream);
    Py_DECREF(cai);
    if (rc < 0)
        return -1;
    *out = v.address;
    return 1;
}

/* ---- adoption ------------------------------------------------------------- */

/* The Buffer of an adopted allocation `h`, keeping `owner` (a new
 * reference, released after the gg buffer is freed) alive; on failure the
 * gg buffer is freed and `owner` released. */
static PyObject *adopted_buffer(ggpy_Context *ctx, gg_buffer h, size_t nbytes, PyObject *owner)
{
    ggpy_Buffer *b = PyObject_New(ggpy_Buffer, &ggpy_BufferType);
    if (b == NULL) {
        GGPY_RELEASE(gg_buffer_destroy(h));
        Py_DECREF(owner);
        return NULL;
    }
    b->h = h;
    b->ctx = (ggpy_Context *)Py_NewRef(ctx);
    b->nbytes = nbytes;
    b->owner = owner;
    b->exports = 0;
    return (PyObject *)b;
}

static PyObject *adopt_dlpack(ggpy_Context *self, PyObject *obj, const char *tag);

PyObject *ggpy_context_adopt_stream(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "obj", "tag", NULL };
    PyObject *obj = NULL;
    const char *tag = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$z:adopt_stream", kwlist, &obj, &tag))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    unsigned long long handle = 0;
    if (stream_handle_of(obj, &handle) < 0)
        return NULL;
    gg_stream h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_stream_adopt(self->h, (void *)(uintptr_t)handle, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = tag }, &h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    ggpy_Stream *s = PyObject_New(ggpy_Stream, &ggpy_StreamType);
    if (s == NULL) {
        GGPY_RELEASE(gg_stream_destroy(h));
        return NULL;
    }
    s->h = h;
    s->ctx = (ggpy_Context *)Py_NewRef(self);
    s->owner = PyLong_Check(obj) ? NULL : Py_NewRef(obj);
    return (PyObject *)s;
}

PyObject *ggpy_context_adopt_buffer(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "obj", "tag", NULL };
    PyObject *obj = NULL;
    const char *tag = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$z:adopt_buffer", kwlist, &obj, &tag))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    PyObject *cai = interface_of(obj);
    if (cai == NULL && PyErr_Occurred())
        return NULL;
    if (cai == NULL && PyObject_HasAttrString(obj, "__dlpack__"))
        return adopt_dlpack(self, obj, tag);
    if (cai == NULL)
        return PyErr_Format(PyExc_TypeError, "adopt_buffer() expects an object with __cuda_array_interface__ "
                            "or __dlpack__, not %s", Py_TYPE(obj)->tp_name);
    array_view v;
    int rc = read_interface(obj, cai, &v);
    if (rc == 0)
        rc = wait_for_producer(self, v.stream);
    Py_DECREF(cai);
    if (rc < 0)
        return NULL;
    gg_buffer h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_buffer_adopt(self->h, v.address, v.nbytes, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = tag }, &h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return adopted_buffer(self, h, v.nbytes, Py_NewRef(obj));
}

/* ---- DLPack --------------------------------------------------------------- */

/* The DLPack ABI (dlpack.h, version 0.8 and later; the layout is fixed by
 * the standard): a tensor, and the managed form a "dltensor" capsule holds. */
enum { DLPACK_CUDA = 2, DLPACK_ROCM = 10, DLPACK_UINT = 1 };
typedef struct dl_device {
    int32_t device_type;
    int32_t device_id;
} dl_device;
typedef struct dl_data_type {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} dl_data_type;
typedef struct dl_tensor {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_data_type dtype;
    int64_t *shape;
    int64_t *strides;                   /* NULL: compact, row-major */
    uint64_t byte_offset;
} dl_tensor;
typedef struct dl_managed_tensor {
    dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed_tensor *self);
} dl_managed_tensor;

/* What one export allocates: the managed tensor and its shape. */
typedef struct dl_export {
    dl_managed_tensor managed;
    int64_t shape[1];
} dl_export;

static const char dltensor_name[] = "dltensor";

static int32_t dlpack_device_type(void)
{
    return strcmp(gg_backend_name(), "hip") == 0 ? DLPACK_ROCM : DLPACK_CUDA;
}

/* The consumer is done (or the capsule was never consumed): the Buffer may
 * go. Called by consumers from any thread, with or without the GIL. */
static void dlpack_deleter(dl_managed_tensor *managed)
{
    if (managed == NULL)
        return;
    PyGILState_STATE gil = PyGILState_Ensure();
    ggpy_Buffer *b = managed->manager_ctx;
    b->exports--;
    Py_DECREF(b);
    PyGILState_Release(gil);
    free(managed);
}

static void dlpack_capsule_destructor(PyObject *capsule)
{
    /* A consumer renames the capsule "used_dltensor" and owns the tensor
     * from then on; an unconsumed one is released here. */
    if (!PyCapsule_IsValid(capsule, dltensor_name))
        return;
    dl_managed_tensor *managed = PyCapsule_GetPointer(capsule, dltensor_name);
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}

PyObject *ggpy_buffer_dlpack(ggpy_Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "stream", NULL };
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:__dlpack__", kwlist, &stream))
        return NULL;
    if (stream != Py_None && !PyLong_Check(stream))
        return PyErr_Format(PyExc_TypeError, "__dlpack__: stream must be None or an int, not %s",
                            Py_TYPE(stream)->tp_name);
    if (self->h.id == 0)
        return ggpy_closed("Buffer");
    uint64_t dptr = 0;
    ggpy_result r;
    ggpy_capture(&r, gg_buffer_device_ptr(self->h, &dptr));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    /* Whatever stream the consumer names, the data is ready on it once the
     * context's queued work is done (-1 would ask for no synchronization:
     * waiting anyway is safe). */
    GGPY_NOGIL(r, gg_context_synchronize(self->ctx->h, NULL));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    dl_export *e = calloc(1, sizeof *e);
    if (e == NULL)
        return PyErr_NoMemory();
    e->shape[0] = (int64_t)self->nbytes;
    dl_tensor *t = &e->managed.dl_tensor;
    t->data = (void *)(uintptr_t)dptr;
    t->device = (dl_device){ dlpack_device_type(), self->ctx->device };
    t->ndim = 1;
    t->dtype = (dl_data_type){ DLPACK_UINT, 8, 1 };
    t->shape = e->shape;
    t->strides = NULL;
    t->byte_offset = 0;
    e->managed.manager_ctx = self;
    e->managed.deleter = dlpack_deleter;
    PyObject *capsule = PyCapsule_New(&e->managed, dltensor_name, dlpack_capsule_destructor);
    if (capsule == NULL) {
        free(e);
        return NULL;
    }
    Py_INCREF(self); /* released by the deleter */
    self->exports++;
    return capsule;
}

PyObject *ggpy_buffer_dlpack_device(ggpy_Buffer *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("(ii)", dlpack_device_type(), self->ctx->device);
}

/* ---- adopting a DLPack tensor -------------------------------------------- */

static const char used_dltensor_name[] = "used_dltensor";
static const char dlpack_holder_name[] = "gpuguard.dlpack_tensor";

/* Holds a consumed tensor for the adopted Buffer: released after the gg
 * buffer is freed, it tells the producer, once, that we are done. */
static void dlpack_holder_destructor(PyObject *holder)
{
    dl_managed_tensor *managed = PyCapsule_GetPointer(holder, dlpack_holder_name);
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}

static PyObject *dlpack_error(PyObject *obj, const char *what)
{
    return PyErr_Format(PyExc_ValueError, "%s.__dlpack__: %s", Py_TYPE(obj)->tp_name, what);
}

/* The byte extent of a C-contiguous tensor (strides in elements, NULL for
 * compact row-major), or -1 with an exception. */
static int dlpack_extent(PyObject *obj, const dl_tensor *t, size_t *nbytes)
{
    if (t->dtype.bits == 0 || t->dtype.bits % 8 != 0 || t->dtype.lanes == 0) {
        dlpack_error(obj, "the element type is not a whole number of bytes");
        return -1;
    }
    if (t->ndim < 0 || (t->ndim > 0 && t->shape == NULL)) {
        dlpack_error(obj, "the tensor has no shape");
        return -1;
    }
    size_t itemsize = (size_t)t->dtype.bits / 8 * t->dtype.lanes, count = 1, expected = 1;
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
        int64_t extent = t->shape[i];
        if (extent < 0) {
            dlpack_error(obj, "the shape has a negative extent");
            return -1;
        }
        if (t->strides != NULL && extent > 1 && (t->strides[i] < 0 || (uint64_t)t->strides[i] != expected)) {
            dlpack_error(obj, t->strides[i] < 0 ? "negative strides are not supported (copy it first)"
                                                : "the tensor is not C-contiguous (copy it first)");
            return -1;
        }
        if (extent != 0 && count > SIZE_MAX / (size_t)extent) {
            dlpack_error(obj, "the tensor's size overflows");
            return -1;
        }
        count *= (size_t)extent;
        expected *= (size_t)(extent > 0 ? extent : 1);
    }
    if (count > SIZE_MAX / itemsize) {
        dlpack_error(obj, "the tensor's size overflows");
        return -1;
    }
    *nbytes = count * itemsize;
    return 0;
}

/* obj.__dlpack_device__() must name this context's device, before the
 * tensor is asked for (asking consumes the producer's export). */
static int dlpack_check_device(ggpy_Context *self, PyObject *obj, int32_t type, int32_t id)
{
    if (type != dlpack_device_type() || id != self->device) {
        PyErr_Format(PyExc_ValueError, "%s: the tensor is on DLPack device (%d, %d), not on this context's "
                     "(%d, %d): %s", Py_TYPE(obj)->tp_name, (int)type, (int)id, (int)dlpack_device_type(),
                     self->device, type != dlpack_device_type() ? "another kind of device (kDLCUDA is 2, "
                     "kDLROCM 10; host and managed memory are not adopted)" : "another device");
        return -1;
    }
    return 0;
}

/* Adopts the memory of a DLPack tensor without copying. The stream rule:
 * we pass stream=None (the producer makes its work visible on the default
 * stream, per the protocol) and then wait for the context's default
 * stream, as wait_for_producer does for the array interface. The capsule
 * is renamed "used_dltensor" only once the memory is adopted; a refusal
 * before that leaves it unconsumed, so its own destructor returns it to
 * the producer. */
static PyObject *adopt_dlpack(ggpy_Context *self, PyObject *obj, const char *tag)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (dev == NULL)
        return NULL;
    int type = 0, id = 0;
    int ok = PyTuple_Check(dev) && PyArg_ParseTuple(dev, "ii", &type, &id);
    Py_DECREF(dev);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s.__dlpack_device__() did not return (device_type, device_id)",
                         Py_TYPE(obj)->tp_name);
        return NULL;
    }
    if (dlpack_check_device(self, obj, type, id) < 0)
        return NULL;
    PyObject *kwargs = Py_BuildValue("{s:O}", "stream", Py_None);
    PyObject *method = kwargs ? PyObject_GetAttrString(obj, "__dlpack__") : NULL;
    PyObject *empty = method ? PyTuple_New(0) : NULL;
    PyObject *capsule = empty ? PyObject_Call(method, empty, kwargs) : NULL;
    Py_XDECREF(empty);
    Py_XDECREF(method);
    Py_XDECREF(kwargs);
    if (capsule == NULL)
        return NULL;
    if (!PyCapsule_IsValid(capsule, dltensor_name)) {
        int used = PyCapsule_CheckExact(capsule) && PyCapsule_IsValid(capsule, used_dltensor_name);
        Py_DECREF(capsule);
        return dlpack_error(obj, used ? "returned a capsule that was consumed already (\"used_dltensor\")"
                                      : "did not return a \"dltensor\" capsule");
    }
    dl_managed_tensor *managed = PyCapsule_GetPointer(capsule, dltensor_name);
    const dl_tensor *t = &managed->dl_tensor;
    size_t nbytes = 0;
    if (dlpack_check_device(self, obj, t->device.device_type, t->device.device_id) < 0 ||
        dlpack_extent(obj, t, &nbytes) < 0) {
        Py_DECREF(capsule);
        return NULL;
    }
    uint64_t address = (uint64_t)(uintptr_t)t->data + t->byte_offset;
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_synchronize(self->h, NULL));
    gg_buffer h = { 0 };
    if (r.status == GG_OK)
        GGPY_NOGIL(r, gg_buffer_adopt(self->h, address, nbytes, &(gg_adopt_desc){ .struct_size = sizeof(gg_adopt_desc), .tag = tag }, &h));
    if (r.status != GG_OK) {
        Py_DECREF(capsule);
        return ggpy_raise(&r);
    }
    PyObject *holder = PyCapsule_New(managed, dlpack_holder_name, dlpack_holder_destructor);
    if (holder == NULL) {
        GGPY_RELEASE(gg_buffer_destroy(h));
        Py_DECREF(capsule);
        return NULL;
    }
    /* Consumed: from here the deleter is ours to call (the holder's). */
    PyCapsule_SetName(capsule, used_dltensor_name);
    Py_DECREF(capsule);
    return adopted_buffer(self, h, nbytes, holder);
}
