/*
 * Putting a program over the interposer (see intercept.h).
 */
#include "intercept.h"

#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build_paths.h"
#include "gpuguard/gpuguard.h"
#include "intercept/intercept_places.h"
#include "intercept_line.h"

#define INTERPOSER_FILE "libcuda.so.1"
#define SIM_CUDA_FILE "libgpuguard_sim_cuda.so"
#define SIM_HIP_FILE "libgpuguard_sim_hip.so"

/* The directory of the shared object holding `symbol` (libgpuguard's, for
 * gg_init), or false. */
static bool directory_of(void *symbol, char *out, size_t size)
{
    Dl_info info;
    if (!dladdr(symbol, &info) || info.dli_fname == NULL)
        return false;
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash == NULL)
        return false;
    return snprintf(out, size, "%.*s", (int)(slash - info.dli_fname), info.dli_fname) < (int)size;
}

/* The folder of the tool's own binary (/proc/self/exe, links resolved), or
 * false. */
static bool tool_directory(char *out, size_t size)
{
    char exe[PATH_MAX];
    if (realpath("/proc/self/exe", exe) == NULL)
        return false;
    const char *slash = strrchr(exe, '/');
    return slash != NULL && snprintf(out, size, "%.*s", (int)(slash - exe), exe) < (int)size;
}

/* The library folders that belong with this tool, most its own first: the
 * install's <libdir> and the build tree's lib/, each found from the tool's
 * own folder (so a moved prefix, a DESTDIR staging or a moved build tree
 * still use their own files); then libgpuguard's folder (the library the
 * tool was loaded with). Fills `dirs` (pointing into `storage`), returns
 * the count. */
enum { OWN_LIBDIRS_MAX = 3 };
static int own_library_dirs(const char *dirs[OWN_LIBDIRS_MAX], char storage[OWN_LIBDIRS_MAX][PATH_MAX])
{
    char tool_dir[PATH_MAX];
    int n = 0;
    if (tool_directory(tool_dir, sizeof tool_dir)) {
        char joined[2 * PATH_MAX];
        const char *relative[2] = { GG_TOOL_TO_INSTALLED_LIBDIR, GG_TOOL_TO_BUILT_LIBDIR };
        for (int i = 0; i < 2; i++) {
            snprintf(joined, sizeof joined, "%s/%s", tool_dir, relative[i]);
            if (realpath(joined, storage[n]) != NULL) {
                dirs[n] = storage[n];
                n++;
            }
        }
    }
    char lib_dir[PATH_MAX];
    if (directory_of((void *)&gg_init, lib_dir, sizeof lib_dir) && realpath(lib_dir, storage[n]) != NULL) {
        bool again = false; /* usually one of the above */
        for (int i = 0; i < n; i++)
            again = again || strcmp(dirs[i], storage[n]) == 0;
        if (!again) {
            dirs[n] = storage[n];
            n++;
        }
    }
    return n;
}

/* The interposer is built and installed in a directory of its own that
 * holds it as libcuda.so.1: intercept/ in the build tree's lib/
 * (build/lib/intercept), gpuguard/intercept/ in the installed <libdir>. It
 * is looked for under the tool's own library folders (own_library_dirs);
 * failing those, in the build tree and the install prefix as configured. */
