/*
 * Programs of the model-based attribution tester: the generator (seed),
 * the decoder and encoder (fuzz bytes), the printer and the parser
 * (scripts). See tests/model/README.md for the script syntax.
 */
#include "model/model.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_program_init(model_program *p)
{
    p->steps = NULL;
    p->count = p->capacity = 0;
}

void model_program_free(model_program *p)
{
    free(p->steps);
    model_program_init(p);
}

void model_program_add(model_program *p, const model_step *s)
{
    if (p->count >= MODEL_STEPS_MAX)
        return;
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? p->capacity * 2 : 64;
        model_step *n = realloc(p->steps, cap * sizeof *n);
        if (n == NULL) {
            fprintf(stderr, "model: out of memory\n");
            abort();
        }
        p->steps = n;
        p->capacity = cap;
    }
    p->steps[p->count++] = *s;
}

/* ---- the generator ------------------------------------------------------ */

/* splitmix64: small, and the same numbers everywhere. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint32_t range(rng *r, uint32_t lo, uint32_t hi)
{
    return lo + (uint32_t)(next(r) % ((uint64_t)hi - lo + 1));
}

static bool chance(rng *r, unsigned percent)
{
    return next(r) % 100 < percent;
}

/* What the generator believes is bound (the executor may disagree: a
 * create that fails leaves the slot unbound there, and a step naming an
 * unbound slot does nothing). */
typedef struct shadow {
    bool ctx_live[MODEL_CTX];
    int8_t stream_ctx[MODEL_STREAMS]; /* -1: unbound */
    int8_t event_ctx[MODEL_EVENTS];
} shadow;

static void shadow_init(shadow *sh)
{
    memset(sh->ctx_live, 0, sizeof sh->ctx_live);
    memset(sh->stream_ctx, -1, sizeof sh->stream_ctx);
    memset(sh->event_ctx, -1, sizeof sh->event_ctx);
}

/* Children of ctx go (destroy, recover). */
static void shadow_drop_children(shadow *sh, int ctx)
{
    for (int i = 0; i < MODEL_STREAMS; i++)
        if (sh->stream_ctx[i] == ctx)
            sh->stream_ctx[i] = -1;
    for (int i = 0; i < MODEL_EVENTS; i++)
        if (sh->event_ctx[i] == ctx)
            sh->event_ctx[i] = -1;
}

static void shadow_apply(shadow *sh, const model_step *s)
{
    switch (s->kind) {
    case MS_CTX_CREATE:
        if (sh->ctx_live[s->ctx])
            shadow_drop_children(sh, s->ctx);
        sh->ctx_live[s->ctx] = true;
        break;
    case MS_CTX_DESTROY:
    case MS_RACE_DESTROY:
        sh->ctx_live[s->ctx] = false;
        shadow_drop_children(sh, s->ctx);
        break;
    case MS_RECOVER:
        shadow_drop_children(sh, s->ctx);
        break;
    case MS_STREAM_CREATE:
        sh->stream_ctx[s->stream] = sh->ctx_live[s->ctx] ? (int8_t)s->ctx : -1;
        break;
    case MS_STREAM_DESTROY:
        sh->stream_ctx[s->stream] = -1;
        break;
    case MS_EVENT_CREATE:
        sh->event_ctx[s->event] = sh->ctx_live[s->ctx] ? (int8_t)s->ctx : -1;
        break;
    case MS_EVENT_DESTROY:
        sh->event_ctx[s->event] = -1;
        break;
    default:
        break;
    }
}

static int pick_ctx(rng *r, const shadow *sh)
{
    int live[MODEL_CTX], n = 0;
    for (int i = 0; i < MODEL_CTX; i++)
        if (sh->ctx_live[i])
            live[n++] = i;
    return n ? live[next(r) % (uint64_t)n] : -1;
}

static int pick_stream(rng *r, const shadow *sh, int ctx)
{
    int n = 0;
    for (int i = 0; i < MODEL_STREAMS; i++)
        if (sh->stream_ctx[i] >= 0 && (ctx < 0 || sh->stream_ctx[i] == ctx))
            n++;
    if (n == 0)
        return -1;
    int k = (int)(next(r) % (uint64_t)n);
    for (int i = 0; i < MODEL_STREAMS; i++)
        if (sh->stream_ctx[i] >= 0 && (ctx < 0 || sh->stream_ctx[i] == ctx) && k-- == 0)
            return i;
    return -1;
}

