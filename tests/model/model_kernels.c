/* Kernels of the model-based attribution tester (tests/model). Every
 * kernel takes one uint32 (milliseconds; ignored by those that do not run
 * for a time), so that every launch has the same shape. The simulator's
 * configuration (model_exec.c) gives model_fault_now the "fault" rule,
 * model_hang "hang" and model_overrun "overrun"; the others misbehave on
 * their own. */
#include <stdint.h>
#include <time.h>

#include "gpuguard/sim_kernel.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs `ms` milliseconds in steps of at most 1 ms, returning early when the
 * launch is cancelled (watchdog, context destroyed or reset). True when it
 * ran to the end. */
static int run_for(const gg_sim_block *b, uint32_t ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    for (;;) {
        if (b->rt->cancelled(b))
            return 0;
        uint64_t now = now_ns();
        if (now >= end)
            return 1;
        uint64_t left = end - now;
        struct timespec ts = { 0, (long)(left < 1000000u ? left : 1000000u) };
        nanosleep(&ts, NULL);
    }
}

GG_SIM_KERNEL_PARAMS(model_ok, sizeof(uint32_t));
GG_SIM_KERNEL(model_ok)
{
    (void)b;
}

GG_SIM_KERNEL_PARAMS(model_fault_now, sizeof(uint32_t));
GG_SIM_KERNEL(model_fault_now)
{
    (void)b; /* the "fault" rule fails it before it runs */
}

/* Runs ms, then a device-side illegal address. */
GG_SIM_KERNEL_PARAMS(model_fault_late, sizeof(uint32_t));
GG_SIM_KERNEL(model_fault_late)
{
    if (run_for(b, GG_SIM_PARAM(b, uint32_t, 0)))
        b->rt->trap(b, GG_SIM_TRAP_ILLEGAL_ADDRESS);
}

GG_SIM_KERNEL_PARAMS(model_hang, sizeof(uint32_t));
GG_SIM_KERNEL(model_hang)
{
    (void)b; /* the "hang" rule keeps it running */
}

GG_SIM_KERNEL_PARAMS(model_overrun, sizeof(uint32_t));
GG_SIM_KERNEL(model_overrun)
{
    (void)b; /* the "overrun" rule keeps it running past the watchdog */
}

/* Runs ms, then completes. */
GG_SIM_KERNEL_PARAMS(model_slow, sizeof(uint32_t));
GG_SIM_KERNEL(model_slow)
{
    run_for(b, GG_SIM_PARAM(b, uint32_t, 0));
}
