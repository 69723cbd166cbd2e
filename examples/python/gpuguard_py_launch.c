/*
 * Kernels and launches.
 *
 * Parameters. A driver takes a kernel's parameters as an array of pointers,
 * one per parameter, and reads as many bytes behind each as the kernel
 * declares; nothing in a Python value says how wide it should be. So a
 * launch takes the values with a type string, one code per value, as in the
 * struct module:
 *
 *     b B  int8 / uint8         h H  int16 / uint16
 *     i I  int32 / uint32       q Q  int64 / uint64
 *     f    float (32-bit)       d    double
 *     P    a device pointer: a Buffer (its address, looked up at launch,
 *          which also refuses a stale or closed buffer and one of another
 *          context) or an int (an address, e.g. buf.device_ptr + 256)
 *
 *     kernel.launch(grid, block, "PIf", (buf, n, 2.0))
 *
 * Every value is range-checked for its code, and stored in its own zeroed,
 * 16-byte-aligned 16-byte slot: a kernel that reads a parameter wider than
 * its code (a uint64 passed as 'I') reads the value zero-extended, never
 * another parameter or stray memory. The number of values must still match
 * the kernel (a driver reads as many parameters as the kernel declares).
 *
 * Chunked launches call a Python progress callback between slices, on the
 * calling thread: the GIL is taken back for the call and released again.
 * Returning False cancels (CancelledError, with .stats); an exception in
 * the callback cancels and propagates; Ctrl-C (a pending signal) too.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gpuguard_py.h"

/* At most as many parameters as gg_launch_chunked accepts. */
#define MAX_PARAMS 256u
#define SLOT_BYTES 16u

/* ---- structure sequences -------------------------------------------------- */

PyTypeObject ggpy_ChunkProgressType;
PyTypeObject ggpy_ChunkStatsType;

static PyStructSequence_Field progress_fields[] = {
    { "blocks_done", "blocks of the grid finished so far" },
    { "blocks_total", "blocks in the grid" },
    { "slices", "slices finished so far" },
    { "last_slice_ms", "device time of the slice just finished" },
    { "fraction", "blocks_done / blocks_total" },
    { NULL, NULL },
};

static PyStructSequence_Desc progress_desc = {
    GGPY_MODULE ".ChunkProgress", "Progress of a chunked launch, passed to its progress callback.",
    progress_fields, 5,
};

static PyStructSequence_Field stats_fields[] = {
    { "slices", "slices run" },
    { "blocks", "blocks run" },
    { "largest_slice_ms", "the longest slice's device time" },
    { "total_ms", "wall time of the whole launch" },
    { "device_ms", "sum of the slices' device times" },
    { "ms_per_block", "device time per block, as measured" },
    { NULL, NULL },
};

static PyStructSequence_Desc stats_desc = {
    GGPY_MODULE ".ChunkStats", "What a chunked launch did.", stats_fields, 6,
};

int ggpy_launch_types_init(void)
{
    if (PyStructSequence_InitType2(&ggpy_ChunkProgressType, &progress_desc) < 0 ||
        PyStructSequence_InitType2(&ggpy_ChunkStatsType, &stats_desc) < 0 || PyType_Ready(&ggpy_KernelType) < 0)
        return -1;
    return 0;
}

/* A structure sequence from values (stolen references; NULL = failed). */
static PyObject *struct_sequence(PyTypeObject *type, PyObject **values, Py_ssize_t n)
{
    PyObject *s = PyStructSequence_New(type);
    bool ok = s != NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        ok = ok && values[i] != NULL;
        if (s != NULL)
            PyStructSequence_SetItem(s, i, values[i] ? values[i] : Py_NewRef(Py_None));
        else
            Py_XDECREF(values[i]);
    }
    if (!ok)
        Py_CLEAR(s);
    return s;
}

