/*
 * gg_gpu_check: gpuguard's acceptance suite on a real GPU.
 *
 *   gg_gpu_check [--backend auto|cuda|hip|sim|sim-hip] [--device N] [--json PATH]
 *                [--only NAME,NAME...] [--quick] [--timeout SECONDS] [--kernel-image PATH]
 *                [--python PATH] [--list]
 *
 * Finds a device through gpuguard (backend "auto": the real driver), runs
 * every check in its own child process with a time limit, prints one line per
 * check (PASS, FAIL or SKIP, and what it saw) and writes a JSON report (the
 * device, the driver, each check's verdict and figures) for comparing
 * machines. With no GPU driver or no device it prints one line,
 * "gpu-check: no GPU found: ...", and exits 0. Exit status: 0 when nothing
 * failed, 1 when a check failed (or gpuguard could not start), 2 for a bad
 * command line. --backend sim runs the same suite over gpuguard's simulated
 * driver (the kernels of kernels/gpu_check_sim.c), to test the runner itself.
 *
 * The parent never initialises gpuguard (a fork of an initialised process
 * gets GG_FORKED): the device is probed in a child too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_check.h"
#include "gc_checks.h"

typedef struct check {
    const char *name;
    const char *promise;
    gc_check_fn run;
    bool may_print; /* the driver itself may print (a device-side assert's message) */
} check;

static const check checks[] = {
    { "stray_store", "an out-of-bounds store surfaces as ILLEGAL_ADDRESS at the next synchronizing call, "
      "culprit named EXACT", check_stray_store, false },
    { "culprit_among_pending", "with several launches pending on two streams, the culprit is still EXACT "
      "(completion timeline)", check_culprit_among_pending, false },
    { "dead_fails_fast", "every later call in the dead context fails fast with no driver call",
      check_dead_fails_fast, false },
    { "dead_cleanup_silent", "cleanup in the dead context prints nothing and makes no driver call",
      check_dead_cleanup_silent, false },
    { "recover_computes", "gg_context_recover gives a context that computes where the driver allows it; on "
      "CUDA, which keeps a sticky error for the whole process, it refuses with GG_PROCESS_POISONED",
      check_recover_computes, false },
    { "new_process_after_fault", "a new process computes after one died with a dead context",
      check_new_process_after_fault, false },
    { "exit_with_dead_context", "a process exiting with a dead context exits 0 with empty stderr",
      check_exit_with_dead_context, false },
    { "hang_released", "a kernel spinning on a host flag times out at its deadline, then is released by the "
      "flag", check_hang_released, false },
    { "hang_kills", "under the default policy a passed deadline kills the context", check_hang_kills, false },
    { "trap", "__trap() kills the context with the culprit named; recovery as the driver allows",
      check_trap, false },
    { "device_assert", "a failed device-side assert kills the context with the culprit named",
      check_device_assert, true },
    { "fork_child", "a forked child gets GG_FORKED and exits 0", check_fork_child, false },
    { "two_threads", "two threads compute on two contexts at once", check_two_threads, false },
    { "fault_other_context", "a fault in one thread's context kills the other's too, naming it (CUDA: the error "
      "reaches the whole process)", check_fault_other_context, false },
    { "chunked_slices", "chunked launches on a device without a watchdog keep slices near the target",
      check_chunked_slices, false },
    { "fault_plan_immediate", "an immediate fault plan over the real driver", check_fault_plan_immediate, false },
    { "fault_plan_async", "an asynchronous fault plan surfaces at the next sync, culprit named",
      check_fault_plan_async, false },
    { "bench", "launch, record and query overhead against direct driver calls", check_bench, false },
    { "timeline_cost", "launch overhead with the completion timeline on and off, and its mechanism",
      check_timeline_cost, false },
    { "py_module", "gpuguard_py (the PyCUDA-style module) computes on the device", check_py_module, false },
    { "py_torch_dlpack", "a gpuguard buffer consumed by torch.from_dlpack", check_py_torch_dlpack, false },
    { "py_cupy_asarray", "a gpuguard buffer consumed by cupy.asarray", check_py_cupy_asarray, false },
    { "py_torch_tensor_launch", "a PyTorch tensor launched on through __cuda_array_interface__",
      check_py_torch_tensor_launch, false },
    { "py_torch_stream", "a gpuguard kernel on PyTorch's current stream", check_py_torch_stream, false },
};
#define CHECK_COUNT (sizeof checks / sizeof checks[0])

