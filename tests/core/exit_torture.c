/*
 * One round of the exit torture (test_exit_torture.c runs it 200 times):
 * threads sit in every kind of gpuguard wait and call while one thread
 * calls exit(). The promise under test (src/common/process_exit.h): no call
 * returns a result the exit made, so no worker ever reaches its failure
 * path, the process's exit status is the exiting thread's, and nothing is
 * printed.
 *
 *   gg_exit_torture MODULE ROUND
 *
 * Environment: GPUGUARD_BACKEND and the simulator's library as the parent
 * sets them; GPUGUARD_SIM_CONFIG makes hang_me hang. A worker that sees a
 * result it should not writes one line to stderr and _exits with 80 + its
 * number; the round's exit status is 40 + ROUND % 50. alarm() turns a hang
 * of the exit into SIGALRM.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuguard/gpuguard.h"

/* Three devices without a watchdog (a hang stays a hang), so that on HIP,
 * where a device has one context that a fault or a destroy takes down for
 * everyone on it, the context churn and the kill-and-recover loop each have
 * a device of their own. */
#define WAIT_DEVICE 0
#define CHURN_DEVICE 1
#define KILL_DEVICE 2

static const char *module_path;
static gg_context hung_ctx;
static gg_stream hung_stream;
static gg_event hung_event;
static atomic_int started;

/* A result the exit made (or any other wrong one): the failure path a real
 * program would run, made visible. */
static _Noreturn void wrong(int worker, const char *what, gg_status status)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    char line[600];
    int n = snprintf(line, sizeof line, "worker %d: %s returned %s: %s\n", worker, what, gg_status_name(status),
                     e.message);
    if (write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0)
        _exit(79);
    _exit(80 + worker);
}

#define EXPECT(worker, expr, ...)                                                        \
    do {                                                                                 \
        gg_status got_ = (expr);                                                         \
        const gg_status ok_[] = { __VA_ARGS__ };                                         \
        bool fine_ = false;                                                              \
        for (size_t i_ = 0; i_ < sizeof ok_ / sizeof ok_[0]; i_++)                       \
            fine_ = fine_ || got_ == ok_[i_];                                            \
        if (!fine_)                                                                      \
            wrong(worker, #expr, got_);                                                  \
    } while (0)

static gg_status launch(gg_kernel k, gg_stream s)
{
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .stream = s, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    return gg_launch(&d);
}

static gg_status launch_sleep(gg_kernel k, gg_stream s, uint32_t ms)
{
    void *params[] = { &ms };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .stream = s, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
                         .params = params, .param_count = 1 };
    return gg_launch(&d);
}

/* Loads the core kernels into a new context on the compute device. */
static void context_with(int worker, int device, gg_context *ctx, gg_module *module)
{
    EXPECT(worker, gg_context_create(device, NULL, ctx), GG_OK);
    EXPECT(worker, gg_module_create_from_file(*ctx, module_path, NULL, module), GG_OK);
}

/* The three waits behind a hung kernel: none may ever return. */
static void *wait_stream(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    wrong(1, "gg_stream_synchronize(hung)", gg_stream_synchronize(hung_stream, GG_WAIT_MS(60000)));
}

static void *wait_event(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    wrong(2, "gg_event_synchronize(hung)", gg_event_synchronize(hung_event, GG_WAIT_MS(60000)));
}

static void *wait_context(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    wrong(3, "gg_context_synchronize(hung)", gg_context_synchronize(hung_ctx, GG_WAIT_MS(60000)));
}

