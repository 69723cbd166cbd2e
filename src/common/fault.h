/*
 * The fault gate, which every driver call of the call protocol (call.h) goes
 * through: gg__drv, below. With no plan loaded, gg__fault_armed() is one
 * relaxed load of a flag that is false. A layer above call.h (the gate
 * reads the call's record; gg_fault_set_plan and its kin are calls), so
 * call.h does not include this header: whoever calls the driver does.
 */
#ifndef GPUGUARD_FAULT_H
#define GPUGUARD_FAULT_H

#include <stdatomic.h>
#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

#include "common/backend.h"
#include "common/call.h"

/* Hidden (see gg__lib): read by the gate of every driver call. */
extern atomic_bool gg__fault_plan_loaded __attribute__((visibility("hidden")));

static inline bool gg__fault_armed(void)
{
    return atomic_load_explicit(&gg__fault_plan_loaded, memory_order_relaxed);
}

struct gg__call;
/* Returns 0 to let the call through, or the native code to return instead. */
int gg__fault_gate(struct gg__call *c, gg__op op);

/* Parses and arms a plan; on error, `message` names the rule and field. */
gg_status gg__fault_load_plan(const char *json, char *message, size_t message_size);
void gg__fault_clear_plan(void);
/* Forgets an async error latched on a context that is destroyed or recovered. */
struct gg__context;
void gg__fault_context_released(struct gg__context *ctx);
/* The counts as JSON text (malloc'd), and GPUGUARD_FAULT_REPORT's writer
 * (to `path`; "" writes nothing), which states `live_objects` as what was
 * alive (counted before the releases at exit or gg_shutdown, written after
 * them), and `written_at` ("exit", "gg_shutdown", "gg_init failed"). A
 * failed gg_init writes one too, so that a sweep sees the host allocation it
 * failed there (its "plan" is null: none was loaded). */
char *gg__fault_counts_text(void);
void gg__fault_write_report(const char *path, uint64_t live_objects, const char *written_at);

/* Takes (true) or releases (false) this file's global locks (fork
 * handlers: library.c's gg__global_locks). */
void gg__fault_lock(bool take);

/* The fault gate: every backend call goes through it. With no plan it is one
 * predictable branch; with one, it may return an injected native code.
 * GG_BENCH_NO_FAULT_GATE (bench/: the gg_bench_nogate build only) compiles
 * the gate out, to measure what it costs when no plan is loaded. */
#ifndef GG_BENCH_NO_FAULT_GATE
#define gg__drv(c, op, expr)                                                        \
    ((GG__UNLIKELY(gg__fault_armed()) && ((c)->injected = gg__fault_gate((c), (op))) != 0) \
         ? (c)->injected                                                           \
         : (expr))
#else
#define gg__drv(c, op, expr) ((void)(c), (void)(op), (expr))
#endif

#endif
