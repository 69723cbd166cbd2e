/* Checks: a forked child, and threads on their own contexts. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_check.h"
#include "gc_checks.h"

/* In the child: each promise that fails gives its own exit status, so that
 * the parent can say which; 0 when all held. Exits through exit() (but in
 * sanitized builds), so that gpuguard's exit handling runs in the child too. */
static void forked_child(gc_session *s, gg_buffer buf)
{
    int code = 0;
    if (gg_stream_query(s->stream) != GG_FORKED)
        code = 10;
    else if (gg_context_state(s->ctx) != GG_STATE_FORKED)
        code = 11;
    else if (gc_launch((gg_kernel){ 0 }, s->stream, 1, 1, NULL, 0) == GG_OK)
        code = 12;
    else if (gg_init(NULL) != GG_FORKED)
        code = 13;
    else if (gg_buffer_destroy(buf) != GG_OK || gg_stream_destroy(s->stream) != GG_OK)
        code = 14;
    else if (gg_context_destroy(s->ctx) != GG_OK)
        code = 15;
#ifdef GG_GPU_CHECK_SANITIZED
    /* LeakSanitizer cannot stop the threads a forked child inherited the
     * records of, and says so on stderr at exit(); the real build exits
     * through exit(), gpuguard's exit handling included. */
    fflush(NULL);
    _exit(code);
#else
    exit(code);
#endif
}

void check_fork_child(const gc_env *env, gc_result *r)
{
    gc_session s;
    gg_buffer buf;
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "fork", &s) ||
        !gc_ok(r, gg_buffer_create(s.ctx, 4096, NULL, &buf), "gg_buffer_create") ||
        !gc_computes(r, &s, 4096, 1))
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return (void)gc_fail(r, "fork failed");
    if (pid == 0)
        forked_child(&s, buf);
    int status = 0;
    double deadline = gc_now_ms() + 30000;
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && gc_now_ms() < deadline) {
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return (void)gc_fail(r, "the forked child did not exit within 30 s");
    }
    static const char *const broken[] = {
        [10] = "gg_stream_query in the child did not return GG_FORKED",
        [11] = "the context's state in the child is not FORKED",
        [12] = "a launch in the child did not fail",
        [13] = "gg_init in the child did not return GG_FORKED",
        [14] = "destroying a buffer or stream in the child did not return GG_OK",
        [15] = "destroying the context in the child did not return GG_OK",
    };
    if (WIFSIGNALED(status))
        return (void)gc_fail(r, "the forked child died of signal %d", WTERMSIG(status));
    int code = WEXITSTATUS(status);
    gc_figure_num(r, "child_exit_status", code);
    if (code != 0)
        return (void)gc_fail(r, "forked child exited %d: %s", code,
                             code >= 10 && code <= 15 ? broken[code] : "(not one of the child's checks)");
    /* The parent is untouched. */
    if (!gc_computes(r, &s, 4096, 2))
        return;
    gc_note(r, "child: GG_FORKED everywhere, silent destroys, exit 0; the parent still computes");
}

/* ---- two threads ------------------------------------------------------ */

typedef struct worker {
    const gc_env *env;
    gc_result result;
    int rounds;
    bool fault;                  /* this worker kills its own context half-way */
    bool stop_at_halfway;        /* the other worker: stops once they met (its context died too) */
    pthread_barrier_t *before;   /* both workers meet here, idle, before the fault (NULL: no meeting) */
    pthread_barrier_t *halfway;  /* both workers meet here after the fault */
    gg_state final_state;
    gg_error_info death;        /* its context's, read before it is destroyed */
    gg_status after_call;        /* stop_at_halfway: what a call in its context returned after */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    gc_session s = { 0 };
    bool met = false;
    bool ok = gc_open(&w->result, w->env, w->fault ? "faulting" : "steady", &s);
    for (int i = 0; ok && i < w->rounds; i++) {
        if (i == w->rounds / 2 && w->halfway != NULL) {
            /* The other worker is idle when the fault comes: on CUDA the
             * error reaches its context too, and a call of its in flight
             * would meet it there first. */
            if (w->before != NULL)
                pthread_barrier_wait(w->before);
            if (w->fault)
                ok = gc_kill_with_stray_store(&w->result, &s);
            pthread_barrier_wait(w->halfway);
            met = true;
            if (w->fault)
                break;
            if (w->stop_at_halfway) {
                w->after_call = gg_stream_query(s.stream);
                break;
            }
        }
        ok = gc_computes(&w->result, &s, 1 << 16, (uint32_t)i);
    }
    /* A worker that failed early still meets the other at the barriers. */
    if (w->halfway != NULL && !met) {
        if (w->before != NULL)
            pthread_barrier_wait(w->before);
        pthread_barrier_wait(w->halfway);
    }
    w->final_state = gg_context_state(s.ctx);
    w->death = (gg_error_info)GG_ERROR_INFO_INIT;
    gg_context_death(s.ctx, &w->death);
    gg_context_destroy(s.ctx);
    return NULL;
}

