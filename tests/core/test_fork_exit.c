/* Fork and exit: a forked child gets FORKED (never a crash, never a driver
 * call) and exits cleanly; a process that exits with live objects in a dead
 * context exits 0 and prints nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

TestSuite(fork_exit, .init = setup);

/* Runs `child` in a forked process; returns its exit status (or 128+signal). */
static int run_forked(int (*child)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(child(arg));
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static gg_stream inherited_stream;
static gg_buffer inherited_buffer;

static int child_uses_inherited_objects(void *arg)
{
    (void)arg;
    unsigned long long before = gg_test_sim_total_calls();
    if (gg_stream_query(inherited_stream) != GG_FORKED)
        return 10;
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (strstr(e.message, "fork") == NULL || strstr(e.message, "spawn") == NULL)
        return 11;
    char host[16];
    if (gg_memcpy_dtoh(host, inherited_buffer, 0, sizeof host, GG_NO_STREAM) != GG_FORKED)
        return 12;
    if (gg_context_state(rig.ctx) != GG_STATE_FORKED)
        return 13;
    gg_context fresh;
    if (gg_context_create(1, NULL, &fresh) != GG_FORKED || fresh.id != 0)
        return 20; /* nothing new may reach the driver either */
    int version = 0;
    if (gg_driver_version(&version) != GG_FORKED)
        return 21;
    if (gg_buffer_destroy(inherited_buffer) != GG_OK || gg_stream_destroy(inherited_stream) != GG_OK)
        return 14;
    if (gg_context_destroy(rig.ctx) != GG_OK)
        return 15;
    if (gg_test_sim_total_calls() != before)
        return 16; /* no driver call in the child */
    if (gg_init(NULL) != GG_FORKED)
        return 17; /* already initialised here, inherited: FORKED beats ALREADY_INITIALIZED */
    if (gg_shutdown() != GG_OK)
        return 18;
    if (gg_init(NULL) != GG_FORKED)
        return 19; /* a fresh init in a child of an initialised parent */
    return 0;
}

Test(fork_exit, forked_child_gets_forked_and_exits_cleanly)
{
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "inherited" }, &inherited_stream));
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &inherited_buffer));
    int code = run_forked(child_uses_inherited_objects, NULL);
    cr_assert_eq(code, 0, "child failed at step %d", code);
    /* The parent is untouched. */
    GG_OK_(gg_stream_query(inherited_stream));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* The exit probe program: dies in a dead context with live objects. */
Test(fork_exit, exit_with_live_objects_in_a_dead_context_is_clean)
{
    GG_OK_(gg_context_destroy(rig.ctx));
    GG_OK_(gg_shutdown());
    char command[1024];
    const gg_test_backend *tb = gg_test_backend_in_use();
    snprintf(command, sizeof command, "GPUGUARD_BACKEND=%s %s=%s %s/gg_exit_probe %s 2>&1", tb->name,
             tb->hip ? "GPUGUARD_HIP_LIBRARY" : "GPUGUARD_CUDA_LIBRARY", tb->library, GG_TEST_BIN_DIR,
             gg_test_kernel_module("core_kernels"));
    FILE *p = popen(command, "r");
    cr_assert_not_null(p);
    char output[4096];
    size_t n = fread(output, 1, sizeof output - 1, p);
    output[n] = '\0';
    int status = pclose(p);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit probe ended with status 0x%x: %s", status, output);
    cr_assert_eq(n, 0, "the exit probe printed: %s", output);
}