static PyObject *stats_object(const gg_chunk_stats *st)
{
    PyObject *v[] = {
        PyLong_FromUnsignedLong(st->slices),          PyLong_FromUnsignedLongLong(st->blocks),
        PyFloat_FromDouble((double)st->largest_slice_ms), PyFloat_FromDouble((double)st->total_ms),
        PyFloat_FromDouble((double)st->device_ms),    PyFloat_FromDouble(st->ms_per_block),
    };
    return struct_sequence(&ggpy_ChunkStatsType, v, 6);
}

static PyObject *progress_object(const gg_chunk_progress *p)
{
    double fraction = p->blocks_total ? (double)p->blocks_done / (double)p->blocks_total : 1.0;
    PyObject *v[] = {
        PyLong_FromUnsignedLongLong(p->blocks_done), PyLong_FromUnsignedLongLong(p->blocks_total),
        PyLong_FromUnsignedLong(p->slices),          PyFloat_FromDouble((double)p->last_slice_ms),
        PyFloat_FromDouble(fraction),
    };
    return struct_sequence(&ggpy_ChunkProgressType, v, 5);
}

/* ---- grid and block --------------------------------------------------------- */

/* An int, or a tuple or list of 1 to 3 ints (missing ones are 1). */
static int dim3_converter(PyObject *obj, void *out)
{
    gg_dim3 d = { 1, 1, 1 };
    uint32_t *v[3] = { &d.x, &d.y, &d.z };
    if (PyLong_Check(obj)) {
        if (!ggpy_u32_converter(obj, &d.x))
            return 0;
    } else if (PyTuple_Check(obj) || PyList_Check(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        if (n < 1 || n > 3) {
            PyErr_Format(PyExc_TypeError, "a grid or block has 1 to 3 dimensions, not %zd", n);
            return 0;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            if (!ggpy_u32_converter(PySequence_Fast_GET_ITEM(obj, i), v[i]))
                return 0;
    } else {
        PyErr_Format(PyExc_TypeError, "a grid or block is an int or a tuple of 1 to 3 ints, not %s",
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    *(gg_dim3 *)out = d;
    return 1;
}

/* ---- parameters ------------------------------------------------------------- */

typedef struct params {
    uint32_t count;
    char codes[MAX_PARAMS];
    void **pointers;
    unsigned char *slots; /* count * SLOT_BYTES, zeroed */
} params;

static void params_free(params *p)
{
    PyMem_Free(p->pointers);
    PyMem_Free(p->slots);
    p->pointers = NULL;
    p->slots = NULL;
}

static PyObject *param_error(PyObject *type, uint32_t i, char code, const char *what, PyObject *value)
{
    return PyErr_Format(type, "parameter %u ('%c'): %s, not %R", i, code, what, value);
}

/* A Python int as a 64-bit pattern, checked against [min, max]. */
static int pack_integer(uint32_t i, char code, PyObject *value, long long min, unsigned long long max,
                        uint64_t *out)
{
    PyObject *index = PyNumber_Index(value);
    if (index == NULL) {
        PyErr_Clear();
        param_error(PyExc_TypeError, i, code, "expected an int", value);
        return -1;
    }
    int rc = 0, overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        rc = -1;
    } else if (overflow == 0 && v < 0 && v >= min) {
        *out = (uint64_t)v;
    } else if (overflow == 0 && v >= 0 && (unsigned long long)v <= max) {
        *out = (uint64_t)v;
    } else {
        /* Above LLONG_MAX: only a uint64 can hold it. */
        unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(index) : 0;
        if (overflow > 0 && !PyErr_Occurred() && u <= max) {
            *out = (uint64_t)u;
        } else {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "parameter %u ('%c'): %R is out of range (%lld..%llu)", i, code,
                         value, min, max);
            rc = -1;
        }
    }
    Py_DECREF(index);
    return rc;
}

/* The device address of a Buffer for a 'P' parameter. */
static int pack_buffer(ggpy_Kernel *k, uint32_t i, ggpy_Buffer *b, uint64_t *out)
{
    if (b->h.id == 0) {
        ggpy_raise_status(GG_INVALID_HANDLE, "parameter %u ('P'): the Buffer was closed", i);
        return -1;
    }
    if (b->ctx != k->module->ctx) {
        ggpy_raise_status(GG_WRONG_CONTEXT, "parameter %u ('P'): the Buffer belongs to context '%s', the kernel "
                          "to context '%s'", i, PyUnicode_AsUTF8(b->ctx->tag), PyUnicode_AsUTF8(k->module->ctx->tag));
        return -1;
    }
    ggpy_result r;
    ggpy_capture(&r, gg_buffer_device_ptr(b->h, out));
    if (r.status != GG_OK) {
        ggpy_raise(&r);
        return -1;
    }
    return 0;
}

static int pack_one(ggpy_Kernel *k, uint32_t i, char code, PyObject *value, unsigned char *slot)
{
    uint64_t bits = 0;
    switch (code) {
    case 'b': case 'B': case 'h': case 'H': case 'i': case 'I': case 'q': case 'Q': {
        static const char codes[] = "bBhHiIqQ";
        static const long long mins[] = { INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0, INT64_MIN, 0 };
        static const unsigned long long maxs[] = { INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX,
                                                   INT32_MAX, UINT32_MAX, INT64_MAX, UINT64_MAX };
        static const size_t widths[] = { 1, 1, 2, 2, 4, 4, 8, 8 };
        size_t c = (size_t)(strchr(codes, code) - codes);
        if (pack_integer(i, code, value, mins[c], maxs[c], &bits) < 0)
            return -1;
        /* Little-endian hosts only (x86-64, arm64): the low bytes first. */
        memcpy(slot, &bits, widths[c]);
        return 0;
    }
    case 'f': case 'd': {
        if (!PyFloat_Check(value) && !PyLong_Check(value)) {
            param_error(PyExc_TypeError, i, code, "expected a float", value);
            return -1;
        }
        double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        if (code == 'd') {
            memcpy(slot, &v, sizeof v);
            return 0;
        }
        if (isfinite(v) && fabs(v) > FLT_MAX) {
            param_error(PyExc_OverflowError, i, code, "out of range for a 32-bit float", value);
            return -1;
        }
        float f = (float)v;
        memcpy(slot, &f, sizeof f);
        return 0;
    }
    case 'P':
        if (PyObject_TypeCheck(value, &ggpy_BufferType)) {
            if (pack_buffer(k, i, (ggpy_Buffer *)value, &bits) < 0)
                return -1;
        } else if (PyLong_Check(value)) {
            if (pack_integer(i, code, value, 0, UINT64_MAX, &bits) < 0)
                return -1;
        } else {
            int found = ggpy_array_interface_address(k->module->ctx, value, &bits);
            if (found < 0)
                return -1;
            if (found == 0) {
                param_error(PyExc_TypeError, i, code,
                            "expected a Buffer, an object with __cuda_array_interface__ or an address (int)", value);
                return -1;
            }
        }
        memcpy(slot, &bits, sizeof bits);
        return 0;
    default:
        ggpy_raise_status(GG_INVALID_ARGUMENT, "parameter %u: unknown type code '%c' (use b B h H i I q Q f d P)",
                          i, code);
        return -1;
    }
}

/* Packs `values` by `types` into p (free it with params_free). */
static int params_pack(ggpy_Kernel *k, const char *types, PyObject *values, params *p)
{
    memset(p, 0, sizeof *p);
    for (const char *c = types; *c; c++) {
        if (*c == ' ')
            continue;
        if (p->count == MAX_PARAMS) {
            ggpy_raise_status(GG_INVALID_ARGUMENT, "more than %u parameters", MAX_PARAMS);
            return -1;
        }
        p->codes[p->count++] = *c;
    }
    PyObject *seq = PySequence_Fast(values, "args must be a tuple or list of parameter values");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != (Py_ssize_t)p->count) {
        Py_DECREF(seq);
        ggpy_raise_status(GG_INVALID_ARGUMENT, "%zd parameter value(s) for %u type code(s) in '%s'", n, p->count,
                          types);
        return -1;
    }
    p->pointers = PyMem_Calloc(p->count ? p->count : 1, sizeof *p->pointers);
    p->slots = PyMem_Calloc(p->count ? p->count : 1, SLOT_BYTES);
    if (p->pointers == NULL || p->slots == NULL) {
        Py_DECREF(seq);
        params_free(p);
        PyErr_NoMemory();
        return -1;
    }
    for (uint32_t i = 0; i < p->count; i++) {
        unsigned char *slot = p->slots + (size_t)i * SLOT_BYTES;
        p->pointers[i] = slot;
        if (pack_one(k, i, p->codes[i], PySequence_Fast_GET_ITEM(seq, i), slot) < 0) {
            Py_DECREF(seq);
            params_free(p);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* ---- Kernel ----------------------------------------------------------------- */

PyObject *ggpy_kernel_new(ggpy_Module *module, gg_kernel h, PyObject *name)
{
    ggpy_Kernel *k = PyObject_New(ggpy_Kernel, &ggpy_KernelType);
    if (k == NULL)
        return NULL;
    k->h = h;
    k->module = (ggpy_Module *)Py_NewRef(module);
    k->name = Py_NewRef(name);
    return (PyObject *)k;
}

static void kernel_dealloc(ggpy_Kernel *self)
{
    /* A kernel has no lifetime of its own in gpuguard: it goes with its module. */
    Py_XDECREF(self->module);
    Py_XDECREF(self->name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int kernel_check(ggpy_Kernel *self)
{
    if (self->module->h.id == 0) {
        ggpy_raise_status(GG_INVALID_HANDLE, "kernel '%s': its Module was closed", PyUnicode_AsUTF8(self->name));
        return -1;
    }
    return 0;
}

static PyObject *kernel_launch(ggpy_Kernel *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "grid", "block", "types", "args", "stream", "shared_bytes", NULL };
    gg_dim3 grid, block;
    const char *types = "";
    PyObject *values = NULL;
    ggpy_Stream *stream = NULL;
    uint32_t shared = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&|sO$O&O&:launch", kwlist, dim3_converter, &grid,
                                     dim3_converter, &block, &types, &values, ggpy_stream_converter, &stream,
                                     ggpy_u32_converter, &shared))
        return NULL;
    if (kernel_check(self) < 0)
        return NULL;
    PyObject *empty = NULL;
    if (values == NULL)
        values = empty = PyTuple_New(0);
    params p;
    int rc = values ? params_pack(self, types, values, &p) : -1;
    Py_XDECREF(empty);
    if (rc < 0)
        return NULL;
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = self->h, .stream = stream ? stream->h : GG_NO_STREAM, .grid = grid,
                            .block = block, .shared_bytes = shared, .params = p.pointers,
                            .param_count = p.count };
    ggpy_result r;
    /* Asynchronous, unless the device has a watchdog and the kernel was
     * declared chunkable: then it runs chunked and waits. */
    GGPY_NOGIL(r, gg_launch(&desc));
    params_free(&p);
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

typedef struct progress_state {
    PyObject *callback;      /* or NULL: only signals are checked */
    PyThreadState *thread;   /* saved while gpuguard runs */
    PyObject *exc_type, *exc_value, *exc_traceback; /* what stopped the launch */
} progress_state;

/* Between slices, on the launching thread, without the GIL. */
static bool on_progress(void *user, const gg_chunk_progress *p)
{
    progress_state *s = user;
    PyEval_RestoreThread(s->thread);
    bool go_on = true;
    if (s->callback != NULL) {
        PyObject *info = progress_object(p);
        PyObject *result = info ? PyObject_CallOneArg(s->callback, info) : NULL;
        Py_XDECREF(info);
        go_on = result != NULL && result != Py_False;
        Py_XDECREF(result);
    }
    /* Ctrl-C stops a long launch between slices (main thread only). */
    if (go_on && PyErr_CheckSignals() < 0)
        go_on = false;
    if (PyErr_Occurred())
        PyErr_Fetch(&s->exc_type, &s->exc_value, &s->exc_traceback);
    s->thread = PyEval_SaveThread();
    return go_on;
}

static PyObject *kernel_launch_chunked(ggpy_Kernel *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "grid", "block", "types", "args", "offset_param", "dimension", "progress",
                              "target_ms", "max_ms", "first_slice", "slice_timeout_ms", "stream", "shared_bytes",
                              NULL };
    gg_dim3 grid, block;
    const char *types = NULL;
    PyObject *values = NULL, *callback = Py_None;
    uint32_t offset_param = UINT32_MAX, dimension = 1, first_slice = 0, slice_timeout_ms = 0, shared = 0;
    double target_ms = 0.0, max_ms = 0.0;
    ggpy_Stream *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&sO|$O&O&OddO&O&O&O&:launch_chunked", kwlist, dim3_converter,
                                     &grid, dim3_converter, &block, &types, &values, ggpy_u32_converter,
                                     &offset_param, ggpy_u32_converter, &dimension, &callback, &target_ms, &max_ms,
                                     ggpy_u32_converter, &first_slice, ggpy_u32_converter, &slice_timeout_ms,
                                     ggpy_stream_converter, &stream, ggpy_u32_converter, &shared))
        return NULL;
    if (offset_param == UINT32_MAX)
        return PyErr_Format(PyExc_TypeError, "launch_chunked() needs offset_param=: the index of the 'I' parameter "
                            "the kernel adds to its block index");
    if (callback != Py_None && !PyCallable_Check(callback))
        return PyErr_Format(PyExc_TypeError, "progress must be callable or None, not %s", Py_TYPE(callback)->tp_name);
    if (kernel_check(self) < 0)
        return NULL;
    params p;
    if (params_pack(self, types, values, &p) < 0)
        return NULL;
    if (offset_param < p.count && p.codes[offset_param] != 'I') {
        params_free(&p);
        return ggpy_raise_status(GG_INVALID_ARGUMENT, "offset_param %u has type code '%c': the block offset is a "
                                 "uint32 ('I')", offset_param, p.codes[offset_param]);
    }
    gg_launch_desc desc = { .struct_size = sizeof(gg_launch_desc), .kernel = self->h, .stream = stream ? stream->h : GG_NO_STREAM, .grid = grid,
                            .block = block, .shared_bytes = shared, .params = p.pointers,
                            .param_count = p.count };
    progress_state state = { .callback = callback != Py_None ? callback : NULL };
    gg_chunk_desc chunk = { .struct_size = sizeof(gg_chunk_desc), .offset_param = offset_param, .dimension = dimension, .target_ms = (float)target_ms,
                            .max_ms = (float)max_ms, .first_slice = first_slice,
                            .slice_timeout_ms = slice_timeout_ms, .progress = on_progress,
                            .progress_user = &state };
    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    ggpy_Context *ctx = self->module->ctx;
    /* Keeps the context, its modules and streams from being closed by the
     * callback (or another thread) under the launch. */
    ctx->busy++;
    ggpy_result r;
    ggpy_calls_begin();
    state.thread = PyEval_SaveThread();
    /* A failure is recorded after the last callback ran, so its details
     * are this launch's even if the callback called gpuguard. */
    ggpy_capture(&r, gg_launch_chunked(&desc, &chunk, &stats));
    PyEval_RestoreThread(state.thread);
    ggpy_calls_end();
    ctx->busy--;
    params_free(&p);
    if (state.exc_type != NULL) {
        /* The callback raised (or Ctrl-C): that is the error to see. */
        PyErr_Restore(state.exc_type, state.exc_value, state.exc_traceback);
        return NULL;
    }
    if (r.status == GG_CANCELLED) {
        PyObject *exc = ggpy_error_object(&r);
        PyObject *st = exc ? stats_object(&stats) : NULL;
        if (st != NULL && PyObject_SetAttrString(exc, "stats", st) == 0)
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_XDECREF(st);
        Py_XDECREF(exc);
        return NULL;
    }
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return stats_object(&stats);
}