static int pick_event(rng *r, const shadow *sh, int ctx)
{
    int n = 0;
    for (int i = 0; i < MODEL_EVENTS; i++)
        if (sh->event_ctx[i] >= 0 && (ctx < 0 || sh->event_ctx[i] == ctx))
            n++;
    if (n == 0)
        return -1;
    int k = (int)(next(r) % (uint64_t)n);
    for (int i = 0; i < MODEL_EVENTS; i++)
        if (sh->event_ctx[i] >= 0 && (ctx < 0 || sh->event_ctx[i] == ctx) && k-- == 0)
            return i;
    return -1;
}

static int free_stream_slot(rng *r, const shadow *sh)
{
    int start = (int)(next(r) % MODEL_STREAMS);
    for (int i = 0; i < MODEL_STREAMS; i++)
        if (sh->stream_ctx[(start + i) % MODEL_STREAMS] < 0)
            return (start + i) % MODEL_STREAMS;
    return start;
}

static void emit(model_program *p, shadow *sh, const model_step *s)
{
    model_program_add(p, s);
    shadow_apply(sh, s);
}

static model_kernel random_kernel(rng *r)
{
    uint32_t k = range(r, 0, 99);
    if (k < 45) return MK_OK;
    if (k < 65) return MK_SLOW;
    if (k < 75) return MK_FAULT_LATE;
    if (k < 83) return MK_FAULT_NOW;
    if (k < 90) return MK_HANG;
    return MK_OVERRUN;
}

static void random_launch(rng *r, model_step *s)
{
    s->kind = MS_LAUNCH;
    s->kernel = (uint8_t)random_kernel(r);
    s->ms = s->kernel == MK_SLOW ? range(r, 1, 30) : s->kernel == MK_FAULT_LATE ? range(r, 1, 60) : 0;
    uint32_t k = range(r, 0, 99);
    s->repeat = k < 85 ? 1 : k < 97 ? range(r, 2, 40) : range(r, 100, 1000);
    if (s->repeat > 1 && (s->kernel == MK_SLOW || s->kernel == MK_FAULT_LATE))
        s->ms = range(r, 0, 3);
}

static uint32_t random_deadline(rng *r)
{
    return chance(r, 20) ? range(r, 5, 40) : range(r, 50, 400);
}

static void gen_context(rng *r, model_program *p, shadow *sh, int slot)
{
    model_step s = { .kind = MS_CTX_CREATE, .ctx = (uint8_t)slot, .device = chance(r, 70) ? 1 : 0 };
    emit(p, sh, &s);
}

static void gen_stream(rng *r, model_program *p, shadow *sh, int ctx)
{
    model_step s = { .kind = MS_STREAM_CREATE, .ctx = (uint8_t)ctx, .stream = (uint16_t)free_stream_slot(r, sh) };
    emit(p, sh, &s);
}

/* One step of the general mix. */
static void gen_mixed_step(rng *r, model_program *p, shadow *sh)
{
    int ctx = pick_ctx(r, sh);
    if (ctx < 0) {
        gen_context(r, p, sh, (int)range(r, 0, MODEL_CTX - 1));
        return;
    }
    uint32_t k = range(r, 0, 99);
    model_step s = { .ctx = (uint8_t)ctx, .stream = MODEL_DEFAULT_STREAM, .repeat = 1 };
    int st = pick_stream(r, sh, ctx);
    int ev = pick_event(r, sh, ctx);
    if (k < 35) {
        random_launch(r, &s);
        if (st >= 0 && chance(r, 85))
            s.stream = (uint16_t)st;
    } else if (k < 45) {
        gen_stream(r, p, sh, ctx);
        return;
    } else if (k < 51) {
        if (st < 0)
            return;
        s.kind = MS_STREAM_DESTROY;
        s.stream = (uint16_t)st;
    } else if (k < 55) {
        s.kind = MS_EVENT_CREATE;
        s.event = (uint8_t)range(r, 0, MODEL_EVENTS - 1);
    } else if (k < 57) {
        if (ev < 0)
            return;
        s.kind = MS_EVENT_DESTROY;
        s.event = (uint8_t)ev;
    } else if (k < 63) {
        if (ev < 0)
            return;
        s.kind = MS_RECORD;
        s.event = (uint8_t)ev;
        if (st >= 0 && chance(r, 80))
            s.stream = (uint16_t)st;
    } else if (k < 67) {
        if (ev < 0 || st < 0)
            return; /* the default stream cannot wait on an event */
        s.kind = MS_WAIT;
        s.event = (uint8_t)ev;
        s.stream = (uint16_t)st;
    } else if (k < 70) {
        if (st < 0)
            return;
        s.kind = MS_QUERY_STREAM;
        s.stream = (uint16_t)st;
    } else if (k < 73) {
        if (ev < 0)
            return;
        s.kind = MS_QUERY_EVENT;
        s.event = (uint8_t)ev;
    } else if (k < 80) {
        if (st < 0)
            return;
        s.kind = MS_SYNC_STREAM;
        s.stream = (uint16_t)st;
        s.ms = random_deadline(r);
        s.returns = chance(r, 30);
    } else if (k < 84) {
        if (ev < 0)
            return;
        s.kind = MS_SYNC_EVENT;
        s.event = (uint8_t)ev;
        s.ms = random_deadline(r);
        s.returns = chance(r, 30);
    } else if (k < 91) {
        s.kind = MS_SYNC_CTX;
        s.ms = random_deadline(r);
        s.returns = chance(r, 25);
    } else if (k < 95) {
        s.kind = MS_RECOVER;
    } else if (k < 96) {
        s.kind = MS_CTX_DESTROY;
    } else if (k < 97) {
        int slot = (int)range(r, 0, MODEL_CTX - 1);
        if (sh->ctx_live[slot])
            return;
        gen_context(r, p, sh, slot);
        return;
    } else if (k < 98) {
        s.kind = MS_FORK;
        s.stream = st >= 0 ? (uint16_t)st : MODEL_NO_STREAM;
    } else if (k < 99) {
        if (st < 0)
            return;
        s.kind = MS_RACE_DESTROY;
        s.stream = (uint16_t)st;
    } else {
        s.kind = MS_SLEEP;
        s.ms = range(r, 1, 20);
    }
    emit(p, sh, &s);
}

