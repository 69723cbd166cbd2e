/*
 * gpuguard statuses as Python exceptions.
 *
 *   GpuguardError                        every failure; .status is the name
 *    +- InvalidArgumentError (ValueError)
 *    +- InvalidHandleError               stale, closed or forged object
 *    +- WrongContextError                objects from two contexts mixed
 *    +- NotInitializedError, AlreadyInitializedError
 *    +- NoDriverError, NoDeviceError
 *    +- OutOfMemoryError
 *    +- NotReadyError
 *    +- WaitTimeoutError (TimeoutError)  a host-side wait passed its deadline
 *    +- ContextDeadError                 the context is DEAD: recover() it (or a new process)
 *    |   +- IllegalAddressError, LaunchFailedError, LaunchTimeoutError
 *    |   +- ProcessPoisonedError         a sticky error reached the whole process: recover()
 *    |                                   and new contexts refuse; only a new process helps
 *    +- ForkedError                      GPU object used in a fork() child
 *    +- CancelledError                   a chunked launch was cancelled
 *    +- WatchdogRiskError, UnsupportedError, DriverError, BusyError, InternalError
 *
 * The class follows the status, with one exception: a DRIVER error that
 * killed its context (a sticky code with no portable status of its own) is
 * raised as ContextDeadError, so that `except ContextDeadError` catches
 * every failure after which the context must be recovered, except a wait
 * timeout (WaitTimeoutError; its .context_dead says whether the timeout
 * policy killed the context). On CUDA a sticky error (illegal address,
 * trap, assert, launch timeout) is kept for the whole process, so there
 * recover() raises ProcessPoisonedError: the program goes on in a new
 * process.
 *
 * Every instance carries the same attributes, None when they do not apply:
 * status, status_code, message, native_code, native_name, gg_call,
 * driver_call, context_dead, and, about a dead context's first cause or a
 * wait's pending launches, cause, cause_message, culprit_kernel,
 * culprit_sequence, certainty ("exact" or "window"), culprit_window
 * ((first, last, count) of the candidate launches).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuguard_py.h"

PyObject *ggpy_GpuguardError;
static PyObject *context_dead_error;
static PyObject *class_of_status[GG__STATUS_COUNT];

/* Attributes every GpuguardError has, with None as the class default. */
static const char *const attribute_names[] = {
    "status", "status_code", "message", "native_code", "native_name", "gg_call", "driver_call",
    "context_dead", "cause", "cause_message", "culprit_kernel", "culprit_sequence", "certainty",
    "culprit_window",
};

typedef struct class_spec {
    gg_status status;
    const char *name;         /* without the module prefix */
    bool dead_family;         /* a subclass of ContextDeadError */
    const char *extra_base;   /* "ValueError", "TimeoutError" or NULL */
    const char *doc;
} class_spec;

static const class_spec specs[] = {
    { GG_INVALID_ARGUMENT, "InvalidArgumentError", false, "ValueError", "An argument is invalid (GG_INVALID_ARGUMENT)." },
    { GG_INVALID_HANDLE, "InvalidHandleError", false, NULL,
      "The object is closed, stale (its context was recovered or destroyed) or of the wrong type." },
    { GG_WRONG_CONTEXT, "WrongContextError", false, NULL, "Objects from two different contexts were mixed." },
    { GG_NOT_INITIALIZED, "NotInitializedError", false, NULL, "gpuguard is not initialised." },
    { GG_NO_DRIVER, "NoDriverError", false, NULL, "No usable GPU driver library was found." },
    { GG_NO_DEVICE, "NoDeviceError", false, NULL, "The driver reports no usable device." },
    { GG_OUT_OF_MEMORY, "OutOfMemoryError", false, NULL, "Out of device or host memory." },
    { GG_NOT_READY, "NotReadyError", false, NULL, "Work is still pending." },
    { GG_TIMEOUT, "WaitTimeoutError", false, "TimeoutError",
      "A host-side wait passed its deadline. Under the default timeout policy the context is then DEAD "
      "(.context_dead is True): recover() it." },
    { GG_LAUNCH_TIMEOUT, "LaunchTimeoutError", true, NULL, "The watchdog killed a kernel that ran too long; the context is DEAD." },
    { GG_LAUNCH_FAILED, "LaunchFailedError", true, NULL, "A kernel failed on the device; the context is DEAD." },
    { GG_ILLEGAL_ADDRESS, "IllegalAddressError", true, NULL, "A kernel or copy touched an illegal address; the context is DEAD." },
    { GG_FORKED, "ForkedError", false, NULL,
      "A GPU object inherited through fork() was used in the child: start workers with the 'spawn' method." },
    { GG_CANCELLED, "CancelledError", false, NULL,
      "A chunked launch was cancelled by its progress callback returning False (.stats: what was done)." },
    { GG_WATCHDOG_RISK, "WatchdogRiskError", false, NULL, "Launch refused: it would overrun the device's watchdog." },
    { GG_UNSUPPORTED, "UnsupportedError", false, NULL, "The operation is not supported by this backend." },
    { GG_DRIVER, "DriverError", false, NULL, "The driver reported an error (see .native_code and .native_name)." },
    { GG_ALREADY_INITIALIZED, "AlreadyInitializedError", false, NULL, "gpuguard was already initialised." },
    { GG_BUSY, "BusyError", false, NULL, "The object is in use by another operation." },
    { GG_INTERNAL, "InternalError", false, NULL, "Internal error in gpuguard." },
    { GG_PROCESS_POISONED, "ProcessPoisonedError", true, NULL,
      "A sticky error reached the whole process (CUDA keeps it for every context, even after all are "
      "destroyed): recover() cannot help; only a new process can use the GPU." },
};

