/*
 * A stand-in for the CUDA runtime library (libcudart.so.11.0) that numba's
 * CUDA target loads beside the driver: numba 0.56 asks the runtime one
 * thing, cudaRuntimeGetVersion, to choose the compute capabilities it
 * compiles for, and compiles no kernel without an answer. NVIDIA's own
 * libcudart cannot serve here: it checks the driver's undocumented export
 * tables, which the simulated driver does not imitate. This library answers
 * only that call, as CUDA 11.8's runtime would; it is a test fixture, not
 * part of gpuguard, and holds no state (thread-safe by construction).
 */

/* The runtime's error codes this library returns (CUDA's cudaError_t). */
enum {
    CUDART_STANDIN_SUCCESS = 0,       /* cudaSuccess */
    CUDART_STANDIN_INVALID_VALUE = 1, /* cudaErrorInvalidValue */
};

/* The version this stand-in claims: 1000 * major + 10 * minor, CUDA 11.8. */
#define CUDART_STANDIN_VERSION 11080

/* The runtime entry point numba calls. Stores the runtime version (11080)
 * in *version and returns 0; with version NULL stores nothing and returns 1
 * (cudaErrorInvalidValue), as NVIDIA's runtime does. */
__attribute__((visibility("default"))) int cudaRuntimeGetVersion(int *version);

int cudaRuntimeGetVersion(int *version)
{
    if (!version)
        return CUDART_STANDIN_INVALID_VALUE;
    *version = CUDART_STANDIN_VERSION;
    return CUDART_STANDIN_SUCCESS;
}
