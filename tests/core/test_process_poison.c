/* Sticky errors that reach the whole process (poison.h; measured on CUDA:
 * docs/DRIVER-FACTS.md). The first sticky death poisons the process: every
 * other gg context dies with it at once, naming it, and makes no driver
 * call after; recover and create are refused with GG_PROCESS_POISONED.
 * The scope is set here with GPUGUARD_STICKY_SCOPE, so these tests hold
 * whatever the simulator's own "sticky_scope" says; the simulator's own
 * process-wide answers are checked in tests/sim and against the H100's
 * (sim_sticky_probe_matches_h100). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/launches.h"

static gg_test_rig rig;      /* device 1: the context that faults */
static gg_context bystander; /* device 0 */

static void open_two_contexts(const char *scope)
{
    setenv("GPUGUARD_STICKY_SCOPE", scope, 1);
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "bystander" }, &bystander));
}

static void process_scope(void)
{
    open_two_contexts("process");
}

static void context_scope(void)
{
    /* The simulator too: its CUDA faces keep errors for the whole process
     * unless told otherwise. */
    setenv("GPUGUARD_STICKY_SCOPE", "context", 1);
    gg_test_init_sim("{" PER_CONTEXT_STICKY "}");
    gg_test_rig_open(&rig, 1);
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "bystander" }, &bystander));
}

static void finish(void)
{
    GG_OK_(gg_context_destroy(bystander));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
    unsetenv("GPUGUARD_STICKY_SCOPE");
}

TestSuite(process_poison, .init = process_scope);

Test(process_poison, a_sticky_death_kills_every_other_context_at_once)
{
    gg_buffer buf, spare;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    GG_OK_(gg_buffer_create(bystander, 64, NULL, &spare));
    kill_with_illegal_address(&rig, buf);

    /* The faulting context keeps its own culprit. */
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.status, GG_ILLEGAL_ADDRESS);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT);
    cr_assert_str_eq(death.culprit.kernel_name, "touch");

    /* The bystander died with it, before any call of its own. */
    cr_assert_eq(gg_context_state(bystander), GG_STATE_DEAD);
    gg_error_info poisoned = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(bystander, &poisoned));
    cr_assert_eq(poisoned.status, GG_PROCESS_POISONED);
    cr_assert_eq(poisoned.native_code, 700);
    cr_assert_eq(poisoned.culprit.certainty, GG_ATTRIBUTION_NONE, "the launch that killed it is not its own");
    cr_assert_eq(poisoned.context.id, bystander.id);
    cr_assert(strstr(poisoned.message, "every context of the process") != NULL, "%s", poisoned.message);
    cr_assert(strstr(poisoned.message, "touch") != NULL, "the first death's culprit is named: %s",
              poisoned.message);

    /* It fails fast, and cleans up, without reaching the driver. */
    unsigned long long before = gg_test_sim_total_calls();
    gg_buffer late;
    GG_EXPECT(GG_CONTEXT_DEAD, gg_buffer_create(bystander, 64, NULL, &late));
    GG_EXPECT(GG_CONTEXT_DEAD, gg_context_synchronize(bystander, NULL));
    cr_assert(strstr(gg_test_last_message(), "died earlier with GG_PROCESS_POISONED") != NULL, "%s",
              gg_test_last_message());
    GG_OK_(gg_buffer_destroy(spare));
    cr_assert_eq(gg_test_sim_total_calls(), before, "a poisoned context reached the driver");
    finish();
}

Test(process_poison, recover_and_create_are_refused_naming_the_first_death)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    kill_with_illegal_address(&rig, buf);

    unsigned long long before = gg_test_sim_total_calls();
    GG_EXPECT(GG_PROCESS_POISONED, gg_context_recover(rig.ctx));
    cr_assert(strstr(gg_test_last_message(), "only a new process") != NULL, "%s", gg_test_last_message());
    cr_assert(strstr(gg_test_last_message(), gg_test_backend_in_use()->illegal_address_name) != NULL, "%s",
              gg_test_last_message());
    GG_EXPECT(GG_PROCESS_POISONED, gg_context_recover(bystander));
    gg_context fresh = { 0 };
    GG_EXPECT(GG_PROCESS_POISONED, gg_context_create(0, NULL, &fresh));
    cr_assert_eq(fresh.id, 0);
    cr_assert_eq(gg_test_sim_total_calls(), before, "a refusal reached the driver");
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_DEAD);
    finish();
}

