/* Events: what other files ask of one (event.c). */
#ifndef GPUGUARD_EVENT_H
#define GPUGUARD_EVENT_H

#include "common/call.h"

/* gg_event_synchronize's body, for a call whose timeout policy is set.
 * Leaves the call. */
gg_status gg__event_wait(gg__call *c, gg_event e, uint32_t timeout_ms);

#endif /* GPUGUARD_EVENT_H */