static int find_interposer(const char *who, intercept_setup *setup, char real_path[PATH_MAX])
{
    char lib_storage[OWN_LIBDIRS_MAX][PATH_MAX];
    const char *lib_dirs[OWN_LIBDIRS_MAX];
    int libs = own_library_dirs(lib_dirs, lib_storage);
    enum { MAX_DIRS = 2 * OWN_LIBDIRS_MAX + 2 };
    char relative[2 * OWN_LIBDIRS_MAX][PATH_MAX + 32];
    const char *dirs[MAX_DIRS];
    int n = 0;
    for (int i = 0; i < libs; i++) {
        snprintf(relative[n], sizeof relative[n], "%s/gpuguard/intercept", lib_dirs[i]);
        dirs[n] = relative[n];
        n++;
        snprintf(relative[n], sizeof relative[n], "%s/intercept", lib_dirs[i]);
        dirs[n] = relative[n];
        n++;
    }
    dirs[n++] = GG_INTERCEPT_BUILD_DIR;
    dirs[n++] = GG_INTERCEPT_INSTALL_DIR;
    for (int i = 0; i < n; i++) {
        char candidate[PATH_MAX + 64];
        snprintf(candidate, sizeof candidate, "%s/" INTERPOSER_FILE, dirs[i]);
        if (access(candidate, R_OK) == 0 && realpath(candidate, real_path) != NULL &&
            snprintf(setup->interposer_dir, sizeof setup->interposer_dir, "%s", dirs[i]) <
                (int)sizeof setup->interposer_dir) {
            snprintf(setup->interposer, sizeof setup->interposer, "%s", candidate);
            return 0;
        }
    }
    fprintf(stderr, "%s: the interposing driver library is not built or installed: no " INTERPOSER_FILE " in",
            who);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? "," : "", dirs[i]);
    fprintf(stderr, "\n");
    return -1;
}

/* The simulated driver gpuguard loads for GPUGUARD_BACKEND=sim: in the
 * tool's own library folders (built or installed together). */
static bool find_simulator(const char *file, char *out, size_t size)
{
    char lib_storage[OWN_LIBDIRS_MAX][PATH_MAX];
    const char *lib_dirs[OWN_LIBDIRS_MAX];
    int libs = own_library_dirs(lib_dirs, lib_storage);
    for (int i = 0; i < libs; i++)
        if (snprintf(out, size, "%s/%s", lib_dirs[i], file) < (int)size && access(out, R_OK) == 0)
            return true;
    return false;
}

static bool backend_is(const char *backend, const char *name)
{
    return backend != NULL && strcasecmp(backend, name) == 0;
}

/* Checks the library `chosen` (from `origin`) and stores its real path in
 * `out`: it must load, export `probe`, and be neither the interposer nor a
 * copy of it. `what` names it in messages ("driver", "HIP runtime"). */
static int check_library(const char *who, const char *what, const char *probe, const char *chosen,
                         const char *origin, const char *interposer, char out[PATH_MAX])
{
    if (realpath(chosen, out) == NULL) {
        fprintf(stderr, "%s: the %s %s (from %s): %s\n", who, what, chosen, origin, strerror(errno));
        return -1;
    }
    if (strcmp(out, interposer) == 0) {
        fprintf(stderr, "%s: the %s %s (from %s) is gpuguard's interposer itself; give the real one with "
                "--%s PATH\n", who, what, chosen, origin, strcmp(probe, "cuInit") == 0 ? "driver" : "hip-runtime");
        return -1;
    }
    /* Loadable, and the right library: said now rather than as a failing
     * first call inside the program. */
    void *lib = dlopen(out, RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL) {
        const char *reason = dlerror();
        fprintf(stderr, "%s: the %s %s (from %s) cannot be loaded: %s\n", who, what, out, origin,
                reason ? reason : "unknown reason");
        return -1;
    }
    bool has_probe = dlsym(lib, probe) != NULL;
    bool interposer_copy = dlsym(lib, "gg_intercept_marker") != NULL; /* exported by every build of it */
    dlclose(lib);
    if (interposer_copy) {
        fprintf(stderr, "%s: the %s %s (from %s) is a build of gpuguard's interposer, not a real one; give the "
                "real one with --%s PATH\n", who, what, out, origin,
                strcmp(probe, "cuInit") == 0 ? "driver" : "hip-runtime");
        return -1;
    }
    if (!has_probe) {
        fprintf(stderr, "%s: %s (from %s) is not a %s: it has no %s\n", who, out, origin,
                strcmp(probe, "cuInit") == 0 ? "CUDA driver" : "HIP runtime", probe);
        return -1;
    }
    return 0;
}

