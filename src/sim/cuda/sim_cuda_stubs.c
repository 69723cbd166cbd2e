/*
 * Functions PyCUDA binds that the simulator does not model: each is
 * exported with cuda.h's signature (so a client that links it loads) and
 * answers CUDA_ERROR_NOT_SUPPORTED, recording a detail that names the
 * function and why (gg_sim_last_error_detail). One definition per row of
 * sim_cuda_stubs.h; src/sim/README.md lists them.
 */
#include "sim_cuda.h"
#include "sim_cuda_stubs.h"

/* A stub ignores its arguments: that is what it is for. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static CUresult not_supported(const char *fn, const char *why)
{
    sim_detail("%s: %s; the simulated driver answers CUDA_ERROR_NOT_SUPPORTED", fn, why);
    return CUDA_ERROR_NOT_SUPPORTED;
}

#define SIM_CUDA_STUB_DEFINE(name, params, why)                  \
    SIM_EXPORT CUresult name params                              \
    {                                                            \
        SIM_COUNT(name);                                         \
        return not_supported(#name, SIM_CUDA_STUB_WHY_##why);    \
    }
SIM_CUDA_STUBS(SIM_CUDA_STUB_DEFINE)
#undef SIM_CUDA_STUB_DEFINE
