/*
 * Context, Stream, Event and Module (Buffer: gpuguard_py_buffer.c).
 *
 * Each Python object owns one gpuguard handle and a strong reference to its
 * context; close() destroys the handle at once (later calls raise
 * InvalidHandleError), deallocation destroys it if close() was not called.
 * Children of a context that was recovered or closed hold stale handles:
 * using one raises InvalidHandleError, releasing one is harmless.
 */
#include <stdio.h>
#include <string.h>

#include "gpuguard_py.h"

PyObject *ggpy_closed(const char *what)
{
    return ggpy_raise_status(GG_INVALID_HANDLE, "this %s was closed", what);
}

int ggpy_u32_converter(PyObject *obj, void *out)
{
    unsigned long long v = 0;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected an int, not %s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        v = (unsigned long long)UINT32_MAX + 1;
    }
    if (v > UINT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "%R is not in 0..%u", obj, (unsigned)UINT32_MAX);
        return 0;
    }
    *(uint32_t *)out = (uint32_t)v;
    return 1;
}

int ggpy_stream_converter(PyObject *obj, void *out)
{
    if (obj == Py_None) {
        *(ggpy_Stream **)out = NULL;
        return 1;
    }
    if (!PyObject_TypeCheck(obj, &ggpy_StreamType)) {
        PyErr_Format(PyExc_TypeError, "stream must be a Stream or None, not %s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    ggpy_Stream *s = (ggpy_Stream *)obj;
    if (s->h.id == 0) {
        ggpy_closed("Stream");
        return 0;
    }
    *(ggpy_Stream **)out = s;
    return 1;
}

/* A byte count or offset: a non-negative int. */
int ggpy_size_converter(PyObject *obj, void *out)
{
    if (obj == Py_None)
        return 1; /* leaves the default */
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred())
        return 0;
    if (v < 0) {
        PyErr_Format(PyExc_ValueError, "%R is negative", obj);
        return 0;
    }
    *(Py_ssize_t *)out = v;
    return 1;
}

/* ==== Context ============================================================== */

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "device", "tag", "watchdog", "watchdog_budget_ms", "use_primary", NULL };
    int device = 0, use_primary = 0;
    PyObject *tag = NULL, *watchdog = NULL;
    uint32_t budget_ms = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i$UOO&p:Context", kwlist, &device, &tag, &watchdog,
                                     ggpy_u32_converter, &budget_ms, &use_primary))
        return NULL;
    gg_watchdog_policy policy = GG_WATCHDOG_DEFAULT;
    if (ggpy_parse_watchdog(watchdog, &policy) < 0 || ggpy_ensure_init() < 0)
        return NULL;
    const char *tag_text = tag ? PyUnicode_AsUTF8(tag) : "python";
    if (tag_text == NULL)
        return NULL;
    ggpy_Context *self = (ggpy_Context *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->device = device;
    self->tag = tag ? Py_NewRef(tag) : PyUnicode_FromString(tag_text);
    if (self->tag == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    gg_context_desc desc = { .struct_size = sizeof(gg_context_desc), .tag = tag_text, .use_primary = use_primary != 0, .watchdog_budget_ms = budget_ms,
                             .watchdog = policy };
    gg_context h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_create(device, &desc, &h));
    if (r.status != GG_OK) {
        Py_DECREF(self);
        return ggpy_raise(&r);
    }
    self->h = h;
    return (PyObject *)self;
}

