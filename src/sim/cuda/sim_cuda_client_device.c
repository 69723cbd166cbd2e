/*
 * CUDA face, for clients beyond gpuguard: compute capability, PCI bus ids,
 * peer access queries, and the device attributes that the core does not
 * keep (cuDeviceGetAttribute asks here after its own table).
 *
 * The simulated devices are compute capability 8.0 devices (the core's
 * SIM_ATTR_COMPUTE_CAPABILITY_*), so each attribute answers what an sm_80
 * data-centre GPU (an A100) reports, with two exceptions that keep clients
 * honest: a feature the simulator does not model (memory pools,
 * cooperative launches, virtual memory management, IPC, ...) reports 0, so a client takes the path it takes on a device without it;
 * and the limits the simulator enforces (shared memory per block) report
 * the simulator's value. ECC is reported on for devices without a display
 * watchdog and off for display devices, as on the two kinds of board.
 */
#include "sim_cuda.h"

#include <stdio.h>
#include <string.h>

static CUresult device_of(CUdevice dev, sim_device **out)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    *out = sim_device_get(dev);
    if (!*out) {
        sim_detail("device ordinal %d does not exist", dev);
        return CUDA_ERROR_INVALID_DEVICE;
    }
    return CUDA_SUCCESS;
}

/* Attributes by CU_DEVICE_ATTRIBUTE_* number (cuda.h, CUDA 13.0). */
enum { SIM_CU_ATTR_LAST = 147 };

bool sim_cuda_client_attr(const sim_device *d, int attrib, int *out)
{
    static const int a100[SIM_CU_ATTR_LAST + 1] = {
        [11] = 2147483647,              /* MAX_PITCH */
        [14] = 512,                     /* TEXTURE_ALIGNMENT */
        [15] = 1,                       /* GPU_OVERLAP */
        [21] = 131072, [22] = 131072, [23] = 65536,            /* texture 1D, 2D */
        [24] = 16384, [25] = 16384, [26] = 16384,              /* texture 3D */
        [27] = 32768, [28] = 32768, [29] = 2048,               /* texture 2D layered */
        [30] = 512,                     /* SURFACE_ALIGNMENT */
        [35] = 0,                       /* TCC_DRIVER */
        [36] = 1215000,                 /* MEMORY_CLOCK_RATE (kHz) */
        [37] = 5120,                    /* GLOBAL_MEMORY_BUS_WIDTH */
        [38] = 41943040,                /* L2_CACHE_SIZE */
        [42] = 32768, [43] = 2048,      /* texture 1D layered */
        [44] = 1,                       /* CAN_TEX2D_GATHER */
        [45] = 32768, [46] = 32768,     /* texture 2D gather */
        [47] = 8192, [48] = 8192, [49] = 32768,                /* texture 3D alternate */
        [51] = 32,                      /* TEXTURE_PITCH_ALIGNMENT */
        [52] = 32768, [53] = 32768, [54] = 2046,               /* texture cubemap */
        [55] = 32768, [56] = 131072, [57] = 65536,             /* surface 1D, 2D */
        [58] = 16384, [59] = 16384, [60] = 16384,              /* surface 3D */
        [61] = 32768, [62] = 2048,      /* surface 1D layered */
        [63] = 32768, [64] = 32768, [65] = 2048,               /* surface 2D layered */
        [66] = 32768, [67] = 32768, [68] = 2046,               /* surface cubemap */
        [69] = 268435456,               /* texture 1D linear */
        [70] = 131072, [71] = 65000, [72] = 2097120,           /* texture 2D linear */
        [73] = 32768, [74] = 32768,     /* texture 2D mipmapped */
        [77] = 32768,                   /* texture 1D mipmapped */
        [78] = 1,                       /* STREAM_PRIORITIES_SUPPORTED */
        [79] = 1, [80] = 1,             /* GLOBAL_L1_CACHE, LOCAL_L1_CACHE */
        [81] = (int)SIM_SHARED_PER_SM,  /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
        [82] = 65536,                   /* MAX_REGISTERS_PER_MULTIPROCESSOR */
        [83] = 1,                       /* MANAGED_MEMORY: cuMemAllocManaged is modelled */
        [89] = 1,                       /* CONCURRENT_MANAGED_ACCESS, as an H100 answers
                                         * (docs/DRIVER-FACTS.md): host and kernels share the
                                         * bytes at any time and managed memory may exceed the
                                         * device's (sim_memory.c); prefetch and advice are not
                                         * exported (src/sim/README.md) */
        [87] = 2,                       /* SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO */
        [90] = 1,                       /* COMPUTE_PREEMPTION_SUPPORTED */
        [91] = 1,                       /* CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: the device
                                         * pointer of registered memory is its host address */
        [97] = (int)SIM_MAX_SHARED_PER_BLOCK, /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: the simulator's limit */
        [99] = 1,                       /* HOST_REGISTER_SUPPORTED: cuMemHostRegister is modelled */
        [106] = (int)SIM_MAX_BLOCKS_PER_SM, /* MAX_BLOCKS_PER_MULTIPROCESSOR */
        [111] = 1024,                   /* RESERVED_SHARED_MEMORY_PER_BLOCK */
        [126] = 1,                      /* MEM_SYNC_DOMAIN_COUNT */
        [131] = -1,                     /* NUMA_ID: not a NUMA device */
        [134] = -1,                     /* HOST_NUMA_ID */
        [139] = 0x20B010DE,             /* GPU_PCI_DEVICE_ID: A100's device and vendor ids */
        [140] = 0x134F10DE,             /* GPU_PCI_SUBSYSTEM_ID */
    };
    if (attrib <= 0 || attrib > SIM_CU_ATTR_LAST)
        return false;
    switch (attrib) {
    case 32: /* ECC_ENABLED */
        *out = d->cfg->watchdog ? 0 : 1;
        return true;
    case 85: /* MULTI_GPU_BOARD_GROUP_ID: each device is its own board */
        *out = d->ordinal;
        return true;
    default:
        *out = a100[attrib];
        return true;
    }
}

