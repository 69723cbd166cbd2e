/* A stream's launch log: its record array, and whether its launches are
 * known complete (launch_log.h). */
#include "common/launch_log.h"
#include "base/alloc.h"
#include "common/state.h"

bool gg__launch_log_open(gg__launch_log *log)
{
    uint32_t n = gg__lib.config.launch_records ? gg__lib.config.launch_records : GG__LAUNCH_RECORDS_DEFAULT;
    log->ring = gg__calloc(n, sizeof *log->ring);
    log->records_mask = n - 1;
    return log->ring != NULL;
}

void gg__launch_log_close(gg__launch_log *log)
{
    gg__free(log->ring);
    log->ring = NULL;
}

bool gg__launch_log_timeline(gg__launch_log *log, bool wide, uint64_t submitted, uint64_t *done)
{
    _Atomic uint64_t *slot = log->timeline_slot;
    if (slot == NULL || atomic_load_explicit(&log->timeline_broken, memory_order_relaxed))
        return false;
    uint64_t v = atomic_load_explicit(slot, memory_order_acquire);
    if (!wide)
        v = submitted - (uint32_t)((uint32_t)submitted - (uint32_t)v);
    *done = v;
    return true;
}

bool gg__launch_log_all_done(gg__launch_log *log, bool wide)
{
    uint64_t submitted = atomic_load_explicit(&log->submitted, memory_order_acquire);
    uint64_t done = atomic_load_explicit(&log->completed, memory_order_relaxed);
    uint64_t written = 0;
    if (done < submitted && gg__launch_log_timeline(log, wide, submitted, &written) && written > done)
        done = written;
    return done >= submitted;
}