static PyObject *kernel_set_chunking(ggpy_Kernel *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "offset_param", "dimension", NULL };
    uint32_t offset_param = 0, dimension = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|O&:set_chunking", kwlist, ggpy_u32_converter, &offset_param,
                                     ggpy_u32_converter, &dimension))
        return NULL;
    if (kernel_check(self) < 0)
        return NULL;
    ggpy_result r;
    ggpy_capture(&r, gg_kernel_set_chunking(self->h, offset_param, dimension));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *kernel_get_timing(ggpy_Kernel *self, void *closure)
{
    (void)closure;
    if (kernel_check(self) < 0)
        return NULL;
    double ms = 0;
    uint64_t samples = 0;
    ggpy_result r;
    ggpy_capture(&r, gg_kernel_timing(self->h, &ms, &samples));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return Py_BuildValue("(dK)", ms, (unsigned long long)samples);
}

static PyObject *kernel_get_name(ggpy_Kernel *self, void *closure)
{
    (void)closure;
    return Py_NewRef(self->name);
}

static PyObject *kernel_get_module(ggpy_Kernel *self, void *closure)
{
    (void)closure;
    return Py_NewRef((PyObject *)self->module);
}

static PyObject *kernel_get_context(ggpy_Kernel *self, void *closure)
{
    (void)closure;
    return Py_NewRef((PyObject *)self->module->ctx);
}

