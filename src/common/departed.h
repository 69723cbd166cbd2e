/*
 * Work a gg context left running on a native context that outlives it
 * (departed.c): HIP contexts, CUDA primary contexts, adopted contexts.
 */
#ifndef GPUGUARD_DEPARTED_H
#define GPUGUARD_DEPARTED_H

#include "common/object.h"

/* ctx is going while ALIVE, its native context stays, and some of its work
 * was not observed complete: records that (with its timeline page, which
 * the caller must then not free; NULL: none). False when out of host
 * memory (the caller frees the page as usual). Caller holds ctx->lock. */
bool gg__departed_leave(gg__backend *b, gg__context *ctx, void *page);

/* How many departed contexts' work may still run on `native`; the first
 * one's label into `label` (may be NULL). A leaf lock: callable under a
 * context's lock. */
uint32_t gg__departed_note(gg__backend *b, gg__nctx native, char *label, size_t size);

/* gpuguard reset the device's primary context: the records of work on it
 * are void (the work was discarded). */
void gg__departed_reset_seen(int device);

/* gg_shutdown (b: the backend, still loaded) or exit (NULL: no driver
 * call): every record goes, done ones freed, the others' events and
 * streams released; a page whose work still runs stays allocated. */
void gg__departed_forget_all(gg__backend *b);

#endif
