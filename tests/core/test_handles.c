/* The handle table: ids are refused, never followed, once stale, forged or
 * of the wrong type; slots are reused with a new generation and retired
 * before their generation wraps; lookups are safe against concurrent churn. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "common/handle.h"

static int objects[4];

Test(handles, alloc_lookup_free_roundtrip)
{
    uint64_t id = gg__handle_alloc(GG__T_STREAM, &objects[0]);
    cr_assert_neq(id, 0);
    cr_assert_eq(gg__id_type(id), GG__T_STREAM);
    cr_assert_eq(gg__handle_lookup(id, GG__T_STREAM), &objects[0]);
    gg__handle_free(id, GG__FREED_DESTROYED);
    cr_assert_null(gg__handle_lookup(id, GG__T_STREAM));
    cr_assert_eq(gg__handle_live_count(), 0);
}

Test(handles, stale_id_refused_after_slot_reuse)
{
    uint64_t old_id = gg__handle_alloc(GG__T_BUFFER, &objects[0]);
    gg__handle_free(old_id, GG__FREED_DESTROYED);
    uint64_t new_id = gg__handle_alloc(GG__T_BUFFER, &objects[1]);
    cr_assert_eq(gg__id_slot(new_id), gg__id_slot(old_id), "the freed slot is reused");
    cr_assert_neq(new_id, old_id, "with a new generation");
    cr_assert_null(gg__handle_lookup(old_id, GG__T_BUFFER));
    cr_assert_eq(gg__handle_lookup(new_id, GG__T_BUFFER), &objects[1]);
    char why[200];
    gg__handle_explain(old_id, GG__T_BUFFER, why, sizeof why);
    cr_assert(strstr(why, "stale") != NULL, "%s", why);
    gg__handle_free(new_id, GG__FREED_DESTROYED);
    cr_assert_eq(gg__handle_live_count(), 0);
}

Test(handles, wrong_type_refused_and_named)
{
    uint64_t id = gg__handle_alloc(GG__T_EVENT, &objects[0]);
    cr_assert_null(gg__handle_lookup(id, GG__T_STREAM));
    char why[200];
    gg__handle_explain(id, GG__T_STREAM, why, sizeof why);
    cr_assert(strstr(why, "expected a gg_stream id, got a gg_event id") != NULL, "%s", why);
    gg__handle_free(id, GG__FREED_DESTROYED);
    cr_assert_eq(gg__handle_live_count(), 0);
}

Test(handles, forged_ids_refused)
{
    uint64_t id = gg__handle_alloc(GG__T_KERNEL, &objects[0]);
    const uint64_t forged[] = {
        0,
        id + 1,                                         /* a slot never handed out */
        id + ((uint64_t)1 << 32),                       /* a generation from the future */
        ((uint64_t)GG__T_KERNEL << 56) | 0xffffffffu,   /* far beyond the table */
        ((uint64_t)0xee << 56) | (id & 0xffffffffffffffu), /* no such type */
        0xffffffffffffffffu,
    };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        cr_assert_null(gg__handle_lookup(forged[i], GG__T_KERNEL), "forged id %zu was followed", i);
        char why[200];
        gg__handle_explain(forged[i], GG__T_KERNEL, why, sizeof why);
        cr_assert(why[0] != '\0');
    }
    char why[200];
    gg__handle_explain(id + ((uint64_t)1 << 32), GG__T_KERNEL, why, sizeof why);
    cr_assert(strstr(why, "never issued") != NULL, "%s", why);
    gg__handle_free(id, GG__FREED_DESTROYED);
    cr_assert_eq(gg__handle_live_count(), 0);
}

Test(handles, explains_why_an_id_went_stale)
{
    uint64_t id = gg__handle_alloc(GG__T_STREAM, &objects[0]);
    gg__handle_free(id, GG__FREED_CONTEXT_RECOVERED);
    char why[200];
    gg__handle_explain(id, GG__T_STREAM, why, sizeof why);
    cr_assert(strstr(why, "its context was recovered") != NULL, "%s", why);
    cr_assert_eq(gg__handle_live_count(), 0);
}

Test(handles, slot_retired_before_generation_wraps)
{
    uint64_t id = gg__handle_alloc(GG__T_MODULE, &objects[0]);
    uint32_t slot = gg__id_slot(id);
    gg__handle_free(id, GG__FREED_DESTROYED);
    gg__handle_test_set_generation(slot, GG__GEN_MAX - 1);
    uint64_t last = gg__handle_alloc(GG__T_MODULE, &objects[1]);
    cr_assert_eq(gg__id_slot(last), slot);
    cr_assert_eq(gg__id_generation(last), GG__GEN_MAX);
    gg__handle_free(last, GG__FREED_DESTROYED);
    uint64_t next = gg__handle_alloc(GG__T_MODULE, &objects[2]);
    cr_assert_neq(gg__id_slot(next), slot, "a slot at the last generation must be retired, not reused");
    cr_assert_null(gg__handle_lookup(last, GG__T_MODULE));
    gg__handle_free(next, GG__FREED_DESTROYED);
    cr_assert_eq(gg__handle_live_count(), 0);
}

/* Threads allocate, look up and free ids of their own while others churn
 * the same slots; a lookup must only ever return the object its id named. */
#define CHURN_THREADS 4
#define CHURN_ROUNDS 20000

static void *churn(void *arg)
{
    int *mine = arg;
    uint64_t history[64] = { 0 };
    for (int i = 0; i < CHURN_ROUNDS; i++) {
        uint64_t id = gg__handle_alloc(GG__T_BUFFER, mine);
        if (id == 0)
            return (void *)1;
        if (gg__handle_lookup(id, GG__T_BUFFER) != mine)
            return (void *)2;
        uint64_t old = history[i % 64];
        void *stale = old ? gg__handle_lookup(old, GG__T_BUFFER) : NULL;
        if (stale != NULL)
            return (void *)3;
        gg__handle_free(id, GG__FREED_DESTROYED);
        history[i % 64] = id;
    }
    return NULL;
}

Test(handles, concurrent_churn_never_follows_stale_ids)
{
    pthread_t threads[CHURN_THREADS];
    static int owners[CHURN_THREADS];
    for (int i = 0; i < CHURN_THREADS; i++)
        pthread_create(&threads[i], NULL, churn, &owners[i]);
    for (int i = 0; i < CHURN_THREADS; i++) {
        void *result = NULL;
        pthread_join(threads[i], &result);
        cr_assert_null(result, "thread %d failed with code %ld", i, (long)(intptr_t)result);
    }
    cr_assert_eq(gg__handle_live_count(), 0);
}

Test(handles, many_live_ids_stay_distinct)
{
    enum { N = 100000 };
    static uint64_t ids[N];
    for (int i = 0; i < N; i++) {
        ids[i] = gg__handle_alloc(GG__T_EVENT, &objects[i % 4]);
        cr_assert_neq(ids[i], 0);
    }
    for (int i = 0; i < N; i++)
        cr_assert_eq(gg__handle_lookup(ids[i], GG__T_EVENT), &objects[i % 4]);
    for (int i = 0; i < N; i++)
        gg__handle_free(ids[i], GG__FREED_DESTROYED);
    cr_assert_eq(gg__handle_live_count(), 0);
}
