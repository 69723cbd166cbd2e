/*
 * gpuguard_py: gpuguard as a CPython extension module.
 *
 * This file: the module, library init and shutdown, devices, kernel image
 * lookup, fault plans and diagnostics. Objects are in gpuguard_py_objects.c,
 * kernels and launches in gpuguard_py_launch.c, exceptions in
 * gpuguard_py_errors.c; gpuguard_py.h states the rules they all follow.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuguard_py.h"

/* gpuguard calls in flight without the GIL (any thread); see gpuguard_py.h. */
atomic_int ggpy_calls_in_flight;
/* This module initialised gpuguard, so it shuts it down at exit. */
static bool owns_library;
static bool at_exit_registered;
/* This process is a fork() child of one that had initialised gpuguard. */
static atomic_bool forked_child;

static PyTypeObject device_info_type;

bool ggpy_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

/* A thread that was inside gpuguard does not exist in a fork() child, and
 * the driver state the child inherited must not be used at all: refuse to
 * make anything new there too (gpuguard refuses to use inherited objects). */
static void after_fork_child(void)
{
    atomic_store(&ggpy_calls_in_flight, 0);
    if (gg_backend_name()[0] != '\0')
        atomic_store(&forked_child, true);
}

static PyObject *raise_forked(void)
{
    return ggpy_raise_status(GG_FORKED, "this process was forked from one that initialised the GPU driver; the "
                             "driver cannot be used after fork(): start workers with the 'spawn' method");
}

/* Runs at the very end of Py_FinalizeEx: Python has released the objects it
 * was going to release; gg_shutdown releases the rest (in a DEAD or FORKED
 * context without driver calls). If a daemon thread is still inside a
 * gpuguard call (a wait with the GIL released), the library is left to its
 * own exit handler, which releases everything without freeing what that
 * thread may be using. No Python API may be used here. */
static void at_exit(void)
{
    at_exit_registered = false; /* an embedding program may start Python again */
    if (owns_library && atomic_load(&ggpy_calls_in_flight) == 0) {
        owns_library = false;
        gg_shutdown();
    }
}

/* ---- init and shutdown -------------------------------------------------- */

static void log_to_stderr(void *user, gg_log_level level, uint64_t object_id, const char *message)
{
    (void)user;
    static const char *const names[] = { "off", "error", "warn", "info", "debug" };
    const char *name = (unsigned)level < sizeof names / sizeof names[0] ? names[level] : "?";
    if (object_id != 0)
        fprintf(stderr, "gpuguard: %s: [0x%016llx] %s\n", name, (unsigned long long)object_id, message);
    else
        fprintf(stderr, "gpuguard: %s: %s\n", name, message);
}

/* gg_init without the GIL; `fallback`: retry on the simulator when no driver
 * or device was found and the user did not choose a backend. */
static int do_init(gg_init_desc *desc, bool fallback)
{
    ggpy_result r;
    if (desc->log_fn == NULL && getenv("GPUGUARD_LOG") != NULL)
        desc->log_fn = log_to_stderr; /* GPUGUARD_LOG asks for messages: print them */
    GGPY_NOGIL(r, gg_init(desc));
    if (fallback && (r.status == GG_NO_DRIVER || r.status == GG_NO_DEVICE) && getenv("GPUGUARD_BACKEND") == NULL) {
        desc->backend = "sim";
        GGPY_NOGIL(r, gg_init(desc));
    }
    if (r.status != GG_OK) {
        ggpy_raise(&r);
        return -1;
    }
    owns_library = true;
    if (!at_exit_registered) {
        /* Py_AtExit has room for 32 functions; if it is full, gpuguard's
         * own exit handler still releases everything. */
        at_exit_registered = Py_AtExit(at_exit) == 0;
    }
    return 0;
}

