/*
 * The interposer under a program that unloads and reloads it (issue 26):
 * dlopen("libcuda.so.1") (or "libamdhip64.so.5"), calls, dlclose, and
 * again, as Python programs, plugin hosts and test runners do. Within one
 * process the counts, the rules' counters and the report go on across the
 * reloads: an nth rule fires on exactly the nth call of the process, and
 * one report counts every call once. A forked or exec'd child counts its
 * own calls from zero and writes a report of its own, REPORT.<pid>, never
 * the parent's (src/intercept/README.md, "Loading once, reloading, and
 * several processes").
 *
 * This executable is not linked against the interposer: it finds it by
 * name on LD_LIBRARY_PATH (set by ctest; its run path too, but under ASan
 * the loader takes the interceptor's, see CMakeLists.txt), as a program
 * run by gpuguard run does. The CUDA tests forward
 * to GG_REAL_LIBCUDA when it is set (ctest's
 * test_intercept_reload_real_driver, through tests/cuda/real_libcuda.sh:
 * Debian's 535 driver, no GPU here), else to the simulator; the HIP test
 * to GG_REAL_LIBAMDHIP64 when it is set (test_intercept_reload_real_hip:
 * Debian's HIP 5.2.3 runtime), else to the simulator's HIP face. The calls
 * need no device, and none of their own answers is 2 (measured: cuMemAlloc_v2
 * before cuInit, 3 from the 535 driver and the simulator; hipMalloc, 101
 * from HIP 5.2.3 with no GPU, 0 from the simulator), so an injected
 * out_of_memory (2) is told apart from every forwarded answer.
 *
 * The report is written at a process's exit, so each scenario runs in a
 * child of the test that exits, bounded by alarm(); the test reads what
 * it left behind.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <glob.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "intercept_test_report.h"

#define LOADS 3
#define CALLS_PER_LOAD 2
/* Seconds a scenario may take before it counts as hung (it takes
 * milliseconds: the limit only tells a hang from a slow machine). */
#define LIMIT_S 60

enum { INJECTED_OUT_OF_MEMORY = 2 };
/* A child's exit code when something other than injection went wrong:
 * WRONG + what (load_and_call's *wrong, 1 to 4; 5: the parent's own
 * checks). Injected-call masks stay below it. */
enum { WRONG = 240 };

/* LeakSanitizer's hook: the children here exit through exit() to write
 * their reports; a leak check in each would only repeat the parent's (see
 * test_intercept_threads.c for the hang it avoids in gcc 12's libasan). */
static pid_t test_process;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return test_process != 0 && getpid() != test_process;
}

/* The CUDA driver the interposer forwards to, as the test was launched. */
static const char *cuda_driver(void)
{
    const char *real = getenv("GG_REAL_LIBCUDA");
    return real != NULL && real[0] != '\0' ? real : GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so";
}

/* The HIP runtime, likewise: GG_REAL_LIBAMDHIP64 (Debian's 5.2.3, ctest's
 * test_intercept_reload_real_hip) or the simulator's HIP face. */
static const char *hip_runtime(void)
{
    const char *real = getenv("GG_REAL_LIBAMDHIP64");
    return real != NULL && real[0] != '\0' ? real : GG_TEST_LIB_DIR "/libgpuguard_sim_hip.so";
}

static void setup(const char *tag, const char *plan)
{
    test_process = getpid();
    setenv("GPUGUARD_INTERCEPT_DRIVER", cuda_driver(), 1);
    setenv("GPUGUARD_INTERCEPT_HIP_RUNTIME", hip_runtime(), 1);
    set_plan_and_report(tag, plan, true);
}

/* Waits for `pid` at most LIMIT_S seconds: its wait status, or -1 after
 * killing it. */