/* gpuguard settings from the environment would change what the checks
 * test; each check sets its own. The driver's location is kept. */
static const char *const overridden_variables[] = {
    "GPUGUARD_BACKEND", "GPUGUARD_FAULTS", "GPUGUARD_SYNC_LAUNCHES", "GPUGUARD_WAIT_TIMEOUT_MS",
    "GPUGUARD_WATCHDOG", "GPUGUARD_LOG", "GPUGUARD_FAULT_REPORT",
};

typedef struct options {
    gc_env env;
    const char *json_path;
    const char *only;
    unsigned timeout_s;
    const char *helper;
    bool list;
    char kernel_image[PATH_MAX];
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: gg_gpu_check [--backend auto|cuda|hip|sim|sim-hip] [--device N] [--json PATH]\n"
               "                    [--only NAME,NAME...] [--quick] [--timeout SECONDS]\n"
               "                    [--kernel-image PATH] [--python PATH] [--list]\n");
}

static bool parse_uint(const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end != '\0' || v > max || s[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}

static int parse_options(int argc, char **argv, options *o)
{
    static char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    o->env = (gc_env){ .backend = "auto", .self_exe = self, .python = GG_GPU_CHECK_PYTHON,
                       .python_dir = GG_GPU_CHECK_PYTHON_DIR, .script_dir = GG_GPU_CHECK_SCRIPT_DIR };
    o->timeout_s = 180;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned u;
        if (strcmp(a, "--list") == 0) { o->list = true; continue; }
        if (strcmp(a, "--quick") == 0) { o->env.quick = true; continue; }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); exit(0); }
        if (value == NULL) {
            fprintf(stderr, "gg_gpu_check: unknown option or missing value: %s\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--backend") == 0) {
            if (strcmp(value, "auto") && strcmp(value, "cuda") && strcmp(value, "hip") && strcmp(value, "sim") &&
                strcmp(value, "sim-hip")) {
                fprintf(stderr, "gg_gpu_check: --backend must be auto, cuda, hip, sim or sim-hip, not '%s'\n", value);
                return 2;
            }
            o->env.backend = value;
        } else if (strcmp(a, "--device") == 0) {
            if (!parse_uint(value, 1024, &u)) {
                fprintf(stderr, "gg_gpu_check: --device must be a device number, not '%s'\n", value);
                return 2;
            }
            o->env.device = (int)u;
        } else if (strcmp(a, "--timeout") == 0) {
            if (!parse_uint(value, 3600, &u) || u == 0) {
                fprintf(stderr, "gg_gpu_check: --timeout must be 1..3600 seconds, not '%s'\n", value);
                return 2;
            }
            o->timeout_s = u;
        } else if (strcmp(a, "--json") == 0) {
            o->json_path = value;
        } else if (strcmp(a, "--only") == 0) {
            o->only = value;
        } else if (strcmp(a, "--kernel-image") == 0) {
            snprintf(o->kernel_image, sizeof o->kernel_image, "%s", value);
        } else if (strcmp(a, "--python") == 0) {
            o->env.python = value;
        } else if (strcmp(a, "--helper") == 0) {
            o->helper = value;
        } else {
            fprintf(stderr, "gg_gpu_check: unknown option: %s\n", a);
            return 2;
        }
    }
    return 0;
}

