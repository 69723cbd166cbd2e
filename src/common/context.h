/* Contexts: their death, their waits, their creation (context.c); their
 * state is context_state.h's, the table of live ones context_table.h's. The call protocol is call.h's; this is what the
 * protocol and the kinds ask of a context. */
#ifndef GPUGUARD_CONTEXT_H
#define GPUGUARD_CONTEXT_H

#include "common/call.h"
#include "common/context_state.h"
#include "common/context_table.h"

/* Marks the context DEAD with this cause (first cause wins). */
void gg__context_kill(gg__call *c, gg__context *ctx, gg_status status, gg__op op, int native,
                      const char *message);

/* Waits for all work of an entered context under a deadline. */
gg_status gg__context_wait(gg__call *c, gg__context *ctx, uint32_t timeout_ms);
/* Makes the record of native context `native` on `device` and publishes
 * its id into *out_id. `adopt` NULL: gpuguard made the native context, and
 * destroys it if the record cannot be made; otherwise it was adopted
 * (gg_context_adopt, interop.c) and stays its owner's on failure. Called
 * inside an open call; does not leave it. */
gg_status gg__context_register(gg__call *c, int device, const gg_context_desc *d, gg__nctx native,
                               const gg_adopt_desc *adopt, uint64_t *out_id);

#endif /* GPUGUARD_CONTEXT_H */