/* Object churn on a context of its own: every call must succeed. */
static void *churn_objects(void *arg)
{
    (void)arg;
    gg_context ctx;
    gg_module module;
    gg_kernel noop, sleep_ms;
    context_with(4, WAIT_DEVICE, &ctx, &module);
    EXPECT(4, gg_kernel_create(module, "noop", &noop), GG_OK);
    EXPECT(4, gg_kernel_create(module, "sleep_ms", &sleep_ms), GG_OK);
    atomic_fetch_add(&started, 1);
    for (;;) {
        gg_stream s;
        gg_event e;
        gg_buffer b;
        uint32_t host[16] = { 1, 2, 3 }, back[16];
        EXPECT(4, gg_stream_create(ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "churn" }, &s), GG_OK);
        EXPECT(4, gg_event_create(ctx, NULL, &e), GG_OK);
        EXPECT(4, gg_buffer_create(ctx, sizeof host, NULL, &b), GG_OK);
        EXPECT(4, gg_memcpy_htod(b, 0, host, sizeof host, s), GG_OK);
        EXPECT(4, launch_sleep(sleep_ms, s, 1), GG_OK);
        EXPECT(4, gg_event_record(e, s), GG_OK);
        EXPECT(4, gg_stream_query(s), GG_OK, GG_NOT_READY);
        EXPECT(4, gg_event_query(e), GG_OK, GG_NOT_READY);
        EXPECT(4, gg_memcpy_dtoh(back, b, 0, sizeof back, GG_NO_STREAM), GG_OK);
        if (memcmp(host, back, sizeof host) != 0)
            wrong(4, "the copy's bytes", GG_OK);
        EXPECT(4, launch(noop, s), GG_OK);
        EXPECT(4, gg_event_synchronize(e, GG_WAIT_MS(5000)), GG_OK);
        EXPECT(4, gg_stream_synchronize(s, GG_WAIT_MS(5000)), GG_OK);
        EXPECT(4, gg_buffer_destroy(b), GG_OK);
        EXPECT(4, gg_event_destroy(e), GG_OK);
        EXPECT(4, gg_stream_destroy(s), GG_OK);
    }
}

/* Contexts made and destroyed with work still queued on them. */
static void *churn_contexts(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    for (;;) {
        gg_context ctx;
        gg_module module;
        gg_kernel sleep_ms;
        context_with(5, CHURN_DEVICE, &ctx, &module);
        EXPECT(5, gg_kernel_create(module, "sleep_ms", &sleep_ms), GG_OK);
        EXPECT(5, launch_sleep(sleep_ms, GG_NO_STREAM, 2), GG_OK);
        EXPECT(5, gg_context_synchronize(ctx, GG_WAIT_MS(5000)), GG_OK);
        EXPECT(5, launch_sleep(sleep_ms, GG_NO_STREAM, 2), GG_OK);
        EXPECT(5, gg_context_destroy(ctx), GG_OK);
    }
}

/* A context killed by a device assert and recovered, over and over. */
static void *kill_and_recover(void *arg)
{
    (void)arg;
    gg_context ctx;
    gg_module module;
    context_with(6, KILL_DEVICE, &ctx, &module);
    atomic_fetch_add(&started, 1);
    for (;;) {
        gg_kernel trap;
        EXPECT(6, gg_kernel_create(module, "trap", &trap), GG_OK);
        EXPECT(6, launch(trap, GG_NO_STREAM), GG_OK);
        gg_status s = gg_context_synchronize(ctx, GG_WAIT_MS(5000));
        if (s == GG_OK || gg_context_state(ctx) != GG_STATE_DEAD)
            wrong(6, gg_context_state(ctx) == GG_STATE_DEAD ? "gg_context_synchronize after a trap" : "gg_context_state after a trap", s);
        EXPECT(6, gg_context_synchronize(ctx, GG_WAIT_MS(5000)), GG_CONTEXT_DEAD);
        EXPECT(6, gg_context_recover(ctx), GG_OK);
        EXPECT(6, gg_module_create_from_file(ctx, module_path, NULL, &module), GG_OK);
    }
}