static void context_dealloc(ggpy_Context *self)
{
    if (self->weakrefs != NULL)
        PyObject_ClearWeakRefs((PyObject *)self);
    gg_context h = self->h;
    self->h.id = 0;
    if (h.id != 0)
        GGPY_RELEASE(gg_context_destroy(h));
    Py_XDECREF(self->tag);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *busy(const char *what)
{
    return ggpy_raise_status(GG_BUSY, "%s: a chunked launch is running in this context (its progress callback "
                             "may return False to cancel it)", what);
}

static PyObject *context_close(ggpy_Context *self, PyObject *unused)
{
    (void)unused;
    if (self->busy)
        return busy("Context.close");
    gg_context h = self->h;
    if (h.id == 0)
        Py_RETURN_NONE; /* closing twice is harmless, as in io */
    self->h.id = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_destroy(h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *context_enter(ggpy_Context *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    return Py_NewRef(self);
}

static PyObject *context_exit(ggpy_Context *self, PyObject *args)
{
    PyObject *exc_type = PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0) : Py_None;
    PyObject *done = context_close(self, NULL);
    if (done == NULL) {
        /* Never hide the exception that ended the block behind a cleanup error. */
        if (exc_type != Py_None)
            PyErr_Clear();
        else
            return NULL;
    }
    Py_XDECREF(done);
    Py_RETURN_FALSE;
}

static PyObject *context_recover(ggpy_Context *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    if (self->busy)
        return busy("Context.recover");
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_recover(self->h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *context_synchronize(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "timeout_ms", NULL };
    uint32_t timeout_ms = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O&:synchronize", kwlist, ggpy_u32_converter, &timeout_ms))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_synchronize(self->h, GG_WAIT_MS(timeout_ms)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *context_set_watchdog(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "policy", "budget_ms", NULL };
    PyObject *policy = Py_None;
    uint32_t budget_ms = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO&:set_watchdog", kwlist, &policy, ggpy_u32_converter,
                                     &budget_ms))
        return NULL;
    gg_watchdog_policy p = GG_WATCHDOG_DEFAULT;
    if (ggpy_parse_watchdog(policy, &p) < 0)
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    ggpy_result r;
    ggpy_capture(&r, gg_context_set_watchdog(self->h, p, budget_ms));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *context_stream(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "tag", NULL };
    const char *tag = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z:stream", kwlist, &tag))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    gg_stream h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_stream_create(self->h, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = tag }, &h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    ggpy_Stream *s = PyObject_New(ggpy_Stream, &ggpy_StreamType);
    if (s == NULL) {
        GGPY_RELEASE(gg_stream_destroy(h));
        return NULL;
    }
    s->h = h;
    s->ctx = (ggpy_Context *)Py_NewRef(self);
    s->owner = NULL;
    return (PyObject *)s;
}

static PyObject *context_event(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "tag", NULL };
    const char *tag = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z:event", kwlist, &tag))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    gg_event h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_event_create(self->h, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = tag }, &h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    ggpy_Event *e = PyObject_New(ggpy_Event, &ggpy_EventType);
    if (e == NULL) {
        GGPY_RELEASE(gg_event_destroy(h));
        return NULL;
    }
    e->h = h;
    e->ctx = (ggpy_Context *)Py_NewRef(self);
    return (PyObject *)e;
}

/* alloc(nbytes, *, tag=None). Parsed by hand (METH_FASTCALL), as
 * Event.record: allocation is a per-call cost PyCUDA programs pay too. */
static PyObject *context_alloc(ggpy_Context *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *nbytes_arg = nargs > 0 ? args[0] : NULL, *tag_arg = Py_None;
    if (nargs > 1)
        return PyErr_Format(PyExc_TypeError, "alloc() takes 1 positional argument (%zd given)", nargs);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        PyObject **slot = NULL;
        if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "nbytes") == 0)
            slot = &nbytes_arg;
        else if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "tag") == 0)
            slot = &tag_arg;
        if (slot == NULL)
            return PyErr_Format(PyExc_TypeError, "alloc() got an unexpected keyword argument %R", name);
        if (slot == &nbytes_arg && nbytes_arg != NULL)
            return PyErr_Format(PyExc_TypeError, "alloc() got multiple values for argument 'nbytes'");
        *slot = args[nargs + i];
    }
    if (nbytes_arg == NULL)
        return PyErr_Format(PyExc_TypeError, "alloc() missing required argument 'nbytes'");
    Py_ssize_t nbytes = 0;
    const char *tag = NULL;
    if (nbytes_arg == Py_None)
        return PyErr_Format(PyExc_TypeError, "alloc(): nbytes must be an int, not None");
    if (!ggpy_size_converter(nbytes_arg, &nbytes))
        return NULL;
    if (tag_arg != Py_None) {
        if (!PyUnicode_Check(tag_arg))
            return PyErr_Format(PyExc_TypeError, "alloc(): tag must be a str or None, not %s",
                                Py_TYPE(tag_arg)->tp_name);
        Py_ssize_t length = 0;
        if ((tag = PyUnicode_AsUTF8AndSize(tag_arg, &length)) == NULL)
            return NULL;
        if ((size_t)length != strlen(tag))
            return PyErr_Format(PyExc_ValueError, "alloc(): tag contains a null character");
    }
    return (PyObject *)ggpy_buffer_new(self, nbytes, tag);
}