static void gen_mixed(rng *r, model_program *p, shadow *sh, uint32_t steps)
{
    for (uint32_t i = 0; i < steps; i++)
        gen_mixed_step(r, p, sh);
}

/* The end of most programs: a context synchronize on each live context. */
static void gen_final_syncs(rng *r, model_program *p, shadow *sh)
{
    for (int c = 0; c < MODEL_CTX; c++)
        if (sh->ctx_live[c] && chance(r, 80)) {
            model_step s = { .kind = MS_SYNC_CTX, .ctx = (uint8_t)c, .ms = range(r, 100, 600) };
            emit(p, sh, &s);
        }
}

/* Many streams in one context: past the 16 kept logs of destroyed streams,
 * the 32-launch ring, and (sometimes) past 100 streams. */
static void gen_many_streams(rng *r, model_program *p, shadow *sh)
{
    int ctx = 0;
    gen_context(r, p, sh, ctx);
    uint32_t n = chance(r, 25) ? range(r, 100, 140) : range(r, 17, 40);
    int slots[MODEL_STREAMS];
    for (uint32_t i = 0; i < n; i++) {
        model_step s = { .kind = MS_STREAM_CREATE, .ctx = 0, .stream = (uint16_t)i };
        emit(p, sh, &s);
        slots[i] = (int)i;
    }
    uint32_t faulty = chance(r, 50) ? range(r, 0, n - 1) : UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        model_step s = { .kind = MS_LAUNCH, .ctx = 0, .stream = (uint16_t)slots[i], .repeat = 1 };
        if (i == faulty) {
            s.kernel = chance(r, 50) ? MK_FAULT_LATE : MK_FAULT_NOW;
            s.ms = s.kernel == MK_FAULT_LATE ? range(r, 5, 60) : 0;
        } else {
            s.kernel = chance(r, 50) ? MK_OK : MK_SLOW;
            s.ms = s.kernel == MK_SLOW ? range(r, 1, 40) : 0;
            s.repeat = chance(r, 20) ? range(r, 2, 40) : 1;
        }
        emit(p, sh, &s);
        if (chance(r, 40)) {
            model_step d = { .kind = MS_STREAM_DESTROY, .ctx = 0, .stream = (uint16_t)slots[i] };
            emit(p, sh, &d);
        }
    }
    gen_mixed(r, p, sh, range(r, 0, 10));
    model_step s = { .kind = MS_SYNC_CTX, .ctx = 0, .ms = 1500 };
    emit(p, sh, &s);
}