static int wait_bounded(pid_t pid)
{
    for (int waited_ms = 0; waited_ms < LIMIT_S * 1000; waited_ms += 5) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        usleep(5 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* One load of the interposer under `name`: dlopen, `calls` calls of
 * `function` (an allocation: a pointer to the result, a size), dlclose. Each
 * call that came back as the injected out_of_memory sets bit `*call_index`
 * of `*injected`; a call that came back as the no-library or not-found
 * errors, or a library that is not the interposer, sets `*wrong`. */
static void load_and_call(const char *name, const char *function, int calls, int *call_index, unsigned *injected,
                          int *wrong)
{
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL || dlsym(lib, "gg_intercept_marker") == NULL) {
        /* Said here: the exit code only carries which check failed. */
        fprintf(stderr, "process %ld: dlopen(\"%s\"): %s\n", (long)getpid(), name,
                lib == NULL ? dlerror() : "a library that is not the interposer");
        *wrong = 1;
        return;
    }
    int (*alloc)(void *, size_t) = NULL;
    void *p = dlsym(lib, function);
    memcpy(&alloc, &p, sizeof p);
    for (int i = 0; alloc != NULL && i < calls; i++, (*call_index)++) {
        uint64_t out = 0;
        int r = alloc(&out, 64);
        if (r == INJECTED_OUT_OF_MEMORY)
            *injected |= 1u << *call_index;
        else if (r == 34 || r == 35 || r == 500) /* no library, no such function: not forwarded */
            *wrong = 2;
    }
    if (alloc == NULL)
        *wrong = 3;
    if (dlclose(lib) != 0)
        *wrong = 4;
}

/* In a child: LOADS loads of `name`, CALLS_PER_LOAD calls each, then exit
 * (which writes the report) with the bit mask of injected calls, or WRONG
 * + what when something else went wrong. */
static void reload_and_exit(const char *name, const char *function)
{
    alarm(LIMIT_S);
    int call_index = 0, wrong = 0;
    unsigned injected = 0;
    for (int load = 0; load < LOADS && !wrong; load++)
        load_and_call(name, function, CALLS_PER_LOAD, &call_index, &injected, &wrong);
    exit(wrong ? WRONG + wrong : (int)injected);
}

/* Runs `scenario` in a child of the test; its exit code (the injected
 * calls' bit mask), failing the test when it did not exit or went
 * wrong. */
static int in_child(void (*scenario)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork failed");
    if (pid == 0)
        scenario();
    int status = wait_bounded(pid);
    cr_assert_neq(status, -1, "the child hung (killed after %d s)", LIMIT_S);
    cr_assert(WIFEXITED(status), "the child did not exit (status %#x)", status);
    cr_assert_lt(WEXITSTATUS(status), WRONG,
                 "the child went wrong (%d: 1, no interposer; 2, a call not forwarded; 3, no such function; 4, "
                 "dlclose failed; 5, the forking parent's checks)", WEXITSTATUS(status) - WRONG);
    return WEXITSTATUS(status);
}

static const cJSON *rule(const cJSON *report, int i)
{
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "rules"), i);
    cr_assert_not_null(r, "the report has no rule %d", i);
    return r;
}

static double number_field(const cJSON *object, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, name);
    cr_assert(cJSON_IsNumber(v), "\"%s\" is not a number", name);
    return v->valuedouble;
}

/* The reports other than report_path's own that processes left beside it
 * (REPORT.<pid>): how many, and the first's path in `first`. */
static size_t other_reports(char *first, size_t size)
{
    char pattern[300];
    snprintf(pattern, sizeof pattern, "%s.*", report_path);
    glob_t g;
    size_t n = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
        n = g.gl_pathc;
        if (n > 0 && first != NULL)
            snprintf(first, size, "%s", g.gl_pathv[0]);
        globfree(&g);
    }
    return n;
}

/* Asserts what one process's report says about its `calls` calls of
 * `function` under rule 0 (nth `nth`). */
static void assert_report(const cJSON *report, const char *function, int calls, int nth)
{
    cr_assert_str_eq(string_field(report, "written_at"), "exit", "the report was not the one written at exit");
    cr_assert_eq(call_count(report, function), calls, "the report counts %g calls of %s; %d were made",
                 call_count(report, function), function, calls);
    const cJSON *r = rule(report, 0);
    cr_assert_eq(number_field(r, "matched"), calls, "the rule matched %g calls of %d", number_field(r, "matched"),
                 calls);
    cr_assert_eq(number_field(r, "fired"), 1, "the rule fired %g times", number_field(r, "fired"));
    cr_assert_eq(number_field(r, "first_fired_match"), nth);
    cr_assert_str_eq(string_field(r, "first_fired_call"), function);
}

