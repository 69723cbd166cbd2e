/*
 * Pins (hazard pointers): the lifetime rules of every object record.
 *
 * SAFETY ARGUMENT
 *
 * Objects. An object record lives in type-stable memory (object.c): it is
 * recycled only for a record of the same kind, and freed only by
 * gg_shutdown once no call is inside the library (rule S below). Its id
 * lives in two places: the handle slot (handle.c) and the record's h.id.
 *
 * Pinning (reader). A call that wants the object named by `id`:
 *   R1 reads the slot: id matches, object O (two reads; O may belong to a
 *      later id of the same slot if a free and an allocation came between);
 *   R2 publishes O in one of its thread's slots (seq_cst store);
 *   R3 re-reads the slot's id (seq_cst load) and the backend pointer, and
 *      goes on only if the id is still `id` and the library still initialised.
 * Ids are never reused (a slot's generation only grows; a slot whose
 * generation would wrap is retired), and the slot's object field is written
 * before its id is published and not changed while that id is live. So if R3
 * sees `id` again, `id` was live throughout R1..R3 and O is its object: a
 * lookup never hands out another object than the id names. R1 and R2 do not
 * dereference O; nothing does until R3 has succeeded.
 *
 * Destroying (writer). The destroy path (lifetime.c) for object O with id:
 *   W1 under the context's lock, re-checks O's h.id == id (a second destroy
 *      of the same id finds 0 and returns: exactly one caller claims O);
 *   W2 claims: clears O's h.id and the slot's id (seq_cst stores), and
 *      detaches O from its context's child list, then drops the lock;
 *   W3 waits (gg__pins_wait) until no thread's slot holds O (seq_cst loads);
 *   W4 releases the native object and recycles the record.
 * R2/R3 and W2/W3 are the two halves of a store-buffering (Dekker) pattern
 * under seq_cst: either the reader's R3 sees W2's revocation (it fails with
 * GG_INVALID_HANDLE and never touches O), or the writer's W3 sees the
 * reader's pin and waits until the reader clears it (release store; W3's
 * acquire load makes everything the reader did happen before W4). So W4
 * runs only when no call can still use O, and a record is reused only then.
 *
 * Children and their context. A call that pins a child (stream, event,
 * buffer, module, kernel) uses the child's context record through the
 * child's `context` pointer without pinning it: the context teardown claims
 * every child and then the context in one step under the context's lock,
 * waits for the context's pins (creators and context calls) and for each
 * child's pins before it frees anything, so a pinned child's context record
 * outlives the pin. The context's h.id may read 0 while a child is pinned
 * (the claim came after the pin): a call that names the child's context
 * reads its birth_id, which never changes while the record lives. A call
 * that sees the context claimed knows its children are claimed too (they
 * were revoked first). Creators pin the context and re-check, under its
 * lock, that it was not claimed; the claim happens under that lock, so a
 * child is either attached before the teardown collects the children, or
 * its creation fails.
 *
 * Waiting never happens with a lock held (W3 drops the context's lock), and
 * a pin holder never waits for a pin: destroy paths unpin their own target
 * before W3. A pin holder that blocks (a deadline wait) polls its pinned ids
 * (gg__wait) and gives up with GG_INVALID_HANDLE once one is revoked, so W3
 * is bounded by one poll, not by the deadline.
 *
 * Context locks are initialised once, when the record's memory is first
 * allocated, and never destroyed until gg_shutdown frees the pools (rule S):
 * a record being recycled keeps its lock, so a thread blocked on it (which
 * must hold a pin, and so delays the recycling) never waits on a destroyed
 * or re-initialised mutex.
 *
 * S (shutdown). gg_shutdown clears the backend pointer (seq_cst) and waits
 * until no slot anywhere is set (gg__pins_wait_all); a call that pins
 * afterwards sees the cleared pointer at R3 and fails with
 * GG_NOT_INITIALIZED. Calls that touch no object pin a sentinel for their
 * duration (gg__call_open). Only then are records released and pools freed.
 * A call's second pin, taken while its first (which saw the backend set at
 * its R3) is still held, re-checks only the id (gg__lookup_second): the
 * first pin already makes gg_shutdown wait for the whole call, and the
 * records are released only after that wait, each by W2/W3, which the id
 * re-check covers.
 *
 * Fork. In a child only the forking thread exists: the atfork child handler
 * forgets every other thread's pins (they will never be cleared), and the
 * child's paths never wait for pins anyway (lifetime.c: a forked child's
 * release touches no record lock).
 *
 * Pin records themselves are never freed: a record whose thread exited is
 * taken over by the next new thread, so the registry is as long as the
 * largest number of threads that were inside gpuguard at once.
 */
