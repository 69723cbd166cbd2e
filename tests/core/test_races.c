/* Lifetimes under threads and fork: destroys racing every API family on the
 * same object, many threads destroying one object, stale ids racing reuse,
 * creation at the context limit, gg_shutdown and exit racing busy threads,
 * fork while threads are inside gpuguard, and destroying a context that is
 * not on top of the thread's stack. Loops are bounded in time, never timed:
 * the sanitizers (ASan, TSan) are what judges them. */
#include <criterion/criterion.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

TestSuite(races, .init = setup);

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#define RUN_MS 1500

/* A status a call racing a destroy may return: it acted on its object, or
 * it found it gone. Never another object, never a crash. */
static bool racing_status(gg_status s)
{
    return s == GG_OK || s == GG_INVALID_HANDLE || s == GG_NOT_READY;
}

static _Atomic bool stop;
static _Atomic unsigned bad_status;
static _Atomic gg_status first_bad;

static void note(gg_status s)
{
    if (!racing_status(s) && atomic_fetch_add(&bad_status, 1) == 0)
        atomic_store(&first_bad, s);
}

/* ---- destroy racing every API family on the same objects --------------- */

/* The objects the destroyer replaces over and over: users read the ids and
 * use them while they may be destroyed. */
static _Atomic uint64_t shared_stream, shared_event, shared_buffer, shared_module, shared_kernel;

static void *use_everything(void *arg)
{
    (void)arg;
    uint32_t host[16] = { 0 };
    while (!atomic_load(&stop)) {
        gg_stream s = { atomic_load(&shared_stream) };
        gg_event e = { atomic_load(&shared_event) };
        gg_buffer b = { atomic_load(&shared_buffer) };
        gg_kernel k = { atomic_load(&shared_kernel) };
        note(launch_plain(k, s));
        note(gg_event_record(e, s));
        note(gg_event_query(e));
        note(gg_stream_query(s));
        note(gg_stream_wait_event(s, e));
        note(gg_stream_synchronize(s, 2000));
        note(gg_event_synchronize(e, 2000));
        /* Synchronous copies: an asynchronous one still queued when its
         * buffer is freed is the program's bug (the device faults), not a
         * race gpuguard could make safe. */
        note(gg_memcpy_htod(b, 0, host, sizeof host, GG_NO_STREAM));
        note(gg_memcpy_dtoh(host, b, 0, sizeof host, GG_NO_STREAM));
        note(gg_memset(b, 0, 0, sizeof host, GG_NO_STREAM));
        size_t bytes = 0;
        note(gg_buffer_size(b, &bytes));
        uint64_t dptr;
        note(gg_buffer_device_ptr(b, &dptr));
        gg_context ctx;
        note(gg_stream_context(s, &ctx));
        const char *name;
        note(gg_kernel_name(k, &name));
        double ms;
        uint64_t samples;
        note(gg_kernel_timing(k, &ms, &samples));
        gg_module m = { atomic_load(&shared_module) };
        gg_kernel again;
        gg_status got = gg_kernel_get(m, "noop", &again);
        note(got);
        if (got == GG_OK)
            note(gg_kernel_name(again, &name));
        char *json = NULL;
        note(gg_dump_json(&json));
        gg_free(json);
        note(gg_context_synchronize(rig.ctx, 2000));
    }
    return NULL;
}

static void replace_all(void)
{
    gg_stream s;
    gg_event e;
    gg_buffer b;
    gg_module m;
    gg_kernel k;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .tag = "raced" }, &s));
    GG_OK_(gg_event_create(rig.ctx, &(gg_event_desc){ .tag = "raced" }, &e));
    GG_OK_(gg_buffer_alloc(rig.ctx, 64, NULL, &b));
    GG_OK_(gg_module_load_file(rig.ctx, gg_test_kernel_module("core_kernels"), NULL, &m));
    GG_OK_(gg_kernel_get(m, "noop", &k));
    gg_stream old_s = { atomic_exchange(&shared_stream, s.id) };
    gg_event old_e = { atomic_exchange(&shared_event, e.id) };
    gg_buffer old_b = { atomic_exchange(&shared_buffer, b.id) };
    gg_module old_m = { atomic_exchange(&shared_module, m.id) };
    atomic_store(&shared_kernel, k.id);
    GG_OK_(gg_stream_destroy(old_s));
    GG_OK_(gg_event_destroy(old_e));
    GG_OK_(gg_buffer_free(old_b));
    GG_OK_(gg_module_unload(old_m)); /* its kernels go with it, under the users' feet */
}