Test(process_poison, an_injected_sticky_fault_poisons_the_process_too)
{
    GG_OK_(gg_fault_set_plan("[{\"op\":\"launch\",\"kernel\":\"noop\",\"nth\":1,\"error\":\"illegal_address\"}]"));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, launch_plain(rig.noop, GG_NO_STREAM));
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_DEAD);
    cr_assert_eq(gg_context_state(bystander), GG_STATE_DEAD);
    GG_EXPECT(GG_PROCESS_POISONED, gg_context_recover(rig.ctx));
    finish();
}

Test(process_poison, a_deadline_does_not_poison)
{
    /* gpuguard's own deadline kills the context it waited on, and no other:
     * the driver saw no error. */
    gg_stream stream;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "slow" }, &stream));
    GG_OK_(launch_sleep(&rig, stream, 2000));
    GG_EXPECT(GG_TIMEOUT, gg_stream_synchronize(stream, GG_WAIT_MS(50)));
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_DEAD);
    cr_assert_eq(gg_context_state(bystander), GG_STATE_ALIVE);
    GG_OK_(gg_context_recover(rig.ctx));
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    finish();
}

TestSuite(process_poison_off, .init = context_scope);

Test(process_poison_off, context_scope_keeps_the_error_to_its_context)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    kill_with_illegal_address(&rig, buf);
    cr_assert_eq(gg_context_state(bystander), GG_STATE_ALIVE);
    gg_buffer other;
    GG_OK_(gg_buffer_create(bystander, 64, NULL, &other));
    GG_OK_(gg_buffer_destroy(other));
    finish();
}

Test(process_poison_scope, a_bad_scope_is_refused_naming_the_variable)
{
    setenv("GPUGUARD_STICKY_SCOPE", "device", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim" };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "GPUGUARD_STICKY_SCOPE='device' is not one of auto, process, context") !=
              NULL, "%s", gg_test_last_message());
    unsetenv("GPUGUARD_STICKY_SCOPE");
}

/* ---- The poison racing other threads' calls, creates and destroys ------
 *
 * Four threads compute in contexts of their own, destroying and creating
 * them as they go, while the main thread's context dies of an injected
 * sticky fault. Every thread must meet the poison (a call answering
 * GG_CONTEXT_DEAD, or a create answering GG_PROCESS_POISONED) well before
 * its time runs out: a context that escaped the poison (created while the
 * walk over the contexts ran) would compute on until then. */

#define RACERS 4
#define RACE_SECONDS 10.0

typedef struct racer {
    int device;
    gg_status last; /* the status that stopped it; GG_OK: it ran out of time */
    int rounds;
} racer;

static atomic_int racers_ready;
static atomic_bool race_go;

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *race_work(void *arg)
{
    racer *w = arg;
    gg_context ctx = { 0 };
    gg_status st = gg_context_create(w->device, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "racer" }, &ctx);
    atomic_fetch_add(&racers_ready, 1);
    while (!atomic_load(&race_go))
        ;
    double end = seconds_now() + RACE_SECONDS;
    while (st == GG_OK && seconds_now() < end) {
        w->rounds++;
        if (ctx.id == 0 && (st = gg_context_create(w->device, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "again" }, &ctx)) != GG_OK)
            break;
        gg_buffer b;
        if ((st = gg_buffer_create(ctx, 256, NULL, &b)) != GG_OK)
            break;
        st = gg_memset(b, 0, 1, 256, GG_NO_STREAM);
        if (st == GG_OK)
            st = gg_context_synchronize(ctx, NULL);
        gg_buffer_destroy(b);
        if (st == GG_OK && w->rounds % 7 == 3) {
            st = gg_context_destroy(ctx);
            ctx.id = 0;
        }
    }
    w->last = st;
    if (ctx.id != 0)
        gg_context_destroy(ctx);
    return NULL;
}