static PyObject *context_upload(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "data", "tag", NULL };
    Py_buffer view;
    const char *tag = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|$z:upload", kwlist, &view, &tag))
        return NULL;
    ggpy_Buffer *b = ggpy_buffer_new(self, view.len, tag);
    PyObject *done = b ? ggpy_buffer_write_view(b, &view, 0, NULL) : NULL;
    PyBuffer_Release(&view);
    if (done == NULL) {
        Py_XDECREF(b);
        return NULL;
    }
    Py_DECREF(done);
    return (PyObject *)b;
}

static PyObject *context_load_module(ggpy_Context *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "path", NULL };
    PyObject *path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&:load_module", kwlist, PyUnicode_FSDecoder, &path))
        return NULL;
    PyObject *encoded = PyUnicode_EncodeFSDefault(path);
    if (encoded == NULL) {
        Py_DECREF(path);
        return NULL;
    }
    if (self->h.id == 0) {
        Py_DECREF(encoded);
        Py_DECREF(path);
        return ggpy_closed("Context");
    }
    const char *file = PyBytes_AS_STRING(encoded);
    gg_module h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_module_create_from_file(self->h, file, NULL, &h));
    Py_DECREF(encoded);
    if (r.status != GG_OK) {
        Py_DECREF(path);
        return ggpy_raise(&r);
    }
    ggpy_Module *m = PyObject_New(ggpy_Module, &ggpy_ModuleType);
    PyObject *kernels = PyDict_New();
    if (m == NULL || kernels == NULL) {
        GGPY_RELEASE(gg_module_destroy(h));
        if (m != NULL) {
            m->h.id = 0;
            m->ctx = NULL;
            m->path = NULL;
            m->kernels = NULL;
            Py_DECREF(m);
        }
        Py_XDECREF(kernels);
        Py_DECREF(path);
        return NULL;
    }
    m->h = h;
    m->ctx = (ggpy_Context *)Py_NewRef(self);
    m->path = path;
    m->kernels = kernels;
    return (PyObject *)m;
}

/* ---- keeping a context current ------------------------------------------
 *
 * Every gpuguard call makes its object's context current and restores the
 * caller's afterwards; when the context is current already that costs one
 * driver call (get current) instead of three. push()/pop() wrap
 * gg_context_push/gg_context_pop for code that makes many calls in one
 * context, as PyCUDA programs keep theirs pushed. Both reach the driver
 * (they push and pop its stack), so the GIL is released around them. */