/* One stream, a deep queue, maybe a misbehaving launch somewhere in it. */
static void gen_deep_queue(rng *r, model_program *p, shadow *sh)
{
    gen_context(r, p, sh, 0);
    bool on_default = chance(r, 25);
    uint16_t st = MODEL_DEFAULT_STREAM;
    if (!on_default) {
        gen_stream(r, p, sh, 0);
        st = (uint16_t)pick_stream(r, sh, 0);
    }
    uint32_t depth = chance(r, 30) ? range(r, 1000, 3000) : range(r, 1, 200);
    uint32_t where = range(r, 0, 2); /* misbehaviour: first, middle, last */
    model_kernel bad = chance(r, 20) ? MK_OK : chance(r, 60) ? MK_FAULT_LATE : chance(r, 50) ? MK_HANG : MK_FAULT_NOW;
    model_step bad_step = { .kind = MS_LAUNCH, .ctx = 0, .stream = st, .kernel = (uint8_t)bad, .repeat = 1,
                            .ms = bad == MK_FAULT_LATE ? range(r, 1, 80) : 0 };
    model_step ok = { .kind = MS_LAUNCH, .ctx = 0, .stream = st, .kernel = MK_OK, .repeat = depth };
    if (where == 0) {
        emit(p, sh, &bad_step);
        emit(p, sh, &ok);
    } else if (where == 1) {
        ok.repeat = depth / 2 + 1;
        emit(p, sh, &ok);
        emit(p, sh, &bad_step);
        emit(p, sh, &ok);
    } else {
        emit(p, sh, &ok);
        emit(p, sh, &bad_step);
    }
    model_step s = { .ctx = 0, .stream = st, .ms = range(r, 50, 1000), .returns = chance(r, 20) };
    s.kind = st != MODEL_DEFAULT_STREAM && chance(r, 50) ? MS_SYNC_STREAM : MS_SYNC_CTX;
    emit(p, sh, &s);
    gen_mixed(r, p, sh, range(r, 0, 8));
}

/* Streams destroyed right after their launches (their work still runs). */
static void gen_destroyed_streams(rng *r, model_program *p, shadow *sh)
{
    gen_context(r, p, sh, 0);
    uint32_t n = range(r, 12, 28);
    uint32_t faulty = chance(r, 50) ? (chance(r, 50) ? 0 : range(r, 0, n - 1)) : UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        model_step c = { .kind = MS_STREAM_CREATE, .ctx = 0, .stream = (uint16_t)i };
        emit(p, sh, &c);
        model_step l = { .kind = MS_LAUNCH, .ctx = 0, .stream = (uint16_t)i, .repeat = 1 };
        l.kernel = i == faulty ? MK_FAULT_LATE : chance(r, 70) ? MK_SLOW : MK_OK;
        l.ms = l.kernel == MK_OK ? 0 : range(r, 20, 120);
        emit(p, sh, &l);
        model_step d = { .kind = MS_STREAM_DESTROY, .ctx = 0, .stream = (uint16_t)i };
        emit(p, sh, &d);
    }
    if (chance(r, 50)) {
        /* New streams, which may get the dropped streams' timeline slots. */
        uint32_t m = range(r, 1, 20);
        for (uint32_t i = 0; i < m; i++) {
            model_step c = { .kind = MS_STREAM_CREATE, .ctx = 0, .stream = (uint16_t)(n + i) };
            emit(p, sh, &c);
            model_step l = { .kind = MS_LAUNCH, .ctx = 0, .stream = (uint16_t)(n + i), .kernel = MK_OK, .repeat = 1 };
            emit(p, sh, &l);
        }
    }
    model_step s = { .kind = MS_SYNC_CTX, .ctx = 0, .ms = 2000 };
    emit(p, sh, &s);
}

void model_generate(uint64_t seed, model_program *out)
{
    rng r = { seed * 0x2545f4914f6cdd1dull + 1 };
    shadow sh;
    shadow_init(&sh);
    model_program_init(out);
    uint32_t profile = (uint32_t)(next(&r) % 10);
    switch (profile) {
    case 6: gen_many_streams(&r, out, &sh); break;
    case 7: gen_deep_queue(&r, out, &sh); break;
    case 8: gen_destroyed_streams(&r, out, &sh); break;
    default: {
        uint32_t contexts = range(&r, 1, 3);
        for (uint32_t c = 0; c < contexts; c++)
            gen_context(&r, out, &sh, (int)c);
        uint32_t streams = range(&r, 0, 6);
        for (uint32_t i = 0; i < streams; i++) {
            int c = pick_ctx(&r, &sh);
            if (c >= 0)
                gen_stream(&r, out, &sh, c);
        }
        gen_mixed(&r, out, &sh, range(&r, 10, profile == 9 ? 120 : 50));
        break;
    }
    }
    gen_final_syncs(&r, out, &sh);
}

/* ---- the decoder (fuzz bytes) ------------------------------------------- */

/* Bytes per step: [kind, flags, stream, event|kernel, ms lo, ms hi, repeat lo, repeat hi]. */
#define GROUP 8
/* Fuzz inputs: at most this many declared milliseconds of waiting (kernel
 * run times, deadlines, sleeps) per input, so that one runs well under a
 * second; and the most launches of a step. */
#define FUZZ_BUDGET_MS 600
#define FUZZ_MS_MAX 300
#define FUZZ_REPEAT_MAX 3000