static int add_class(PyObject *module, const char *name, PyObject *bases, const char *doc, PyObject *dict,
                     PyObject **out)
{
    char qualified[128];
    snprintf(qualified, sizeof qualified, GGPY_MODULE ".%s", name);
    PyObject *cls = PyErr_NewExceptionWithDoc(qualified, doc, bases, dict);
    if (cls == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, name, cls) < 0) {
        Py_DECREF(cls);
        return -1;
    }
    *out = cls; /* the module keeps a reference; so do we, for good */
    return 0;
}

int ggpy_errors_add(PyObject *module)
{
    PyObject *defaults = PyDict_New();
    if (defaults == NULL)
        return -1;
    for (size_t i = 0; i < sizeof attribute_names / sizeof attribute_names[0]; i++)
        if (PyDict_SetItemString(defaults, attribute_names[i], Py_None) < 0) {
            Py_DECREF(defaults);
            return -1;
        }
    int rc = add_class(module, "GpuguardError", PyExc_Exception,
                       "Base class of every gpuguard failure; .status names the gpuguard status.", defaults,
                       &ggpy_GpuguardError);
    Py_DECREF(defaults);
    if (rc < 0)
        return -1;
    if (add_class(module, "ContextDeadError", ggpy_GpuguardError,
                  "The context is DEAD: every call in it fails fast until ctx.recover(). .cause, .culprit_kernel, "
                  ".culprit_sequence and .certainty describe the first cause. After a sticky error on CUDA "
                  "(kept for the whole process) recover() raises ProcessPoisonedError: use a new process.",
                  NULL, &context_dead_error) < 0)
        return -1;
    class_of_status[GG_CONTEXT_DEAD] = context_dead_error;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const class_spec *s = &specs[i];
        PyObject *base = s->dead_family ? context_dead_error : ggpy_GpuguardError;
        PyObject *bases;
        if (s->extra_base != NULL) {
            PyObject *builtin = strcmp(s->extra_base, "ValueError") == 0 ? PyExc_ValueError : PyExc_TimeoutError;
            bases = PyTuple_Pack(2, base, builtin);
        } else {
            bases = PyTuple_Pack(1, base);
        }
        if (bases == NULL)
            return -1;
        rc = add_class(module, s->name, bases, s->doc, NULL, &class_of_status[s->status]);
        Py_DECREF(bases);
        if (rc < 0)
            return -1;
    }
    return 0;
}

PyObject *ggpy_error_class(gg_status status)
{
    if ((unsigned)status < GG__STATUS_COUNT && class_of_status[status] != NULL)
        return class_of_status[status];
    return ggpy_GpuguardError;
}

/* ---- building an exception object -------------------------------------- */

static int set_attr(PyObject *obj, const char *name, PyObject *value)
{
    if (value == NULL)
        return -1;
    int rc = PyObject_SetAttrString(obj, name, value);
    Py_DECREF(value);
    return rc;
}