/* ---- one process, three loads ------------------------------------------- */

static void cuda_reloads(void)
{
    reload_and_exit("libcuda.so.1", "cuMemAlloc_v2");
}

Test(intercept_reload, cuda_nth_rule_and_counts_go_on_across_three_reloads)
{
    /* The 4th allocation of the process is the second of the second load:
     * with counts restarting at each load it would never come. */
    setup("reload_cuda", "{\"rules\": [{\"function\": \"cuMemAlloc\", \"nth\": 4, \"error\": \"out_of_memory\"}]}");
    int injected = in_child(cuda_reloads);
    cr_assert_eq(injected, 1 << 3, "injected calls (bit i: call i+1 of the process): %#x; only the 4th was due",
                 injected);
    cJSON *report = read_report();
    assert_report(report, "cuMemAlloc_v2", LOADS * CALLS_PER_LOAD, 4);
    cr_assert_str_eq(string_field(report, "driver"), cuda_driver());
    cJSON_Delete(report);
    char other[300] = "";
    cr_assert_eq(other_reports(other, sizeof other), 0, "one process, one report: there is also %s", other);
    unlink(report_path);
}

/* The interposer stands for the HIP runtime too, under its other name: the
 * same object, so the same state, whichever name a reload uses. */
static void hip_reloads(void)
{
    reload_and_exit("libamdhip64.so.5", "hipMalloc");
}

Test(intercept_reload, hip_nth_rule_and_counts_go_on_across_three_reloads)
{
    setup("reload_hip", "{\"rules\": [{\"function\": \"hipMalloc\", \"nth\": 5, \"error\": \"out_of_memory\"}]}");
    int injected = in_child(hip_reloads);
    cr_assert_eq(injected, 1 << 4, "injected calls (bit i: call i+1 of the process): %#x; only the 5th was due",
                 injected);
    cJSON *report = read_report();
    assert_report(report, "hipMalloc", LOADS * CALLS_PER_LOAD, 5);
    cr_assert_str_eq(string_field(report, "hip_runtime"), hip_runtime());
    cJSON_Delete(report);
    char other[300] = "";
    cr_assert_eq(other_reports(other, sizeof other), 0, "one process, one report: there is also %s", other);
    unlink(report_path);
}

/* ---- a forked child, and an exec'd one, that reload it ------------------ */

/* The child's part: three loads with one call each; exits with the mask of
 * its injected calls (bits 0-2), or WRONG + what. */
static void child_reloads_and_exits(void)
{
    int call_index = 0, wrong = 0;
    unsigned injected = 0;
    for (int load = 0; load < LOADS && !wrong; load++)
        load_and_call("libcuda.so.1", "cuMemAlloc_v2", 1, &call_index, &injected, &wrong);
    exit(wrong ? WRONG + wrong : (int)injected);
}

/* The exec'd child: a fresh image of this program, started with
 * GG_TEST_RELOAD_EXEC_CHILD set, which does the child's part before
 * Criterion's main starts (and, being a new image, loads a new interposer
 * that reads the same environment as its parent's). */
__attribute__((constructor)) static void run_as_exec_child(void)
{
    if (getenv("GG_TEST_RELOAD_EXEC_CHILD") == NULL)
        return;
    alarm(LIMIT_S);
    child_reloads_and_exits();
}

/* The parent: one load with one call (rule match 1), a child (forked, or
 * forked and exec'd when `exec_child`) that reloads three times with one
 * call each, then the parent's second load with two calls (its matches 2
 * and 3). Exit code: the parent's injected calls in bits 0-2, the child's
 * in bits 3-5, WRONG + what when something went wrong. */
