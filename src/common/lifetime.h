/*
 * Releasing objects: the one place that decides whether a destroy reaches
 * the driver. In a DEAD or FORKED context it does not (the native context's
 * teardown frees everything, and after fork the driver must not be touched);
 * the cleanup policy decides whether that is silent, counted or warned.
 */
#ifndef GPUGUARD_LIFETIME_H
#define GPUGUARD_LIFETIME_H

#include "common/call.h"

/* Releases one child: driver destroy when the context is alive and
 * `call_driver` is set, then the handle and the memory. Caller holds
 * ctx->lock and has entered the context when the driver is to be called.
 * Returns the driver's status (GG_OK when skipped). */
gg_status gg__child_release(gg__call *c, gg__object *child, gg__free_reason reason, bool call_driver);

/* Releases every child of the context, kernels and modules first, then events
 * and streams, then buffers. Caller holds ctx->lock. */
void gg__children_release_all(gg__call *c, gg__context *ctx, gg__free_reason reason, bool call_driver);

/* Counts a skipped driver cleanup per the policy. */
void gg__cleanup_skipped(gg__context *ctx, gg__type type);
/* Emits the once-per-context summary (WARN_ONCE policy). */
void gg__cleanup_summarise(gg__context *ctx, const char *why);

/* Destroys a child by id: the shared body of gg_stream_destroy & co. */
gg_status gg__destroy_child(const char *api, uint64_t id, gg__type type);

#endif