/* kind byte % 32 -> kind: launches weigh most. */
static const uint8_t kind_of_byte[32] = {
    MS_LAUNCH, MS_LAUNCH, MS_LAUNCH, MS_LAUNCH, MS_LAUNCH, MS_LAUNCH, MS_LAUNCH, MS_LAUNCH,
    MS_STREAM_CREATE, MS_STREAM_CREATE, MS_STREAM_CREATE, MS_STREAM_DESTROY, MS_STREAM_DESTROY,
    MS_EVENT_CREATE, MS_EVENT_DESTROY, MS_RECORD, MS_RECORD, MS_WAIT, MS_QUERY_STREAM, MS_QUERY_EVENT,
    MS_SYNC_STREAM, MS_SYNC_STREAM, MS_SYNC_EVENT, MS_SYNC_CTX, MS_SYNC_CTX, MS_RECOVER, MS_CTX_CREATE,
    MS_CTX_DESTROY, MS_FORK, MS_RACE_DESTROY, MS_SLEEP, MS_CTX_CREATE,
};

static bool names_stream(uint8_t kind)
{
    return kind == MS_STREAM_CREATE || kind == MS_STREAM_DESTROY || kind == MS_LAUNCH || kind == MS_RECORD ||
           kind == MS_WAIT || kind == MS_QUERY_STREAM || kind == MS_SYNC_STREAM || kind == MS_FORK ||
           kind == MS_RACE_DESTROY;
}

static bool may_use_default(uint8_t kind)
{
    return kind == MS_LAUNCH || kind == MS_RECORD || kind == MS_WAIT;
}

static uint32_t declared_ms(const model_step *s)
{
    switch (s->kind) {
    case MS_LAUNCH:
        return s->kernel == MK_FAULT_LATE || s->kernel == MK_SLOW ? s->ms * s->repeat
               : s->kernel == MK_OVERRUN                         ? 40 * s->repeat
                                                                 : 0;
    case MS_SYNC_STREAM:
    case MS_SYNC_EVENT:
    case MS_SYNC_CTX:
    case MS_SLEEP:
        return s->ms;
    default:
        return 0;
    }
}

void model_decode(const uint8_t *data, size_t size, model_program *out)
{
    model_program_init(out);
    uint32_t budget = FUZZ_BUDGET_MS;
    for (size_t i = 0; i + GROUP <= size && out->count < MODEL_STEPS_MAX; i += GROUP) {
        const uint8_t *g = data + i;
        model_step s = { 0 };
        s.kind = kind_of_byte[g[0] % 32];
        s.ctx = (uint8_t)((g[1] & 3) % MODEL_CTX);
        s.device = (g[1] >> 2) & 1;
        s.returns = (g[1] >> 3) & 1;
        s.stream = (uint16_t)(g[2] % MODEL_STREAMS);
        if (may_use_default(s.kind) && (g[1] & 0x10))
            s.stream = MODEL_DEFAULT_STREAM;
        if (s.kind == MS_FORK && (g[1] & 0x10))
            s.stream = MODEL_NO_STREAM;
        if (!names_stream(s.kind))
            s.stream = 0;
        s.event = (uint8_t)(g[3] % MODEL_EVENTS);
        s.kernel = (uint8_t)((g[3] >> 4) % MK_COUNT);
        uint32_t ms = (uint32_t)(g[4] | g[5] << 8) % (FUZZ_MS_MAX + 1);
        s.repeat = g[7] < 0xf0 ? 1u + g[6] % 4u : 1u + (uint32_t)(g[6] | (g[7] & 0x0f) << 8) % FUZZ_REPEAT_MAX;
        if (s.kind != MS_LAUNCH)
            s.repeat = 1;
        bool timed = s.kind == MS_SYNC_STREAM || s.kind == MS_SYNC_EVENT || s.kind == MS_SYNC_CTX ||
                     s.kind == MS_SLEEP || (s.kind == MS_LAUNCH && (s.kernel == MK_FAULT_LATE || s.kernel == MK_SLOW));
        s.ms = timed ? ms : 0;
        /* Within the input's budget: what does not fit runs shorter (or,
         * for an overrun that no longer fits, completes at once). */
        if (s.kind == MS_LAUNCH && s.repeat > 1 && s.ms > 0 && s.ms * s.repeat > budget)
            s.ms = budget / s.repeat;
        if (s.kind == MS_LAUNCH && s.kernel == MK_OVERRUN && 40 * s.repeat > budget)
            s.kernel = MK_OK;
        if (s.kind != MS_LAUNCH && s.ms > budget)
            s.ms = budget;
        if (s.kind == MS_LAUNCH && s.repeat == 1 && s.ms > budget)
            s.ms = budget;
        if ((s.kind == MS_SYNC_STREAM || s.kind == MS_SYNC_EVENT || s.kind == MS_SYNC_CTX) && s.ms == 0)
            s.ms = 1; /* 0 would be the library's 10 s default */
        uint32_t used = declared_ms(&s);
        budget = used >= budget ? 0 : budget - used;
        model_program_add(out, &s);
    }
}