/* The first of the interposer's own places for a HIP runtime that exists
 * (its real path), or false. */
static bool system_hip_runtime(char *out, size_t size)
{
    static const char *const places[] = { GG_INTERCEPT_HIP_PLACES };
    char real[PATH_MAX];
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
        if (access(places[i], R_OK) == 0 && realpath(places[i], real) != NULL)
            return snprintf(out, size, "%s", real) < (int)size;
    return false;
}

/* Chooses the HIP runtime the interposer forwards to (see
 * intercept_prepare): 1 when one was chosen, 0 when none was (the
 * interposer looks for it), -1 on an error said on stderr. */
static int resolve_hip_runtime(const char *who, const char *hip_option, const char *interposer,
                               intercept_setup *setup)
{
    const char *chosen = NULL, *origin = NULL;
    const char *from_env = getenv(INTERCEPT_ENV_HIP_RUNTIME);
    const char *backend = getenv("GPUGUARD_BACKEND");
    const char *hip_library = getenv("GPUGUARD_HIP_LIBRARY");
    char found[PATH_MAX];
    if (hip_option != NULL) {
        chosen = hip_option, origin = "--hip-runtime";
    } else if (from_env != NULL && from_env[0] != '\0') {
        chosen = from_env, origin = INTERCEPT_ENV_HIP_RUNTIME;
    } else if (backend_is(backend, "sim") || backend_is(backend, "sim-hip")) {
        if (!find_simulator(SIM_HIP_FILE, found, sizeof found)) {
            fprintf(stderr, "%s: GPUGUARD_BACKEND=%s, but the simulator's HIP face (" SIM_HIP_FILE ") is not in "
                    "gpuguard's library folder; give its path with --hip-runtime\n", who, backend);
            return -1;
        }
        chosen = found, origin = "GPUGUARD_BACKEND=sim";
    } else if (hip_library != NULL && hip_library[0] != '\0') {
        chosen = hip_library, origin = "GPUGUARD_HIP_LIBRARY";
    } else if (!backend_is(backend, "cuda") && system_hip_runtime(found, sizeof found)) {
        /* The one the interposer would find itself, said here so that a
         * machine with no CUDA driver runs HIP programs. Not loaded here (it
         * is checked by the interposer when the program first calls HIP):
         * loading Debian's runtime into the tool leaks inside a sanitizer
         * build's UBSan runtime, and runs its constructors for nothing. */
        snprintf(setup->hip_runtime, sizeof setup->hip_runtime, "%s", found);
        setup->hip_origin = "the system's places";
        return 1;
    } else {
        return 0;
    }
    if (check_library(who, "HIP runtime", "hipInit", chosen, origin, interposer, setup->hip_runtime) != 0)
        return -1;
    setup->hip_origin = origin;
    return 1;
}

/* The libcuda.so.1 a program would get from the dynamic loader, or false
 * (with the loader's reason in `why`). */
static bool loader_driver(char *out, size_t size, char *why, size_t why_size)
{
    void *lib = dlopen(INTERPOSER_FILE, RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL) {
        const char *reason = dlerror();
        snprintf(why, why_size, "%s", reason ? reason : "the dynamic loader cannot find it");
        return false;
    }
    void *init = dlsym(lib, "cuInit");
    Dl_info info;
    bool found = init != NULL && dladdr(init, &info) && info.dli_fname != NULL &&
                 snprintf(out, size, "%s", info.dli_fname) < (int)size;
    if (!found)
        snprintf(why, why_size, "the libcuda.so.1 the loader finds has no cuInit");
    dlclose(lib);
    return found;
}

/* Chooses the driver the interposer forwards to (see intercept_prepare);
 * `interposer` is the interposer's real path. */
