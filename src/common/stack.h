/* The calling thread's stack of current contexts (stack.c). */
#ifndef GPUGUARD_STACK_H
#define GPUGUARD_STACK_H

#include "common/call.h"

/* Removes the context from the calling thread's stack, ours and the
 * driver's, wherever it is in it (stack.c). */
void gg__context_unwind_stacks(gg__call *c, gg__context *ctx);

#endif /* GPUGUARD_STACK_H */