/* Calls that touch no device work: queries of the library and its state. */
static void *query_library(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    for (;;) {
        int count = 0;
        gg_device_info info = GG_DEVICE_INFO_INIT;
        char *json = NULL;
        EXPECT(7, gg_device_count(&count), GG_OK);
        EXPECT(7, gg_device_properties(WAIT_DEVICE, &info), GG_OK);
        if (gg_backend_name()[0] == '\0')
            wrong(7, "gg_backend_name", GG_OK);
        EXPECT(7, gg_objects_json(&json), GG_OK);
        gg_free(json);
        EXPECT(7, gg_stream_query(hung_stream), GG_NOT_READY);
        EXPECT(7, gg_event_query(hung_event), GG_NOT_READY);
        if (gg_context_state(hung_ctx) != GG_STATE_ALIVE)
            wrong(7, "gg_context_state(hung)", GG_OK);
    }
}

/* Children forked while the others are inside gpuguard: a child's calls
 * fail FORKED and its exit is clean. The forks stop just before the exit:
 * glibc's fork() racing exit()'s unregistering of libgpuguard's fork
 * handlers aborts inside glibc ("Fatal glibc error: array index 0 not less
 * than array length 0", 2 rounds of 200 under TSan), whichever library
 * registered them. */
static atomic_bool stop_forking, forks_stopped;

static void *fork_children(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    while (!atomic_load(&stop_forking)) {
        pid_t pid = fork();
        if (pid < 0)
            wrong(8, "fork", GG_OK);
        if (pid == 0) {
            alarm(10);
            gg_status query = gg_stream_query(hung_stream);
            _exit(query != GG_FORKED ? 10 + (int)query : gg_context_state(hung_ctx) != GG_STATE_FORKED ? 2 : 0);
        }
        int status = 0;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            char what[64];
            snprintf(what, sizeof what, "a forked child (status 0x%x)", (unsigned)status);
            wrong(8, what, GG_OK);
        }
    }
    atomic_store(&forks_stopped, true);
    for (;;)
        pause();
}

typedef void *(*worker_fn)(void *);

static void *exit_from_thread(void *arg)
{
    exit(*(const int *)arg);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    alarm(20);
    module_path = argv[1];
    unsigned round = (unsigned)strtoul(argv[2], NULL, 10);
    int status = 40 + (int)(round % 50);
    if (gg_init(NULL) != GG_OK)
        return 3;
    gg_module module;
    gg_kernel hang_me;
    context_with(0, WAIT_DEVICE, &hung_ctx, &module);
    EXPECT(0, gg_kernel_create(module, "hang_me", &hang_me), GG_OK);
    EXPECT(0, gg_stream_create(hung_ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "hung" }, &hung_stream), GG_OK);
    EXPECT(0, gg_event_create(hung_ctx, NULL, &hung_event), GG_OK);
    EXPECT(0, launch(hang_me, hung_stream), GG_OK);
    EXPECT(0, gg_event_record(hung_event, hung_stream), GG_OK);

    worker_fn workers[] = { wait_stream, wait_event, wait_context, churn_objects, churn_contexts,
                            kill_and_recover, query_library, fork_children };
    size_t nworkers = sizeof workers / sizeof workers[0];
    for (size_t i = 0; i < nworkers; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, workers[i], NULL) != 0)
            return 4;
        pthread_detach(t);
    }
    while (atomic_load(&started) < (int)nworkers)
        sched_yield();
    /* Exit a little later each round (0 to 4.9 ms): calls at every stage. */
    struct timespec delay = { 0, (long)(round % 50) * 100000L };
    nanosleep(&delay, NULL);
    atomic_store(&stop_forking, true);
    while (!atomic_load(&forks_stopped))
        sched_yield();
    if (round % 2 == 0)
        exit(status); /* from the main thread, the others inside gpuguard */
    /* From another thread, while the main thread waits behind the hung
     * kernel (the case issue 26 measured). */
    pthread_t exiter;
    if (pthread_create(&exiter, NULL, exit_from_thread, &status) != 0)
        return 5;
    wrong(0, "gg_stream_synchronize(hung) on the main thread", gg_stream_synchronize(hung_stream, GG_WAIT_MS(60000)));
}
