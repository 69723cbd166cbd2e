/* Reporting and device helpers shared by the checks (gc_check.h). */
#include "gc_check.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- reporting ---------------------------------------------------------- */

static void set_message(gc_result *r, const char *fmt, va_list ap)
{
    vsnprintf(r->message, sizeof r->message, fmt, ap);
}

bool gc_fail(gc_result *r, const char *fmt, ...)
{
    if (r->verdict != GC_FAIL) {
        r->verdict = GC_FAIL;
        va_list ap;
        va_start(ap, fmt);
        set_message(r, fmt, ap);
        va_end(ap);
    }
    return false;
}

void gc_skip(gc_result *r, const char *fmt, ...)
{
    if (r->verdict == GC_FAIL)
        return;
    r->verdict = GC_SKIP;
    va_list ap;
    va_start(ap, fmt);
    set_message(r, fmt, ap);
    va_end(ap);
}

void gc_note(gc_result *r, const char *fmt, ...)
{
    if (r->verdict != GC_PASS)
        return;
    va_list ap;
    va_start(ap, fmt);
    set_message(r, fmt, ap);
    va_end(ap);
}

void gc_figure_num(gc_result *r, const char *key, double value)
{
    cJSON_DeleteItemFromObject(r->figures, key);
    cJSON_AddNumberToObject(r->figures, key, value);
}

void gc_figure_str(gc_result *r, const char *key, const char *value)
{
    cJSON_DeleteItemFromObject(r->figures, key);
    cJSON_AddStringToObject(r->figures, key, value ? value : "");
}

void gc_figure_bool(gc_result *r, const char *key, bool value)
{
    cJSON_DeleteItemFromObject(r->figures, key);
    cJSON_AddBoolToObject(r->figures, key, value);
}

static const char *certainty_name(gg_attribution a)
{
    switch (a) {
    case GG_ATTRIBUTION_EXACT: return "EXACT";
    case GG_ATTRIBUTION_WINDOW: return "WINDOW";
    default: return "NONE";
    }
}

void gc_figure_last_error(gc_result *r, const char *key)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", gg_status_name(e.status));
    cJSON_AddNumberToObject(o, "native_code", e.native_code);
    cJSON_AddStringToObject(o, "native_name", e.native_name ? e.native_name : "");
    cJSON_AddStringToObject(o, "gg_call", e.gg_call ? e.gg_call : "");
    cJSON_AddStringToObject(o, "driver_call", e.driver_call ? e.driver_call : "");
    cJSON *c = cJSON_AddObjectToObject(o, "culprit");
    cJSON_AddStringToObject(c, "certainty", certainty_name(e.culprit.certainty));
    cJSON_AddStringToObject(c, "kernel", e.culprit.kernel_name);
    cJSON_AddNumberToObject(c, "sequence", (double)e.culprit.sequence);
    cJSON_AddNumberToObject(c, "window_count", e.culprit.window_count);
    cJSON_AddStringToObject(o, "message", e.message);
    cJSON_DeleteItemFromObject(r->figures, key);
    cJSON_AddItemToObject(r->figures, key, o);
}

bool gc_ok(gc_result *r, gg_status status, const char *what)
{
    if (status == GG_OK)
        return true;
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    return gc_fail(r, "%s: %s: %s", what, gg_status_name(status), e.message);
}

bool gc_expect(gc_result *r, gg_status got, gg_status want, const char *what)
{
    if (got == want)
        return true;
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    return gc_fail(r, "%s returned %s, expected %s (last error: %s)", what, gg_status_name(got),
                   gg_status_name(want), e.message);
}

/* ---- a device through gpuguard ---------------------------------------- */

bool gc_init(gc_result *r, const gc_env *env, const gg_init_desc *desc)
{
    gg_init_desc d = GG_INIT_DESC_INIT;
    if (desc != NULL)
        d = *desc;
    d.backend = env->backend;
    return gc_ok(r, gg_init(&d), "gg_init");
}

bool gc_open(gc_result *r, const gc_env *env, const char *tag, gc_session *s)
{
    memset(s, 0, sizeof *s);
    gg_context_desc cd = { .struct_size = sizeof(gg_context_desc), .tag = tag };
    return gc_ok(r, gg_context_create(env->device, &cd, &s->ctx), "gg_context_create") &&
           gc_ok(r, gg_module_create_from_file(s->ctx, env->kernel_image, NULL, &s->module), "gg_module_create_from_file") &&
           gc_ok(r, gg_stream_create(s->ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = tag }, &s->stream), "gg_stream_create");
}

bool gc_kernel(gc_result *r, const gc_session *s, const char *name, gg_kernel *k)
{
    char what[96];
    snprintf(what, sizeof what, "gg_kernel_create(%s)", name);
    return gc_ok(r, gg_kernel_create(s->module, name, k), what);
}

gg_status gc_launch(gg_kernel kernel, gg_stream stream, uint32_t blocks, uint32_t threads,
                    void **params, uint32_t count)
{
    gg_launch_desc d = {
        .struct_size = sizeof(gg_launch_desc), .kernel = kernel, .stream = stream, .grid = { blocks, 1, 1 }, .block = { threads, 1, 1 },
        .params = params, .param_count = count,
    };
    return gg_launch(&d);
}