Test(races, destroy_racing_every_api_family_on_the_same_objects)
{
    replace_all();
    pthread_t users[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&users[i], NULL, use_everything, NULL);
    uint64_t end = now_ms() + RUN_MS;
    unsigned rounds = 0;
    while (now_ms() < end) {
        replace_all();
        rounds++;
    }
    atomic_store(&stop, true);
    for (int i = 0; i < 3; i++)
        pthread_join(users[i], NULL);
    cr_assert_eq(atomic_load(&bad_status), 0, "%u call(s) racing a destroy returned something else than OK or "
                 "INVALID_HANDLE, first %s", atomic_load(&bad_status), gg_status_name(atomic_load(&first_bad)));
    cr_assert_gt(rounds, 0);
    GG_OK_(gg_stream_destroy((gg_stream){ atomic_load(&shared_stream) }));
    GG_OK_(gg_event_destroy((gg_event){ atomic_load(&shared_event) }));
    GG_OK_(gg_buffer_free((gg_buffer){ atomic_load(&shared_buffer) }));
    GG_OK_(gg_module_unload((gg_module){ atomic_load(&shared_module) }));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- many threads destroying the same object ---------------------------- */

typedef struct same_destroy {
    pthread_barrier_t *start;
    uint64_t id;
    int kind; /* 0 context, 1 stream, 2 buffer */
    gg_status got;
} same_destroy;

static void *destroy_same(void *arg)
{
    same_destroy *d = arg;
    pthread_barrier_wait(d->start);
    switch (d->kind) {
    case 0: d->got = gg_context_destroy((gg_context){ d->id }); break;
    case 1: d->got = gg_stream_destroy((gg_stream){ d->id }); break;
    default: d->got = gg_buffer_free((gg_buffer){ d->id }); break;
    }
    return NULL;
}

static void destroy_from_threads(int threads, int kind, uint64_t id)
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    pthread_t t[8];
    same_destroy d[8];
    for (int i = 0; i < threads; i++) {
        d[i] = (same_destroy){ &start, id, kind, GG_INVALID_ARGUMENT };
        pthread_create(&t[i], NULL, destroy_same, &d[i]);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(d[i].got, GG_OK, "destroy #%d of the same id returned %s", i, gg_status_name(d[i].got));
    }
    pthread_barrier_destroy(&start);
}

static void many_threads_destroy_the_same_objects(int threads)
{
    GG_OK_(gg_context_destroy(rig.ctx));
    uint64_t end = now_ms() + RUN_MS / 2;
    do {
        gg_context ctx;
        gg_stream s;
        gg_buffer b;
        GG_OK_(gg_context_create(0, NULL, &ctx));
        GG_OK_(gg_stream_create(ctx, &(gg_stream_desc){ .tag = "twice" }, &s));
        GG_OK_(gg_buffer_alloc(ctx, 32, NULL, &b));
        destroy_from_threads(threads, 1, s.id);
        destroy_from_threads(threads, 2, b.id);
        GG_OK_(gg_buffer_alloc(ctx, 32, NULL, &b)); /* left for the context's destroy */
        destroy_from_threads(threads, 0, ctx.id);
        uint64_t live = 1;
        GG_OK_(gg_live_objects(&live));
        cr_assert_eq(live, 0, "%llu object(s) left after the destroys", (unsigned long long)live);
        /* A record released twice would hand the same memory to both. */
        gg_context a, b2;
        GG_OK_(gg_context_create(0, NULL, &a));
        GG_OK_(gg_context_create(1, NULL, &b2));
        int dev_a = -1, dev_b = -1;
        GG_OK_(gg_context_device(a, &dev_a));
        GG_OK_(gg_context_device(b2, &dev_b));
        cr_assert_eq(dev_a, 0);
        cr_assert_eq(dev_b, 1);
        GG_OK_(gg_context_destroy(a));
        GG_OK_(gg_context_destroy(b2));
    } while (now_ms() < end);
    gg_test_finish();
}

