/*
 * gpuguard_py: a CPython extension module over gpuguard (internal header).
 *
 * The rules every file of the module follows (README.md says why):
 *   1. A gpuguard call that can reach the driver or wait is made with the
 *      GIL released, through GGPY_NOGIL, which also captures the error
 *      details on the calling thread before the GIL is taken back. The GIL
 *      stays held for getters that read gpuguard's own records (state,
 *      size, names) and, measured, for the two queries (Stream.query,
 *      Event.query): they never wait (the driver answers NOT_READY
 *      instead), and releasing and retaking the GIL costs about 40 ns,
 *      as much as the rest of the query on the simulator (100 ns a query
 *      with the release, 50-60 ns without, Python's call included). Event
 *      records and launches release it: an enqueue blocks while the
 *      driver's queue is full. A query may take a gpuguard lock briefly
 *      (a sticky error marks the context DEAD): gpuguard never holds one
 *      of its locks while it calls back into us, so no thread can hold a
 *      gpuguard lock while it waits for the GIL: the two kinds of lock
 *      never deadlock.
 *   2. Deallocation never raises and never fails: it calls gpuguard's
 *      destroy function and ignores the status (gpuguard already skips the
 *      driver in DEAD and FORKED contexts and after shutdown).
 *   3. A Python object holds a strong reference to its parent (a buffer to
 *      its context, a kernel to its module), so a context is destroyed
 *      after its children, never under them; no object refers back, so
 *      there are no reference cycles and no GC support is needed.
 *   4. The library is shut down once, at the very end of interpreter
 *      finalization (Py_AtExit), after Python released what it was going
 *      to release, and only if no call is still in flight in a daemon thread.
 */
#ifndef GPUGUARD_PY_H
#define GPUGUARD_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuguard/gpuguard.h"

#define GGPY_MODULE "gpuguard_py"

/* A method with keywords in a PyMethodDef, cast through void (*)(void) as
 * the C API intends (a direct cast trips -Wcast-function-type). */
#define GGPY_FN(fn) ((PyCFunction)(void (*)(void))(fn))

/* ---- calls without the GIL ----------------------------------------------- */

/* The outcome of one gpuguard call: its status and, on failure, what
 * gg_last_error said on the calling thread, plus the state of the context
 * concerned and its first cause of death. */
typedef struct ggpy_result {
    gg_status status;
    gg_error_info info;
    gg_state state;
    gg_error_info death; /* valid when state == GG_STATE_DEAD */
} ggpy_result;

/* Records `status` and, on failure, the error details (no GIL needed). */
void ggpy_capture(ggpy_result *r, gg_status status);

/* Calls made with the GIL released, counted so that shutdown can tell
 * whether a daemon thread is still inside gpuguard. Begin and end run with
 * the GIL held (before it is released and after it is taken back), and so
 * do the readers (shutdown(); the exit hook, when no other thread can take
 * the GIL), so the GIL orders every access: a relaxed load and store, no
 * locked read-modify-write (which costs 10-20 ns a call on the benchmark's
 * VM). A free-threaded build has no GIL to order them. */
extern atomic_int ggpy_calls_in_flight;

static inline void ggpy_calls_add(int delta)
{
#ifdef Py_GIL_DISABLED
    atomic_fetch_add_explicit(&ggpy_calls_in_flight, delta, memory_order_seq_cst);
#else
    int now = atomic_load_explicit(&ggpy_calls_in_flight, memory_order_relaxed);
    atomic_store_explicit(&ggpy_calls_in_flight, now + delta, memory_order_relaxed);
#endif
}

static inline void ggpy_calls_begin(void)
{
    ggpy_calls_add(1);
}

static inline void ggpy_calls_end(void)
{
    ggpy_calls_add(-1);
}

/* True while the interpreter is finalizing: nothing else can run then, so
 * deallocation keeps the GIL (and the thread state stays untouched). */
bool ggpy_finalizing(void);

/* r = the outcome of `call`, made with the GIL released. */
#define GGPY_NOGIL(r, call)                 \
    do {                                    \
        ggpy_calls_begin();                 \
        Py_BEGIN_ALLOW_THREADS              \
        ggpy_capture(&(r), (call));         \
        Py_END_ALLOW_THREADS                \
        ggpy_calls_end();                   \
    } while (0)

/* For deallocation: `call` without the GIL unless finalizing; the status is
 * ignored and no Python error state is touched. */
#define GGPY_RELEASE(call)                          \
    do {                                            \
        ggpy_calls_begin();                         \
        if (ggpy_finalizing()) {                    \
            (void)(call);                           \
        } else {                                    \
            Py_BEGIN_ALLOW_THREADS                  \
            (void)(call);                           \
            Py_END_ALLOW_THREADS                    \
        }                                           \
        ggpy_calls_end();                           \
    } while (0)

/* Initialises gpuguard with the defaults if nobody has yet (the simulated
 * driver stands in when no GPU driver is found and GPUGUARD_BACKEND is
 * unset). 0, or -1 with an exception set. */
int ggpy_ensure_init(void);

/* None, 'auto', 'refuse' or 'allow'; 0, or -1 with an exception set. */
int ggpy_parse_watchdog(PyObject *value, gg_watchdog_policy *out);

/* ---- errors (gpuguard_py_errors.c) ------------------------------------- */

extern PyObject *ggpy_GpuguardError;

int ggpy_errors_add(PyObject *module);
/* Raises the exception for a failed call; always returns NULL. */
PyObject *ggpy_raise(const ggpy_result *r);
/* Raises the exception class of `status` for a failure found by the module
 * itself (no driver details); always returns NULL. */
