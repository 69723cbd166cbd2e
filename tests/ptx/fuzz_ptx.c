/*
 * libFuzzer harness over the PTX parser and interpreter (src/sim/ptx): any
 * text is parsed; a module that loads has its first kernel run for one
 * block of 33 threads (two warps, one partial) against a fake runtime with
 * one 4 KiB global buffer at 0x1000 and a cancellation after a few polls,
 * so loops end. Built with -DGG_FUZZ=ON (clang); seeds: tests/ptx/fixtures.
 */
#include "ptx_module.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GLOBAL_BASE 0x1000u
static unsigned char global_buffer[4096];
static int polls;

static void *fake_map(const gg_sim_block *b, uint64_t dptr, size_t bytes)
{
    (void)b;
    if (dptr >= GLOBAL_BASE && bytes <= sizeof global_buffer &&
        dptr - GLOBAL_BASE <= sizeof global_buffer - bytes)
        return global_buffer + (dptr - GLOBAL_BASE);
    return NULL;
}

static void fake_trap(const gg_sim_block *b, gg_sim_trap kind)
{
    (void)b;
    (void)kind;
}

static bool fake_cancelled(const gg_sim_block *b)
{
    (void)b;
    return ++polls > 3;
}

static const gg_sim_runtime fake_runtime = { fake_map, fake_trap, fake_cancelled };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    (void)ptx_image_is_ptx(text);
    char err[512];
    ptx_module *m = ptx_module_parse(text, size, err, sizeof err);
    if (m) {
        const ptx_kernel *k = &m->kernels[0];
        void *params[32] = { 0 };
        bool ok = k->local_bytes <= 65536 && k->nregs <= 100000;
        for (unsigned i = 0; i < k->nparams && ok; i++)
            ok = (params[i] = calloc(1, k->param_sizes[i])) != NULL;
        gg_sim_block b = { .grid_dim = { 1, 1, 1 }, .block_dim = { 33, 1, 1 }, .shared_bytes = 64,
                           .params = params, .rt = &fake_runtime };
        polls = 0;
        /* A simulated watchdog of 1 ms too, as on a display device. */
        ptx_sim_clock clock = { .ns_per_insn = 1.0, .insn_limit = 1000000 };
        if (ok)
            ptx_run_block(m, k, &b, NULL, &clock, NULL);
        for (unsigned i = 0; i < k->nparams; i++)
            free(params[i]);
    }
    ptx_module_free(m);
    free(text);
    return 0;
}
