/*
 * Culprit attribution. Launch failures are asynchronous: the error surfaces
 * at some later call. Every launch gets a per-context sequence number and is
 * remembered in its stream's launch log until its completion is observed (a
 * successful query or synchronize of its stream, of an event recorded after
 * it, or of the whole context). When a sticky error surfaces, the suspects
 * are the launches not yet observed complete, across the context's streams.
 */
#ifndef GPUGUARD_ATTRIBUTION_H
#define GPUGUARD_ATTRIBUTION_H

#include "common/launch_log.h"
#include "common/object.h"

/* A context-wide wait succeeded that began after launch `sequence_mark`
 * (ctx->launch_sequence read before it began): every launch numbered up to
 * the mark, on every stream of the context, destroyed ones included, is
 * complete; launches made during the wait are not (they may still run). */
void gg__context_observe_all(gg__context *ctx, uint64_t sequence_mark);

/* The kernels among the suspects, with how many launches each, the
 * streams' tags, and what the record bound hid, for messages
 * (gg__culprit_text). */
/* Kernels named in a WINDOW's message: 6 (about 100 bytes on the stack of
 * the call that records a death); past it the launches of the others are
 * counted as "N more" (crossed by tests/core/test_bounds.c). */
#define GG__SUSPECT_NAMES_MAX 6
typedef struct gg__suspect_names {
    uint32_t count;
    struct {
        const char *name; /* interned */
        uint32_t launches;
    } kernels[GG__SUSPECT_NAMES_MAX];
    uint32_t other_launches; /* of kernels past the first GG__SUSPECT_NAMES_MAX */
    uint64_t unkept;         /* suspects whose records were overwritten (no name, no number) */
    uint32_t records;        /* records kept per stream (the bound that hid them) */
    char suspect_tag[GG_NAME_MAX];
    uint64_t suspect_behind; /* the suspect unkept: launches queued behind it on its stream */
    uint64_t suspect_position; /* the suspect unkept: its position on its stream (1-based) */
    char candidate_tags[GG_CULPRIT_CANDIDATES_MAX][GG_NAME_MAX];
    /* NONE because another gg context's work on the same native context
     * may be to blame: who, and how ("shares" or "departed"); "" else. */
    char shared_with[GG_NAME_MAX + 64];
    bool shared_departed;
    /* The sharer is another native context of the process: the sticky
     * error reaches every context (poison.h), not only this one's users. */
    bool shared_process_wide;
    uint64_t candidate_behind[GG_CULPRIT_CANDIDATES_MAX]; /* as suspect_behind, per candidate */
    uint64_t candidate_position[GG_CULPRIT_CANDIDATES_MAX];
    /* Suspects after a stream's first unmarked launch, up to its next
     * completion mark (a timeline stride above 1), and that stride. */
    uint64_t between_marks;
    uint32_t stride;
} gg__suspect_names;

/* Fills *out with the suspects among the context's unfinished launches
 * (destroyed streams' included), using completion timelines where the
 * streams have them; with `only` non-NULL, only that stream's. `names` may
 * be NULL. Caller holds ctx->lock. */
void gg__attribute(gg__context *ctx, gg__launch_log *only, gg_culprit *out, gg__suspect_names *names);

/* The culprit as a message fragment: EXACT names the kernel, the launch
 * number and the stream; WINDOW lists the candidates, the kernels with
 * their counts, and suggests GPUGUARD_SYNC_LAUNCHES=1. "" for NONE. */
void gg__culprit_text(const gg_culprit *cul, const gg__suspect_names *names, char *buf, size_t size);

/* Destroyed streams: keeps the stream's log with the context while its
 * work may still run (launches unobserved, or a timeline write possibly
 * pending: the slot must not go to another stream before it lands). True
 * when kept: the log's record array and timeline slot go with it. With `b`
 * (the context alive and current, the stream not yet destroyed) an event
 * is recorded on the stream, so that a context synchronize also waits for
 * the destroyed stream's work (its native stream is gone then); when no
 * event can be made, *keep_native is set: the caller must not destroy the
 * native stream, which the kept log then owns and polls. Also frees the
 * kept logs whose events report done. Caller holds ctx->lock. */
bool gg__launch_log_retire(gg__context *ctx, gg__stream *st, gg__backend *b, bool *keep_native);
/* Frees the kept logs (all observed, or the context goes), destroying their
 * events and kept streams through `b` (NULL: no driver call). Caller holds
 * ctx->lock. */
void gg__retired_logs_release(gg__context *ctx, gg__backend *b);
/* Polls the kept logs: 0 when all done (or none), else the first other
 * code (NOT_READY, or an error). Logs seen done are freed. Caller holds
 * ctx->lock. */
int gg__retired_logs_query(gg__context *ctx, gg__backend *b);

/* The gg_stream id a launch log belongs to (0 for the default stream). */
uint64_t gg__launch_log_stream_id(gg__context *ctx, gg__launch_log *log);

#endif