size_t model_encode(const model_program *p, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < p->count && n + GROUP <= cap; i++) {
        const model_step *s = &p->steps[i];
        uint8_t *g = out + n;
        memset(g, 0, GROUP);
        for (uint8_t b = 0; b < 32; b++)
            if (kind_of_byte[b] == s->kind) {
                g[0] = b;
                break;
            }
        g[1] = (uint8_t)(s->ctx | (s->device & 1) << 2 | (s->returns & 1) << 3 |
                         (s->stream == MODEL_DEFAULT_STREAM || s->stream == MODEL_NO_STREAM ? 0x10 : 0));
        g[2] = (uint8_t)(s->stream < MODEL_STREAMS ? s->stream : 0);
        g[3] = (uint8_t)(s->event | (s->kernel << 4));
        uint32_t ms = s->ms > FUZZ_MS_MAX ? FUZZ_MS_MAX : s->ms;
        g[4] = (uint8_t)(ms & 0xff);
        g[5] = (uint8_t)(ms >> 8);
        uint32_t rep = s->repeat == 0 ? 1 : s->repeat > FUZZ_REPEAT_MAX ? FUZZ_REPEAT_MAX : s->repeat;
        if (rep <= 4) {
            g[6] = (uint8_t)(rep - 1);
            g[7] = 0;
        } else {
            g[6] = (uint8_t)((rep - 1) & 0xff);
            g[7] = (uint8_t)(0xf0 | ((rep - 1) >> 8));
        }
        n += GROUP;
    }
    return n;
}

/* ---- the printer -------------------------------------------------------- */

static const char *const kernel_names[MK_COUNT] = { "ok", "fault_now", "fault_late", "hang", "overrun", "slow" };

static void stream_name(const model_step *s, char *buf, size_t size)
{
    if (s->stream == MODEL_DEFAULT_STREAM)
        snprintf(buf, size, "ctx%u.default", s->ctx);
    else
        snprintf(buf, size, "s%u", s->stream);
}

void model_print_step(const model_step *s, char *buf, size_t size)
{
    char st[32];
    stream_name(s, st, sizeof st);
    const char *ret = s->returns ? " returns" : "";
    switch (s->kind) {
    case MS_CTX_CREATE: snprintf(buf, size, "ctx%u = context(device %u)", s->ctx, s->device); break;
    case MS_CTX_DESTROY: snprintf(buf, size, "destroy ctx%u", s->ctx); break;
    case MS_STREAM_CREATE: snprintf(buf, size, "s%u = stream(ctx%u)", s->stream, s->ctx); break;
    case MS_STREAM_DESTROY: snprintf(buf, size, "destroy s%u", s->stream); break;
    case MS_EVENT_CREATE: snprintf(buf, size, "e%u = event(ctx%u)", s->event, s->ctx); break;
    case MS_EVENT_DESTROY: snprintf(buf, size, "destroy e%u", s->event); break;
    case MS_LAUNCH: {
        char k[32], rep[16] = "";
        if (s->kernel == MK_FAULT_LATE || s->kernel == MK_SLOW)
            snprintf(k, sizeof k, "%s(%ums)", kernel_names[s->kernel % MK_COUNT], s->ms);
        else
            snprintf(k, sizeof k, "%s", kernel_names[s->kernel % MK_COUNT]);
        if (s->repeat > 1)
            snprintf(rep, sizeof rep, " x%u", s->repeat);
        snprintf(buf, size, "launch %s on %s%s", k, st, rep);
        break;
    }
    case MS_RECORD: snprintf(buf, size, "record e%u on %s", s->event, st); break;
    case MS_WAIT: snprintf(buf, size, "wait %s on e%u", st, s->event); break;
    case MS_QUERY_STREAM: snprintf(buf, size, "query %s", st); break;
    case MS_QUERY_EVENT: snprintf(buf, size, "query e%u", s->event); break;
    case MS_SYNC_STREAM: snprintf(buf, size, "sync %s deadline %ums%s", st, s->ms, ret); break;
    case MS_SYNC_EVENT: snprintf(buf, size, "sync e%u deadline %ums%s", s->event, s->ms, ret); break;
    case MS_SYNC_CTX: snprintf(buf, size, "sync ctx%u deadline %ums%s", s->ctx, s->ms, ret); break;
    case MS_RECOVER: snprintf(buf, size, "recover ctx%u", s->ctx); break;
    case MS_FORK:
        if (s->stream == MODEL_NO_STREAM)
            snprintf(buf, size, "fork check ctx%u", s->ctx);
        else
            snprintf(buf, size, "fork check ctx%u %s", s->ctx, st);
        break;
    case MS_RACE_DESTROY: snprintf(buf, size, "race destroy ctx%u with %s", s->ctx, st); break;
    case MS_SLEEP: snprintf(buf, size, "sleep %ums", s->ms); break;
    default: snprintf(buf, size, "? step kind %u", s->kind); break;
    }
}

