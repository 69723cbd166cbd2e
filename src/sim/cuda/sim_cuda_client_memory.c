/*
 * CUDA face, for clients beyond gpuguard: 16- and 32-bit and 2D memsets,
 * pitched allocations, address ranges, managed memory, registered host
 * memory, and cuModuleLoadDataEx.
 *
 * Memsets follow the rules of the 8-bit ones (sim_cuda_memory.c): they run
 * on a stream of the current context, the synchronous forms on its null
 * stream and wait; the synchronous ones check the whole range at the call,
 * the asynchronous ones its start (running past the end faults when the
 * memset runs). CUDA also requires the destination to be aligned to the
 * element (INVALID_VALUE otherwise).
 *
 * Registered host memory (cuMemHostRegister_v2) is recorded by the core
 * (sim_host_memory.c) and refused twice or overlapping, as CUDA does;
 * with DEVICEMAP or without (measured on an H100) its device pointer is its
 * host address. An
 * asynchronous copy from it is still staged at the call like one from
 * pageable memory (the same bytes arrive; only a program that writes the
 * buffer before the copy completes could tell).
 */
#include "sim_alloc.h"
#include "sim_cuda.h"

#include <stdlib.h>
#include <string.h>

#define CU_MEMHOSTREGISTER_PORTABLE 0x01u
#define CU_MEMHOSTREGISTER_DEVICEMAP 0x02u
#define CU_MEMHOSTREGISTER_IOMEMORY 0x04u
#define CU_MEMHOSTREGISTER_READ_ONLY 0x08u
#define PITCH_ALIGNMENT 512u        /* cuMemAllocPitch rows start 512-byte aligned */

/* Sets height rows of width elements (elem bytes each, pattern or value)
 * starting pitch bytes apart at dst, on stream h of the current context. */
static CUresult memset_rows(const char *call, CUdeviceptr dst, size_t pitch, unsigned elem,
                            uint32_t pattern, size_t width, size_t height, CUstream h, bool sync)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_OK;
    size_t row = width * elem;
    if (dst % elem) {
        sim_detail("%s: destination 0x%llx is not %u-byte aligned", call, (unsigned long long)dst, elem);
        st = SIM_ERR_INVALID_VALUE;
    } else if (width > SIZE_MAX / elem || (height > 1 && pitch < row)) {
        sim_detail("%s: rows of %zu elements do not fit a pitch of %zu bytes", call, width, pitch);
        st = SIM_ERR_INVALID_VALUE;
    } else if (height > 1 && pitch > (SIZE_MAX - row) / (height - 1)) {
        sim_detail("%s: %zu rows of pitch %zu overflow the address space", call, height, pitch);
        st = SIM_ERR_INVALID_VALUE;
    }
    if (st || row == 0 || height == 0) {
        sim_obj_release(&c->obj);
        return sim_cuda_result(st);
    }
    sim_copy_req whole = { .kind = SIM_OP_MEMSET, .dst = dst, .bytes = (height - 1) * pitch + row,
                           .sync = sync };
    sim_stream *s = NULL;
    st = sim_copy_check(c, &whole, false);
    if (!st)
        st = sim_cuda_stream(h, c, &s);
    for (size_t i = 0; !st && i < height; i++) {
        sim_copy_req q = { .kind = SIM_OP_MEMSET, .dst = dst + i * pitch, .bytes = row,
                           .value = (unsigned char)pattern, .elem_bytes = (unsigned char)elem,
                           .pattern = pattern };
        /* Rows run in order on s: waiting for the last waits for all. */
        st = sim_copy_submit(s, sim_copy_op(&q), sync && i == height - 1);
    }
    if (s)
        sim_obj_release(&s->obj);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

SIM_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    SIM_COUNT(cuMemsetD16_v2);
    return memset_rows("cuMemsetD16", dstDevice, 0, 2, us, N, 1, NULL, true);
}

SIM_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
    SIM_COUNT(cuMemsetD16Async);
    return memset_rows("cuMemsetD16Async", dstDevice, 0, 2, us, N, 1, hStream, false);
}

