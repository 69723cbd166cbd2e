/*
 * Waits with deadlines. The driver APIs have no timed wait, and their
 * blocking synchronize calls never return on a hung queue, so a wait polls
 * the query call with backoff: spin briefly (short kernels finish within
 * microseconds), then yield, then sleep in growing steps capped at
 * GG__WAIT_MAX_SLEEP_US and at the time left, so it never sleeps past the
 * deadline by more than the scheduler's latency.
 */
#ifndef GPUGUARD_WAIT_H
#define GPUGUARD_WAIT_H

#include <stdint.h>

#include "common/call.h"

#define GG__WAIT_SPIN_POLLS 64
#define GG__WAIT_YIELD_US 200
#define GG__WAIT_MAX_SLEEP_US 1000

/* One poll: returns the driver's native code (0 done, NOT_READY pending). */
typedef int (*gg__poll_fn)(gg__call *c, void *arg);

/* Polls until done, failed, or `timeout_ms` (0 = the library default) has
 * passed. On the deadline: GG_TIMEOUT, with a message naming what was waited
 * for (`what`, followed by 'name' unless name is NULL: the text is only
 * built then) and the pending launches; the context dies unless the timeout
 * policy says not (c->timeout_policy, else the library's). Work already done costs one poll, no clock read. */
gg_status gg__wait(gg__call *c, gg__op op, gg__poll_fn poll, void *arg, uint32_t timeout_ms,
                   const char *what, const char *name);

uint64_t gg__now_ns(void);

#endif