/* A str, or None for an empty or NULL one. */
static PyObject *str_or_none(const char *s)
{
    if (s == NULL || s[0] == '\0')
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static int set_culprit(PyObject *exc, const gg_culprit *c)
{
    if (c->certainty == GG_ATTRIBUTION_NONE)
        return 0;
    if (set_attr(exc, "culprit_kernel", str_or_none(c->kernel_name)) < 0 ||
        set_attr(exc, "culprit_sequence", PyLong_FromUnsignedLongLong(c->sequence)) < 0 ||
        set_attr(exc, "certainty", PyUnicode_FromString(c->certainty == GG_ATTRIBUTION_EXACT ? "exact" : "window")) < 0)
        return -1;
    if (c->window_count > 0)
        return set_attr(exc, "culprit_window",
                        Py_BuildValue("(KKI)", (unsigned long long)c->window_first,
                                      (unsigned long long)c->window_last, (unsigned)c->window_count));
    return 0;
}

PyObject *ggpy_error_object(const ggpy_result *r)
{
    const gg_error_info *e = &r->info;
    bool dead = r->state == GG_STATE_DEAD;
    PyObject *cls = r->status == GG_DRIVER && dead ? context_dead_error : ggpy_error_class(r->status);
    const char *text = e->message[0] ? e->message : gg_status_string(r->status);
    PyObject *exc = PyObject_CallFunction(cls, "s", text);
    if (exc == NULL)
        return NULL;
    if (set_attr(exc, "status", PyUnicode_FromString(gg_status_name(r->status))) < 0 ||
        set_attr(exc, "status_code", PyLong_FromLong((long)r->status)) < 0 ||
        set_attr(exc, "message", PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace")) < 0 ||
        set_attr(exc, "native_code", PyLong_FromLong((long)e->native_code)) < 0 ||
        set_attr(exc, "native_name", str_or_none(e->native_name)) < 0 ||
        set_attr(exc, "gg_call", str_or_none(e->gg_call)) < 0 ||
        set_attr(exc, "driver_call", str_or_none(e->driver_call)) < 0 ||
        set_attr(exc, "context_dead", PyBool_FromLong(dead)) < 0)
        goto fail;
    if (dead) {
        /* The first cause, whichever call reported it. */
        if (set_attr(exc, "cause", PyUnicode_FromString(gg_status_name(r->death.status))) < 0 ||
            set_attr(exc, "cause_message", str_or_none(r->death.message)) < 0 ||
            set_culprit(exc, &r->death.culprit) < 0)
            goto fail;
        /* The death's native code, when this call only failed fast. */
        if (e->native_code == 0 && r->death.native_code != 0 &&
            (set_attr(exc, "native_code", PyLong_FromLong((long)r->death.native_code)) < 0 ||
             set_attr(exc, "native_name", str_or_none(r->death.native_name)) < 0))
            goto fail;
    } else if (set_culprit(exc, &e->culprit) < 0) {
        goto fail;
    }
    return exc;
fail:
    Py_DECREF(exc);
    return NULL;
}

PyObject *ggpy_raise(const ggpy_result *r)
{
    PyObject *exc = ggpy_error_object(r);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *ggpy_raise_status(gg_status status, const char *format, ...)
{
    ggpy_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.info.status = status;
    va_list ap;
    va_start(ap, format);
    vsnprintf(r.info.message, sizeof r.info.message, format, ap);
    va_end(ap);
    return ggpy_raise(&r);
}

void ggpy_capture(ggpy_result *r, gg_status status)
{
    r->status = status;
    r->state = GG_STATE_INVALID;
    if (status == GG_OK)
        return;
    r->info = (gg_error_info)GG_ERROR_INFO_INIT;
    gg_last_error(&r->info);
    if (r->info.status != status) {
        /* A status returned without a record (NOT_READY from a query). */
        r->info = (gg_error_info)GG_ERROR_INFO_INIT;
        r->info.status = status;
    }
    if (r->info.context.id != 0) {
        r->death = (gg_error_info)GG_ERROR_INFO_INIT;
        r->state = gg_context_state(r->info.context);
        if (r->state == GG_STATE_DEAD && gg_context_death(r->info.context, &r->death) != GG_OK)
            r->state = GG_STATE_INVALID;
    }
}