SIM_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    SIM_COUNT(cuMemsetD32_v2);
    return memset_rows("cuMemsetD32", dstDevice, 0, 4, ui, N, 1, NULL, true);
}

SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    SIM_COUNT(cuMemsetD32Async);
    return memset_rows("cuMemsetD32Async", dstDevice, 0, 4, ui, N, 1, hStream, false);
}

SIM_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                    size_t Width, size_t Height)
{
    SIM_COUNT(cuMemsetD2D8_v2);
    return memset_rows("cuMemsetD2D8", dstDevice, dstPitch, 1, uc, Width, Height, NULL, true);
}

SIM_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                      size_t Width, size_t Height, CUstream hStream)
{
    SIM_COUNT(cuMemsetD2D8Async);
    return memset_rows("cuMemsetD2D8Async", dstDevice, dstPitch, 1, uc, Width, Height, hStream, false);
}

SIM_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                     size_t Width, size_t Height)
{
    SIM_COUNT(cuMemsetD2D16_v2);
    return memset_rows("cuMemsetD2D16", dstDevice, dstPitch, 2, us, Width, Height, NULL, true);
}

SIM_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                       size_t Width, size_t Height, CUstream hStream)
{
    SIM_COUNT(cuMemsetD2D16Async);
    return memset_rows("cuMemsetD2D16Async", dstDevice, dstPitch, 2, us, Width, Height, hStream, false);
}

SIM_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                     size_t Width, size_t Height)
{
    SIM_COUNT(cuMemsetD2D32_v2);
    return memset_rows("cuMemsetD2D32", dstDevice, dstPitch, 4, ui, Width, Height, NULL, true);
}

SIM_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                       size_t Width, size_t Height, CUstream hStream)
{
    SIM_COUNT(cuMemsetD2D32Async);
    return memset_rows("cuMemsetD2D32Async", dstDevice, dstPitch, 4, ui, Width, Height, hStream, false);
}

/* ---- allocations ----------------------------------------------------------- */

