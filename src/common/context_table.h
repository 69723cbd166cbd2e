/* The table of live contexts (context_table.c): for gg_shutdown, the exit
 * report, gg_objects_json, the poison walk (poison.c) and attribution's
 * sharers of a native context. A module of its own below context.c, since
 * the destroy path (lifetime.c), poison.c and attribution.c walk it and
 * context.c uses all three. */
#ifndef GPUGUARD_CONTEXT_TABLE_H
#define GPUGUARD_CONTEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/context_state.h"
#include "common/state.h"

/* Live contexts at most (this table; the snapshots of report.c and
 * lifetime.c are this size): 32 KiB of table. Past it gg_context_create
 * and gg_context_adopt return GG_OUT_OF_MEMORY saying "too many contexts"
 * (crossed by tests/core/test_bounds.c). */
#define GG__CONTEXTS_MAX 4096
/* Copies the ids of up to `max` live contexts into out; returns how many. */
size_t gg__contexts_snapshot(uint64_t *out, size_t max);
/* Other live gg contexts on ctx's native context (HIP: the device's; CUDA:
 * a primary context) with launches not known complete: how many, the first
 * one's label into `label`. A context or list that could not be locked
 * there and then counts. Caller holds ctx->lock. */
uint32_t gg__context_sharers_busy(gg__context *ctx, char *label, size_t size);
/* Marks every other live gg context DEAD with GG_PROCESS_POISONED naming
 * `cause` (dead's death: poison.h). Locks by trylock only, retried a
 * while: the caller may hold dead's lock; a context whose lock stays busy
 * is skipped. Returns how many were marked. */
size_t gg__contexts_poison_others(gg__context *dead, const gg_error_info *cause);
/* Marks ctx DEAD with GG_PROCESS_POISONED naming `cause`, when it is
 * ALIVE; true when it did. Caller holds ctx->lock. */
bool gg__context_mark_poisoned(gg__context *ctx, const gg_error_info *cause);

/* The id of the live gg context on native context `native`, or 0 when
 * there is none (takes the live-context table's lock). */
uint64_t gg__context_of_native(gg__nctx native);

/* The live-context table: adds a new context (false when GG__CONTEXTS_MAX
 * are live), removes a claimed one. */
bool gg__context_list_add(gg__context *ctx);
void gg__context_list_remove(gg__context *ctx);

/* Takes (true) or releases (false) the live-context table's lock (fork
 * handlers: library.c's gg__global_locks). */
void gg__context_list_lock(bool take);

#endif /* GPUGUARD_CONTEXT_TABLE_H */