Test(races, two_threads_destroying_the_same_context_stream_and_buffer)
{
    many_threads_destroy_the_same_objects(2);
}

Test(races, eight_threads_destroying_the_same_context_stream_and_buffer)
{
    many_threads_destroy_the_same_objects(8);
}

/* ---- stale ids racing reuse --------------------------------------------- */

/* Every buffer ever made, in order: its id and its size (unique to it),
 * written before the round is published and never changed. Readers ask for
 * the size of a recent buffer, often one freed a moment ago whose slot and
 * record were just reused: the answer is its own size or INVALID_HANDLE,
 * never another buffer's size. */
#define HISTORY (1u << 20)
static struct { uint64_t id; size_t bytes; } history[HISTORY];
static _Atomic unsigned history_published;
static _Atomic unsigned wrong_objects, checked_stale;

static void *read_sizes(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!atomic_load(&stop)) {
        unsigned last = atomic_load(&history_published);
        seed = seed * 1103515245u + 12345u;
        unsigned span = last < 4 ? last + 1 : 4;
        unsigned r = last - (seed >> 16) % span; /* the newest few, mostly freed */
        size_t bytes = 0;
        gg_status s = gg_buffer_size((gg_buffer){ history[r].id }, &bytes);
        note(s);
        if (s == GG_OK && bytes != history[r].bytes)
            atomic_fetch_add(&wrong_objects, 1);
        atomic_fetch_add(&checked_stale, 1);
    }
    return NULL;
}