static bool run_workers(gc_result *r, worker *w, int n)
{
    pthread_t t[2];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, work, &w[i]) != 0)
            return gc_fail(r, "pthread_create failed");
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < n; i++)
        if (w[i].result.verdict == GC_FAIL) {
            gc_fail(r, "thread %d: %s", i, w[i].result.message);
            return false;
        }
    return true;
}

void check_two_threads(const gc_env *env, gc_result *r)
{
    if (!gc_init(r, env, NULL))
        return;
    worker w[2] = { { .env = env, .rounds = 50 }, { .env = env, .rounds = 50 } };
    double t0 = gc_now_ms();
    if (!run_workers(r, w, 2))
        return;
    gc_figure_num(r, "rounds_per_thread", 50);
    gc_figure_num(r, "seconds", (gc_now_ms() - t0) / 1000);
    gc_note(r, "two threads, each on its own context, computed and verified 50 rounds of 2^16 values");
}

/* On CUDA a sticky error reaches every context of the process (measured
 * on an H100, driver 580: docs/DRIVER-FACTS.md): the other thread's
 * context dies with the first, of GG_PROCESS_POISONED naming it, and is
 * never blamed on its own launches (it had none unfinished). HIP contexts
 * on one device are one context: nothing to check there. */
void check_fault_other_context(const gc_env *env, gc_result *r)
{
    if (env->hip)
        return gc_skip(r, "HIP has one context per device: contexts on one device share fate by design (README)");
    if (!gc_init(r, env, NULL))
        return;
    pthread_barrier_t before, halfway;
    pthread_barrier_init(&before, NULL, 2);
    pthread_barrier_init(&halfway, NULL, 2);
    worker w[2] = { { .env = env, .rounds = 20, .fault = true, .before = &before, .halfway = &halfway },
                    { .env = env, .rounds = 20, .before = &before, .halfway = &halfway, .stop_at_halfway = true } };
    bool ok = run_workers(r, w, 2);
    pthread_barrier_destroy(&before);
    pthread_barrier_destroy(&halfway);
    if (!ok)
        return;
    if (w[0].final_state != GG_STATE_DEAD)
        return (void)gc_fail(r, "the faulting thread's context is %d, expected DEAD", (int)w[0].final_state);
    if (w[0].death.status != GG_ILLEGAL_ADDRESS || w[0].death.culprit.certainty != GG_ATTRIBUTION_EXACT ||
        strcmp(w[0].death.culprit.kernel_name, "oob_store") != 0)
        return (void)gc_fail(r, "the faulting context died of %s, culprit '%s' (certainty %d): expected "
                             "GG_ILLEGAL_ADDRESS, oob_store EXACT (%s)", gg_status_name(w[0].death.status),
                             w[0].death.culprit.kernel_name, (int)w[0].death.culprit.certainty, w[0].death.message);
    if (w[1].final_state != GG_STATE_DEAD)
        return (void)gc_fail(r, "the other thread's context is %d after the fault, expected DEAD (the error reaches "
                             "the whole process)", (int)w[1].final_state);
    if (w[1].death.status != GG_PROCESS_POISONED || w[1].death.culprit.certainty != GG_ATTRIBUTION_NONE ||
        strstr(w[1].death.message, "oob_store") == NULL)
        return (void)gc_fail(r, "the other context died of %s (certainty %d): expected GG_PROCESS_POISONED, no "
                             "culprit of its own, oob_store named (%s)", gg_status_name(w[1].death.status),
                             (int)w[1].death.culprit.certainty, w[1].death.message);
    if (w[1].after_call != GG_CONTEXT_DEAD)
        return (void)gc_fail(r, "a call in the other context returned %s after the fault, expected GG_CONTEXT_DEAD",
                             gg_status_name(w[1].after_call));
    gc_note(r, "one thread's context died of a stray store (oob_store EXACT); the other's died with it of "
            "GG_PROCESS_POISONED, naming it, and fails fast");
}
