/*
 * The simulator-only exports (gg_sim_control.h) that read the core alike in
 * both faces; each face library links its own copy, over its own core.
 */
#include "gpuguard/gg_sim_control.h"
#include "sim_core.h"
#include "sim_face_objects.h"

SIM_EXPORT const char *gg_sim_last_config_error(void)
{
    return sim_config_error();
}

SIM_EXPORT const char *gg_sim_last_error_detail(void)
{
    return sim_detail_get();
}

SIM_EXPORT unsigned long long gg_sim_device_memory_used(int device)
{
    sim_device *d = sim_device_get(device);
    return d ? atomic_load(&d->mem_used) : 0;
}

/* The key is the context's handle, which is what both faces hand out as
 * the native context (CUcontext; hipCtx_t, a device's primary context). */
SIM_EXPORT unsigned long long gg_sim_truth_launches(const void *native_ctx, gg_sim_launch_truth *out,
                                                    unsigned long long max)
{
    return sim_truth_copy((uint64_t)(uintptr_t)native_ctx, out, max, sim_face_error_code);
}

SIM_EXPORT void gg_sim_truth_reset(void)
{
    sim_truth_reset();
}