static int resolve_driver(const char *who, const char *driver_option, const char *interposer, bool have_hip,
                          intercept_setup *setup)
{
    const char *chosen = NULL, *origin = NULL;
    const char *from_env = getenv(INTERCEPT_ENV_DRIVER);
    const char *backend = getenv("GPUGUARD_BACKEND");
    const char *cuda_library = getenv("GPUGUARD_CUDA_LIBRARY");
    char found[PATH_MAX], why[512];
    if (driver_option != NULL) {
        chosen = driver_option, origin = "--driver";
    } else if (from_env != NULL && from_env[0] != '\0') {
        chosen = from_env, origin = INTERCEPT_ENV_DRIVER;
    } else if (backend_is(backend, "sim") || backend_is(backend, "sim-hip")) {
        if (cuda_library != NULL && cuda_library[0] != '\0') {
            chosen = cuda_library, origin = "GPUGUARD_CUDA_LIBRARY (GPUGUARD_BACKEND=sim)";
        } else if (find_simulator(SIM_CUDA_FILE, found, sizeof found)) {
            chosen = found, origin = "GPUGUARD_BACKEND=sim";
        } else {
            fprintf(stderr, "%s: GPUGUARD_BACKEND=sim, but the simulated driver (" SIM_CUDA_FILE ") is not in "
                    "gpuguard's library folder; give its path with --driver\n", who);
            return -1;
        }
    } else if (backend_is(backend, "hip")) {
        setup->driver_origin = "GPUGUARD_BACKEND=hip"; /* a HIP program: no CUDA driver wanted */
        return 0;
    } else if (cuda_library != NULL && cuda_library[0] != '\0') {
        chosen = cuda_library, origin = "GPUGUARD_CUDA_LIBRARY";
    } else if (loader_driver(found, sizeof found, why, sizeof why)) {
        chosen = found, origin = "the dynamic loader";
    } else if (have_hip) {
        /* A HIP runtime was found: the program may use HIP only. */
        setup->driver_origin = "the dynamic loader finds no libcuda.so.1";
        return 0;
    } else {
        fprintf(stderr, "%s: no CUDA driver to forward the calls to: %s (GPUGUARD_BACKEND=sim forwards them to "
                "gpuguard's simulated driver; --driver PATH to another)\n", who, why);
        return -1;
    }
    if (check_library(who, "driver", "cuInit", chosen, origin, interposer, setup->driver) != 0)
        return -1;
    setup->driver_origin = origin;
    return 0;
}

int intercept_prepare(const char *who, const char *driver_option, const char *hip_option, intercept_setup *setup)
{
    memset(setup, 0, sizeof *setup);
    char interposer[PATH_MAX];
    if (find_interposer(who, setup, interposer) != 0)
        return -1;
    int have_hip = resolve_hip_runtime(who, hip_option, interposer, setup);
    if (have_hip < 0 || resolve_driver(who, driver_option, interposer, have_hip > 0, setup) != 0 ||
        intercept_choose_line(who, setup) != 0)
        return -1;
    const char *old = getenv("LD_LIBRARY_PATH");
    size_t size = strlen(setup->interposer_dir) + (old ? strlen(old) + 1 : 0) + 1;
    setup->library_path = malloc(size);
    if (setup->library_path == NULL) {
        fprintf(stderr, "%s: out of memory\n", who);
        return -1;
    }
    snprintf(setup->library_path, size, "%s%s%s", setup->interposer_dir, old && old[0] ? ":" : "", old ? old : "");
    return 0;
}

void intercept_describe_setup(const char *who, const intercept_setup *setup)
{
    fprintf(stderr, "%s: over the interposer in %s (variant %s: %s); CUDA driver: %s (%s); HIP runtime: %s (%s)\n",
            who, setup->interposer_dir, setup->line ? setup->line : "full", setup->line_origin ? setup->line_origin : "",
            setup->driver[0] ? setup->driver : "none",
            setup->driver_origin ? setup->driver_origin : "none", setup->hip_runtime[0] ? setup->hip_runtime : "none",
            setup->hip_runtime[0] ? setup->hip_origin : "the interposer looks in the system's places if called");
}

void intercept_release(intercept_setup *setup)
{
    free(setup->library_path);
    setup->library_path = NULL;
}

