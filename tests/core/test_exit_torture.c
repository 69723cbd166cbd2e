/* exit() while other threads are inside gpuguard: 200 processes
 * (gg_exit_torture, one round each) with threads in every kind of wait and
 * call when one thread exits. Each must end with the exiting thread's
 * status, within its alarm, having printed nothing (process_exit.h). */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/gg_test.h"
#include "support/torture_rounds.h"

#define ROUNDS 200
#define ROUND_LIMIT_S 30 /* the round's own alarm is 20 s */

extern char **environ;


/* Waits for `pid` at most `limit_s`; kills it past that. The status, or -1. */
static int wait_bounded(pid_t pid, int limit_s)
{
    for (int ms = 0; ms < limit_s * 1000; ms++) {
        int status = 0;
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            return status;
        struct timespec step = { 0, 1000000 };
        nanosleep(&step, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static void describe(int status, char *out, size_t size)
{
    if (status == -1)
        snprintf(out, size, "still running after %d s (killed)", ROUND_LIMIT_S);
    else if (WIFEXITED(status))
        snprintf(out, size, "exit status %d", WEXITSTATUS(status));
    else
        snprintf(out, size, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
}

Test(exit_torture, exit_while_threads_wait_and_call, .timeout = 1500)
{
    const gg_test_backend *tb = gg_test_backend_in_use();
    setenv("GPUGUARD_BACKEND", tb->name, 1);
    setenv(tb->hip ? "GPUGUARD_HIP_LIBRARY" : "GPUGUARD_CUDA_LIBRARY", tb->library, 1);
    char sim_config[256];
    int version = gg_test_sim_driver_version();
    /* Errors kept per context: the subject is exit safety, and each worker's
     * expected status is its own context's (under the process-wide default
     * one worker's assert would kill the others' contexts too). */
    snprintf(sim_config, sizeof sim_config, "{\"sticky_scope\":\"context\",\"devices\":[{},{},{}],\"misbehave\":[{\"kernel\":\"hang_me\",\"action\":\"hang\"}]%s%.0d}",
             version != 0 ? ",\"driver_version\":" : "", version);
    setenv("GPUGUARD_SIM_CONFIG", sim_config, 1);
    /* ThreadSanitizer sleeps 1 s in exit() by default (to catch races at
     * exit): 50 ms still lets the workers run on into the exit. The TSan
     * build also runs fewer rounds (GG_TORTURE_ROUNDS, set by
     * scripts/test.sh --tsan: 60, which still takes every exit delay of
     * round % 50 and both exiting threads). */
    const char *tsan = getenv("TSAN_OPTIONS");
    if (tsan != NULL && strstr(tsan, "atexit_sleep_ms") == NULL) {
        char options[1024];
        snprintf(options, sizeof options, "%s:atexit_sleep_ms=50", tsan);
        setenv("TSAN_OPTIONS", options, 1);
    }
    char program[512], output_path[] = "/tmp/gg_exit_torture_XXXXXX";
    snprintf(program, sizeof program, "%s/gg_exit_torture", GG_TEST_BIN_DIR);
    const char *module = gg_test_kernel_module("core_kernels");
    int fd = mkstemp(output_path);
    cr_assert_geq(fd, 0);
    close(fd);
    const unsigned rounds = gg_torture_rounds(ROUNDS);
    for (unsigned round = 0; round < rounds; round++) {
        char round_arg[16];
        snprintf(round_arg, sizeof round_arg, "%u", round);
        char *argv[] = { program, (char *)module, round_arg, NULL };
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, output_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        pid_t pid;
        int spawned = posix_spawn(&pid, program, &actions, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        cr_assert_eq(spawned, 0, "round %u: cannot start %s: %s", round, program, strerror(spawned));
        int status = wait_bounded(pid, ROUND_LIMIT_S);
        char output[2048] = "";
        FILE *f = fopen(output_path, "r");
        if (f != NULL) {
            output[fread(output, 1, sizeof output - 1, f)] = '\0';
            fclose(f);
        }
        char how[128];
        describe(status, how, sizeof how);
        int expected = 40 + (int)(round % 50);
        cr_assert(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == expected,
                  "round %u (exit from the %s thread): expected exit status %d, got %s; output: %s", round,
                  round % 2 == 0 ? "main" : "second", expected, how, output);
        cr_assert_eq(output[0], '\0', "round %u printed: %s", round, output);
    }
    unlink(output_path);
}

/* ---- the exiting thread's own calls, after gpuguard's exit handler ------ */

static gg_stream late_stream;

/* Registered before gg_init, so it runs after gpuguard's handler (atexit
 * runs handlers in reverse order): the calls fail, and say why. */
static void call_after_the_exit_handler(void)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    if (gg_stream_query(late_stream) != GG_NOT_INITIALIZED)
        _exit(20);
    gg_last_error(&e);
    if (strstr(e.message, "the process is exiting") == NULL || strstr(e.message, "gg_shutdown") != NULL)
        _exit(21);
    if (gg_init(NULL) != GG_NOT_INITIALIZED)
        _exit(22);
    gg_last_error(&e);
    if (strstr(e.message, "the process is exiting") == NULL)
        _exit(23);
    _exit(0);
}

Test(exit_torture, calls_after_the_exit_handler_name_the_exit, .timeout = 30)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        alarm(20);
        atexit(call_after_the_exit_handler);
        gg_init_desc desc = GG_INIT_DESC_INIT;
        gg_test_init_sim_desc(NULL, &desc);
        gg_context ctx;
        if (gg_context_create(0, NULL, &ctx) != GG_OK ||
            gg_stream_create(ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "late" }, &late_stream) != GG_OK)
            _exit(3);
        exit(9); /* the handler above ends the process with its own verdict */
    }
    int status = wait_bounded(pid, ROUND_LIMIT_S);
    char how[128];
    describe(status, how, sizeof how);
    cr_assert(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the late calls' check ended with %s (20-23: which check failed)", how);
}
