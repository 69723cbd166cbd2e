/* libFuzzer harness: sequences of API calls over the simulated driver in
 * fast mode, on a pool of handles that are valid, stale (destroyed),
 * forged (made-up ids) or zero. Each input byte pair is one call: the
 * first byte picks the call, the second its handles and sizes.
 * Contracts: no crash, no sanitizer report; every status is one the API
 * defines and bad handles or arguments come with a message; destroying
 * what is already gone is GG_OK; after the input's contexts are destroyed
 * nothing is left alive. Fault plans are loaded too (from the input), so
 * injected errors meet the same sequences. */
#include "fuzz_support.h"

#define POOL 16

typedef struct pool {
    uint64_t ids[POOL]; /* any kind of handle: the calls reinterpret them */
    unsigned used;
} pool;


int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (fuzz_init_sim() != GG_OK) {
        fprintf(stderr, "fuzz_api: gg_init over the simulator failed\n");
        abort();
    }
    return 0;
}

static void remember(pool *p, uint64_t id)
{
    p->ids[p->used++ % POOL] = id;
}

/* A handle for a call: from the pool (valid or stale), zero, or forged. */
static uint64_t pick(const pool *p, uint8_t arg)
{
    switch (arg & 3) {
    case 0: return 0;
    case 1: return ((uint64_t)arg << 32) | (uint64_t)(arg * 2654435761u); /* forged */
    default: return p->used == 0 ? 0 : p->ids[(arg >> 2) % (p->used < POOL ? p->used : POOL)];
    }
}

#define CALL(expr) fuzz_check_status((expr), #expr)

static void destroy_call(gg_status s, const char *call)
{
    fuzz_check_status(s, call);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pool p = { { 0 }, 0 };
    gg_context contexts[4];
    unsigned ncontexts = 0;
    uint8_t host[256] = { 0 };
    for (size_t i = 0; i + 1 < size; i += 2) {
        uint8_t op = data[i], arg = data[i + 1];
        gg_context ctx = { pick(&p, arg) };
        gg_stream stream = { pick(&p, (uint8_t)(arg >> 1)) };
        gg_event event = { pick(&p, (uint8_t)(arg >> 2)) };
        gg_buffer buf = { pick(&p, arg) };
        gg_buffer buf2 = { pick(&p, (uint8_t)(arg >> 3)) };
        size_t bytes = (size_t)(arg & 0x3f) * 4;
        switch (op % 24) {
        case 0:
            if (ncontexts < 4) {
                gg_context c;
                gg_status s = gg_context_create(arg & 1, arg & 2 ? &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "fuzz" } : NULL, &c);
                CALL(s);
                if (s == GG_OK) {
                    contexts[ncontexts++] = c;
                    remember(&p, c.id);
                }
            }
            break;
        case 1: destroy_call(gg_context_destroy(ctx), "gg_context_destroy"); break;
        case 2: {
            gg_stream s;
            gg_status st = gg_stream_create(ctx, NULL, &s);
            CALL(st);
            if (st == GG_OK)
                remember(&p, s.id);
            break;
        }
        case 3: destroy_call(gg_stream_destroy(stream), "gg_stream_destroy"); break;
        case 4: {
            gg_event e;
            gg_status st = gg_event_create(ctx, NULL, &e);
            CALL(st);
            if (st == GG_OK)
                remember(&p, e.id);
            break;
        }
        case 5: destroy_call(gg_event_destroy(event), "gg_event_destroy"); break;
        case 6: {
            gg_buffer b;
            gg_status st = gg_buffer_create(ctx, bytes, arg & 0x40 ? &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .flags = GG_BUFFER_HOST_PINNED }
                                                                   : NULL, &b);
            CALL(st);
            if (st == GG_OK)
                remember(&p, b.id);
            break;
        }
        case 7: destroy_call(gg_buffer_destroy(buf), "gg_buffer_destroy"); break;
        case 8: CALL(gg_memcpy_htod(buf, arg & 7, host, bytes, stream)); break;
        case 9: CALL(gg_memcpy_dtoh(host, buf, arg & 7, bytes, stream)); break;
        case 10: CALL(gg_memcpy_dtod(buf, arg & 3, buf2, arg & 5, bytes, stream)); break;
        case 11: CALL(gg_memset(buf, arg & 7, arg, bytes, stream)); break;
        case 12: CALL(gg_event_record(event, stream)); break;
        case 13: CALL(gg_event_query(event)); break;
        case 14: CALL(gg_event_synchronize(event, GG_WAIT_MS(1000))); break;
        case 15: CALL(gg_stream_query(stream)); break;
        case 16: CALL(gg_stream_synchronize(stream, GG_WAIT_MS(1000))); break;
        case 17: CALL(gg_stream_wait_event(stream, event)); break;
        case 18: CALL(gg_context_synchronize(ctx, GG_WAIT_MS(1000))); break;
        case 19: {
            float ms;
            CALL(gg_event_elapsed_ms(event, (gg_event){ pick(&p, (uint8_t)(arg >> 4)) }, &ms));
            break;
        }
        case 20: CALL(gg_context_recover(ctx)); break;
        case 21: {
            /* A plan from the input's next bytes (mostly invalid; the
             * valid ones inject errors into what follows). */
            static const char *const plans[] = {
                "[{\"op\":\"*\",\"every\":3,\"error\":\"out_of_memory\"}]",
                "[{\"op\":\"*\",\"nth\":2,\"error\":\"illegal_address\"}]",
                "[{\"op\":\"stream_synchronize\",\"error\":\"launch_failed\"}]",
                "{\"seed\":5,\"rules\":[{\"op\":\"*\",\"probability\":0.3,\"error\":\"driver\"}]}",
            };
            CALL(gg_fault_set_plan(plans[arg % 4]));
            break;
        }
        case 22: CALL(gg_fault_clear()); break;
        case 23: {
            void *ptr;
            size_t n;
            uint64_t dptr;
            CALL(gg_buffer_host_ptr(buf, &ptr));
            CALL(gg_buffer_size(buf, &n));
            CALL(gg_buffer_device_ptr(buf, &dptr));
            gg_context owner;
            CALL(gg_stream_context(stream, &owner));
            (void)gg_context_state(ctx);
            break;
        }
        }
    }
    gg_fault_clear();
    for (unsigned c = 0; c < ncontexts; c++)
        destroy_call(gg_context_destroy(contexts[c]), "gg_context_destroy (end of input)");
    uint64_t live = 1;
    FUZZ_CHECK(gg_live_objects(&live) == GG_OK && live == 0, "%llu objects alive after every context was destroyed",
               (unsigned long long)live);
    return 0;
}