Test(races, stale_ids_racing_reuse_never_return_another_object)
{
    gg_buffer b;
    GG_OK_(gg_buffer_alloc(rig.ctx, 64, NULL, &b));
    history[0].id = b.id;
    history[0].bytes = 64;
    pthread_t readers[3];
    for (uintptr_t i = 0; i < 3; i++)
        pthread_create(&readers[i], NULL, read_sizes, (void *)(i + 1));
    uint64_t end = now_ms() + RUN_MS;
    unsigned round = 1;
    for (; round < HISTORY && now_ms() < end; round++) {
        /* Free first: the next buffer takes the same slot and record. */
        GG_OK_(gg_buffer_free(b));
        GG_OK_(gg_buffer_alloc(rig.ctx, 64 + round, NULL, &b));
        history[round].id = b.id;
        history[round].bytes = 64 + round;
        atomic_store(&history_published, round);
    }
    atomic_store(&stop, true);
    for (int i = 0; i < 3; i++)
        pthread_join(readers[i], NULL);
    cr_assert_eq(atomic_load(&wrong_objects), 0, "%u stale lookup(s) of %u returned another buffer's size",
                 atomic_load(&wrong_objects), atomic_load(&checked_stale));
    cr_assert_eq(atomic_load(&bad_status), 0);
    GG_OK_(gg_buffer_free(b));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- creation at the context limit -------------------------------------- */

#define CONTEXT_LIMIT 4096
static gg_context limit_contexts[CONTEXT_LIMIT + 64];
static _Atomic unsigned limit_created, limit_refused;

/* Creators stay alive until every context is destroyed: a thread exiting
 * while the simulator's per-context threads still come and go makes
 * ThreadSanitizer mistake the reuse of its dynamic TLS (the simulator is
 * dlopen'd) for a race. */
static pthread_barrier_t limit_refused_all, limit_released_all;

static void *create_until_refused(void *arg)
{
    (void)arg;
    for (;;) {
        gg_context ctx;
        gg_status s = gg_context_create(0, NULL, &ctx);
        if (s == GG_OUT_OF_MEMORY) {
            atomic_fetch_add(&limit_refused, 1);
            break;
        }
        if (s != GG_OK) {
            note(GG_INVALID_ARGUMENT);
            break;
        }
        unsigned i = atomic_fetch_add(&limit_created, 1);
        if (i < sizeof limit_contexts / sizeof limit_contexts[0])
            limit_contexts[i] = ctx;
    }
    pthread_barrier_wait(&limit_refused_all);
    pthread_barrier_wait(&limit_released_all);
    return NULL;
}

Test(races, creating_at_the_context_limit_from_many_threads)
{
    pthread_barrier_init(&limit_refused_all, NULL, 7);
    pthread_barrier_init(&limit_released_all, NULL, 7);
    pthread_t t[6];
    for (int i = 0; i < 6; i++)
        pthread_create(&t[i], NULL, create_until_refused, NULL);
    pthread_barrier_wait(&limit_refused_all);
    cr_assert_eq(atomic_load(&bad_status), 0);
    cr_assert_eq(atomic_load(&limit_refused), 6);
    /* The rig's context is one of the 4096. */
    cr_assert_eq(atomic_load(&limit_created), CONTEXT_LIMIT - 1, "%u contexts created next to the rig's",
                 atomic_load(&limit_created));
    for (unsigned i = 0; i < atomic_load(&limit_created); i++)
        GG_OK_(gg_context_destroy(limit_contexts[i]));
    GG_OK_(gg_context_destroy(rig.ctx));
    pthread_barrier_wait(&limit_released_all);
    for (int i = 0; i < 6; i++)
        pthread_join(t[i], NULL);
    gg_test_finish();
}

/* ---- gg_shutdown racing busy threads ------------------------------------ */

static gg_stream busy_stream;
static gg_buffer busy_buffer;
static atomic_bool shutdown_returned;

static void *busy_until_shut_down(void *arg)
{
    (void)arg;
    uint32_t host[4];
    for (;;) {
        gg_status s[5] = {
            launch_plain(rig.noop, busy_stream),
            gg_stream_query(busy_stream),
            gg_memcpy_dtoh(host, busy_buffer, 0, sizeof host, busy_stream),
            gg_context_synchronize(rig.ctx, 2000),
            gg_device_count(&(int){ 0 }),
        };
        bool shut_out = false;
        for (int i = 0; i < 5; i++) {
            shut_out = shut_out || s[i] == GG_NOT_INITIALIZED;
            if (s[i] != GG_NOT_INITIALIZED)
                note(s[i]);
        }
        if (shut_out)
            break;
    }
    /* The thread exits only once gg_shutdown has returned. Exiting while
     * gg_shutdown dlcloses the driver crashed gcc 12's ThreadSanitizer
     * inside its own thread-finish code (SEGV at pc 0 in
     * ThreadContext::OnFinished, about 1 run in 13 under TSan, never without
     * it; the driver stays mapped, RTLD_NODELETE). The race under test, calls
     * against the shutdown's drain, is unchanged. */
    while (!atomic_load(&shutdown_returned))
        sched_yield();
    return NULL;
}

Test(races, shutdown_racing_busy_threads)
{
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .tag = "busy" }, &busy_stream));
    GG_OK_(gg_buffer_alloc(rig.ctx, 64, NULL, &busy_buffer));
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, busy_until_shut_down, NULL);
    struct timespec pause = { 0, 200 * 1000 * 1000 };
    nanosleep(&pause, NULL); /* let them get going; the test holds either way */
    GG_OK_(gg_shutdown());
    atomic_store(&shutdown_returned, true);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(atomic_load(&bad_status), 0, "first bad status: %s", gg_status_name(atomic_load(&first_bad)));
    GG_EXPECT(GG_NOT_INITIALIZED, gg_stream_query(busy_stream));
}

/* ---- fork while threads are inside gpuguard ----------------------------- */

static void *busy_until_stopped(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        gg_stream s;
        gg_buffer b;
        note(gg_stream_create(rig.ctx, &(gg_stream_desc){ .tag = "forked-under" }, &s));
        note(launch_plain(rig.noop, s));
        note(gg_stream_query(s));
        note(gg_buffer_alloc(rig.ctx, 64, NULL, &b));
        char *json = NULL;
        note(gg_dump_json(&json));
        gg_free(json);
        note(gg_buffer_free(b));
        note(gg_stream_destroy(s));
    }
    return NULL;
}

/* LeakSanitizer asks this at exit. A child forked while the parent's
 * threads were inside calls would report what those threads held on their
 * stacks (they do not exist in the child) as leaked: the forked children
 * skip the leak check; the parent's own check still runs. */
static volatile int in_forked_child;
int __lsan_is_turned_off(void);
__attribute__((used, visibility("default"))) int __lsan_is_turned_off(void)
{
    return in_forked_child;
}