int ggpy_ensure_init(void)
{
    if (atomic_load(&forked_child)) {
        raise_forked();
        return -1;
    }
    if (gg_backend_name()[0] != '\0')
        return 0;
    gg_init_desc desc = GG_INIT_DESC_INIT;
    if (do_init(&desc, true) == 0)
        return 0;
    /* Another thread (or extension) initialised it meanwhile: fine. */
    if (PyErr_ExceptionMatches(ggpy_error_class(GG_ALREADY_INITIALIZED))) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

/* Picks `value` out of `names` (NULL-terminated); index + offset. */
static int parse_choice(PyObject *value, const char *what, const char *const *names, int offset, int *out)
{
    if (value == NULL || value == Py_None)
        return 0;
    const char *s = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
    for (int i = 0; s != NULL && names[i] != NULL; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i + offset;
            return 0;
        }
    if (PyErr_Occurred())
        return -1;
    PyObject *choices = PyUnicode_FromString("");
    for (int i = 0; choices != NULL && names[i] != NULL; i++)
        PyUnicode_AppendAndDel(&choices, PyUnicode_FromFormat("%s'%s'", i ? ", " : "", names[i]));
    if (choices != NULL) {
        ggpy_raise_status(GG_INVALID_ARGUMENT, "%s must be one of %s or None, not %s", what,
                          PyUnicode_AsUTF8(choices), Py_TYPE(value)->tp_name);
        Py_DECREF(choices);
    }
    return -1;
}

static const char *const watchdog_names[] = { "auto", "refuse", "allow", NULL };

int ggpy_parse_watchdog(PyObject *value, gg_watchdog_policy *out)
{
    int v = 0;
    if (parse_choice(value, "watchdog", watchdog_names, 1, &v) < 0)
        return -1;
    *out = (gg_watchdog_policy)v;
    return 0;
}

/* A JSON text from a str, or from any other object through json.dumps. */
static PyObject *json_text(PyObject *value)
{
    if (PyUnicode_Check(value))
        return Py_NewRef(value);
    PyObject *json = PyImport_ImportModule("json");
    if (json == NULL)
        return NULL;
    PyObject *text = PyObject_CallMethod(json, "dumps", "O", value);
    Py_DECREF(json);
    return text;
}

/* A Python object from a JSON text gpuguard made (freed here). */
static PyObject *json_value(char *text)
{
    PyObject *json = PyImport_ImportModule("json");
    PyObject *value = json ? PyObject_CallMethod(json, "loads", "s", text) : NULL;
    Py_XDECREF(json);
    gg_free(text);
    return value;
}

static PyObject *py_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = { "backend", "wait_timeout_ms", "timeout_policy", "watchdog", "watchdog_budget_ms",
                              "sync_launches", "fault_plan", "log_level", "cleanup", NULL };
    const char *backend = NULL;
    uint32_t wait_timeout_ms = 0, budget_ms = 0;
    PyObject *timeout_policy = NULL, *watchdog = NULL, *fault_plan = NULL, *log_level = NULL, *cleanup = NULL;
    int sync_launches = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z$O&OOO&pOOO:init", kwlist, &backend, ggpy_u32_converter,
                                     &wait_timeout_ms, &timeout_policy, &watchdog, ggpy_u32_converter, &budget_ms,
                                     &sync_launches, &fault_plan, &log_level, &cleanup))
        return NULL;
    static const char *const timeout_names[] = { "kills_context", "returns", NULL };
    static const char *const log_names[] = { "off", "error", "warn", "info", "debug", NULL };
    static const char *const cleanup_names[] = { "silent", "counted", "warn_once", NULL };
    int timeout_v = 0, log_v = -1, cleanup_v = 0;
    gg_watchdog_policy watchdog_v = GG_WATCHDOG_DEFAULT;
    if (parse_choice(timeout_policy, "timeout_policy", timeout_names, 1, &timeout_v) < 0 ||
        ggpy_parse_watchdog(watchdog, &watchdog_v) < 0 ||
        parse_choice(log_level, "log_level", log_names, 0, &log_v) < 0 ||
        parse_choice(cleanup, "cleanup", cleanup_names, 1, &cleanup_v) < 0)
        return NULL;
    gg_init_desc desc = {
        .struct_size = sizeof(gg_init_desc), .backend = backend,
        .wait_timeout_ms = wait_timeout_ms,
        .timeout_policy = (gg_timeout_policy)timeout_v,
        .watchdog = watchdog_v,
        .watchdog_budget_ms = budget_ms,
        .sync_launches = sync_launches != 0,
        .cleanup = (gg_cleanup_policy)cleanup_v,
    };
    if (atomic_load(&forked_child))
        return raise_forked();
    if (log_v > 0) {
        desc.log_fn = log_to_stderr;
        desc.log_level = (gg_log_level)log_v;
    }
    PyObject *plan = NULL;
    if (fault_plan != NULL && fault_plan != Py_None) {
        plan = json_text(fault_plan);
        if (plan == NULL || (desc.fault_plan_json = PyUnicode_AsUTF8(plan)) == NULL) {
            Py_XDECREF(plan);
            return NULL;
        }
    }
    /* backend None: "auto", falling back to the simulator like the implicit
     * initialisation; a named backend (even "auto") never falls back. */
    int rc = do_init(&desc, backend == NULL);
    Py_XDECREF(plan);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_shutdown(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (atomic_load(&ggpy_calls_in_flight) != 0)
        return ggpy_raise_status(GG_BUSY, "shutdown: another thread is inside a gpuguard call");
    ggpy_result r;
    GGPY_NOGIL(r, gg_shutdown());
    owns_library = false;
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *py_initialized(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(gg_backend_name()[0] != '\0');
}

static PyObject *py_backend_name(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (ggpy_ensure_init() < 0)
        return NULL;
    return PyUnicode_FromString(gg_backend_name());
}

static PyObject *py_driver_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (ggpy_ensure_init() < 0)
        return NULL;
    int version = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_driver_version(&version));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyLong_FromLong(version);
}