PyObject *ggpy_raise_status(gg_status status, const char *format, ...);
/* A new exception object describing a context's first cause of death. */
PyObject *ggpy_error_object(const ggpy_result *r);
/* The exception class for a status (borrowed). */
PyObject *ggpy_error_class(gg_status status);

/* ---- objects (gpuguard_py_objects.c, gpuguard_py_buffer.c) ------------- */

typedef struct ggpy_Context {
    PyObject_HEAD
    gg_context h;
    int device;
    int busy;           /* chunked launches running in it (their callbacks may run Python) */
    PyObject *tag;      /* str */
    PyObject *weakrefs;
} ggpy_Context;

typedef struct ggpy_Stream {
    PyObject_HEAD
    gg_stream h;
    ggpy_Context *ctx;
    PyObject *owner;    /* adopted: the object whose stream it is, kept alive; else NULL */
} ggpy_Stream;

typedef struct ggpy_Event {
    PyObject_HEAD
    gg_event h;
    ggpy_Context *ctx;
} ggpy_Event;

typedef struct ggpy_Buffer {
    PyObject_HEAD
    gg_buffer h;
    ggpy_Context *ctx;
    size_t nbytes;
    PyObject *owner;    /* adopted: the object whose memory it is, kept alive; else NULL */
    Py_ssize_t exports; /* DLPack tensors not yet released by their consumer (close() waits for none) */
} ggpy_Buffer;

typedef struct ggpy_Module {
    PyObject_HEAD
    gg_module h;
    ggpy_Context *ctx;
    PyObject *path;     /* str */
    PyObject *kernels;  /* dict: name -> kernel id (int); gg_kernel_create makes a record per call */
} ggpy_Module;

typedef struct ggpy_Kernel {
    PyObject_HEAD
    gg_kernel h;
    ggpy_Module *module;
    PyObject *name;     /* str */
} ggpy_Kernel;

extern PyTypeObject ggpy_ContextType;
extern PyTypeObject ggpy_StreamType;
extern PyTypeObject ggpy_EventType;
extern PyTypeObject ggpy_BufferType;
extern PyTypeObject ggpy_ModuleType;
extern PyTypeObject ggpy_KernelType;

int ggpy_objects_add(PyObject *module);

/* Raises InvalidHandleError for an object that was closed; NULL. */
PyObject *ggpy_closed(const char *what);

/* "O&" converters. */
int ggpy_u32_converter(PyObject *obj, void *out);       /* uint32_t */
int ggpy_stream_converter(PyObject *obj, void *out);    /* None or Stream -> ggpy_Stream * (borrowed) */
int ggpy_size_converter(PyObject *obj, void *out);      /* a non-negative Py_ssize_t; None keeps the default */

static inline gg_stream ggpy_stream_handle(const ggpy_Stream *s)
{
    return s ? s->h : GG_NO_STREAM;
}

/* ---- interop (gpuguard_py_interop.c) ------------------------------------ */

/* Buffer.__cuda_array_interface__, Stream.__cuda_stream__(),
 * Context.adopt_stream(), Context.adopt_buffer(). */
PyObject *ggpy_buffer_array_interface(ggpy_Buffer *self, void *closure);
PyObject *ggpy_stream_cuda_stream(ggpy_Stream *self, PyObject *unused);
PyObject *ggpy_context_native_handle(ggpy_Context *self, void *closure);
PyObject *ggpy_buffer_dlpack(ggpy_Buffer *self, PyObject *args, PyObject *kwargs);
PyObject *ggpy_buffer_dlpack_device(ggpy_Buffer *self, PyObject *unused);
PyObject *ggpy_context_adopt_stream(ggpy_Context *self, PyObject *args, PyObject *kwargs);
PyObject *ggpy_context_adopt_buffer(ggpy_Context *self, PyObject *args, PyObject *kwargs);
/* The device address of an object with __cuda_array_interface__ (a 'P'
 * launch parameter in ctx), after making ctx's work wait for the stream the
 * interface names: 1 and *out set; 0 when obj has no interface; -1 with an
 * exception when it has a bad one or the wait failed. */
int ggpy_array_interface_address(ggpy_Context *ctx, PyObject *obj, uint64_t *out);

/* A new Buffer of `nbytes` in ctx (gpuguard_py_buffer.c). */
ggpy_Buffer *ggpy_buffer_new(ggpy_Context *ctx, Py_ssize_t nbytes, const char *tag);
/* Copies view into the buffer at offset (on stream, or synchronously). */
PyObject *ggpy_buffer_write_view(ggpy_Buffer *self, Py_buffer *view, Py_ssize_t offset, ggpy_Stream *stream);

/* The `context` and `handle` getters of a child type, and their table entries. */
#define GGPY_CHILD_GETTERS(prefix, type)                                   \
    static PyObject *prefix##_get_context(type *self, void *closure)       \
    {                                                                      \
        (void)closure;                                                     \
        return Py_NewRef((PyObject *)self->ctx);                           \
    }                                                                      \
    static PyObject *prefix##_get_handle(type *self, void *closure)        \
    {                                                                      \
        (void)closure;                                                     \
        return PyLong_FromUnsignedLongLong(self->h.id);                    \
    }

#define GGPY_CHILD_GETSET(prefix)                                                                   \
    { "context", (getter)prefix##_get_context, NULL, "the Context it belongs to", NULL },          \
    { "handle", (getter)prefix##_get_handle, NULL, "the gpuguard id (0 once closed)", NULL }

/* ---- launches (gpuguard_py_launch.c) ----------------------------------- */

extern PyTypeObject ggpy_ChunkProgressType;
extern PyTypeObject ggpy_ChunkStatsType;

int ggpy_launch_types_init(void);
PyObject *ggpy_kernel_new(ggpy_Module *module, gg_kernel h, PyObject *name);

#endif