/* The child: every call fails FORKED or is a silent release, and exit runs
 * the exit handler without blocking. alarm() turns a hang into a signal. */
static void forked_child(void)
{
    in_forked_child = 1;
    alarm(20);
    gg_stream s;
    if (gg_stream_create(rig.ctx, &(gg_stream_desc){ .tag = "child" }, &s) != GG_FORKED)
        exit(10);
    if (launch_plain(rig.noop, GG_NO_STREAM) != GG_FORKED)
        exit(11);
    char *json = NULL;
    if (gg_dump_json(&json) != GG_FORKED)
        exit(12);
    if (gg_context_state(rig.ctx) != GG_STATE_FORKED)
        exit(13);
    if (gg_module_unload(rig.module) != GG_OK || gg_context_destroy(rig.ctx) != GG_OK)
        exit(14);
    exit(0); /* through the exit handler */
}

Test(races, fork_while_four_threads_are_inside_gpuguard)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, busy_until_stopped, NULL);
    for (int i = 0; i < 100; i++) {
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
            forked_child();
        int status = 0;
        waitpid(pid, &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d ended with %s %d", i,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    atomic_store(&stop, true);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(atomic_load(&bad_status), 0);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- destroying a context that is not on top of the stack --------------- */

Test(races, destroying_a_pushed_context_below_the_top)
{
    void *raw = NULL;
    cr_assert_eq(gg_test_sim_push_raw_context(&raw), 0);
    gg_context a, b, c;
    GG_OK_(gg_context_create(0, NULL, &a));
    GG_OK_(gg_context_create(0, NULL, &b));
    GG_OK_(gg_context_create(1, NULL, &c));
    GG_OK_(gg_context_push(a));
    GG_OK_(gg_context_push(b));
    GG_OK_(gg_context_push(c));
    void *c_native = gg_test_sim_current_context();
    GG_OK_(gg_context_destroy(b));
    gg_context top;
    GG_OK_(gg_context_current(&top));
    cr_assert_eq(top.id, c.id);
    cr_assert_eq(gg_test_sim_current_context(), c_native, "destroying b changed the current context");
    /* A call on another context restores c afterwards. */
    gg_buffer buf;
    GG_OK_(gg_buffer_alloc(rig.ctx, 64, NULL, &buf));
    cr_assert_eq(gg_test_sim_current_context(), c_native);
    /* Destroying the top now leaves a current, not the destroyed b. */
    GG_OK_(gg_context_destroy(c));
    GG_OK_(gg_context_current(&top));
    cr_assert_eq(top.id, a.id);
    void *a_native = gg_test_sim_current_context();
    cr_assert_neq(a_native, c_native);
    GG_OK_(gg_buffer_free(buf));
    cr_assert_eq(gg_test_sim_current_context(), a_native, "a call did not restore a");
    gg_context popped;
    GG_OK_(gg_context_pop(&popped));
    cr_assert_eq(popped.id, a.id);
    cr_assert_eq(gg_test_sim_current_context(), raw, "the stack under gpuguard's entries was disturbed");
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_pop(&popped));
    GG_OK_(gg_context_destroy(a));
    cr_assert_eq(gg_test_sim_destroy_raw_context(raw), 0);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* ---- exit while threads are busy ---------------------------------------- */

TestSuite(races_exit);

static void *busy_forever(void *arg)
{
    gg_context ctx = *(gg_context *)arg;
    for (;;) {
        gg_stream s;
        if (gg_stream_create(ctx, &(gg_stream_desc){ .tag = "at-exit" }, &s) == GG_OK) {
            gg_stream_query(s);
            gg_stream_destroy(s);
        }
        gg_context_synchronize(ctx, 1000);
    }
    return NULL;
}

Test(races_exit, exit_while_threads_are_busy)
{
    /* In a child that initialises gpuguard itself (this test process never
     * did, so the child is not a forked copy of an initialised one). */
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        alarm(20);
        gg_init_desc desc = { 0 };
        gg_test_init_sim_desc(NULL, &desc);
        static gg_context ctx;
        if (gg_context_create(0, NULL, &ctx) != GG_OK)
            _exit(3);
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, busy_forever, &ctx);
        struct timespec pause = { 0, 100 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        exit(0); /* threads still inside gpuguard */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the exiting process ended with %s %d",
              WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}