static bool selected(const options *o, const char *name)
{
    if (o->only == NULL)
        return true;
    size_t len = strlen(name);
    for (const char *p = o->only; (p = strstr(p, name)) != NULL; p += len)
        if ((p == o->only || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
            return true;
    return false;
}

/* Every name in --only must be a check. */
static bool only_is_valid(const options *o)
{
    if (o->only == NULL)
        return true;
    char *copy = strdup(o->only), *save = NULL;
    bool ok = copy != NULL;
    for (char *name = strtok_r(copy, ",", &save); ok && name; name = strtok_r(NULL, ",", &save)) {
        bool known = false;
        for (size_t i = 0; i < CHECK_COUNT; i++)
            known = known || strcmp(checks[i].name, name) == 0;
        if (!known) {
            fprintf(stderr, "gg_gpu_check: --only: no check named '%s' (--list shows them)\n", name);
            ok = false;
        }
    }
    free(copy);
    return ok;
}

static char *slurp(const char *path, size_t cap)
{
    char *buf = calloc(1, cap + 1);
    FILE *f = fopen(path, "r");
    if (buf != NULL && f != NULL) {
        size_t n = fread(buf, 1, cap, f);
        buf[n] = '\0';
    }
    if (f != NULL)
        fclose(f);
    return buf;
}

static void write_json_file(const char *path, const cJSON *json)
{
    char *text = cJSON_Print(json);
    FILE *f = fopen(path, "w");
    if (f != NULL && text != NULL) {
        fputs(text, f);
        fputc('\n', f);
    }
    if (f != NULL)
        fclose(f);
    free(text);
}

/* Forks; the child runs fn(env, result), writes the result to result_path
 * and exits through exit() (gpuguard's exit handling included); its stdout
 * and stderr go to files. The parent waits at most timeout_s, then kills
 * the child's process group. */
typedef struct child_run {
    int status;        /* wait status; -1 when timed out */
    double seconds;
    char *out, *err;   /* what the child printed (malloc'd) */
    cJSON *result;     /* what it reported, or NULL */
} child_run;

static child_run run_in_child(const gc_env *env, const char *name, gc_check_fn fn, unsigned timeout_s)
{
    char result_path[PATH_MAX], out_path[PATH_MAX], err_path[PATH_MAX];
    snprintf(result_path, sizeof result_path, "%s/%s.json", env->run_dir, name);
    snprintf(out_path, sizeof out_path, "%s/%s.out", env->run_dir, name);
    snprintf(err_path, sizeof err_path, "%s/%s.err", env->run_dir, name);
    child_run run = { 0 };
    double t0 = gc_now_ms();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0)
            _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        gc_result r = { .verdict = GC_PASS, .figures = cJSON_CreateObject() };
        snprintf(r.message, sizeof r.message, "done");
        fn(env, &r);
        cJSON *json = cJSON_CreateObject();
        cJSON_AddStringToObject(json, "verdict", r.verdict == GC_PASS ? "PASS" : r.verdict == GC_FAIL ? "FAIL" : "SKIP");
        cJSON_AddStringToObject(json, "message", r.message);
        cJSON_AddItemToObject(json, "figures", r.figures);
        write_json_file(result_path, json);
        cJSON_Delete(json);
        fflush(NULL);
        exit(0);
    }
    if (pid < 0) {
        run.status = -2;
        return run;
    }
    setpgid(pid, pid);
    pid_t done;
    double deadline = t0 + timeout_s * 1000.0;
    while ((done = waitpid(pid, &run.status, WNOHANG)) == 0 && gc_now_ms() < deadline) {
        struct timespec pause = { 0, 20 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (done == 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &run.status, 0);
        run.status = -1;
    }
    run.seconds = (gc_now_ms() - t0) / 1000.0;
    run.out = slurp(out_path, 16384);
    run.err = slurp(err_path, 16384);
    char *text = slurp(result_path, 1 << 20);
    run.result = text && text[0] ? cJSON_Parse(text) : NULL;
    free(text);
    unlink(result_path);
    unlink(out_path);
    unlink(err_path);
    return run;
}

/* ---- the probe: which device, which driver ------------------------------- */

static void probe(const gc_env *env, gc_result *r)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = env->backend };
    gg_status st = gg_init(&desc);
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    gc_figure_str(r, "status", gg_status_name(st));
    gc_figure_str(r, "message", st == GG_OK ? "" : e.message);
    if (st != GG_OK)
        return;
    int version = 0, count = 0;
    gg_driver_version(&version);
    gg_device_count(&count);
    gc_figure_str(r, "backend", gg_backend_name());
    gc_figure_num(r, "driver_version", version);
    gc_figure_num(r, "device_count", count);
    cJSON *devices = cJSON_AddArrayToObject(r->figures, "devices");
    for (int i = 0; i < count; i++) {
        gg_device_info info = GG_DEVICE_INFO_INIT;
        if (gg_device_properties(i, &info) != GG_OK)
            continue;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddNumberToObject(d, "index", i);
        cJSON_AddStringToObject(d, "name", info.name);
        cJSON_AddNumberToObject(d, "total_memory", (double)info.total_memory);
        cJSON_AddNumberToObject(d, "multiprocessors", info.multiprocessors);
        cJSON_AddBoolToObject(d, "watchdog", info.watchdog);
        cJSON_AddBoolToObject(d, "simulated", info.simulated);
        cJSON_AddItemToArray(devices, d);
    }
    gg_shutdown();
}

