/*
 * Copies and memsets as both faces do them: the address checks, the op
 * that carries the request out, and queueing it. Which context and stream
 * a request goes to is the face's to decide.
 */
#ifndef GG_SIM_FACE_COPY_H
#define GG_SIM_FACE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_core.h"

typedef struct sim_copy_req {
    sim_op_kind kind;           /* COPY_HTOD/DTOH/DTOD or MEMSET */
    uint64_t dst, src;          /* device addresses */
    void *host_dst;
    const void *host_src;
    size_t bytes;
    unsigned char value;        /* SIM_OP_MEMSET of bytes */
    unsigned char elem_bytes;   /* SIM_OP_MEMSET: 2 or 4 to repeat pattern (0: bytes of value) */
    uint32_t pattern;
    bool sync;                  /* check the whole range, wait for the copy */
    bool stage_in_fast_mode;    /* stage pageable async sources in fast mode too */
} sim_copy_req;

/* Checks q's addresses against c's allocations: the start of each range,
 * and its end too if q->sync. The detail names c's device if by_device. */
sim_status sim_copy_check(sim_ctx *c, const sim_copy_req *q, bool by_device);
/* The op that carries out q (NULL if out of memory). */
sim_op *sim_copy_op(const sim_copy_req *q);
/* Queues op on s (OUT_OF_MEMORY for a NULL op) and, if sync, waits for it.
 * Takes op. */
sim_status sim_copy_submit(sim_stream *s, sim_op *op, bool sync);

/* A stream write-value (cuStreamWriteValue32/64, hipStreamWriteValue32/64)
 * on stream s of context c: `bytes` (4 or 8) of value stored at dst when the
 * stream reaches it. Refused at the call, before anything is queued:
 *   NOT_SUPPORTED  the device says it has no such operations (attribute
 *                  STREAM_MEM_OPS, or STREAM_MEM_OPS_64 for 8 bytes);
 *   INVALID_VALUE  dst not aligned to `bytes`, or [dst, dst+bytes) neither in
 *                  host memory mapped for c's device nor in a live device
 *                  allocation of c. */
sim_status sim_write_value_submit(sim_ctx *c, sim_stream *s, uint64_t dst, uint64_t value,
                                  unsigned bytes);

#endif /* GG_SIM_FACE_COPY_H */
