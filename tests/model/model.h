/*
 * The model-based attribution tester (tests/model/README.md): programs of
 * gpuguard calls over the simulated driver, generated from a seed, decoded
 * from fuzz bytes or parsed from a script, run against gpuguard while the
 * executor keeps its own model of every accepted launch; a referee checks
 * what gpuguard says (culprits, synchronizes that return GG_OK) against the
 * simulator's ground truth (gg_sim_truth_launches). Plain C: shared by the
 * ctest runner (model_runner.c) and the libFuzzer harness
 * (tests/fuzz/fuzz_model.c); nothing here uses Criterion.
 */
#ifndef GG_MODEL_H
#define GG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuguard/gpuguard.h"

/* Slots a program names: ctx0..ctx2, s0..s159, e0..e15. */
#define MODEL_CTX 3
#define MODEL_STREAMS 160
#define MODEL_EVENTS 16
/* Longest program, and most launches of one launch step. */
#define MODEL_STEPS_MAX 4096
#define MODEL_REPEAT_MAX 4000
#define MODEL_MS_MAX 2000

typedef enum model_kernel {
    MK_OK = 0,         /* completes at once */
    MK_FAULT_NOW = 1,  /* the simulator's "fault" rule: faults when it starts */
    MK_FAULT_LATE = 2, /* runs `ms`, then traps (ILLEGAL_ADDRESS) */
    MK_HANG = 3,       /* "hang": never completes (the watchdog of device 0 kills it) */
    MK_OVERRUN = 4,    /* "overrun": runs past the watchdog (device 1: completes after 40 ms) */
    MK_SLOW = 5,       /* runs `ms`, then completes */
    MK_COUNT
} model_kernel;

typedef enum model_step_kind {
    MS_CTX_CREATE,    /* ctx = context(device dev) */
    MS_CTX_DESTROY,   /* destroy ctx */
    MS_STREAM_CREATE, /* s = stream(ctx) */
    MS_STREAM_DESTROY,
    MS_EVENT_CREATE,  /* e = event(ctx) */
    MS_EVENT_DESTROY,
    MS_LAUNCH,        /* launch KERNEL[(ms)] on s|ctx.default [xN] */
    MS_RECORD,        /* record e on s|ctx.default */
    MS_WAIT,          /* wait s|ctx.default on e */
    MS_QUERY_STREAM,
    MS_QUERY_EVENT,
    MS_SYNC_STREAM,   /* sync s deadline Nms [returns] */
    MS_SYNC_EVENT,
    MS_SYNC_CTX,
    MS_RECOVER,
    MS_FORK,          /* fork check ctx [s]: a child whose calls must all be GG_FORKED */
    MS_RACE_DESTROY,  /* race destroy ctx with s: another thread destroys ctx while this one
                         calls gg_stream_context(s) and gg_stream_create(ctx) */
    MS_SLEEP,
    MS_KIND_COUNT
} model_step_kind;

typedef struct model_step {
    uint8_t kind;      /* model_step_kind */
    uint8_t ctx;       /* context slot */
    uint8_t event;     /* event slot */
    uint8_t kernel;    /* model_kernel */
    uint16_t stream;   /* stream slot; MODEL_DEFAULT_STREAM: ctx's default stream */
    uint8_t returns;   /* syncs: GG_TIMEOUT_RETURNS instead of the killing policy */
    uint8_t device;    /* context creation */
    uint32_t ms;       /* kernel argument, deadline or sleep */
    uint32_t repeat;   /* launches: how many (>= 1) */
} model_step;
#define MODEL_DEFAULT_STREAM 0xffffu
/* MS_FORK without a stream. */
#define MODEL_NO_STREAM 0xfffeu

typedef struct model_program {
    model_step *steps;
    size_t count, capacity;
} model_program;

void model_program_init(model_program *p);
void model_program_free(model_program *p);
/* Appends a step (programs longer than MODEL_STEPS_MAX drop the rest). */
void model_program_add(model_program *p, const model_step *s);

/* A program from a seed (its own PRNG: the same seed gives the same program
 * on every machine). */
void model_generate(uint64_t seed, model_program *out);
/* A program from arbitrary bytes: every 4 bytes decode to one valid step,
 * whatever they hold. */
void model_decode(const uint8_t *data, size_t size, model_program *out);
/* Bytes that model_decode turns back into `p` (the fuzz harness's seed
 * corpus). Returns the length written, at most `cap`. */
size_t model_encode(const model_program *p, uint8_t *out, size_t cap);

/* The program as a script, one step per line (model_parse reads it back).
 * Returns a malloc'ed string. */
char *model_print(const model_program *p);
/* One step as its script line (no newline) into buf. */
void model_print_step(const model_step *s, char *buf, size_t size);
/* Parses a script; false with a message in err (line number and why). */
bool model_parse(const char *text, model_program *out, char *err, size_t err_size);

/* What a run checks against, and over which backend. */
typedef struct model_env {
    const char *backend;      /* "sim" or "sim-hip" */
    const char *library;      /* the simulator face gpuguard loads */
    const char *kernels_path; /* model_kernels.so */
    int driver_version;       /* 0: the face's default */
    gg_timeline_mode timeline;
    uint32_t timeline_stride; /* gg_init_desc::timeline_stride (0: the mode's default) */
    bool verbose;             /* print each step as it runs */
    bool in_fuzzer;           /* shorter bounds; no fork (libFuzzer's own process) */
} model_env;

/* Sets GPUGUARD_SIM_CONFIG (the one configuration of the process: the
 * simulator reads it at its first cuInit), loads the simulator and keeps
 * it loaded, so that its controls (and the truth) are reachable between
 * gg_init and gg_shutdown. Returns false with a message on stderr. */
bool model_process_setup(const model_env *env);
/* A fuzz input's byte 0 (fuzz_model, model_runner --decode): bit 0 turns
 * the timeline off; with it on, bits 1-2 pick the stride (every launch
 * marked, or every 2nd, 4th or 7th). */
static inline void model_timeline_from_byte(uint8_t byte, model_env *env)
{
    static const uint32_t strides[4] = { 0, 2, 4, 7 };
    env->timeline = (byte & 1) ? GG_TIMELINE_OFF : GG_TIMELINE_ON;
    env->timeline_stride = (byte & 1) ? 0 : strides[(byte >> 1) & 3];
}
/* Whether the simulator records launches (gg_sim_truth_launches exported
 * and the configuration asks for it). */
bool model_truth_available(void);

/* gg_init for env (timeline mode), run the program, tear everything down,
 * gg_shutdown. Returns the number of check failures (each printed to
 * stderr with the script, the step, what gpuguard said and what the truth
 * says). `label` names the run in the printed reports. */
unsigned model_run(const model_env *env, const model_program *p, const char *label);

#endif