static const char *json_str(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    return s ? s : "";
}

static void add_run_facts(cJSON *report)
{
    struct utsname u;
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(report, "tool", "gg_gpu_check");
    cJSON_AddStringToObject(report, "started_utc", when);
    if (uname(&u) == 0) {
        cJSON_AddStringToObject(report, "host", u.nodename);
        cJSON_AddStringToObject(report, "kernel", u.release);
    }
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", GG_VERSION_MAJOR, GG_VERSION_MINOR, GG_VERSION_PATCH);
    cJSON_AddStringToObject(report, "gpuguard_version", version);
    /* Features other open issues add; their checks SKIP while absent. */
    cJSON *f = cJSON_AddObjectToObject(report, "gpuguard_features");
    static const char *const symbols[] = { "gg_stream_native", "gg_context_native", "gg_stream_adopt",
                                           "gg_buffer_adopt", "gg_context_adopt" };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        cJSON_AddBoolToObject(f, symbols[i], gc_library_has(symbols[i]));
}

static int make_run_dir(char *dir, size_t cap)
{
    const char *tmp = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, cap, "%s/gg-gpu-check-XXXXXX", tmp);
    return mkdtemp(dir) ? 0 : -1;
}

static void default_kernel_image(options *o, const char *backend, bool simulated)
{
    if (o->kernel_image[0] != '\0')
        return;
    char self[PATH_MAX];
    snprintf(self, sizeof self, "%s", o->env.self_exe);
    const char *dir = dirname(self);
    bool hip = strcmp(backend, "hip") == 0;
    if (simulated && !hip) {
        /* The simulator runs the real kernels: the fatbin a GPU loads
         * (its PTX, through the PTX interpreter), else their committed PTX
         * (no nvcc at build time); the host C twins only when neither was
         * built. The HIP face stands for an AMD GPU, which runs no PTX: it
         * keeps the twins. */
        static const char *const images[] = { "gpu_check.fatbin", "gpu_check.ptx", "gpu_check_sim.so" };
        for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
            snprintf(o->kernel_image, sizeof o->kernel_image, "%s/../kernels/%s", dir, images[i]);
            if (access(o->kernel_image, R_OK) == 0)
                return;
        }
        return; /* the twin's path: the load names it when it is missing */
    }
    const char *file = simulated ? "gpu_check_sim.so" : hip ? "gpu_check.hsaco" : "gpu_check.fatbin";
    snprintf(o->kernel_image, sizeof o->kernel_image, "%s/../kernels/%s", dir, file);
}