static void parent_with_a_reloading_child(bool exec_child)
{
    alarm(LIMIT_S);
    int call_index = 0, wrong = 0;
    unsigned parent_injected = 0;
    load_and_call("libcuda.so.1", "cuMemAlloc_v2", 1, &call_index, &parent_injected, &wrong);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        exit(WRONG + 5);
    if (pid == 0 && exec_child) {
        setenv("GG_TEST_RELOAD_EXEC_CHILD", "1", 1);
        execl("/proc/self/exe", "test_intercept_reload (exec'd child)", (char *)NULL);
        exit(WRONG + 5);
    }
    if (pid == 0)
        child_reloads_and_exits();
    int status = wait_bounded(pid);
    if (status < 0 || !WIFEXITED(status))
        exit(WRONG + 5);
    if (WEXITSTATUS(status) >= WRONG)
        exit(WEXITSTATUS(status));
    unsigned child_injected = (unsigned)WEXITSTATUS(status);
    load_and_call("libcuda.so.1", "cuMemAlloc_v2", 2, &call_index, &parent_injected, &wrong);
    /* The child's pid, for the test to find its report. */
    FILE *f = fopen(getenv("GG_TEST_CHILD_PID_FILE"), "w");
    if (f == NULL || fprintf(f, "%ld\n", (long)pid) < 0 || fclose(f) != 0)
        exit(WRONG + 5);
    exit(wrong ? WRONG + wrong : (int)(parent_injected | child_injected << 3));
}

static void parent_with_a_forked_child(void)
{
    parent_with_a_reloading_child(false);
}

static void parent_with_an_exec_child(void)
{
    parent_with_a_reloading_child(true);
}

/* Runs `scenario` under rule cuMemAlloc nth 2 and checks both processes:
 * nth 2 is the parent's second allocation (its first after the child) and
 * the child's second (the middle one of its three loads), each process
 * counting from its own start, a forked child from the fork; the parent's
 * report holds its three calls and none of the child's, and the child's,
 * beside it at REPORT.<its pid>, its three and none of the parent's. */
static void check_parent_and_child(const char *tag, void (*scenario)(void))
{
    setup(tag, "{\"rules\": [{\"function\": \"cuMemAlloc\", \"nth\": 2, \"error\": \"out_of_memory\"}]}");
    char pid_file[300];
    snprintf(pid_file, sizeof pid_file, "%s.child-pid", report_path);
    setenv("GG_TEST_CHILD_PID_FILE", pid_file, 1);
    int injected = in_child(scenario);
    FILE *f = fopen(pid_file, "r");
    cr_assert_not_null(f, "the parent did not say its child's pid");
    long child = 0;
    cr_assert_eq(fscanf(f, "%ld", &child), 1);
    fclose(f);
    unlink(pid_file);
    cr_assert_eq(injected & 7, 1 << 1, "the parent's injected calls: %#x; its 2nd was due", injected & 7);
    cr_assert_eq(injected >> 3, 1 << 1, "the child's injected calls: %#x; its 2nd was due", injected >> 3);
    cJSON *report = read_report();
    assert_report(report, "cuMemAlloc_v2", 3, 2);
    cJSON_Delete(report);
    char parent_path[sizeof report_path], child_path[sizeof report_path];
    snprintf(parent_path, sizeof parent_path, "%s", report_path);
    cr_assert_lt(snprintf(child_path, sizeof child_path, "%s.%ld", parent_path, child), (int)sizeof child_path);
    char other[300] = "";
    size_t others = other_reports(other, sizeof other);
    cr_assert_eq(others, 1, "%zu other reports beside the parent's (the first: %s); the child's only was expected",
                 others, other);
    cr_assert_str_eq(other, child_path, "the child's report is not at REPORT.<its pid>");
    memcpy(report_path, child_path, sizeof report_path);
    report = read_report();
    assert_report(report, "cuMemAlloc_v2", LOADS, 2);
    cJSON_Delete(report);
    unlink(child_path);
    unlink(parent_path);
}

Test(intercept_reload, cuda_forked_child_counts_its_own_calls_in_its_own_report)
{
    check_parent_and_child("reload_fork", parent_with_a_forked_child);
}

/* An exec'd child loads an interposer of its own, with the same
 * environment: its calls are its own as a forked child's are, and it must
 * not overwrite the report of the parent, which still holds the path. */
Test(intercept_reload, cuda_exec_child_counts_its_own_calls_in_its_own_report)
{
    check_parent_and_child("reload_exec", parent_with_an_exec_child);
}