#include "base/alloc.h"
#include "common/pin.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Thread_local gg__pin_record *gg__pins_mine __attribute__((tls_model("initial-exec")));

_Atomic(gg__pin_record *) gg__pins_registry; /* pin.h */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* A thread exiting gives its record back (its slots are clear: every call
 * clears what it pinned before returning). */
static void on_thread_exit(void *arg)
{
    gg__pin_record *p = arg;
    for (unsigned k = 0; k < GG__PIN_SLOTS; k++)
        atomic_store_explicit(&p->slot[k], NULL, memory_order_release);
    gg__pins_mine = NULL;
    atomic_store_explicit(&p->taken, false, memory_order_release);
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

gg__pin_record *gg__pins_attach(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    gg__pin_record *p;
    for (p = atomic_load_explicit(&gg__pins_registry, memory_order_acquire); p != NULL; p = p->next) {
        bool expected = false;
        if (!atomic_load_explicit(&p->taken, memory_order_relaxed) &&
            atomic_compare_exchange_strong(&p->taken, &expected, true))
            break;
    }
    if (p == NULL) {
        p = gg__aligned_alloc(64, sizeof *p);
        if (p == NULL)
            return NULL; /* the caller's pin fails: OUT_OF_MEMORY */
        memset(p, 0, sizeof *p);
        atomic_store_explicit(&p->taken, true, memory_order_relaxed);
        gg__pin_record *head = atomic_load_explicit(&gg__pins_registry, memory_order_relaxed);
        do
            p->next = head;
        while (!atomic_compare_exchange_weak_explicit(&gg__pins_registry, &head, p, memory_order_release,
                                                      memory_order_relaxed));
    }
    gg__pins_mine = p;
    pthread_setspecific(exit_key, p);
    return p;
}

/* Back-off while another thread finishes a call: spin a little, then yield,
 * then sleep in short steps (the holder may be descheduled on a loaded
 * machine; it is never blocked on us). */
static void back_off(unsigned round)
{
    if (round < 64)
        return;
    if (round < 1024) {
        sched_yield();
        return;
    }
    struct timespec ts = { 0, 50000 };
    nanosleep(&ts, NULL);
}

void gg__pins_wait(const void *object)
{
    for (unsigned round = 0; gg__pins_held(object); round++)
        back_off(round);
}

static bool any_pin(void)
{
    for (gg__pin_record *p = atomic_load_explicit(&gg__pins_registry, memory_order_acquire); p != NULL; p = p->next)
        for (unsigned k = 0; k < GG__PIN_SLOTS; k++)
            if (atomic_load_explicit(&p->slot[k], memory_order_seq_cst) != NULL)
                return true;
    return false;
}

bool gg__pins_wait_all(unsigned limit_ms)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (unsigned round = 0; any_pin(); round++) {
        back_off(round);
        if (limit_ms != 0 && (round & 63) == 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long ms = (now.tv_sec - start.tv_sec) * 1000LL + (now.tv_nsec - start.tv_nsec) / 1000000;
            if (ms >= limit_ms)
                return false;
        }
    }
    return true;
}

void gg__pins_after_fork_child(void)
{
    gg__pin_record *mine = gg__pins_mine;
    for (gg__pin_record *p = atomic_load_explicit(&gg__pins_registry, memory_order_relaxed); p != NULL; p = p->next) {
        if (p == mine)
            continue;
        for (unsigned k = 0; k < GG__PIN_SLOTS; k++)
            atomic_store_explicit(&p->slot[k], NULL, memory_order_relaxed);
        atomic_store_explicit(&p->taken, false, memory_order_relaxed);
    }
}