int main(int argc, char **argv)
{
    static options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0) {
        usage(stderr);
        return rc;
    }
    if (o.list) {
        for (size_t i = 0; i < CHECK_COUNT; i++)
            printf("%-24s %s\n", checks[i].name, checks[i].promise);
        return 0;
    }
    if (!only_is_valid(&o))
        return 2;
    if (o.helper != NULL) {
        o.env.kernel_image = o.kernel_image;
        if (strcmp(o.helper, "fault-exit") == 0)
            return helper_fault_exit(&o.env);
        fprintf(stderr, "gg_gpu_check: unknown helper '%s'\n", o.helper);
        return 2;
    }
    cJSON *removed = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof overridden_variables / sizeof overridden_variables[0]; i++)
        if (getenv(overridden_variables[i]) != NULL) {
            cJSON_AddItemToArray(removed, cJSON_CreateString(overridden_variables[i]));
            unsetenv(overridden_variables[i]);
        }
    char run_dir[PATH_MAX];
    if (make_run_dir(run_dir, sizeof run_dir) != 0) {
        fprintf(stderr, "gg_gpu_check: cannot make a scratch folder: %s\n", strerror(errno));
        return 1;
    }
    o.env.run_dir = run_dir;

    cJSON *report = cJSON_CreateObject();
    add_run_facts(report);
    cJSON_AddItemToObject(report, "environment_ignored", removed);
    child_run p = run_in_child(&o.env, "probe", probe, 120);
    cJSON *facts = cJSON_GetObjectItem(p.result, "figures");
    const char *status = json_str(facts, "status");
    int exit_code = 0;
    if (p.status != 0 || facts == NULL) {
        printf("gpu-check: the device probe %s (stderr: %.400s)\n",
               p.status == -1 ? "timed out" : "crashed or reported nothing", p.err ? p.err : "");
        exit_code = 1;
    } else if ((strcmp(status, "GG_NO_DRIVER") == 0 || strcmp(status, "GG_NO_DEVICE") == 0) &&
               strncmp(o.env.backend, "sim", 3) != 0) {
        printf("gpu-check: no GPU found: %s\n", json_str(facts, "message"));
        cJSON_AddBoolToObject(report, "gpu", false);
        cJSON_AddStringToObject(report, "status", status);
        cJSON_AddStringToObject(report, "message", json_str(facts, "message"));
    } else if (strcmp(status, "GG_OK") != 0) {
        printf("gpu-check: gg_init failed: %s: %s\n", status, json_str(facts, "message"));
        cJSON_AddStringToObject(report, "status", status);
        cJSON_AddStringToObject(report, "message", json_str(facts, "message"));
        exit_code = 1;
    } else {
        cJSON *device = cJSON_GetArrayItem(cJSON_GetObjectItem(facts, "devices"), o.env.device);
        if (device == NULL) {
            printf("gpu-check: no device %d (%d found)\n", o.env.device,
                   (int)cJSON_GetNumberValue(cJSON_GetObjectItem(facts, "device_count")));
            exit_code = 2;
        } else {
            const char *backend = json_str(facts, "backend");
            o.env.simulated = cJSON_IsTrue(cJSON_GetObjectItem(device, "simulated"));
            o.env.hip = strcmp(backend, "hip") == 0;
            default_kernel_image(&o, backend, o.env.simulated);
            o.env.kernel_image = o.kernel_image;
            cJSON_AddBoolToObject(report, "gpu", true);
            cJSON_AddStringToObject(report, "backend", backend);
            cJSON_AddNumberToObject(report, "driver_version",
                                    cJSON_GetNumberValue(cJSON_GetObjectItem(facts, "driver_version")));
            cJSON_AddItemToObject(report, "device", cJSON_Duplicate(device, true));
            cJSON_AddStringToObject(report, "kernel_image", o.kernel_image);
            printf("gpu-check: device %d: %s (%s, driver %d)%s, kernels %s\n", o.env.device,
                   json_str(device, "name"), backend,
                   (int)cJSON_GetNumberValue(cJSON_GetObjectItem(facts, "driver_version")),
                   o.env.simulated ? " [simulated]" : "", o.kernel_image);
            if (access(o.kernel_image, R_OK) != 0) {
                printf("gpu-check: the kernel image %s is missing: build it (nvcc or hipcc, "
                       "scripts/gpu-check.sh does)\n", o.kernel_image);
                exit_code = 1;
            }
        }
    }
    free(p.out);
    free(p.err);
    cJSON_Delete(p.result);

    int counts[3] = { 0 };
    if (exit_code == 0 && cJSON_IsTrue(cJSON_GetObjectItem(report, "gpu"))) {
        cJSON *results = cJSON_AddArrayToObject(report, "checks");
        for (size_t i = 0; i < CHECK_COUNT; i++) {
            if (!selected(&o, checks[i].name))
                continue;
            child_run run = run_in_child(&o.env, checks[i].name, checks[i].run, o.timeout_s);
            const char *verdict = json_str(run.result, "verdict");
            char message[1400];
            snprintf(message, sizeof message, "%s", json_str(run.result, "message"));
            if (run.status == -1) {
                verdict = "FAIL";
                snprintf(message, sizeof message, "timed out after %u s (killed)", o.timeout_s);
            } else if (run.status == -2) {
                verdict = "FAIL";
                snprintf(message, sizeof message, "fork failed");
            } else if (WIFSIGNALED(run.status)) {
                verdict = "FAIL";
                snprintf(message, sizeof message, "killed by signal %d (%s)%s%.300s", WTERMSIG(run.status),
                         strsignal(WTERMSIG(run.status)), run.err[0] ? "; stderr: " : "", run.err);
            } else if (WEXITSTATUS(run.status) != 0 || run.result == NULL) {
                verdict = "FAIL";
                snprintf(message, sizeof message, "exited %d %s; stderr: %.300s", WEXITSTATUS(run.status),
                         run.result ? "after reporting" : "without a verdict", run.err);
            } else if (!checks[i].may_print && (run.err[0] || run.out[0]) && strcmp(verdict, "FAIL") != 0) {
                verdict = "FAIL";
                snprintf(message, sizeof message, "printed though nothing should (stdout: %.200s stderr: %.200s)",
                         run.out, run.err);
            }
            int k = strcmp(verdict, "PASS") == 0 ? 0 : strcmp(verdict, "SKIP") == 0 ? 2 : 1;
            counts[k]++;
            printf("%-4s %s: %s\n", k == 0 ? "PASS" : k == 1 ? "FAIL" : "SKIP", checks[i].name, message);
            fflush(stdout);
            cJSON *entry = cJSON_CreateObject();
            cJSON_AddStringToObject(entry, "name", checks[i].name);
            cJSON_AddStringToObject(entry, "promise", checks[i].promise);
            cJSON_AddStringToObject(entry, "verdict", k == 0 ? "PASS" : k == 1 ? "FAIL" : "SKIP");
            cJSON_AddStringToObject(entry, "message", message);
            cJSON_AddNumberToObject(entry, "seconds", run.seconds);
            cJSON *figures = cJSON_DetachItemFromObject(run.result, "figures");
            cJSON_AddItemToObject(entry, "figures", figures ? figures : cJSON_CreateObject());
            cJSON_AddStringToObject(entry, "stdout", run.out ? run.out : "");
            cJSON_AddStringToObject(entry, "stderr", run.err ? run.err : "");
            cJSON_AddItemToArray(results, entry);
            free(run.out);
            free(run.err);
            cJSON_Delete(run.result);
        }
        cJSON *summary = cJSON_AddObjectToObject(report, "summary");
        cJSON_AddNumberToObject(summary, "pass", counts[0]);
        cJSON_AddNumberToObject(summary, "fail", counts[1]);
        cJSON_AddNumberToObject(summary, "skip", counts[2]);
        printf("gpu-check: %d passed, %d failed, %d skipped%s%s\n", counts[0], counts[1], counts[2],
               o.json_path ? "; report: " : "", o.json_path ? o.json_path : "");
        exit_code = counts[1] ? 1 : 0;
    }
    if (o.json_path != NULL)
        write_json_file(o.json_path, report);
    cJSON_Delete(report);
    rmdir(run_dir);
    return exit_code;
}