bool gc_computes(gc_result *r, const gc_session *s, uint32_t n, uint32_t value)
{
    gg_kernel fill, add_one;
    gg_buffer buf;
    if (!gc_kernel(r, s, "fill_u32", &fill) || !gc_kernel(r, s, "add_one_u32", &add_one) ||
        !gc_ok(r, gg_buffer_create(s->ctx, (size_t)n * 4, NULL, &buf), "gg_buffer_create"))
        return false;
    uint64_t ptr = 0;
    uint32_t *host = calloc(n, 4);
    bool ok = host != NULL || gc_fail(r, "out of host memory");
    ok = ok && gc_ok(r, gg_buffer_device_ptr(buf, &ptr), "gg_buffer_device_ptr");
    void *fill_params[] = { &ptr, &value, &n };
    void *add_params[] = { &ptr, &n };
    uint32_t blocks = (n + 255) / 256;
    ok = ok && gc_ok(r, gc_launch(fill, s->stream, blocks, 256, fill_params, 3), "gg_launch(fill_u32)") &&
         gc_ok(r, gc_launch(add_one, s->stream, blocks, 256, add_params, 2), "gg_launch(add_one_u32)") &&
         gc_ok(r, gg_memcpy_dtoh(host, buf, 0, (size_t)n * 4, s->stream), "gg_memcpy_dtoh") &&
         gc_ok(r, gg_stream_synchronize(s->stream, NULL), "gg_stream_synchronize");
    for (uint32_t i = 0; ok && i < n; i++)
        if (host[i] != value + 1)
            ok = gc_fail(r, "computed value %u at index %u, expected %u", host[i], i, value + 1);
    free(host);
    gg_buffer_destroy(buf);
    return ok;
}

bool gc_kill_with_stray_store(gc_result *r, const gc_session *s)
{
    gg_kernel oob;
    gg_buffer buf;
    if (!gc_kernel(r, s, "oob_store", &oob) ||
        !gc_ok(r, gg_buffer_create(s->ctx, 4096, NULL, &buf), "gg_buffer_create"))
        return false;
    uint64_t ptr = 0;
    /* 2^38 elements = 1 TiB past the buffer: no allocation is mapped there. */
    uint64_t index = (uint64_t)1 << 38;
    uint32_t value = 0xBADu;
    void *params[] = { &ptr, &index, &value };
    return gc_ok(r, gg_buffer_device_ptr(buf, &ptr), "gg_buffer_device_ptr") &&
           gc_ok(r, gc_launch(oob, s->stream, 1, 32, params, 3), "gg_launch(oob_store)") &&
           gc_expect(r, gg_stream_synchronize(s->stream, NULL), GG_ILLEGAL_ADDRESS,
                     "gg_stream_synchronize after the stray store");
}

/* ---- processes and time -------------------------------------------------- */

double gc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void read_file(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

int gc_run_helper(gc_result *r, const gc_env *env, const char *name, unsigned timeout_s,
                  char *out, size_t out_cap, char *err, size_t err_cap)
{
    char out_path[4096], err_path[4096], device[16];
    snprintf(out_path, sizeof out_path, "%s/helper-%s-%d.out", env->run_dir, name, (int)getpid());
    snprintf(err_path, sizeof err_path, "%s/helper-%s-%d.err", env->run_dir, name, (int)getpid());
    snprintf(device, sizeof device, "%d", env->device);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return gc_fail(r, "fork failed"), -1;
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0)
            _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        execl(env->self_exe, env->self_exe, "--helper", name, "--backend", env->backend, "--device", device,
              "--kernel-image", env->kernel_image, (char *)NULL);
        _exit(127);
    }
    double deadline = gc_now_ms() + timeout_s * 1000.0;
    int status = 0;
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && gc_now_ms() < deadline) {
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        gc_fail(r, "helper '%s' timed out after %u s", name, timeout_s);
        status = -1;
    }
    read_file(out_path, out, out_cap);
    read_file(err_path, err, err_cap);
    unlink(out_path);
    unlink(err_path);
    return status;
}

bool gc_library_has(const char *symbol)
{
    return dlsym(RTLD_DEFAULT, symbol) != NULL;
}

/* Recovery after a kernel's sticky error, as the driver allows it. CUDA
 * keeps the error for the whole process (measured on an H100, driver 580:
 * docs/DRIVER-FACTS.md): gg_context_recover and gg_context_create must
 * refuse with GG_PROCESS_POISONED, saying that only a new process can use
 * the GPU (new_process_after_fault proves that one can). HIP: recovery
 * gives a context that computes. *recovered: whether it did. */
bool gc_recover_as_the_driver_allows(gc_result *r, const gc_env *env, gc_session *s, bool *recovered)
{
    *recovered = false;
    if (env->hip)
        return gc_ok(r, gg_context_recover(s->ctx), "gg_context_recover") && (*recovered = true);
    gg_status st = gg_context_recover(s->ctx);
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (st != GG_PROCESS_POISONED)
        return gc_fail(r, "gg_context_recover returned %s, expected GG_PROCESS_POISONED (CUDA keeps a sticky error "
                       "for the whole process): %s", gg_status_name(st), st == GG_OK ? "" : e.message);
    if (strstr(e.message, "only a new process") == NULL)
        return gc_fail(r, "gg_context_recover's refusal does not say what to do: %s", e.message);
    gg_context other = { 0 };
    st = gg_context_create(env->device, NULL, &other);
    if (st != GG_PROCESS_POISONED) {
        gg_context_destroy(other);
        return gc_fail(r, "gg_context_create in the poisoned process returned %s, expected GG_PROCESS_POISONED",
                       gg_status_name(st));
    }
    return gg_context_state(s->ctx) == GG_STATE_DEAD ||
           gc_fail(r, "the context is %d after the refused recovery, expected DEAD", (int)gg_context_state(s->ctx));
}
