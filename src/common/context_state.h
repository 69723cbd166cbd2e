/* A context's state as a call sees it: ALIVE, DEAD, or FORKED (derived
 * from the fork generation). A header of its own below the call protocol:
 * the protocol refuses DEAD and FORKED contexts (call.c), and so do the
 * stack, the destroy path and attribution, all of which sit below the
 * context's own module (context.c, which makes calls). */
#ifndef GPUGUARD_CONTEXT_STATE_H
#define GPUGUARD_CONTEXT_STATE_H

#include <stdatomic.h>

#include "common/fork.h"
#include "common/object.h"

/* Context state, FORKED derived from the fork generation. (Inline: the
 * create and destroy paths ask it under the context's lock.) */
static inline gg_state gg__context_state(const gg__context *ctx)
{
    if (ctx->fork_generation != gg__fork_generation_now())
        return GG_STATE_FORKED;
    return atomic_load_explicit(&ctx->state, memory_order_acquire) == GG__CTX_DEAD ? GG_STATE_DEAD
                                                                                  : GG_STATE_ALIVE;
}

#endif /* GPUGUARD_CONTEXT_STATE_H */
