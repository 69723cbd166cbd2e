/*
 * The simulator-only exports (gg_sim_control.h) and the per-export call
 * counters of the CUDA face (the ones alike in both faces are in
 * sim_face_control.c).
 */
#include "gpuguard/gg_sim_control.h"
#include "sim_cuda.h"

#include <string.h>

sim_count_block sim_cuda_counts[SIM_COUNT_BLOCKS] = { [SIM_COUNT_BLOCKS - 1] = { .shared = true } };
static atomic_uint next_block;

sim_count_block *sim_cuda_counts_attach(void)
{
    unsigned i = atomic_fetch_add_explicit(&next_block, 1, memory_order_relaxed);
    if (i >= SIM_COUNT_BLOCKS - 1) {
        i = SIM_COUNT_BLOCKS - 1;
        atomic_store_explicit(&next_block, SIM_COUNT_BLOCKS, memory_order_relaxed); /* no wrap-around */
    }
    sim_t.counts = &sim_cuda_counts[i];
    return sim_t.counts;
}

/* Calls of export i, all threads together. */
static unsigned long long calls_of(int i)
{
    unsigned long long sum = 0;
    for (int b = 0; b < SIM_COUNT_BLOCKS; b++)
        sum += atomic_load_explicit(&sim_cuda_counts[b].calls[i], memory_order_relaxed);
    return sum;
}

const char *const sim_cuda_fn_names[SIM_FN_COUNT] = {
#define SIM_CUDA_FN_NAME(name, ...) #name,
    SIM_CUDA_EXPORTS(SIM_CUDA_FN_NAME)
#undef SIM_CUDA_FN_NAME
};

#define SIM_VERSION_TEXT "gpuguard simulated driver 0.1"

SIM_EXPORT const char *gg_sim_identify(void)
{
    return SIM_VERSION_TEXT;
}

SIM_EXPORT int gg_sim_sticky_scope(void)
{
    const sim_config *c = sim_get_config();
    /* Before a successful cuInit: what cuInit would read now. */
    sim_sticky_scope s = c ? c->sticky_scope : sim_config_peek_sticky_scope();
    return s == SIM_STICKY_CONTEXT ? 0 : 1;
}

/* True if export is base, base_vN or base_ptsz/_ptds. */
static bool has_base(const char *export, const char *base)
{
    size_t n = strlen(base);
    if (strncmp(export, base, n) != 0)
        return false;
    const char *rest = export + n;
    if (!*rest)
        return true;
    if (rest[0] == '_' && rest[1] == 'v' && rest[2] >= '0' && rest[2] <= '9')
        return rest[3] == '\0';
    return false;
}

SIM_EXPORT unsigned long long gg_sim_call_count(const char *name)
{
    if (!name)
        return 0;
    for (int i = 0; i < SIM_FN_COUNT; i++)
        if (!strcmp(sim_cuda_fn_names[i], name))
            return calls_of(i);
    unsigned long long sum = 0;
    for (int i = 0; i < SIM_FN_COUNT; i++)
        if (has_base(sim_cuda_fn_names[i], name))
            sum += calls_of(i);
    return sum;
}

SIM_EXPORT unsigned long long gg_sim_total_calls(void)
{
    unsigned long long sum = 0;
    for (int i = 0; i < SIM_FN_COUNT; i++)
        sum += calls_of(i);
    return sum;
}

/* Calls that other threads make during a reset may be counted or not (a
 * thread's own block is not updated with atomic adds). */
SIM_EXPORT void gg_sim_reset_counts(void)
{
    for (int b = 0; b < SIM_COUNT_BLOCKS; b++)
        for (int i = 0; i < SIM_FN_COUNT; i++)
            atomic_store_explicit(&sim_cuda_counts[b].calls[i], 0, memory_order_relaxed);
}

SIM_EXPORT unsigned long long gg_sim_live_objects(void)
{
    long n = sim_live_objects();
    return n > 0 ? (unsigned long long)n : 0;
}
int sim_face_error_code(sim_status st)
{
    return (int)sim_cuda_result(st);
}
