/*
 * The simulator-only exports (gg_sim_control.h) and the per-export call
 * counters of the CUDA face.
 */
#include "gg_sim_control.h"
#include "sim_cuda.h"

#include <string.h>

atomic_ullong sim_cuda_calls[SIM_FN_COUNT];

const char *const sim_cuda_fn_names[SIM_FN_COUNT] = {
#define SIM_CUDA_FN_NAME(name) #name,
    SIM_CUDA_EXPORTS(SIM_CUDA_FN_NAME)
#undef SIM_CUDA_FN_NAME
};

#define SIM_VERSION_TEXT "gpuguard simulated driver 0.1"

SIM_EXPORT const char *gg_sim_identify(void)
{
    return SIM_VERSION_TEXT;
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
            return atomic_load_explicit(&sim_cuda_calls[i], memory_order_relaxed);
    unsigned long long sum = 0;
    for (int i = 0; i < SIM_FN_COUNT; i++)
        if (has_base(sim_cuda_fn_names[i], name))
            sum += atomic_load_explicit(&sim_cuda_calls[i], memory_order_relaxed);
    return sum;
}

SIM_EXPORT unsigned long long gg_sim_total_calls(void)
{
    unsigned long long sum = 0;
    for (int i = 0; i < SIM_FN_COUNT; i++)
        sum += atomic_load_explicit(&sim_cuda_calls[i], memory_order_relaxed);
    return sum;
}

SIM_EXPORT void gg_sim_reset_counts(void)
{
    for (int i = 0; i < SIM_FN_COUNT; i++)
        atomic_store_explicit(&sim_cuda_calls[i], 0, memory_order_relaxed);
}

SIM_EXPORT const char *gg_sim_last_config_error(void)
{
    return sim_config_error();
}

SIM_EXPORT const char *gg_sim_last_error_detail(void)
{
    return sim_detail_get();
}

SIM_EXPORT unsigned long long gg_sim_live_objects(void)
{
    long n = sim_live_objects();
    return n > 0 ? (unsigned long long)n : 0;
}

SIM_EXPORT unsigned long long gg_sim_device_memory_used(int device)
{
    sim_device *d = sim_device_get(device);
    return d ? atomic_load(&d->mem_used) : 0;
}