SIM_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    SIM_COUNT(cuDeviceComputeCapability);
    sim_device *d;
    CUresult r = device_of(dev, &d);
    if (r)
        return r;
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    sim_status st = sim_device_attr(d, SIM_ATTR_COMPUTE_CAPABILITY_MAJOR, major);
    if (!st)
        st = sim_device_attr(d, SIM_ATTR_COMPUTE_CAPABILITY_MINOR, minor);
    return sim_cuda_result(st);
}

/* "dddd:bb:dd.f", the form nvidia-smi and the driver print, from the same
 * domain and bus numbers cuDeviceGetAttribute gives. */
static void bus_id_of(const sim_device *d, char *buf, size_t len)
{
    int domain = 0, bus = 0;
    sim_device_attr(d, SIM_ATTR_PCI_DOMAIN_ID, &domain);
    sim_device_attr(d, SIM_ATTR_PCI_BUS_ID, &bus);
    snprintf(buf, len, "%04x:%02x:00.0", (unsigned)domain, (unsigned)bus);
}

SIM_EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    SIM_COUNT(cuDeviceGetPCIBusId);
    sim_device *d;
    CUresult r = device_of(dev, &d);
    if (r)
        return r;
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    bus_id_of(d, pciBusId, (size_t)len);
    return CUDA_SUCCESS;
}

/* Accepts the forms the driver documents: "domain:bus:device.function",
 * "domain:bus:device", "bus:device.function" (hexadecimal). */
SIM_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    SIM_COUNT(cuDeviceGetByPCIBusId);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    char tail;
    bool parsed = sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) == 4 ||
                  sscanf(pciBusId, "%x:%x:%x%c", &domain, &bus, &device, &tail) == 3 ||
                  (domain = 0, sscanf(pciBusId, "%x:%x.%x%c", &bus, &device, &function, &tail) == 3);
    if (!parsed) {
        sim_detail("\"%s\" is not a PCI bus id (domain:bus:device.function, hexadecimal)", pciBusId);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (int i = 0; i < sim_device_count(); i++) {
        const sim_device *d = sim_device_get(i);
        int dom = 0, b = 0;
        sim_device_attr(d, SIM_ATTR_PCI_DOMAIN_ID, &dom);
        sim_device_attr(d, SIM_ATTR_PCI_BUS_ID, &b);
        if ((unsigned)dom == domain && (unsigned)b == bus && device == 0 && function == 0) {
            *dev = i;
            return CUDA_SUCCESS;
        }
    }
    sim_detail("no simulated device at PCI bus id \"%s\"", pciBusId);
    return CUDA_ERROR_INVALID_DEVICE;
}

/* The simulated devices share no memory: no pair can access each other. */
SIM_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    SIM_COUNT(cuDeviceCanAccessPeer);
    sim_device *d, *p;
    CUresult r = device_of(dev, &d);
    if (!r)
        r = device_of(peerDev, &p);
    if (r)
        return r;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev == peerDev) {
        sim_detail("cuDeviceCanAccessPeer: a device is not its own peer");
        return CUDA_ERROR_INVALID_DEVICE;
    }
    *canAccessPeer = 0;
    return CUDA_SUCCESS;
}

/* A UUID per simulated device, the same in every process and run (clients
 * key caches and CUDA_VISIBLE_DEVICES selection on it): the bytes of
 * "gpuguard-sim" and the device's place in the configuration, big-endian
 * (sim_cuda_visible.c), whatever ordinal CUDA_VISIBLE_DEVICES gives it.
 * Real devices' UUIDs are random; nothing should read meaning into these. */
static CUresult device_uuid(CUuuid *uuid, CUdevice dev, const char *call)
{
    sim_device *d;
    CUresult r = device_of(dev, &d);
    if (r)
        return r;
    if (!uuid) {
        sim_detail("%s: uuid is NULL", call);
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_cuda_uuid_bytes(d->cfg->index, (unsigned char *)uuid->bytes);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    SIM_COUNT(cuDeviceGetUuid);
    return device_uuid(uuid, dev, "cuDeviceGetUuid");
}

/* CUDA 11.4's form: the same answer (the two differ on MIG instances,
 * which the simulator does not have). */
SIM_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    SIM_COUNT(cuDeviceGetUuid_v2);
    return device_uuid(uuid, dev, "cuDeviceGetUuid_v2");
}