size_t intercept_environment(const intercept_setup *setup, const char *plan, const char *report_path,
                             child_env env[INTERCEPT_ENV_COUNT])
{
    env[0] = (child_env){ "LD_LIBRARY_PATH", setup->library_path };
    env[1] = (child_env){ INTERCEPT_ENV_DRIVER, setup->driver[0] ? setup->driver : NULL };
    env[2] = (child_env){ INTERCEPT_ENV_FAULTS, plan };
    env[3] = (child_env){ INTERCEPT_ENV_REPORT, report_path };
    env[4] = (child_env){ INTERCEPT_ENV_HIP_RUNTIME, setup->hip_runtime[0] ? setup->hip_runtime : NULL };
    return INTERCEPT_ENV_COUNT;
}

bool intercept_temp_path(const char *who, const char *tag, char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    if (snprintf(path, size, "%s/gpuguard-%s-XXXXXX", dir, tag) >= (int)size) {
        fprintf(stderr, "%s: TMPDIR is too long\n", who);
        return false;
    }
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot make a temporary file in %s: %s\n", who, dir, strerror(errno));
        return false;
    }
    close(fd);
    return true;
}

size_t intercept_process_reports(const char *report_path, bool remove)
{
    char pattern[PATH_MAX + 8];
    if (snprintf(pattern, sizeof pattern, "%s.[0-9]*", report_path) >= (int)sizeof pattern)
        return 0;
    glob_t found;
    size_t count = 0;
    if (glob(pattern, GLOB_NOSORT, NULL, &found) != 0)
        return 0;
    size_t prefix = strlen(report_path) + 1;
    for (size_t i = 0; i < found.gl_pathc; i++) {
        /* REPORT.<pid> exactly: not the interposer's REPORT.<pid>.tmp,
         * nor the sweep's REPORT.stderr. */
        const char *pid = found.gl_pathv[i] + prefix;
        if (pid[strspn(pid, "0123456789")] != '\0')
            continue;
        count++;
        if (remove)
            unlink(found.gl_pathv[i]);
    }
    globfree(&found);
    return count;
}

intercept_rule_report intercept_rule(const cJSON *report, int index)
{
    intercept_rule_report r = { 0, 0, NULL, 0 };
    const cJSON *rule = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "rules"), index);
    const cJSON *matched = cJSON_GetObjectItemCaseSensitive(rule, "matched");
    const cJSON *fired = cJSON_GetObjectItemCaseSensitive(rule, "fired");
    const cJSON *call = cJSON_GetObjectItemCaseSensitive(rule, "first_fired_call");
    const cJSON *match = cJSON_GetObjectItemCaseSensitive(rule, "first_fired_match");
    r.matched = cJSON_IsNumber(matched) ? (long)matched->valuedouble : 0;
    r.fired = cJSON_IsNumber(fired) ? (long)fired->valuedouble : 0;
    r.first_fired_call = cJSON_IsString(call) ? call->valuestring : NULL;
    r.first_fired_match = cJSON_IsNumber(match) ? (long)match->valuedouble : 0;
    return r;
}

/* The number of calls in the report's "calls" to functions whose names
 * start with `prefix`. */
static long calls_with_prefix(const cJSON *report, const char *prefix)
{
    long total = 0;
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(report, "calls");
    for (const cJSON *c = calls ? calls->child : NULL; c != NULL; c = c->next)
        if (cJSON_IsNumber(c) && c->string != NULL && strncmp(c->string, prefix, strlen(prefix)) == 0)
            total += (long)c->valuedouble;
    return total;
}

