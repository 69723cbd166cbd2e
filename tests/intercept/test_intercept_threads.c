/*
 * The interposer under threads: its first calls race the loading of both
 * real libraries (wrapped functions, whose real pointers are published once,
 * and pass-through trampolines, whose slots are resolved lazily by whichever
 * thread gets there first), and its counts and plans are shared by every
 * thread. Linked against the interposer as libcuda.so.1 like
 * test_intercept.c; the HIP functions are taken from the same library by
 * dlsym (it stands for libamdhip64.so.5 too). Criterion runs every test in
 * a process of its own, so each starts with nothing loaded; run under TSan
 * by scripts/test.sh --tsan, which is what checks the publication order.
 * Nothing is timed: the threads meet at a barrier so that the first calls
 * really overlap, and only results and counts are asserted.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "intercept_test_report.h"
#include "support/torture_rounds.h"
#include "sim_cuda.h"

#define THREADS 8
#define ROUNDS 200

/* LeakSanitizer's hook (sanitizer/lsan_interface.h): in the ASan build a
 * child forked by a test skips the leak check at its exit. gcc 12's libasan does not
 * hold its allocator's locks across fork, so a child forked while another
 * thread of the test (Criterion's own) was allocating hangs in that check
 * (seen under gdb: __lsan::LockAllocator), which is the sanitizer's, not
 * the interposer's lock under test. Unused in other builds. */
static pid_t forking_parent;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return forking_parent != 0 && getpid() != forking_parent;
}

/* Forwards both faces to the simulator, with `plan` (NULL: none) and, when
 * `report` is set, a report (which sends every call down the slow path). */
static void setup(const char *plan, bool report)
{
    forking_parent = getpid();
    setenv("GPUGUARD_INTERCEPT_DRIVER", GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so", 1);
    setenv("GPUGUARD_INTERCEPT_HIP_RUNTIME", GG_TEST_LIB_DIR "/libgpuguard_sim_hip.so", 1);
    set_plan_and_report("threads", plan, report);
}

/* The functions the threads call, all through the interposer. */
typedef struct entry_points {
    int (*hip_runtime_version)(int *);  /* wrapped, HIP */
    int (*hip_get_device)(int *);       /* wrapped, HIP */
    const char *(*hip_error_name)(int); /* passed through, HIP: the simulator's own text */
    int (*cu_graph_create)(void **, unsigned); /* passed through, CUDA: the simulator lacks it */
} entry_points;

static entry_points entries;

static void *must_find(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    cr_assert_not_null(p, "the interposer does not export %s", name);
    return p;
}

/* Taken before any call: dlsym of a trampoline resolves nothing. */
static void find_entry_points(void)
{
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(self, "the interposer is not loaded as libcuda.so.1");
    void *p;
    p = must_find(self, "hipRuntimeGetVersion");
    memcpy(&entries.hip_runtime_version, &p, sizeof p);
    p = must_find(self, "hipGetDevice");
    memcpy(&entries.hip_get_device, &p, sizeof p);
    p = must_find(self, "hipGetErrorName");
    memcpy(&entries.hip_error_name, &p, sizeof p);
    p = must_find(self, "cuGraphCreate");
    memcpy(&entries.cu_graph_create, &p, sizeof p);
    /* The simulator does not implement cuGraphCreate: a pass-through whose
     * real function is missing answers CUDA_ERROR_NOT_FOUND. */
    void *sim = dlopen(GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so", RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(sim);
    cr_assert_null(dlsym(sim, "cuGraphCreate"), "the simulator implements cuGraphCreate now: pick another");
    dlclose(sim);
}

static pthread_barrier_t start;

/* What one thread saw go wrong (0: nothing), and how many injected errors
 * it got from cuDriverGetVersion. */
typedef struct thread_result {
    int wrong;
    int injected;
} thread_result;

static void *first_calls(void *arg)
{
    thread_result *r = arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        int version = 0;
        CUresult cu = cuDriverGetVersion(&version);
        if (cu == CUDA_ERROR_UNKNOWN)
            r->injected++;
        else if (cu != CUDA_SUCCESS || version <= 0)
            r->wrong = 1;
        if (cuInit(0) != CUDA_SUCCESS)
            r->wrong = 2;
        int hip_version = 0;
        if (entries.hip_runtime_version(&hip_version) != 0 || hip_version / 10000000 != 5)
            r->wrong = 3;
        int device = -1;
        if (entries.hip_get_device(&device) != 0 || device != 0)
            r->wrong = 4;
        const char *name = entries.hip_error_name(2);
        if (name == NULL || strstr(name, "OutOfMemory") == NULL)
            r->wrong = 5;
        void *graph = NULL;
        if (entries.cu_graph_create(&graph, 0) != 500)
            r->wrong = 6;
    }
    return NULL;
}

/* Starts THREADS threads on first_calls and joins them; the number of
 * injected errors they saw. */
static int race_first_calls(void)
{
    pthread_t threads[THREADS];
    thread_result results[THREADS];
    memset(results, 0, sizeof results);
    cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_create(&threads[i], NULL, first_calls, &results[i]), 0);
    int injected = 0;
    for (int i = 0; i < THREADS; i++) {
        cr_assert_eq(pthread_join(threads[i], NULL), 0);
        cr_assert_eq(results[i].wrong, 0, "thread %d: check %d failed", i, results[i].wrong);
        injected += results[i].injected;
    }
    pthread_barrier_destroy(&start);
    return injected;
}