static PyObject *py_config(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (ggpy_ensure_init() < 0)
        return NULL;
    gg_init_desc c = GG_INIT_DESC_INIT;
    ggpy_result r;
    ggpy_capture(&r, gg_config(&c));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    static const char *const timeout[] = { "default", "kills_context", "returns" };
    static const char *const watchdog[] = { "default", "auto", "refuse", "allow" };
    static const char *const cleanup[] = { "default", "silent", "counted", "warn_once" };
    static const char *const timeline[] = { "auto", "on", "off" };
    return Py_BuildValue("{s:s,s:I,s:s,s:s,s:I,s:O,s:s,s:O,s:s,s:I,s:I}", "backend", c.backend ? c.backend : "",
                         "wait_timeout_ms", (unsigned)c.wait_timeout_ms,
                         "timeout_policy", (unsigned)c.timeout_policy < 3 ? timeout[c.timeout_policy] : "?",
                         "watchdog", (unsigned)c.watchdog < 4 ? watchdog[c.watchdog] : "?",
                         "watchdog_budget_ms", (unsigned)c.watchdog_budget_ms,
                         "sync_launches", c.sync_launches ? Py_True : Py_False,
                         "cleanup", (unsigned)c.cleanup < 4 ? cleanup[c.cleanup] : "?",
                         "fault_plan", c.fault_plan_json ? Py_True : Py_False,
                         "timeline", (unsigned)c.timeline < 3 ? timeline[c.timeline] : "?",
                         "timeline_stride", (unsigned)c.timeline_stride,
                         "timeline_budget_percent", (unsigned)c.timeline_budget_percent);
}

/* ---- devices -------------------------------------------------------------- */

static PyStructSequence_Field device_info_fields[] = {
    { "index", "device number" },
    { "name", "device name" },
    { "backend", "'cuda' or 'hip'" },
    { "simulated", "True on gpuguard's simulated driver" },
    { "watchdog", "True when kernels have a run-time limit (display attached)" },
    { "total_memory", "bytes of device memory" },
    { "multiprocessors", "multiprocessor count" },
    { "max_threads_per_block", "threads per block at most" },
    { "max_block", "(x, y, z) block size limits" },
    { "max_grid", "(x, y, z) grid size limits" },
    { NULL, NULL },
};

static PyStructSequence_Desc device_info_desc = {
    GGPY_MODULE ".DeviceInfo", "What gpuguard knows about a device.", device_info_fields, 10,
};

static PyObject *device_info(int index)
{
    gg_device_info info = GG_DEVICE_INFO_INIT;
    ggpy_result r;
    ggpy_capture(&r, gg_device_properties(index, &info));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    PyObject *d = PyStructSequence_New(&device_info_type);
    if (d == NULL)
        return NULL;
    PyObject *values[] = {
        PyLong_FromLong(index),
        PyUnicode_DecodeUTF8(info.name, (Py_ssize_t)strnlen(info.name, sizeof info.name), "replace"),
        PyUnicode_FromString(info.backend ? info.backend : ""),
        PyBool_FromLong(info.simulated),
        PyBool_FromLong(info.watchdog),
        PyLong_FromUnsignedLongLong(info.total_memory),
        PyLong_FromLong(info.multiprocessors),
        PyLong_FromLong(info.max_threads_per_block),
        Py_BuildValue("(iii)", info.max_block[0], info.max_block[1], info.max_block[2]),
        Py_BuildValue("(iii)", info.max_grid[0], info.max_grid[1], info.max_grid[2]),
    };
    bool ok = true;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)(sizeof values / sizeof values[0]); i++) {
        ok = ok && values[i] != NULL;
        PyStructSequence_SetItem(d, i, values[i] ? values[i] : Py_NewRef(Py_None));
    }
    if (!ok) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *py_device_count(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (ggpy_ensure_init() < 0)
        return NULL;
    int count = 0;
    ggpy_result r;
    ggpy_capture(&r, gg_device_count(&count));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyLong_FromLong(count);
}