Test(process_poison, the_poison_reaches_contexts_racing_it, .timeout = 60)
{
    if (gg_test_backend_in_use()->hip)
        cr_skip_test("HIP: a device has one context, which two racers on one device would share (a destroy of "
                     "one resets it under the other); the walk the test races is CUDA's case");
    atomic_store(&racers_ready, 0);
    atomic_store(&race_go, false);
    racer w[RACERS];
    pthread_t t[RACERS];
    for (int i = 0; i < RACERS; i++) {
        w[i] = (racer){ .device = i % 2 };
        cr_assert_eq(pthread_create(&t[i], NULL, race_work, &w[i]), 0);
    }
    while (atomic_load(&racers_ready) < RACERS)
        ;
    atomic_store(&race_go, true);
    nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
    GG_OK_(gg_fault_set_plan("[{\"op\":\"launch\",\"kernel\":\"noop\",\"nth\":1,\"error\":\"illegal_address\"}]"));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, launch_plain(rig.noop, GG_NO_STREAM));
    for (int i = 0; i < RACERS; i++)
        cr_assert_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < RACERS; i++)
        cr_assert(w[i].last == GG_CONTEXT_DEAD || w[i].last == GG_PROCESS_POISONED,
                  "racer %d stopped with %s after %d rounds (GG_OK: it computed on, unpoisoned, until its time ran "
                  "out)", i, gg_status_name(w[i].last), w[i].rounds);
    finish();
}

/* ---- auto: gpuguard asks the simulator for its scope --------------------
 *
 * No GPUGUARD_STICKY_SCOPE: gpuguard takes the simulator's own answer
 * (gg_sim_sticky_scope): its CUDA faces default to "process", as the
 * measured driver; its HIP face keeps errors per device context. */
static void auto_scope(void)
{
    unsetenv("GPUGUARD_STICKY_SCOPE");
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "bystander" }, &bystander));
}

TestSuite(process_poison_auto, .init = auto_scope);

Test(process_poison_auto, the_scope_is_the_simulators_own)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    kill_with_illegal_address(&rig, buf);
    if (gg_test_backend_in_use()->hip) {
        cr_assert_eq(gg_context_state(bystander), GG_STATE_ALIVE);
        GG_OK_(gg_context_recover(rig.ctx));
    } else {
        cr_assert_eq(gg_context_state(bystander), GG_STATE_DEAD);
        GG_EXPECT(GG_PROCESS_POISONED, gg_context_recover(rig.ctx));
    }
    finish();
}

/* The other context meets the error first: B waits on its own long sleep
 * while A's kernel faults. B's unfinished launch is no culprit (the fault
 * was A's): with the error reaching every context of the process, B's
 * death names none of its own launches, and says why. */
Test(process_poison_auto, a_context_that_meets_anothers_fault_first_blames_none_of_its_launches, .timeout = 30)
{
    if (gg_test_backend_in_use()->hip)
        cr_skip_test("the HIP face keeps errors per device context: B on another device never meets A's fault");
    gg_test_rig b;
    gg_test_rig_open(&b, 0);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t dptr = 0;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    gg_stream sa, sb;
    GG_OK_(gg_stream_create(rig.ctx, NULL, &sa));
    GG_OK_(gg_stream_create(b.ctx, NULL, &sb));
    GG_OK_(launch_sleep(&rig, sa, 100));
    GG_OK_(launch_touch(&rig, sa, dptr, 1u << 30)); /* A's: faults after 100 ms */
    GG_OK_(launch_sleep(&b, sb, 2000));              /* B's: unfinished when it does */
    gg_status st = gg_stream_synchronize(sb, GG_WAIT_MS(5000));
    cr_assert_eq(st, GG_ILLEGAL_ADDRESS, "%s", gg_test_last_message());
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(b.ctx, &death));
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_NONE, "B's sleep must not be blamed: %s", death.message);
    cr_assert(strstr(death.message, "a sticky error reaches every context of the process") != NULL, "%s",
              death.message);
    /* A died with it, of the poison, and fails fast. */
    GG_EXPECT(GG_CONTEXT_DEAD, gg_stream_synchronize(sa, GG_WAIT_MS(5000)));
    GG_OK_(gg_context_destroy(b.ctx));
    finish();
}