static PyObject *context_push(ggpy_Context *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_push(self->h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

/* The top of the calling thread's gpuguard context stack (gg_context_current
 * reads gpuguard's per-thread record: no driver call, the GIL stays held).
 * 0, or -1 with an exception set. */
static int stack_top(gg_context *top)
{
    ggpy_result r;
    ggpy_capture(&r, gg_context_current(top));
    if (r.status != GG_OK) {
        ggpy_raise(&r);
        return -1;
    }
    return 0;
}

/* Pops the top of the stack, which the caller checked is this context. */
static PyObject *pop_top(void)
{
    gg_context popped = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_context_pop(&popped));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

/* The top is checked first, so a pop never takes another context off the
 * stack. */
static PyObject *context_pop(ggpy_Context *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    gg_context top = { 0 };
    if (stack_top(&top) < 0)
        return NULL;
    if (top.id == 0)
        return ggpy_raise_status(GG_INVALID_ARGUMENT, "Context.pop: this thread has no gpuguard context pushed "
                                 "(close() and recover() take a context off the stack)");
    if (top.id != self->h.id)
        return ggpy_raise_status(GG_WRONG_CONTEXT, "Context.pop: another context (id 0x%llx) is on top of this "
                                 "thread's stack; pop that one first", (unsigned long long)top.id);
    return pop_top();
}

/* `with ctx.current():` pushes on entry, noting what was on top before,
 * and on exit pops the context if it is still on top. If what was on top
 * before is on top again, close() or recover() in the block took the
 * context off the stack (or the block popped it): nothing to undo. Any
 * other top is a context pushed in the block and left there:
 * WrongContextError, and this context stays pushed under it. In a process
 * forked inside the block the pop is refused (ForkedError) and skipped: the
 * child cannot use the driver, and its copy of the stack dies with it. */
typedef struct ggpy_Current {
    PyObject_HEAD
    ggpy_Context *ctx;
    gg_context outer; /* the top before the push */
} ggpy_Current;

static void current_dealloc(ggpy_Current *self)
{
    Py_XDECREF(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *current_enter(ggpy_Current *self, PyObject *unused)
{
    (void)unused;
    if (stack_top(&self->outer) < 0)
        return NULL;
    PyObject *done = context_push(self->ctx, NULL);
    if (done == NULL)
        return NULL;
    Py_DECREF(done);
    return Py_NewRef(self->ctx);
}

static PyObject *current_leave(ggpy_Current *self)
{
    gg_context top = { 0 };
    if (self->ctx->h.id == 0)
        Py_RETURN_NONE; /* closed in the block: close() took it off the stack */
    if (stack_top(&top) < 0)
        return NULL;
    if (top.id == self->ctx->h.id)
        return pop_top();
    if (top.id == self->outer.id)
        Py_RETURN_NONE;
    return ggpy_raise_status(GG_WRONG_CONTEXT, "leaving Context.current(): another context (id 0x%llx) pushed in "
                             "the block is still on top of this thread's stack", (unsigned long long)top.id);
}

static PyObject *current_exit(ggpy_Current *self, PyObject *args)
{
    PyObject *exc_type = PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0) : Py_None;
    PyObject *done = current_leave(self);
    if (done == NULL) {
        /* Never hide the exception that ended the block behind a pop error;
         * a forked child has nothing to undo. */
        if (exc_type != Py_None || PyErr_ExceptionMatches(ggpy_error_class(GG_FORKED)))
            PyErr_Clear();
        else
            return NULL;
    }
    Py_XDECREF(done);
    Py_RETURN_FALSE;
}

static PyMethodDef current_methods[] = {
    { "__enter__", (PyCFunction)current_enter, METH_NOARGS, "Pushes the context; returns it." },
    { "__exit__", (PyCFunction)current_exit, METH_VARARGS, "Pops the context if it is still on top." },
    { NULL, NULL, 0, NULL },
};

static PyTypeObject ggpy_CurrentType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".ContextCurrent",
    .tp_basicsize = sizeof(ggpy_Current),
    .tp_dealloc = (destructor)current_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "What Context.current() returns: a `with` block that keeps the context current.",
    .tp_methods = current_methods,
};

static PyObject *context_current(ggpy_Context *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    ggpy_Current *c = PyObject_New(ggpy_Current, &ggpy_CurrentType);
    if (c == NULL)
        return NULL;
    c->ctx = (ggpy_Context *)Py_NewRef(self);
    c->outer.id = 0;
    return (PyObject *)c;
}

static PyObject *context_get_handle(ggpy_Context *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->h.id);
}

static PyObject *context_get_device(ggpy_Context *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->device);
}

static PyObject *context_get_tag(ggpy_Context *self, void *closure)
{
    (void)closure;
    return Py_NewRef(self->tag);
}

static const char *state_name(gg_context h)
{
    if (h.id == 0)
        return "closed";
    switch (gg_context_state(h)) {
    case GG_STATE_ALIVE:
        return "alive";
    case GG_STATE_DEAD:
        return "dead";
    case GG_STATE_FORKED:
        return "forked";
    default:
        return "invalid"; /* gone: gpuguard was shut down */
    }
}

static PyObject *context_get_state(ggpy_Context *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(state_name(self->h));
}

static PyObject *context_get_death(ggpy_Context *self, void *closure)
{
    (void)closure;
    if (self->h.id == 0)
        Py_RETURN_NONE;
    ggpy_result r;
    memset(&r, 0, sizeof r);
    r.death = (gg_error_info)GG_ERROR_INFO_INIT;
    if (gg_context_death(self->h, &r.death) != GG_OK || r.death.status == GG_OK)
        Py_RETURN_NONE;
    r.status = r.death.status;
    r.info = r.death;
    r.state = r.status == GG_FORKED ? GG_STATE_FORKED : GG_STATE_DEAD;
    return ggpy_error_object(&r);
}

static PyObject *context_get_skipped(ggpy_Context *self, void *closure)
{
    (void)closure;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    uint64_t count = 0;
    ggpy_result r;
    ggpy_capture(&r, gg_context_skipped_cleanups(self->h, &count));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyLong_FromUnsignedLongLong(count);
}

