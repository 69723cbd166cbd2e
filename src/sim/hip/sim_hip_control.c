/*
 * The simulator-only exports (gg_sim_control.h) of the HIP face, and its
 * per-export call counters. Both face libraries may live in one process:
 * each has its own core, so these report on the HIP face's state only.
 * The controls alike in both faces are in sim_face_control.c.
 */
#include "gpuguard/gg_sim_control.h"
#include "sim_hip.h"

#include <string.h>

atomic_ullong sim_hip_calls[SIM_HIP_FN_COUNT];

const char *const sim_hip_fn_names[SIM_HIP_FN_COUNT] = {
#define SIM_HIP_FN_NAME(name) #name,
    SIM_HIP_EXPORTS(SIM_HIP_FN_NAME)
#undef SIM_HIP_FN_NAME
};

#define SIM_HIP_VERSION_TEXT "gpuguard simulated driver 0.1 (HIP)"

SIM_EXPORT const char *gg_sim_identify(void)
{
    return SIM_HIP_VERSION_TEXT;
}

/* HIP has no versioned names: only exact ones count. */
SIM_EXPORT unsigned long long gg_sim_call_count(const char *name)
{
    if (!name)
        return 0;
    for (int i = 0; i < SIM_HIP_FN_COUNT; i++)
        if (!strcmp(sim_hip_fn_names[i], name))
            return atomic_load_explicit(&sim_hip_calls[i], memory_order_relaxed);
    return 0;
}

SIM_EXPORT unsigned long long gg_sim_total_calls(void)
{
    unsigned long long sum = 0;
    for (int i = 0; i < SIM_HIP_FN_COUNT; i++)
        sum += atomic_load_explicit(&sim_hip_calls[i], memory_order_relaxed);
    return sum;
}

SIM_EXPORT void gg_sim_reset_counts(void)
{
    for (int i = 0; i < SIM_HIP_FN_COUNT; i++)
        atomic_store_explicit(&sim_hip_calls[i], 0, memory_order_relaxed);
}

/* Primary contexts live as long as the process (HIP never releases them):
 * they and their null streams are runtime state, not objects the program
 * made, so they are not counted. Everything they hold is. */
SIM_EXPORT unsigned long long gg_sim_live_objects(void)
{
    long n = sim_live_objects();
    for (int i = 0; i < sim_device_count(); i++) {
        sim_ctx *c = sim_hip_primary_if_any(sim_device_get(i));
        if (!c)
            continue;
        sim_stream *ns = sim_ctx_null_stream(c);
        n -= ns ? 2 : 1;
        if (ns)
            sim_obj_release(&ns->obj);
        sim_obj_release(&c->obj);
    }
    return n > 0 ? (unsigned long long)n : 0;
}
int sim_face_error_code(sim_status st)
{
    return (int)sim_hip_result(st);
}
