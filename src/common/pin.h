/*
 * Pins: what keeps an object alive while a call uses it (hazard pointers).
 * The safety argument is at the top of pin.c.
 *
 * Every thread owns one gg__pin_record with GG__PIN_SLOTS slots. A call that
 * looks an object up publishes the object's address in one of its slots and
 * then re-checks that the id is still live; a destroy first revokes the id,
 * then waits until no slot anywhere holds the object, and only then releases
 * the native object and recycles the record. Publishing is one fenced store;
 * clearing is a plain release store: no shared counter is written on the hot
 * paths, so threads that use different objects never share a cache line.
 */
#ifndef GPUGUARD_PIN_H
#define GPUGUARD_PIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pins per call (one 64-byte record per thread that ever called in). The
 * most a call takes is three; a fifth is refused with GG_INTERNAL, never
 * written past the record (crossed by tests/core/test_bounds.c). */
#define GG__PIN_SLOTS 4

typedef struct gg__pin_record {
    _Atomic(void *) slot[GG__PIN_SLOTS];
    _Atomic bool taken;                  /* owned by a live thread */
    struct gg__pin_record *next;         /* registry link: set once, before publication */
} __attribute__((aligned(64))) gg__pin_record;

/* The calling thread's record, NULL until its first pin. Initial-exec TLS:
 * one instruction on the hot paths (a few bytes of the static TLS surplus
 * glibc keeps for libraries loaded with dlopen). */
extern _Thread_local gg__pin_record *gg__pins_mine __attribute__((tls_model("initial-exec")));

/* Attaches a record to the calling thread (first pin of the thread); NULL
 * when out of memory. */
gg__pin_record *gg__pins_attach(void);

static inline gg__pin_record *gg__pins(void)
{
    gg__pin_record *p = gg__pins_mine;
    return __builtin_expect(p != NULL, 1) ? p : gg__pins_attach();
}

/* Publishes `object` in slot k; the caller then re-checks the object's id
 * (a sequentially consistent load, pairing with gg__pins_wait's). */
static inline void gg__pin_publish(gg__pin_record *p, unsigned k, void *object)
{
    atomic_store_explicit(&p->slot[k], object, memory_order_seq_cst);
}

static inline void gg__pin_clear(gg__pin_record *p, unsigned k)
{
    atomic_store_explicit(&p->slot[k], NULL, memory_order_release);
}

/* Every thread's record, newest first (pin.c: records are pushed, never
 * removed or freed). Declared here only for gg__pins_held, inline below:
 * every destroy scans it once. */
extern _Atomic(gg__pin_record *) gg__pins_registry;

/* True when some thread's slot holds `object`. The four slots of a record
 * straight-line: the same seq_cst loads, in the same order, without a loop
 * counter. */
static inline bool gg__pins_held(const void *object)
{
    _Static_assert(GG__PIN_SLOTS == 4, "gg__pins_held reads four slots a record");
    for (gg__pin_record *p = atomic_load_explicit(&gg__pins_registry, memory_order_acquire); p != NULL; p = p->next)
        if (atomic_load_explicit(&p->slot[0], memory_order_seq_cst) == object ||
            atomic_load_explicit(&p->slot[1], memory_order_seq_cst) == object ||
            atomic_load_explicit(&p->slot[2], memory_order_seq_cst) == object ||
            atomic_load_explicit(&p->slot[3], memory_order_seq_cst) == object)
            return true;
    return false;
}

/* Waits until no thread holds `object` (its id has been revoked first, so
 * no new pin can succeed). Never called with a lock held: a pin holder may
 * be waiting for that lock. */
void gg__pins_wait(const void *object);

/* Waits until no thread holds any pin at all (gg_shutdown, process exit,
 * after the backend pointer was cleared). Returns false if some pin was
 * still held after `limit_ms` (0: wait for ever). */
bool gg__pins_wait_all(unsigned limit_ms);

/* Forked child: the other threads are gone; their records are freed for
 * reuse and their pins forgotten (atfork child handler, single-threaded). */
void gg__pins_after_fork_child(void);

#endif /* GPUGUARD_PIN_H */
