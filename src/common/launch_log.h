/*
 * A stream's launch log (object.h's gg__launch_log): the records of its
 * launches and what is known of their completion, observed or read from
 * the stream's completion timeline (timeline.c). A module of its own below
 * attribution (which reads the logs to name a culprit), so that the
 * timeline, the departed contexts' bookkeeping and the live-context table
 * can ask whether a log's work is done without depending on attribution.
 */
#ifndef GPUGUARD_LAUNCH_LOG_H
#define GPUGUARD_LAUNCH_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/object.h"

/* Records a launch just accepted by the driver (hot path: no lock, no
 * allocation). Returns its position on the stream, 0-based. */
static inline uint64_t gg__launch_log_record(gg__launch_log *log, uint64_t sequence, const char *kernel_name)
{
    uint64_t index = atomic_fetch_add_explicit(&log->submitted, 1, memory_order_relaxed);
    gg__launch_record *r = &log->ring[index & log->records_mask];
    atomic_store_explicit(&r->kernel_name, kernel_name, memory_order_relaxed);
    atomic_store_explicit(&r->sequence, sequence, memory_order_release);
    return index;
}

/* Gives a log its record array (gg__lib.config.launch_records of them):
 * false when out of host memory. */
bool gg__launch_log_open(gg__launch_log *log);
/* Frees the record array (NULL: nothing). */
void gg__launch_log_close(gg__launch_log *log);

static inline uint64_t gg__launch_log_submitted(gg__launch_log *log)
{
    return atomic_load_explicit(&log->submitted, memory_order_acquire);
}

/* How many launches of the log its completion timeline says are complete
 * (32-bit timelines hold the low half: the full count is the one below
 * `submitted` with that low half, valid while fewer than 2^32 launches of
 * the stream are unfinished); false when it has none, or one not trusted. */
bool gg__launch_log_timeline(gg__launch_log *log, bool wide, uint64_t submitted, uint64_t *done);
/* Every launch of the log is known complete: observed, or by its timeline. */
bool gg__launch_log_all_done(gg__launch_log *log, bool wide);

/* Everything submitted before `submitted_mark` is now known complete (a
 * query's success path: one load when nothing new was launched). */
static inline void gg__launch_log_observe(gg__launch_log *log, uint64_t submitted_mark)
{
    uint64_t seen = atomic_load_explicit(&log->completed, memory_order_relaxed);
    while (seen < submitted_mark &&
           !atomic_compare_exchange_weak_explicit(&log->completed, &seen, submitted_mark,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}

#endif /* GPUGUARD_LAUNCH_LOG_H */