char *model_print(const model_program *p)
{
    size_t cap = 64 + p->count * 64, used = 0;
    char *text = malloc(cap);
    if (text == NULL)
        abort();
    text[0] = '\0';
    for (size_t i = 0; i < p->count; i++) {
        char line[128];
        model_print_step(&p->steps[i], line, sizeof line);
        int w = snprintf(text + used, cap - used, "%s\n", line);
        if (w > 0)
            used += (size_t)w < cap - used ? (size_t)w : cap - used - 1;
    }
    return text;
}

/* ---- the parser --------------------------------------------------------- */

typedef struct cursor {
    const char *p;
} cursor;

static void skip_space(cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t')
        c->p++;
}

/* Consumes `word` (followed by a non-identifier character). */
static bool eat(cursor *c, const char *word)
{
    skip_space(c);
    size_t n = strlen(word);
    if (strncmp(c->p, word, n) != 0)
        return false;
    char next = c->p[n];
    if (isalnum((unsigned char)word[n - 1]) && (isalnum((unsigned char)next) || next == '_'))
        return false;
    c->p += n;
    return true;
}

static bool number(cursor *c, uint32_t *out, uint32_t max)
{
    skip_space(c);
    if (!isdigit((unsigned char)*c->p))
        return false;
    uint64_t v = 0;
    while (isdigit((unsigned char)*c->p)) {
        v = v * 10 + (uint64_t)(*c->p++ - '0');
        if (v > max)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* "ctxN" */
static bool ctx_ref(cursor *c, uint8_t *ctx)
{
    uint32_t v;
    skip_space(c);
    if (strncmp(c->p, "ctx", 3) != 0)
        return false;
    c->p += 3;
    if (!number(c, &v, MODEL_CTX - 1))
        return false;
    *ctx = (uint8_t)v;
    return true;
}

/* "sN" or "ctxN.default" (when allowed) */
static bool stream_ref(cursor *c, model_step *s, bool allow_default)
{
    skip_space(c);
    uint32_t v;
    if (c->p[0] == 's' && isdigit((unsigned char)c->p[1])) {
        c->p++;
        if (!number(c, &v, MODEL_STREAMS - 1))
            return false;
        s->stream = (uint16_t)v;
        return true;
    }
    if (allow_default && ctx_ref(c, &s->ctx) && eat(c, ".default")) {
        s->stream = MODEL_DEFAULT_STREAM;
        return true;
    }
    return false;
}

static bool event_ref(cursor *c, uint8_t *ev)
{
    skip_space(c);
    uint32_t v;
    if (c->p[0] != 'e' || !isdigit((unsigned char)c->p[1]))
        return false;
    c->p++;
    if (!number(c, &v, MODEL_EVENTS - 1))
        return false;
    *ev = (uint8_t)v;
    return true;
}

static bool ms_value(cursor *c, uint32_t *ms, uint32_t max)
{
    return number(c, ms, max) && eat(c, "ms");
}

static bool at_end(cursor *c)
{
    skip_space(c);
    return *c->p == '\0' || *c->p == '#';
}

static bool deadline(cursor *c, model_step *s)
{
    if (!eat(c, "deadline") || !ms_value(c, &s->ms, 600000) || s->ms == 0)
        return false;
    s->returns = eat(c, "returns");
    return true;
}

static bool parse_line(const char *line, model_step *s)
{
    cursor c = { line };
    memset(s, 0, sizeof *s);
    s->repeat = 1;
    s->stream = MODEL_NO_STREAM;
    uint32_t v;
    cursor save = c;
    /* "ctxN = context(device D)" */
    if (ctx_ref(&c, &s->ctx) && eat(&c, "=")) {
        if (!eat(&c, "context") || !eat(&c, "(") || !eat(&c, "device") || !number(&c, &v, 1) || !eat(&c, ")"))
            return false;
        s->kind = MS_CTX_CREATE;
        s->device = (uint8_t)v;
        return at_end(&c);
    }
    c = save;
    /* "sN = stream(ctxM)" */
    if (stream_ref(&c, s, false) && eat(&c, "=")) {
        if (!eat(&c, "stream") || !eat(&c, "(") || !ctx_ref(&c, &s->ctx) || !eat(&c, ")"))
            return false;
        s->kind = MS_STREAM_CREATE;
        return at_end(&c);
    }
    c = save;
    if (event_ref(&c, &s->event) && eat(&c, "=")) {
        if (!eat(&c, "event") || !eat(&c, "(") || !ctx_ref(&c, &s->ctx) || !eat(&c, ")"))
            return false;
        s->kind = MS_EVENT_CREATE;
        return at_end(&c);
    }
    c = save;
    if (eat(&c, "destroy")) {
        cursor d = c;
        if (ctx_ref(&c, &s->ctx)) {
            s->kind = MS_CTX_DESTROY;
            return at_end(&c);
        }
        c = d;
        if (event_ref(&c, &s->event)) {
            s->kind = MS_EVENT_DESTROY;
            return at_end(&c);
        }
        c = d;
        if (stream_ref(&c, s, false)) {
            s->kind = MS_STREAM_DESTROY;
            return at_end(&c);
        }
        return false;
    }
    if (eat(&c, "launch")) {
        s->kind = MS_LAUNCH;
        int k = -1;
        for (int i = 0; i < MK_COUNT && k < 0; i++)
            if (eat(&c, kernel_names[i]))
                k = i;
        if (k < 0)
            return false;
        s->kernel = (uint8_t)k;
        if (k == MK_FAULT_LATE || k == MK_SLOW) {
            if (!eat(&c, "(") || !ms_value(&c, &s->ms, MODEL_MS_MAX) || !eat(&c, ")"))
                return false;
        }
        if (!eat(&c, "on") || !stream_ref(&c, s, true))
            return false;
        skip_space(&c);
        if (*c.p == 'x') {
            c.p++;
            if (!number(&c, &s->repeat, MODEL_REPEAT_MAX) || s->repeat == 0)
                return false;
        }
        return at_end(&c);
    }
    if (eat(&c, "record")) {
        s->kind = MS_RECORD;
        return event_ref(&c, &s->event) && eat(&c, "on") && stream_ref(&c, s, true) && at_end(&c);
    }
    if (eat(&c, "wait")) {
        s->kind = MS_WAIT;
        return stream_ref(&c, s, true) && eat(&c, "on") && event_ref(&c, &s->event) && at_end(&c);
    }
    if (eat(&c, "query")) {
        cursor q = c;
        if (event_ref(&c, &s->event)) {
            s->kind = MS_QUERY_EVENT;
            return at_end(&c);
        }
        c = q;
        s->kind = MS_QUERY_STREAM;
        return stream_ref(&c, s, false) && at_end(&c);
    }
    if (eat(&c, "sync")) {
        cursor q = c;
        if (ctx_ref(&c, &s->ctx)) {
            s->kind = MS_SYNC_CTX;
            return deadline(&c, s) && at_end(&c);
        }
        c = q;
        if (event_ref(&c, &s->event)) {
            s->kind = MS_SYNC_EVENT;
            return deadline(&c, s) && at_end(&c);
        }
        c = q;
        s->kind = MS_SYNC_STREAM;
        return stream_ref(&c, s, false) && deadline(&c, s) && at_end(&c);
    }
    if (eat(&c, "recover")) {
        s->kind = MS_RECOVER;
        return ctx_ref(&c, &s->ctx) && at_end(&c);
    }
    if (eat(&c, "fork")) {
        s->kind = MS_FORK;
        if (!eat(&c, "check") || !ctx_ref(&c, &s->ctx))
            return false;
        if (at_end(&c))
            return true;
        return stream_ref(&c, s, false) && at_end(&c);
    }
    if (eat(&c, "race")) {
        s->kind = MS_RACE_DESTROY;
        return eat(&c, "destroy") && ctx_ref(&c, &s->ctx) && eat(&c, "with") && stream_ref(&c, s, false) &&
               at_end(&c);
    }
    if (eat(&c, "sleep")) {
        s->kind = MS_SLEEP;
        return ms_value(&c, &s->ms, 60000) && at_end(&c);
    }
    return false;
}

bool model_parse(const char *text, model_program *out, char *err, size_t err_size)
{
    model_program_init(out);
    unsigned lineno = 0;
    const char *p = text;
    while (*p != '\0') {
        lineno++;
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[256];
        if (len >= sizeof line) {
            snprintf(err, err_size, "line %u: longer than %zu characters", lineno, sizeof line - 1);
            model_program_free(out);
            return false;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[len - 1] = '\0';
        p = end ? end + 1 : p + len;
        cursor c = { line };
        if (at_end(&c))
            continue; /* blank or a comment */
        model_step s;
        if (!parse_line(line, &s)) {
            snprintf(err, err_size, "line %u: cannot read '%s'", lineno, line);
            model_program_free(out);
            return false;
        }
        if (s.stream == MODEL_NO_STREAM && s.kind != MS_FORK)
            s.stream = 0;
        model_program_add(out, &s);
    }
    return true;
}