SIM_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                       size_t Height, unsigned int ElementSizeBytes)
{
    SIM_COUNT(cuMemAllocPitch_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_status st = SIM_OK;
    size_t pitch = 0;
    if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)) {
        sim_detail("cuMemAllocPitch: width %zu, height %zu, element size %u (4, 8 or 16)",
                   WidthInBytes, Height, ElementSizeBytes);
        st = SIM_ERR_INVALID_VALUE;
    } else if (WidthInBytes > SIZE_MAX - PITCH_ALIGNMENT ||
               (pitch = (WidthInBytes + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT,
                Height > SIZE_MAX / pitch)) {
        st = SIM_ERR_OUT_OF_MEMORY;
    } else {
        uint64_t d = 0;
        st = sim_mem_alloc(c, pitch * Height, &d);
        if (!st) {
            *dptr = d;
            *pPitch = pitch;
        }
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* Device allocations (cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged)
 * answer their start and requested size. */
SIM_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    SIM_COUNT(cuMemGetAddressRange_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    size_t off;
    uint64_t base = 0;
    size_t size = 0;
    sim_alloc *a = sim_mem_find(c, dptr, SIM_CLOCK_NOW, &off);
    if (a) {
        base = a->dptr;
        size = a->size;
        sim_alloc_release(a);
    } else if (!sim_host_device_range(c, dptr, &base, &size)) {
        sim_obj_release(&c->obj);
        sim_detail("cuMemGetAddressRange: 0x%llx is not in a live allocation of the context",
                   (unsigned long long)dptr);
        return CUDA_ERROR_NOT_FOUND;
    }
    /* UNVERIFIED (to measure on a GPU): page-locked host memory the device
     * reaches (cuMemHostAlloc, cuMemAllocHost, cuMemHostRegister with
     * DEVICEMAP) answers its host start and the size the program asked
     * for, not a page-rounded one. numba's suites pass on real drivers with
     * memsets of exactly this range (test_host_alloc_mapped), so a real
     * driver answers success here; the exact base and size are not
     * documented. */
    sim_obj_release(&c->obj);
    if (pbase)
        *pbase = base;
    if (psize)
        *psize = size;
    return CUDA_SUCCESS;
}

/* ---- managed memory ------------------------------------------------------ */

/* CUmemAttach_flags (cuda.h). */
#define CU_MEM_ATTACH_GLOBAL 0x1u
#define CU_MEM_ATTACH_HOST 0x2u
#define CU_MEM_ATTACH_SINGLE 0x4u

/* Host memory the device reaches at the same address (sim_memory.c);
 * counted against the device's memory like cuMemAlloc, so the simulator
 * never oversubscribes (a device of compute capability 6.0 or later on
 * Linux may). The attach flag changes nothing here: the host and the
 * kernels, which run on the host, always see the same bytes. */
SIM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    SIM_COUNT(cuMemAllocManaged);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    uint64_t d = 0;
    sim_status st = SIM_ERR_INVALID_VALUE;
    if (!dptr)
        sim_detail("cuMemAllocManaged: NULL result pointer");
    else if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        sim_detail("cuMemAllocManaged: flags 0x%x (CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST)", flags);
    else if (!(st = sim_mem_alloc_managed(c, bytesize, &d)))
        *dptr = d;
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* Attaching changes nothing here (see cuMemAllocManaged); what CUDA
 * refuses is refused: a stream of another context, flags other than one
 * of GLOBAL, HOST, SINGLE, an address that does not start a managed
 * allocation of the current context, a length other than 0 or its size. */
SIM_EXPORT CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                           unsigned int flags)
{
    SIM_COUNT(cuStreamAttachMemAsync);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_stream *s = NULL;
    size_t off = 0;
    sim_status st = SIM_ERR_INVALID_VALUE;
    sim_alloc *a = sim_mem_find(c, dptr, SIM_CLOCK_NOW, &off);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
        sim_detail("cuStreamAttachMemAsync: flags 0x%x", flags);
    else if (!a || !a->managed || off != 0 || (length != 0 && length != a->size))
        sim_detail("cuStreamAttachMemAsync: 0x%llx + %zu is not a whole managed allocation of the context",
                   (unsigned long long)dptr, length);
    else if (!(st = sim_cuda_stream(hStream, c, &s)))
        sim_obj_release(&s->obj);
    sim_alloc_release(a);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* ---- registered host memory ------------------------------------------------ */

/* Registrations belong to the current context and go with it when it is
 * destroyed (UNVERIFIED: CUDA documents that destroying a context frees
 * its resources, not this case by name); sim_host_memory.c keeps them. */
SIM_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    SIM_COUNT(cuMemHostRegister_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    const unsigned known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                           CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
    if (!p || bytesize == 0 || (Flags & ~known) || (uintptr_t)p > UINTPTR_MAX - bytesize) {
        sim_obj_release(&c->obj);
        sim_detail("cuMemHostRegister: pointer %p, %zu bytes, flags 0x%x", p, bytesize, Flags);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (Flags & (CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)) {
        sim_obj_release(&c->obj);
        sim_detail("cuMemHostRegister: I/O memory and read-only registration are not simulated");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    bool overlaps = false;
    /* Mapped whatever the flags: an H100 (driver 580.159.04) gave memory
     * registered with flags 0 its host address as device pointer, MAPPED 1,
     * and let cuMemsetD8 and a kernel write it (docs/DRIVER-FACTS.md,
     * "Limits measured after the first memory probe"); DEVICEMAP changes
     * nothing under unified addressing. */
    sim_status st = sim_host_register(c, p, bytesize, true, &overlaps);
    sim_obj_release(&c->obj);
    return overlaps ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED : sim_cuda_result(st);
}

/* p must be the start of a registered range, as CUDA requires: an
 * address inside one, or in cuMemHostAlloc's memory, is INVALID_VALUE, an
 * address in no page-locked memory HOST_MEMORY_NOT_REGISTERED (measured
 * on an H100: docs/DRIVER-FACTS.md, "Registered host memory"). */
SIM_EXPORT CUresult cuMemHostUnregister(void *p)
{
    SIM_COUNT(cuMemHostUnregister);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p) {
        sim_detail("cuMemHostUnregister: NULL pointer");
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_status st = sim_host_unregister(p);
    return st == SIM_ERR_NOT_FOUND ? CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED : sim_cuda_result(st);
}

/* Flags of page-locked memory from cuMemAllocHost (none). */
SIM_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    SIM_COUNT(cuMemHostGetFlags);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pFlags || !p || !sim_host_contains(p, 1)) {
        sim_detail("cuMemHostGetFlags: %p is not page-locked memory from cuMemAllocHost", p);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pFlags = 0;
    return CUDA_SUCCESS;
}

/* ---- modules --------------------------------------------------------------- */

/* sim_cuda_client.h says what it writes. */
void sim_cuda_jit_log(char *buf, void **size_slot, const char *msg)
{
    size_t cap = (size_t)(uintptr_t)*size_slot;
    size_t n = 0;
    if (buf && cap > 0) {
        n = strlen(msg);
        if (n > cap - 1)
            n = cap - 1;
        memcpy(buf, msg, n);
        buf[n] = '\0';
        n++;
    }
    *size_slot = (void *)(uintptr_t)n;
}

/* cuModuleLoadData with JIT options: a simulator module is host code or
 * PTX the interpreter runs as written, so every option is accepted and has
 * no effect, except CU_JIT_MAX_REGISTERS, which caps the NUM_REGS its PTX
 * kernels report as the linker's does (sim_function_register_bound; 0 is
 * INVALID_VALUE, as on an H100: docs/DRIVER-FACTS.md, "Register caps"),
 * and the outputs: the info log says the module loaded, the error log why
 * a load failed ("PTX line N: ..." for PTX), the wall time is 0. */
SIM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                       CUjit_option *options, void **optionValues)
{
    SIM_COUNT(cuModuleLoadDataEx);
    if (numOptions && (!options || !optionValues))
        return sim_is_initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    char *info = NULL, *error = NULL;
    int info_size = -1, error_size = -1, wall = -1, max_registers = -1;
    for (unsigned i = 0; i < numOptions; i++) {
        switch ((int)options[i]) {
        case CU_JIT_MAX_REGISTERS: max_registers = (int)i; break;
        case CU_JIT_INFO_LOG_BUFFER: info = optionValues[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: info_size = (int)i; break;
        case CU_JIT_ERROR_LOG_BUFFER: error = optionValues[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: error_size = (int)i; break;
        case CU_JIT_WALL_TIME: wall = (int)i; break;
        default:
            if ((unsigned)options[i] >= CU_JIT_NUM_OPTIONS) {
                sim_detail("cuModuleLoadDataEx: option %d is not a CUjit_option", (int)options[i]);
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
    }
    /* The option's value is an unsigned int in the pointer's slot. */
    unsigned cap = max_registers >= 0 ? (unsigned)(uintptr_t)optionValues[max_registers] : 0;
    uint64_t h = 0;
    sim_status st;
    if (max_registers >= 0 && cap == 0) {
        st = sim_is_initialized() ? SIM_ERR_INVALID_VALUE : SIM_ERR_NOT_INITIALIZED;
        sim_detail("cuModuleLoadDataEx: CU_JIT_MAX_REGISTERS 0 (a cap must be at least 1)");
    } else {
        st = sim_face_module_load(&sim_cuda_face, module != NULL, image, false, cap, &h);
    }
    if (!st)
        *module = (CUmodule)(uintptr_t)h;
    const char *why = st ? sim_detail_get() : NULL;
    if (info_size >= 0)
        sim_cuda_jit_log(info, &optionValues[info_size],
                 st ? "" : "gpuguard simulated driver: module loaded (JIT options have no effect)");
    if (error_size >= 0)
        sim_cuda_jit_log(error, &optionValues[error_size], why && *why ? why : "");
    if (wall >= 0) {
        float zero = 0.0f; /* the option's value is a float in the pointer's slot */
        memset(&optionValues[wall], 0, sizeof optionValues[wall]);
        memcpy(&optionValues[wall], &zero, sizeof zero);
    }
    return sim_cuda_result(st);
}
