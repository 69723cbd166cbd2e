/*
 * The process's sticky error (sticky_scope "process", sim_core.h).
 *
 * Measured on an H100 (docs/DRIVER-FACTS.md, "Sticky errors reach the whole
 * process"): after a kernel's illegal address, trap or failed assert in any
 * context, every other context of the process answers the same error at
 * once, cuCtxCreate and cuDevicePrimaryCtxRetain answer it for the life of
 * the process, whatever is destroyed, released or reset. Teardown still
 * succeeds. Only a new process computes again.
 *
 * Two process-wide words: the claim (who was first: creation and retain
 * refuse as soon as it is made) and the published error (every context's
 * health reads it, once every live context has been poisoned with its
 * truth written). A context registered after the claim refuses itself in
 * sim_ctx_create; one registered before is found by the scan, which starts
 * after the claim.
 */
#include "sim_core.h"

static atomic_int g_claimed;
atomic_int sim_process_sticky_published;

bool sim_process_scope(void)
{
    const sim_config *c = sim_get_config();
    return c && c->sticky_scope == SIM_STICKY_PROCESS;
}

bool sim_process_claim(sim_status st)
{
    int none = SIM_OK;
    return atomic_compare_exchange_strong(&g_claimed, &none, (int)st);
}

sim_status sim_process_claimed(void)
{
    return (sim_status)atomic_load(&g_claimed);
}

void sim_process_poison_others(const sim_ctx *culprit, sim_status st)
{
    uint32_t cursor = 0;
    sim_obj *o;
    /* No registry lock is held when a context's own lock is taken, and no
     * two context locks are ever held together. */
    while ((o = sim_registry_next(SIM_KIND_CONTEXT, &cursor)) != NULL) {
        sim_ctx *c = (sim_ctx *)o;
        if (c != culprit)
            sim_ctx_poison_bystander(c, st);
        sim_obj_release(o);
    }
}

void sim_process_publish(sim_status st)
{
    atomic_store_explicit(&sim_process_sticky_published, (int)st, memory_order_release);
    sim_progress_notify();
}