static PyObject *py_devices(PyObject *self, PyObject *unused)
{
    PyObject *count = py_device_count(self, unused);
    if (count == NULL)
        return NULL;
    long n = PyLong_AsLong(count);
    Py_DECREF(count);
    PyObject *list = PyList_New(0);
    for (long i = 0; list != NULL && i < n; i++) {
        PyObject *d = device_info((int)i);
        if (d == NULL || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(d);
    }
    return list;
}

static PyObject *py_device_info(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyLong_Check(arg))
        return PyErr_Format(PyExc_TypeError, "device_info() expects a device number, not %s", Py_TYPE(arg)->tp_name);
    long index = PyLong_AsLong(arg);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index > INT32_MAX)
        return ggpy_raise_status(GG_INVALID_ARGUMENT, "device_info: device %ld does not exist", index);
    if (ggpy_ensure_init() < 0)
        return NULL;
    return device_info((int)index);
}

/* ---- kernel images ------------------------------------------------------ */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static PyObject *py_kernel_dir(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *env = getenv("GPUGUARD_KERNEL_DIR");
    if (env != NULL && env[0] != '\0')
        return PyUnicode_DecodeFSDefault(env);
    /* The build puts this module in <build>/python and the kernels in <build>/kernels. */
    Dl_info info;
    if (dladdr((void *)&py_kernel_dir, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash != NULL) {
            char dir[4096];
            int n = snprintf(dir, sizeof dir, "%.*s/../kernels", (int)(slash - info.dli_fname), info.dli_fname);
            char resolved[4096];
            if (n > 0 && (size_t)n < sizeof dir && realpath(dir, resolved) != NULL && is_dir(resolved))
                return PyUnicode_DecodeFSDefault(resolved);
        }
    }
#ifdef GGPY_BUILD_KERNEL_DIR
    if (is_dir(GGPY_BUILD_KERNEL_DIR))
        return PyUnicode_DecodeFSDefault(GGPY_BUILD_KERNEL_DIR);
#endif
    return ggpy_raise_status(GG_INVALID_ARGUMENT, "kernel_dir: no kernel folder next to the module; set "
                             "GPUGUARD_KERNEL_DIR");
}

static PyObject *py_kernel_image(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = { "base", "device", NULL };
    const char *base = NULL;
    int device = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|i:kernel_image", kwlist, &base, &device))
        return NULL;
    if (ggpy_ensure_init() < 0)
        return NULL;
    gg_device_info info = GG_DEVICE_INFO_INIT;
    ggpy_result r;
    ggpy_capture(&r, gg_device_properties(device, &info));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    PyObject *dir = py_kernel_dir(self, NULL);
    if (dir == NULL)
        return NULL;
    const char *suffix = info.simulated ? "_sim.so"
                         : info.backend && strcmp(info.backend, "hip") == 0 ? ".hsaco" : ".ptx";
    PyObject *path = PyUnicode_FromFormat("%U/%s%s", dir, base, suffix);
    Py_DECREF(dir);
    return path;
}

/* ---- faults and diagnostics --------------------------------------------- */