static PyObject *kernel_get_handle(ggpy_Kernel *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->h.id);
}

static PyObject *kernel_repr(ggpy_Kernel *self)
{
    return PyUnicode_FromFormat("<" GGPY_MODULE ".Kernel %R>", self->name);
}

static PyMethodDef kernel_methods[] = {
    { "launch", GGPY_FN(kernel_launch), METH_VARARGS | METH_KEYWORDS,
      "launch(grid, block, types='', args=(), *, stream=None, shared_bytes=0)\n\n"
      "Queues the kernel (asynchronous: a fault surfaces at a later call). grid and block: an int\n"
      "or a tuple of 1 to 3 ints. types: one code per value in args: b B h H i I q Q (integers of\n"
      "8 to 64 bits, lower case signed), f d (float, double), P (a Buffer or a device address)." },
    { "launch_chunked", GGPY_FN(kernel_launch_chunked), METH_VARARGS | METH_KEYWORDS,
      "launch_chunked(grid, block, types, args, *, offset_param, dimension=1, progress=None,\n"
      "               target_ms=0.0, max_ms=0.0, first_slice=0, slice_timeout_ms=0, stream=None,\n"
      "               shared_bytes=0) -> ChunkStats\n\n"
      "Runs the grid in slices along `dimension`, each timed and waited for (the GIL is released),\n"
      "passing each slice's first block index in parameter `offset_param` (type 'I'; its value in\n"
      "args is ignored). progress(ChunkProgress) is called between slices: return False to cancel\n"
      "(CancelledError, with .stats); an exception it raises cancels the launch and propagates." },
    { "set_chunking", GGPY_FN(kernel_set_chunking), METH_VARARGS | METH_KEYWORDS,
      "set_chunking(offset_param, dimension=1): on a watchdog device, plain launches of this kernel\n"
      "then run chunked (and wait for the whole grid)." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef kernel_getset[] = {
    { "name", (getter)kernel_get_name, NULL, "the kernel's name", NULL },
    { "module", (getter)kernel_get_module, NULL, "the Module it comes from", NULL },
    { "context", (getter)kernel_get_context, NULL, "the Context it belongs to", NULL },
    { "handle", (getter)kernel_get_handle, NULL, "the gpuguard id", NULL },
    { "timing", (getter)kernel_get_timing, NULL,
      "(ms_per_block, samples): the measured device time per block and how many runs it rests on", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject ggpy_KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".Kernel",
    .tp_basicsize = sizeof(ggpy_Kernel),
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_repr = (reprfunc)kernel_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A kernel of a Module (made by Module.kernel(name)).",
    .tp_methods = kernel_methods,
    .tp_getset = kernel_getset,
};
