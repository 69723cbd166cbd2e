/* Streams: what other files ask of one (stream.c). */
#ifndef GPUGUARD_STREAM_H
#define GPUGUARD_STREAM_H

#include "common/call.h"

/* Waits for a stream's work under a deadline. */
gg_status gg__stream_wait(gg__call *c, gg__stream *st, uint32_t timeout_ms);

#endif /* GPUGUARD_STREAM_H */