static PyObject *py_set_fault_plan(PyObject *self, PyObject *plan)
{
    (void)self;
    if (ggpy_ensure_init() < 0)
        return NULL;
    PyObject *text = json_text(plan);
    const char *json = text ? PyUnicode_AsUTF8(text) : NULL;
    if (json == NULL) {
        Py_XDECREF(text);
        return NULL;
    }
    ggpy_result r;
    GGPY_NOGIL(r, gg_fault_set_plan(json));
    Py_DECREF(text);
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *py_clear_fault_plan(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (ggpy_ensure_init() < 0)
        return NULL;
    ggpy_result r;
    GGPY_NOGIL(r, gg_fault_clear());
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    Py_RETURN_NONE;
}

static PyObject *json_call(gg_status (*fn)(char **))
{
    if (ggpy_ensure_init() < 0)
        return NULL;
    char *text = NULL;
    ggpy_result r;
    GGPY_NOGIL(r, fn(&text));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return json_value(text);
}

static PyObject *py_fault_counts(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return json_call(gg_fault_counts_json);
}

static PyObject *py_dump(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return json_call(gg_objects_json);
}

static PyObject *py_live_objects(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (ggpy_ensure_init() < 0)
        return NULL;
    uint64_t count = 0;
    ggpy_result r;
    GGPY_NOGIL(r, gg_live_objects(&count));
    if (r.status != GG_OK)
        return ggpy_raise(&r);
    return PyLong_FromUnsignedLongLong(count);
}

/* ---- the module ----------------------------------------------------------- */

static PyMethodDef module_methods[] = {
    { "init", GGPY_FN(py_init), METH_VARARGS | METH_KEYWORDS,
      "init(backend=None, *, wait_timeout_ms=0, timeout_policy=None, watchdog=None, watchdog_budget_ms=0,\n"
      "     sync_launches=False, fault_plan=None, log_level=None, cleanup=None)\n--\n\n"
      "Initialises gpuguard. Optional: the first use of the module initialises it with the defaults.\n"
      "backend: None (auto, falling back to the simulator when no GPU driver is found and\n"
      "GPUGUARD_BACKEND is unset), 'auto', 'cuda', 'hip', 'sim', 'sim-hip'. timeout_policy:\n"
      "'kills_context' (default) or 'returns'. watchdog: 'auto', 'refuse', 'allow'. fault_plan: JSON\n"
      "text or a dict. log_level: 'error', 'warn', 'info', 'debug' (printed to the C stderr).\n"
      "cleanup: 'silent', 'counted', 'warn_once'. GPUGUARD_* variables override these." },
    { "shutdown", py_shutdown, METH_NOARGS,
      "Releases everything and unloads the driver (objects still held become stale). Called for you at exit." },
    { "initialized", py_initialized, METH_NOARGS, "True once gpuguard is initialised." },
    { "backend_name", py_backend_name, METH_NOARGS, "'cuda' or 'hip' (also over the simulator)." },
    { "driver_version", py_driver_version, METH_NOARGS, "The driver's version number." },
    { "config", py_config, METH_NOARGS, "The settings in force, after defaults and environment." },
    { "device_count", py_device_count, METH_NOARGS, "Number of devices." },
    { "devices", py_devices, METH_NOARGS, "A DeviceInfo for every device." },
    { "device_info", py_device_info, METH_O, "device_info(index) -> DeviceInfo" },
    { "kernel_dir", py_kernel_dir, METH_NOARGS,
      "Folder of the kernel images: GPUGUARD_KERNEL_DIR, else <build>/kernels next to <build>/python." },
    { "kernel_image", GGPY_FN(py_kernel_image), METH_VARARGS | METH_KEYWORDS,
      "kernel_image(base, device=0) -> path of base's image for that device: <base>_sim.so on the\n"
      "simulator, <base>.ptx on CUDA, <base>.hsaco on HIP, in kernel_dir()." },
    { "set_fault_plan", py_set_fault_plan, METH_O,
      "set_fault_plan(plan): loads a fault plan (JSON text, or a dict), replacing any in force." },
    { "clear_fault_plan", py_clear_fault_plan, METH_NOARGS, "Removes the fault plan." },
    { "fault_counts", py_fault_counts, METH_NOARGS, "Calls seen per operation and each rule's hits, as a dict." },
    { "dump", py_dump, METH_NOARGS, "Every live gpuguard object, as a dict." },
    { "live_objects", py_live_objects, METH_NOARGS, "Number of live gpuguard objects." },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = GGPY_MODULE,
    .m_doc = "gpuguard for Python: GPU contexts, streams, buffers and launches that survive what GPUs\n"
             "(and Python) do to them. See examples/python/README.md.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_gpuguard_py(void)
{
    static bool types_ready;
    if (!types_ready) {
        if (PyStructSequence_InitType2(&device_info_type, &device_info_desc) < 0 || ggpy_launch_types_init() < 0)
            return NULL;
        pthread_atfork(NULL, NULL, after_fork_child);
        types_ready = true;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (ggpy_errors_add(m) < 0 || ggpy_objects_add(m) < 0 || PyModule_AddType(m, &device_info_type) < 0 ||
        PyModule_AddType(m, &ggpy_ChunkProgressType) < 0 || PyModule_AddType(m, &ggpy_ChunkStatsType) < 0 ||
        PyModule_AddType(m, &ggpy_KernelType) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_MAJOR", GG_VERSION_MAJOR) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_MINOR", GG_VERSION_MINOR) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_PATCH", GG_VERSION_PATCH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
