/*
 * A measurement aid, not a driver: libgg_numba_uuid_probe.so supplies
 * cuDeviceGetUuid over the simulator's 11.x face, which (as of issue 31's
 * start) lacks it. numba 0.56 asks every device for its UUID when it first
 * lists the devices, so without it not one of numba's CUDA tests loads; with
 * this probe in front (run_numba_suites.sh --uuid-probe) the suites run, and
 * their failures show the simulator's other gaps. The library links the
 * simulator, so every other cu* name a client looks up in it (dlsym on its
 * handle searches its dependencies) is the simulator's own. Remove it once
 * the simulator exports cuDeviceGetUuid: run_numba_suites.sh already
 * refuses the probe then.
 */
#include <stddef.h>
#include <string.h>

/* The few driver types and calls this file needs, as cuda.h declares them. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;
CUresult cuDeviceGetCount(int *count);

enum {
    PROBE_SUCCESS = 0,          /* CUDA_SUCCESS */
    PROBE_INVALID_VALUE = 1,    /* CUDA_ERROR_INVALID_VALUE */
    PROBE_INVALID_DEVICE = 101, /* CUDA_ERROR_INVALID_DEVICE */
};

/* Stores in *uuid a UUID that names device `device` of the simulator: the
 * same for the same ordinal, different between ordinals, and marked as a
 * random (version 4) UUID. Returns the simulator's own error for
 * cuDeviceGetCount (e.g. CUDA_ERROR_NOT_INITIALIZED before cuInit),
 * CUDA_ERROR_INVALID_VALUE for uuid NULL, CUDA_ERROR_INVALID_DEVICE for an
 * ordinal the simulator does not have. Stateless: thread-safe. */
__attribute__((visibility("default"))) CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice device);

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice device)
{
    int count = 0;
    CUresult status = cuDeviceGetCount(&count);
    if (status != PROBE_SUCCESS)
        return status;
    if (!uuid)
        return PROBE_INVALID_VALUE;
    if (device < 0 || device >= count)
        return PROBE_INVALID_DEVICE;
    /* "gg-sim-device" and the ordinal, with the version-4 and variant bits
     * set as RFC 4122 lays them out. */
    static const char prefix[12] = { 'g', 'g', '-', 's', 'i', 'm', '-', 'd', 'e', 'v', 'i', 'c' };
    memcpy(uuid->bytes, prefix, sizeof prefix);
    uuid->bytes[12] = (char)((unsigned)device >> 24);
    uuid->bytes[13] = (char)((unsigned)device >> 16);
    uuid->bytes[14] = (char)((unsigned)device >> 8);
    uuid->bytes[15] = (char)(unsigned)device;
    uuid->bytes[6] = (char)((uuid->bytes[6] & 0x0f) | 0x40);
    uuid->bytes[8] = (char)((uuid->bytes[8] & 0x3f) | 0x80);
    return PROBE_SUCCESS;
}
