/* Threads and the context stack: calls restore the caller's current context
 * on success and on error; the stack API mirrors the driver's; many threads
 * launching while one context dies see clean errors (run under TSan too). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

TestSuite(threads_stack, .init = setup);

Test(threads_stack, calls_restore_the_callers_current_context)
{
    void *raw = NULL;
    cr_assert_eq(gg_test_sim_push_raw_context(&raw), 0);
    cr_assert_eq(gg_test_sim_current_context(), raw);
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf));
    cr_assert_eq(gg_test_sim_current_context(), raw, "success path changed the current context");
    /* An error from the driver after the switch (a grid over the limits). */
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.noop, .grid = { 1u << 31, 1u << 20, 1 }, .block = { 1, 1, 1 } };
    cr_assert_neq(gg_launch(&d), GG_OK);
    cr_assert_eq(gg_test_sim_current_context(), raw, "error path changed the current context");
    GG_OK_(gg_buffer_destroy(buf));
    cr_assert_eq(gg_test_sim_destroy_raw_context(raw), 0);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(threads_stack, push_and_pop_mirror_the_driver_stack)
{
    gg_context other;
    GG_OK_(gg_context_create(0, NULL, &other));
    void *before = gg_test_sim_current_context();
    GG_OK_(gg_context_push(rig.ctx));
    GG_OK_(gg_context_push(other));
    gg_context top;
    GG_OK_(gg_context_current(&top));
    cr_assert_eq(top.id, other.id);
    gg_context popped;
    GG_OK_(gg_context_pop(&popped));
    cr_assert_eq(popped.id, other.id);
    GG_OK_(gg_context_pop(&popped));
    cr_assert_eq(popped.id, rig.ctx.id);
    cr_assert_eq(gg_test_sim_current_context(), before);
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_context_pop(&popped));
    cr_assert(strstr(gg_test_last_message(), "empty") != NULL);
    GG_OK_(gg_context_destroy(other));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

static void *exit_with_pushed_context(void *arg)
{
    gg_context *ctx = arg;
    return (void *)(intptr_t)gg_context_push(*ctx);
}

Test(threads_stack, a_thread_exiting_with_a_pushed_context_is_unwound)
{
    unsigned long long pops = gg_test_sim_call_count(gg_test_backend_in_use()->fn_context_pop);
    pthread_t t;
    pthread_create(&t, NULL, exit_with_pushed_context, &rig.ctx);
    void *result;
    pthread_join(t, &result);
    cr_assert_eq((gg_status)(intptr_t)result, GG_OK);
    cr_assert_gt(gg_test_sim_call_count(gg_test_backend_in_use()->fn_context_pop), pops,
                 "the exiting thread's stack was not unwound");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

#define WORKERS 4
#define ROUNDS 200

typedef struct worker_result {
    int ok, dead, sticky, other;
    gg_status other_status;
} worker_result;

static void *launch_and_sync(void *arg)
{
    worker_result *r = arg;
    gg_stream stream;
    if (gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "worker" }, &stream) != GG_OK) {
        r->dead++;
        return NULL;
    }
    for (int i = 0; i < ROUNDS; i++) {
        gg_status s = launch_plain(rig.noop, stream);
        if (s == GG_OK)
            s = gg_stream_synchronize(stream, GG_WAIT_MS(5000));
        if (s == GG_OK)
            r->ok++;
        else if (s == GG_CONTEXT_DEAD)
            r->dead++;
        else if (s == GG_ILLEGAL_ADDRESS)
            r->sticky++;
        else {
            r->other++;
            r->other_status = s;
        }
    }
    gg_stream_destroy(stream);
    return NULL;
}

Test(threads_stack, many_threads_see_clean_errors_while_a_context_dies)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf));
    pthread_t threads[WORKERS];
    worker_result results[WORKERS];
    memset(results, 0, sizeof results);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&threads[i], NULL, launch_and_sync, &results[i]);
    uint64_t dptr;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    GG_OK_(launch_touch(&rig, GG_NO_STREAM, dptr, 1u << 30));
    gg_status s = gg_context_synchronize(rig.ctx, GG_WAIT_MS(5000));
    cr_assert(s == GG_ILLEGAL_ADDRESS || s == GG_CONTEXT_DEAD, "got %s", gg_status_name(s));
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_DEAD);
    for (int i = 0; i < WORKERS; i++) {
        cr_assert_eq(results[i].other, 0, "worker %d saw %s", i, gg_status_name(results[i].other_status));
        bool never_started = results[i].dead == 1 && results[i].ok == 0 && results[i].sticky == 0;
        cr_assert(never_started || results[i].ok + results[i].dead + results[i].sticky == ROUNDS,
                  "worker %d: %d ok, %d dead, %d sticky", i, results[i].ok, results[i].dead, results[i].sticky);
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