bool intercept_missing_library(const cJSON *report, char *message, size_t size)
{
    static const struct {
        const char *prefix, *path_key, *error_key, *what, *answer, *option;
    } faces[] = {
        { "cu", "driver", "driver_error", "CUDA driver", "CUDA_ERROR_STUB_LIBRARY (34)", "--driver" },
        { "hip", "hip_runtime", "hip_runtime_error", "HIP runtime", "hipErrorInsufficientDriver (35)",
          "--hip-runtime" },
    };
    for (size_t i = 0; i < sizeof faces / sizeof faces[0]; i++) {
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(report, faces[i].path_key);
        const cJSON *error = cJSON_GetObjectItemCaseSensitive(report, faces[i].error_key);
        long calls = calls_with_prefix(report, faces[i].prefix);
        bool loaded = cJSON_IsString(path) && path->valuestring[0] != '\0';
        if (calls == 0 || loaded)
            continue;
        snprintf(message, size, "the program called the %s (%ld call(s)), but there was none to forward them to%s%s; "
                 "they all returned %s (%s PATH gives one, GPUGUARD_BACKEND=sim the simulator)", faces[i].what, calls,
                 cJSON_IsString(error) ? ": " : "", cJSON_IsString(error) ? error->valuestring : "", faces[i].answer,
                 faces[i].option);
        return true;
    }
    return false;
}

const char *intercept_plan_error(const cJSON *report)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(report, "plan_error");
    return cJSON_IsString(e) ? e->valuestring : NULL;
}

bool intercept_plan_in_force(const cJSON *report, const char *plan)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(report, "plan");
    if (plan == NULL)
        return report != NULL && cJSON_IsNull(p);
    return cJSON_IsString(p) && strcmp(p->valuestring, plan) == 0;
}

/* In a child of the tool's: loads the interposer with `plan` and makes one
 * call (the interposer reads its environment at the first), then exits,
 * which writes the report. Never returns. */
static void load_interposer_with(const intercept_setup *setup, const char *plan, const char *report)
{
    setenv(INTERCEPT_ENV_FAULTS, plan, 1);
    setenv(INTERCEPT_ENV_REPORT, report, 1);
    if (setup->driver[0] != '\0')
        setenv(INTERCEPT_ENV_DRIVER, setup->driver, 1);
    if (setup->hip_runtime[0] != '\0')
        setenv(INTERCEPT_ENV_HIP_RUNTIME, setup->hip_runtime, 1);
    unsetenv("GPUGUARD_LOG"); /* the refusal comes back in the report, not on stderr */
    void *lib = dlopen(setup->interposer, RTLD_NOW | RTLD_LOCAL);
    int (*driver_version)(int *) = NULL;
    if (lib != NULL)
        *(void **)&driver_version = dlsym(lib, "cuDriverGetVersion");
    if (driver_version == NULL)
        _exit(3);
    int version = 0;
    driver_version(&version);
    exit(0); /* (exit, not _exit: the report is written by the interposer's destructor) */
}

bool intercept_plan_check(const intercept_setup *setup, const char *plan, char *message, size_t message_size)
{
    char report_path[PATH_MAX + 64];
    if (!intercept_temp_path("gpuguard", "plan", report_path, sizeof report_path)) {
        snprintf(message, message_size, "cannot check it (no temporary file for the interposer's report)");
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        load_interposer_with(setup, plan, report_path);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    cJSON *report = pid > 0 ? child_read_json_file(report_path) : NULL;
    unlink(report_path);
    const char *refused = intercept_plan_error(report);
    bool accepted = report != NULL && refused == NULL && intercept_plan_in_force(report, plan);
    if (refused != NULL) {
        /* "GPUGUARD_INTERCEPT_FAULTS: fault plan: rule 0: ...": the variable is the tool's business. */
        const char *prefix = INTERCEPT_ENV_FAULTS ": ";
        snprintf(message, message_size, "%s",
                 strncmp(refused, prefix, strlen(prefix)) == 0 ? refused + strlen(prefix) : refused);
    } else if (!accepted) {
        snprintf(message, message_size, "cannot check it: the interposer %s wrote no report of it (%s %d)",
                 setup->interposer, pid < 0 ? "fork failed:" : "its check exited with status",
                 pid < 0 ? errno : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
    cJSON_Delete(report);
    return accepted;
}