static PyObject *context_get_timeline(ggpy_Context *self, void *closure)
{
    (void)closure;
    if (self->h.id == 0)
        return ggpy_closed("Context");
    gg_timeline_info t = GG_TIMELINE_INFO_INIT;
    ggpy_result r;
    ggpy_capture(&r, gg_context_timeline(self->h, &t));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    static const char *const bases[] = { "none", "set", "measuring", "measured" };
    return Py_BuildValue("{s:s,s:I,s:I,s:I,s:I,s:K,s:K,s:s}", "basis",
                         (unsigned)t.basis < 4 ? bases[t.basis] : "?", "stride", (unsigned)t.stride,
                         "budget_percent", (unsigned)t.budget_percent, "samples", (unsigned)t.samples,
                         "samples_device_idle", (unsigned)t.samples_device_idle, "launch_ns",
                         (unsigned long long)t.launch_ns, "mark_ns", (unsigned long long)t.mark_ns, "why",
                         t.why ? t.why : "");
}

static PyObject *context_repr(ggpy_Context *self)
{
    return PyUnicode_FromFormat("<" GGPY_MODULE ".Context %R on device %d, %s>", self->tag, self->device,
                                state_name(self->h));
}

static PyMethodDef context_methods[] = {
    { "close", (PyCFunction)context_close, METH_NOARGS,
      "Destroys the context and everything in it (without driver calls when it is DEAD).\n"
      "Its objects become stale. Closing twice is harmless." },
    { "__enter__", (PyCFunction)context_enter, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)context_exit, METH_VARARGS, "Closes the context." },
    { "recover", (PyCFunction)context_recover, METH_NOARGS,
      "Replaces a DEAD context with a fresh one on the same device; the Context stays valid,\n"
      "every object made in it before becomes stale. Does nothing to a live context.\n"
      "On CUDA a sticky error (illegal address, trap, assert, launch timeout, in any context)\n"
      "is kept for the whole process: recover() then raises ProcessPoisonedError (a\n"
      "ContextDeadError) and leaves the context DEAD, and Context() raises it too; only a\n"
      "new process (subprocess, or multiprocessing with 'spawn') can use the GPU. Over HIP,\n"
      "whose errors stay in their context, it recovers." },
    { "synchronize", GGPY_FN(context_synchronize), METH_VARARGS | METH_KEYWORDS,
      "synchronize(timeout_ms=0): waits for all work, at most timeout_ms (0: the default deadline),\n"
      "with the GIL released." },
    { "set_watchdog", GGPY_FN(context_set_watchdog), METH_VARARGS | METH_KEYWORDS,
      "set_watchdog(policy=None, budget_ms=0): 'auto', 'refuse', 'allow' or None (the library's)." },
    { "stream", GGPY_FN(context_stream), METH_VARARGS | METH_KEYWORDS, "stream(tag=None) -> Stream" },
    { "event", GGPY_FN(context_event), METH_VARARGS | METH_KEYWORDS, "event(tag=None) -> Event" },
    { "alloc", GGPY_FN(context_alloc), METH_FASTCALL | METH_KEYWORDS,
      "alloc(nbytes, *, tag=None) -> Buffer of device memory (contents undefined)" },
    { "upload", GGPY_FN(context_upload), METH_VARARGS | METH_KEYWORDS,
      "upload(data, *, tag=None) -> Buffer holding a copy of data (any bytes-like object)" },
    { "load_module", GGPY_FN(context_load_module), METH_VARARGS | METH_KEYWORDS,
      "load_module(path) -> Module (see kernel_image())" },
    { "push", (PyCFunction)context_push, METH_NOARGS,
      "Makes the context current on this thread (gg_context_push) until pop(): calls in it then skip\n"
      "the switch to it and back. ContextDeadError when DEAD, ForkedError in a forked child." },
    { "pop", (PyCFunction)context_pop, METH_NOARGS,
      "Undoes push(). Only the top of this thread's stack can be popped: WrongContextError when\n"
      "another context was pushed after it, InvalidArgumentError when none is pushed." },
    { "current", (PyCFunction)context_current, METH_NOARGS,
      "current() -> a `with` block that push()es the context and pops it at the end (unless close()\n"
      "or recover() in the block took it off the stack already; WrongContextError if a context\n"
      "pushed in the block is still on top)." },
    { "adopt_stream", GGPY_FN(ggpy_context_adopt_stream), METH_VARARGS | METH_KEYWORDS,
      "adopt_stream(obj, *, tag=None) -> Stream over another library's stream: an object with\n"
      "__cuda_stream__ or a handle (int). The Stream keeps obj alive; closing it leaves the stream." },
    { "adopt_buffer", GGPY_FN(ggpy_context_adopt_buffer), METH_VARARGS | METH_KEYWORDS,
      "adopt_buffer(obj, *, tag=None) -> Buffer over another library's memory, without copying: an\n"
      "object with __cuda_array_interface__ (C-contiguous). The Buffer keeps obj alive; closing it\n"
      "leaves the memory." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef context_getset[] = {
    { "handle", (getter)context_get_handle, NULL, "the gpuguard id (0 once closed)", NULL },
    { "device", (getter)context_get_device, NULL, "the device number", NULL },
    { "native_handle", (getter)ggpy_context_native_handle, NULL,
      "the driver's context (CUcontext / hipCtx_t) as an int, for libraries that take one", NULL },
    { "tag", (getter)context_get_tag, NULL, "the creation tag", NULL },
    { "state", (getter)context_get_state, NULL, "'alive', 'dead', 'forked', 'closed' or 'invalid'", NULL },
    { "death", (getter)context_get_death, NULL,
      "None while alive; else an (unraised) exception describing the first cause", NULL },
    { "skipped_cleanups", (getter)context_get_skipped, NULL,
      "driver calls that cleanup skipped because the context was DEAD or FORKED", NULL },
    { "timeline", (getter)context_get_timeline, NULL,
      "the completion timeline (gg_context_timeline) as a dict: basis ('none', 'set', 'measuring',\n"
      "'measured'), stride (a mark every `stride` launches of a stream; 1: exact culprits),\n"
      "budget_percent, samples, samples_device_idle, launch_ns, mark_ns (auto's medians), why", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject ggpy_ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".Context",
    .tp_basicsize = sizeof(ggpy_Context),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_repr = (reprfunc)context_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(device=0, *, tag=None, watchdog=None, watchdog_budget_ms=0, use_primary=False)\n--\n\n"
              "A GPU context. Use it as a context manager (the block owns its lifetime) or call close().\n"
              "A kernel fault makes it DEAD: calls in it raise ContextDeadError. On CUDA the fault's\n"
              "error is kept for the whole process (every context dies with it; recover() and new\n"
              "contexts raise ProcessPoisonedError: use a new process); on HIP recover() revives it.",
    .tp_weaklistoffset = offsetof(ggpy_Context, weakrefs),
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_new = context_new,
};

/* ==== children: what they share ========================================= */

GGPY_CHILD_GETTERS(stream, ggpy_Stream)
GGPY_CHILD_GETTERS(event, ggpy_Event)
GGPY_CHILD_GETTERS(module, ggpy_Module)

/* ==== Stream ============================================================ */

static void stream_dealloc(ggpy_Stream *self)
{
    gg_stream h = self->h;
    self->h.id = 0;
    if (h.id != 0)
        GGPY_RELEASE(gg_stream_destroy(h));
    Py_XDECREF(self->owner);
    Py_XDECREF(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *stream_close(ggpy_Stream *self, PyObject *unused)
{
    (void)unused;
    if (self->ctx->busy)
        return busy("Stream.close");
    gg_stream h = self->h;
    if (h.id == 0)
        Py_RETURN_NONE;
    self->h.id = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_stream_destroy(h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *stream_synchronize(ggpy_Stream *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "timeout_ms", NULL };
    uint32_t timeout_ms = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O&:synchronize", kwlist, ggpy_u32_converter, &timeout_ms))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Stream");
    ggpy_result r;
    GGPY_NOGIL(r, gg_stream_synchronize(self->h, GG_WAIT_MS(timeout_ms)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *stream_query(ggpy_Stream *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Stream");
    ggpy_result r;
    ggpy_capture(&r, gg_stream_query(self->h)); /* a query never waits: the GIL stays held (rule 1) */
    if (r.status == GG_NOT_READY)
        Py_RETURN_FALSE;
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_TRUE;
}

static PyObject *stream_wait_event(ggpy_Stream *self, PyObject *event)
{
    if (!PyObject_TypeCheck(event, &ggpy_EventType))
        return PyErr_Format(PyExc_TypeError, "wait_event() expects an Event, not %s", Py_TYPE(event)->tp_name);
    if (self->h.id == 0)
        return ggpy_closed("Stream");
    if (((ggpy_Event *)event)->h.id == 0)
        return ggpy_closed("Event");
    ggpy_result r;
    GGPY_NOGIL(r, gg_stream_wait_event(self->h, ((ggpy_Event *)event)->h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *stream_repr(ggpy_Stream *self)
{
    char id[24]; /* PyUnicode_FromFormat has no %llx */
    snprintf(id, sizeof id, "0x%llx", (unsigned long long)self->h.id);
    return PyUnicode_FromFormat("<" GGPY_MODULE ".Stream %s%s>", id, self->h.id ? "" : " (closed)");
}

static PyMethodDef stream_methods[] = {
    { "close", (PyCFunction)stream_close, METH_NOARGS, "Destroys the stream (harmless twice)." },
    { "synchronize", GGPY_FN(stream_synchronize), METH_VARARGS | METH_KEYWORDS,
      "synchronize(timeout_ms=0): waits for the stream's work, with the GIL released." },
    { "query", (PyCFunction)stream_query, METH_NOARGS, "True when all the stream's work is done." },
    { "wait_event", (PyCFunction)stream_wait_event, METH_O, "wait_event(event): later work waits for event." },
    { "__cuda_stream__", (PyCFunction)ggpy_stream_cuda_stream, METH_NOARGS,
      "(0, handle): the driver's stream (CUstream / hipStream_t) as the CUDA stream protocol gives it." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef stream_getset[] = {
    GGPY_CHILD_GETSET(stream),
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject ggpy_StreamType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".Stream",
    .tp_basicsize = sizeof(ggpy_Stream),
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_repr = (reprfunc)stream_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A stream of a Context (made by Context.stream()).",
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
};

/* ==== Event ============================================================== */

static void event_dealloc(ggpy_Event *self)
{
    gg_event h = self->h;
    self->h.id = 0;
    if (h.id != 0)
        GGPY_RELEASE(gg_event_destroy(h));
    Py_XDECREF(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *event_close(ggpy_Event *self, PyObject *unused)
{
    (void)unused;
    gg_event h = self->h;
    if (h.id == 0)
        Py_RETURN_NONE;
    self->h.id = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_event_destroy(h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

/* record(stream=None). Parsed by hand (METH_FASTCALL): it is a per-frame
 * call, and PyArg_ParseTupleAndKeywords costs as much as the driver's
 * record in the simulator's fast mode. */
static PyObject *event_record(ggpy_Event *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *stream_arg = nargs > 0 ? args[0] : Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw > 1)
        return PyErr_Format(PyExc_TypeError, "record() takes at most 1 argument (%zd given)", nargs + nkw);
    if (nkw == 1) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, 0);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, "stream") != 0)
            return PyErr_Format(PyExc_TypeError, "record() got an unexpected keyword argument %R", name);
        stream_arg = args[0];
    }
    ggpy_Stream *stream = NULL;
    if (!ggpy_stream_converter(stream_arg, &stream))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Event");
    ggpy_result r;
    GGPY_NOGIL(r, gg_event_record(self->h, ggpy_stream_handle(stream)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *event_query(ggpy_Event *self, PyObject *unused)
{
    (void)unused;
    if (self->h.id == 0)
        return ggpy_closed("Event");
    ggpy_result r;
    ggpy_capture(&r, gg_event_query(self->h)); /* a query never waits: the GIL stays held (rule 1) */
    if (r.status == GG_NOT_READY)
        Py_RETURN_FALSE;
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_TRUE;
}

static PyObject *event_synchronize(ggpy_Event *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "timeout_ms", NULL };
    uint32_t timeout_ms = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O&:synchronize", kwlist, ggpy_u32_converter, &timeout_ms))
        return NULL;
    if (self->h.id == 0)
        return ggpy_closed("Event");
    ggpy_result r;
    GGPY_NOGIL(r, gg_event_synchronize(self->h, GG_WAIT_MS(timeout_ms)));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *event_elapsed_ms(ggpy_Event *self, PyObject *end)
{
    if (!PyObject_TypeCheck(end, &ggpy_EventType))
        return PyErr_Format(PyExc_TypeError, "elapsed_ms() expects an Event, not %s", Py_TYPE(end)->tp_name);
    if (self->h.id == 0 || ((ggpy_Event *)end)->h.id == 0)
        return ggpy_closed("Event");
    float ms = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_event_elapsed_ms(self->h, ((ggpy_Event *)end)->h, &ms));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyFloat_FromDouble((double)ms);
}

static PyObject *event_repr(ggpy_Event *self)
{
    char id[24]; /* PyUnicode_FromFormat has no %llx */
    snprintf(id, sizeof id, "0x%llx", (unsigned long long)self->h.id);
    return PyUnicode_FromFormat("<" GGPY_MODULE ".Event %s%s>", id, self->h.id ? "" : " (closed)");
}

static PyMethodDef event_methods[] = {
    { "close", (PyCFunction)event_close, METH_NOARGS, "Destroys the event (harmless twice)." },
    { "record", GGPY_FN(event_record), METH_FASTCALL | METH_KEYWORDS,
      "record(stream=None): records the event on stream (None: the default stream)." },
    { "query", (PyCFunction)event_query, METH_NOARGS, "True once the recorded work is done." },
    { "synchronize", GGPY_FN(event_synchronize), METH_VARARGS | METH_KEYWORDS,
      "synchronize(timeout_ms=0): waits for the event, with the GIL released." },
    { "elapsed_ms", (PyCFunction)event_elapsed_ms, METH_O,
      "elapsed_ms(end) -> float: milliseconds from this event to end (both recorded and done)." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef event_getset[] = {
    GGPY_CHILD_GETSET(event),
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject ggpy_EventType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".Event",
    .tp_basicsize = sizeof(ggpy_Event),
    .tp_dealloc = (destructor)event_dealloc,
    .tp_repr = (reprfunc)event_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An event of a Context (made by Context.event()).",
    .tp_methods = event_methods,
    .tp_getset = event_getset,
};

/* ==== Module ============================================================= */

static void module_dealloc(ggpy_Module *self)
{
    gg_module h = self->h;
    self->h.id = 0;
    if (h.id != 0)
        GGPY_RELEASE(gg_module_destroy(h));
    Py_XDECREF(self->ctx);
    Py_XDECREF(self->path);
    Py_XDECREF(self->kernels);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *module_close(ggpy_Module *self, PyObject *unused)
{
    (void)unused;
    if (self->ctx->busy)
        return busy("Module.close");
    gg_module h = self->h;
    if (h.id == 0)
        Py_RETURN_NONE;
    self->h.id = 0;
    PyDict_Clear(self->kernels);
    ggpy_result r;
    GGPY_NOGIL(r, gg_module_destroy(h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *module_kernel(ggpy_Module *self, PyObject *name)
{
    if (!PyUnicode_Check(name))
        return PyErr_Format(PyExc_TypeError, "kernel() expects a name (str), not %s", Py_TYPE(name)->tp_name);
    if (self->h.id == 0)
        return ggpy_closed("Module");
    /* gpuguard makes a record per gg_kernel_create, freed with the module:
     * look each name up once. */
    PyObject *cached = PyDict_GetItemWithError(self->kernels, name);
    if (cached != NULL)
        return ggpy_kernel_new(self, (gg_kernel){ PyLong_AsUnsignedLongLong(cached) }, name);
    if (PyErr_Occurred())
        return NULL;
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL)
        return NULL;
    gg_kernel h = { 0 };
    ggpy_result r;
    GGPY_NOGIL(r, gg_kernel_create(self->h, text, &h));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    PyObject *id = PyLong_FromUnsignedLongLong(h.id);
    if (id == NULL || PyDict_SetItem(self->kernels, name, id) < 0) {
        Py_XDECREF(id);
        return NULL;
    }
    Py_DECREF(id);
    return ggpy_kernel_new(self, h, name);
}

static PyObject *module_get_path(ggpy_Module *self, void *closure)
{
    (void)closure;
    return Py_NewRef(self->path);
}

static PyObject *module_repr(ggpy_Module *self)
{
    return PyUnicode_FromFormat("<" GGPY_MODULE ".Module %R%s>", self->path, self->h.id ? "" : " (closed)");
}

static PyMethodDef module_methods[] = {
    { "close", (PyCFunction)module_close, METH_NOARGS, "Unloads the module; its kernels go with it." },
    { "kernel", (PyCFunction)module_kernel, METH_O, "kernel(name) -> Kernel" },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef module_getset[] = {
    GGPY_CHILD_GETSET(module),
    { "path", (getter)module_get_path, NULL, "the image file it was loaded from", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject ggpy_ModuleType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GGPY_MODULE ".Module",
    .tp_basicsize = sizeof(ggpy_Module),
    .tp_dealloc = (destructor)module_dealloc,
    .tp_repr = (reprfunc)module_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A loaded kernel image (made by Context.load_module()).",
    .tp_methods = module_methods,
    .tp_getset = module_getset,
};

int ggpy_objects_add(PyObject *module)
{
    PyTypeObject *types[] = { &ggpy_ContextType, &ggpy_StreamType, &ggpy_EventType, &ggpy_BufferType,
                              &ggpy_ModuleType, &ggpy_CurrentType };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (PyModule_AddType(module, types[i]) < 0)
            return -1;
    return 0;
}
