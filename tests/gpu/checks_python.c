/* Checks in Python (interop_check.py): gpuguard_py on the real driver, and
 * interop with PyTorch and CuPy. Each runs the script for one check in a
 * fresh interpreter and takes its verdict from the last line it prints (a
 * JSON object: verdict, message, figures). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_check.h"
#include "gc_checks.h"

static void run_python_check(const gc_env *env, gc_result *r, const char *name)
{
    char script[4096], out_path[4096], device[16];
    snprintf(script, sizeof script, "%s/interop_check.py", env->script_dir);
    snprintf(out_path, sizeof out_path, "%s/python-%s.out", env->run_dir, name);
    snprintf(device, sizeof device, "%d", env->device);
    if (access(script, R_OK) != 0)
        return (void)gc_fail(r, "%s is missing", script);
    if (access(env->python, X_OK) != 0)
        return gc_skip(r, "no Python interpreter at %s (--python)", env->python);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return (void)gc_fail(r, "fork failed");
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        setenv("PYTHONPATH", env->python_dir, 1);
        setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
#ifdef GG_GPU_CHECK_PYTHON_PRELOAD
        /* A sanitized gpuguard_py in a plain interpreter needs the runtime
         * first; CPython's own allocations at exit are not ours to report. */
        setenv("LD_PRELOAD", GG_GPU_CHECK_PYTHON_PRELOAD, 1);
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
#endif
        execl(env->python, env->python, script, "--check", name, "--backend", env->backend, "--device", device,
              "--kernel-image", env->kernel_image, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    double deadline = gc_now_ms() + 240000;
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && gc_now_ms() < deadline) {
        struct timespec pause = { 0, 20 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return (void)gc_fail(r, "the Python check timed out after 240 s");
    }
    static char out[65536];
    out[0] = '\0';
    FILE *f = fopen(out_path, "r");
    if (f != NULL) {
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        fclose(f);
    }
    unlink(out_path);
    char *last = out + strlen(out);
    while (last > out && (last[-1] == '\n' || last[-1] == ' '))
        *--last = '\0';
    char *line = strrchr(out, '\n');
    line = line ? line + 1 : out;
    cJSON *verdict = cJSON_Parse(line);
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(verdict, "verdict"));
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItem(verdict, "message"));
    if (v == NULL || message == NULL) {
        cJSON_Delete(verdict);
        if (WIFSIGNALED(status))
            return (void)gc_fail(r, "Python died of signal %d", WTERMSIG(status));
        return (void)gc_fail(r, "no verdict from %s (exit %d): %.400s", script, WEXITSTATUS(status), out);
    }
    cJSON *figures = cJSON_DetachItemFromObject(verdict, "figures");
    if (cJSON_IsObject(figures)) {
        cJSON_Delete(r->figures);
        r->figures = figures;
    } else {
        cJSON_Delete(figures);
    }
    if (strcmp(v, "PASS") == 0)
        gc_note(r, "%s", message);
    else if (strcmp(v, "SKIP") == 0)
        gc_skip(r, "%s", message);
    else
        gc_fail(r, "%s", message);
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && strcmp(v, "FAIL") != 0)
        gc_fail(r, "Python exited %d after reporting %s: %s", WEXITSTATUS(status), v, message);
    cJSON_Delete(verdict);
}

void check_py_module(const gc_env *env, gc_result *r) { run_python_check(env, r, "py_module"); }
void check_py_torch_dlpack(const gc_env *env, gc_result *r) { run_python_check(env, r, "torch_from_dlpack"); }
void check_py_cupy_asarray(const gc_env *env, gc_result *r) { run_python_check(env, r, "cupy_asarray"); }
void check_py_torch_tensor_launch(const gc_env *env, gc_result *r) { run_python_check(env, r, "torch_tensor_launch"); }
void check_py_torch_stream(const gc_env *env, gc_result *r) { run_python_check(env, r, "torch_current_stream"); }