Test(intercept_threads, first_calls_race_the_loading_on_the_fast_path)
{
    setup(NULL, false);
    find_entry_points();
    cr_assert_eq(race_first_calls(), 0);
}

/* In a child, so that its exit writes the report. */
static void race_and_exit(void)
{
    find_entry_points();
    exit(race_first_calls() == 1 ? 0 : 20);
}

Test(intercept_threads, counts_and_an_nth_rule_are_exact_under_threads)
{
    /* The 777th cuDriverGetVersion of the process fails, whichever thread
     * makes it; every call of every thread is counted once. */
    setup("{\"rules\": [{\"function\": \"cuDriverGetVersion\", \"nth\": 777, \"error\": \"driver\"}]}", true);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        race_and_exit();
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child failed (status %#x): not exactly one injected error, or a check failed", status);
    cJSON *report = read_report();
    unlink(report_path);
    const double want = THREADS * ROUNDS;
    /* Wrapped functions and a passed-through one alike (cuGraphCreate: its
     * calls resolved by whichever thread gets there, each counted once); a
     * pass-through that returns text is never counted. */
    const char *counted[] = { "cuDriverGetVersion", "cuInit", "hipRuntimeGetVersion", "hipGetDevice",
                              "cuGraphCreate" };
    for (size_t i = 0; i < sizeof counted / sizeof counted[0]; i++) {
        double counted_calls = call_count(report, counted[i]);
        cr_assert_eq(counted_calls, want, "%s counted %g times, called %g times", counted[i], counted_calls, want);
    }
    cr_assert_eq(call_count(report, "hipGetErrorName"), 0);
    const cJSON *rule = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "rules"), 0);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(rule, "matched")->valuedouble, want);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(rule, "fired")->valuedouble, 1);
    cJSON_Delete(report);
}

/* ---- fork while other threads are inside the interposer ------------------ */

static atomic_int stop_calling;

static void *keep_calling(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_calling)) {
        int version = 0;
        cuDriverGetVersion(&version); /* the slow path: a count and the plan under the lock */
    }
    return NULL;
}

/* Waits for `pid` for at most `limit_s` seconds (a child that deadlocked
 * never ends): its wait status, or -1 after killing it. Not a timing check:
 * a child that makes a handful of calls ends in microseconds, and the limit
 * only tells a deadlock from a slow machine. */
static int wait_or_kill(pid_t pid, int limit_s)
{
    for (int waited_ms = 0; waited_ms < limit_s * 1000; waited_ms += 10) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        usleep(10 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

Test(intercept_threads, a_child_forked_while_threads_are_inside_the_interposer_exits)
{
    /* Threads call through the slow path (a plan and a report: a count and
     * the plan under the interposer's lock) while the main thread forks.
     * Each child only exits, as a multiprocessing worker that never touches
     * the GPU does (any driver call after fork is undefined: DRIVER-FACTS):
     * its exit still runs the interposer's report writer, which takes that
     * lock, and a lock inherited held by a thread that does not exist in
     * the child would hang it there for ever. */
    setup("{\"rules\": [{\"function\": \"cuMemAlloc\", \"nth\": 1000000, \"error\": \"out_of_memory\"}]}", true);
    int version = 0;
    cr_assert_eq(cuDriverGetVersion(&version), CUDA_SUCCESS);
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&threads[i], NULL, keep_calling, NULL), 0);
    int hung = 0, failed = 0;
    const int forks = (int)gg_torture_rounds(200);
    for (int i = 0; i < forks && hung == 0; i++) {
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
            exit(0); /* exit, not _exit: the destructors run */
        int status = wait_or_kill(pid, 60);
        if (status < 0)
            hung++;
        else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    atomic_store(&stop_calling, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    cr_assert_eq(hung, 0, "a forked child hung at its exit in the interposer");
    cr_assert_eq(failed, 0, "%d forked children did not exit 0", failed);
}
