/* Driver-call counting for the "no driver call" promises (gc_calls.h). */
#include "gc_calls.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#ifdef GG_GPU_CHECK_HAVE_CUPTI
#include <cupti.h>
#endif

static const char *source = "";
static unsigned long long (*sim_total_calls)(void);
static unsigned long long sim_base;

/* CUPTI calls back on whichever thread calls the driver; only the checking
 * thread's calls, made while armed, count. */
static _Thread_local bool armed;
static _Thread_local uint64_t counted;
static _Thread_local char first_call[64];

#ifdef GG_GPU_CHECK_HAVE_CUPTI
static void on_driver_call(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data)
{
    (void)user;
    (void)id;
    const CUpti_CallbackData *call = data;
    if (!armed || domain != CUPTI_CB_DOMAIN_DRIVER_API || call->callbackSite != CUPTI_API_ENTER)
        return;
    if (counted++ == 0 && call->functionName != NULL)
        snprintf(first_call, sizeof first_call, "%s", call->functionName);
}

/* libcupti is loaded at run time: the suite runs (without this count) where
 * the toolkit's CUPTI is missing. */
static bool open_cupti(char *why, size_t why_cap)
{
    static const char *const names[] = {
        "libcupti.so", "libcupti.so.13", "libcupti.so.12",
        "/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
        "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
    };
    void *lib = NULL;
    for (size_t i = 0; lib == NULL && i < sizeof names / sizeof names[0]; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(why, why_cap, "CUPTI (libcupti.so) not found: %s", dlerror());
        return false;
    }
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) =
        (CUptiResult(*)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *))dlsym(lib, "cuptiSubscribe");
    CUptiResult (*enable)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) =
        (CUptiResult(*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain))dlsym(lib, "cuptiEnableDomain");
    if (subscribe == NULL || enable == NULL) {
        snprintf(why, why_cap, "libcupti lacks cuptiSubscribe/cuptiEnableDomain");
        return false;
    }
    CUpti_SubscriberHandle subscriber;
    CUptiResult rc = subscribe(&subscriber, (CUpti_CallbackFunc)on_driver_call, NULL);
    if (rc == CUPTI_SUCCESS)
        rc = enable(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    if (rc != CUPTI_SUCCESS) {
        snprintf(why, why_cap, "CUPTI refused to subscribe to driver calls (CUptiResult %d; "
                 "another profiler attached?)", (int)rc);
        return false;
    }
    return true;
}
#endif

bool gc_calls_open(const gc_env *env, char *why, size_t why_cap)
{
    if (env->simulated) {
        const char *lib = env->hip ? "libgpuguard_sim_hip.so" : "libgpuguard_sim_cuda.so";
        void *handle = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
        if (handle != NULL)
            sim_total_calls = (unsigned long long (*)(void))dlsym(handle, "gg_sim_total_calls");
        if (sim_total_calls == NULL) {
            snprintf(why, why_cap, "the simulator's gg_sim_total_calls not found in %s", lib);
            return false;
        }
        source = "simulator";
        return true;
    }
    if (env->hip) {
        snprintf(why, why_cap, "no driver-call tracer for HIP here (CUPTI is CUDA's)");
        return false;
    }
#ifdef GG_GPU_CHECK_HAVE_CUPTI
    if (!open_cupti(why, why_cap))
        return false;
    source = "cupti";
    return true;
#else
    snprintf(why, why_cap, "built without CUPTI's headers (no CUDA toolkit at build time)");
    return false;
#endif
}

void gc_calls_arm(void)
{
    counted = 0;
    first_call[0] = '\0';
    if (sim_total_calls != NULL)
        sim_base = sim_total_calls();
    atomic_signal_fence(memory_order_seq_cst);
    armed = true;
}

uint64_t gc_calls_disarm(char *first, size_t first_cap)
{
    armed = false;
    uint64_t n = counted;
    if (sim_total_calls != NULL) {
        /* The simulator counts every thread's calls: the checks arm it only
         * while no other thread of theirs calls the driver. */
        n = sim_total_calls() - sim_base;
        snprintf(first_call, sizeof first_call, "%s", n ? "(the simulator does not say which)" : "");
    }
    if (first != NULL && first_cap > 0)
        snprintf(first, first_cap, "%s", first_call);
    return n;
}

const char *gc_calls_source(void)
{
    return source;
}
