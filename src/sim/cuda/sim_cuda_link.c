/*
 * CUDA face: the JIT linker (cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy) for PTX inputs.
 *
 * The simulator runs PTX, so "linking" PTX inputs means putting their
 * texts into one module: each input is checked as it is added (a refusal
 * is CUDA_ERROR_INVALID_IMAGE with the parser's "PTX line N: ..." in the
 * error log), and cuLinkComplete hands back the inputs' texts one after the
 * other (the parser takes a later input's .version/.target/.address_size
 * lines as the first's), NUL-terminated: an image cuModuleLoadData loads
 * as PTX. An input is checked as a link input: a library of .funcs
 * without .entry passes, and a call to a function another input defines
 * is resolved in the linked text, where an earlier input's .extern
 * declaration meets a later one's definition (numba links each device
 * function's PTX as an input of its own); a call nothing defines is
 * refused at cuLinkComplete. .extern variables defined by another input
 * are not resolved (refused at the input). Machine code (cubins, objects,
 * libraries such as cudadevrt) and NVVM IR cannot be linked here:
 * CUDA_ERROR_NOT_SUPPORTED with a detail. Fatbins give their PTX
 * (ptx_fatbin.c, as cuModuleLoadData reads them).
 *
 * The log options of cuLinkCreate are kept (CUDA requires optionValues to
 * stay valid until cuLinkDestroy): a failing step writes its reason into
 * the error log, cuLinkComplete the info log, each size slot getting the
 * bytes written. CU_JIT_MAX_REGISTERS (an unsigned int; 0 refused with
 * INVALID_VALUE as a real driver does, a value above 255 caps nothing
 * beyond the architecture's 255) travels with the linked image on its first line
 * (SIM_JIT_MAX_REGISTERS_LINE), and the module loaded from it reports
 * NUM_REGS no higher. Other options, and every per-input option, are
 * accepted and have no effect.
 */
#include "sim_alloc.h"
#include "sim_cuda.h"
#include "ptx/ptx_fatbin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINK_MAGIC 0x4c494e4bu /* "LINK" */
#define MAX_LINK_BYTES (1ull << 30)

typedef struct link_state {
    unsigned magic;
    char *text;                 /* the inputs so far, NUL-terminated */
    size_t len;
    size_t ninputs;
    char *info_log, *error_log; /* CU_JIT_*_LOG_BUFFER */
    void **info_size, **error_size; /* their size slots in the caller's optionValues */
    size_t info_cap, error_cap; /* the buffers' sizes, as cuLinkCreate got them */
    unsigned max_registers;     /* CU_JIT_MAX_REGISTERS; 0: not given (or 0: no cap) */
    char *image;                /* cuLinkComplete's image, when it differs from text */
} link_state;

static link_state *state_of(CUlinkState h)
{
    link_state *s = (link_state *)h;
    return s && s->magic == LINK_MAGIC ? s : NULL;
}

/* Reads the log options of an options list (unknown numbers refused). */
static CUresult read_options(unsigned n, CUjit_option *options, void **values, link_state *s)
{
    if (n && (!options || !values)) {
        sim_detail("cuLink: %u options but no option array", n);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (unsigned i = 0; i < n; i++) {
        switch ((int)options[i]) {
        case CU_JIT_INFO_LOG_BUFFER: s->info_log = values[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: s->info_size = &values[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER: s->error_log = values[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: s->error_size = &values[i]; break;
        /* The value is an unsigned int in the pointer's slot; 0 is refused
         * (measured: cuLinkCreate and cuModuleLoadDataEx on an H100,
         * docs/DRIVER-FACTS.md, "Limits measured after the first memory
         * probe"; per-input options, read with `s` a scratch copy, alike
         * by analogy). */
        case CU_JIT_MAX_REGISTERS:
            s->max_registers = (unsigned)(uintptr_t)values[i];
            if (s->max_registers == 0) {
                sim_detail("cuLink: CU_JIT_MAX_REGISTERS 0");
                return CUDA_ERROR_INVALID_VALUE;
            }
            break;
        default:
            if ((unsigned)options[i] >= CU_JIT_NUM_OPTIONS) {
                sim_detail("cuLink: option %d is not a CUjit_option", (int)options[i]);
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
    }
    return CUDA_SUCCESS;
}

/* Writes msg into a log (up to its size as created) and the bytes
 * written into its size slot. */
static void write_log(char *buf, size_t cap, void **slot, const char *msg)
{
    if (!slot)
        return;
    *slot = (void *)(uintptr_t)cap;
    sim_cuda_jit_log(buf, slot, msg);
}

/* The logs after a step: a failing step's detail replaces the error log;
 * completion writes the info log. */
static void write_logs(link_state *s, CUresult r, const char *info)
{
    if (r) {
        const char *why = sim_detail_get();
        write_log(s->error_log, s->error_cap, s->error_size, why && *why ? why : "link failed");
    } else if (info) {
        write_log(s->info_log, s->info_cap, s->info_size, info);
    }
}

SIM_EXPORT CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                    void **optionValues, CUlinkState *stateOut)
{
    SIM_COUNT(cuLinkCreate_v2);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c); /* a linker needs a current context */
    if (r)
        return r;
    sim_obj_release(&c->obj);
    if (!stateOut) {
        sim_detail("cuLinkCreate: stateOut is NULL");
        return CUDA_ERROR_INVALID_VALUE;
    }
    link_state *s = sim_calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = LINK_MAGIC;
    r = read_options(numOptions, options, optionValues, s);
    if (r) {
        free(s);
        return r;
    }
    s->info_cap = s->info_size ? (size_t)(uintptr_t)*s->info_size : 0;
    s->error_cap = s->error_size ? (size_t)(uintptr_t)*s->error_size : 0;
    *stateOut = (CUlinkState)s;
    return CUDA_SUCCESS;
}

/* Appends len bytes of PTX text (checked alone first). */
static sim_status add_ptx(link_state *s, const char *text, size_t len, const char *name)
{
    sim_status st = sim_module_check_ptx(text, len, true);
    if (st) {
        char why[600];
        snprintf(why, sizeof why, "%s: %s", name && *name ? name : "PTX input", sim_detail_get());
        sim_detail("%s", why);
        return st;
    }
    if (s->len + len + 2 > MAX_LINK_BYTES) {
        sim_detail("cuLink: more than %llu bytes of PTX", (unsigned long long)MAX_LINK_BYTES);
        return SIM_ERR_INVALID_VALUE;
    }
    char *grown = sim_realloc(s->text, s->len + len + 2);
    if (!grown)
        return SIM_ERR_OUT_OF_MEMORY;
    s->text = grown;
    memcpy(s->text + s->len, text, len);
    s->len += len;
    s->text[s->len++] = '\n'; /* the next input starts on a line of its own */
    s->text[s->len] = '\0';
    s->ninputs++;
    return SIM_OK;
}

/* The PTX a fatbin holds for the current context's device. */
static sim_status add_fatbin(link_state *s, const void *data, size_t size, const char *name)
{
    sim_ctx *c;
    sim_status st = sim_ctx_current(&c);
    if (st)
        return st;
    int major = 0, minor = 0;
    sim_device_attr(c->dev, SIM_ATTR_COMPUTE_CAPABILITY_MAJOR, &major);
    sim_device_attr(c->dev, SIM_ATTR_COMPUTE_CAPABILITY_MINOR, &minor);
    sim_obj_release(&c->obj);
    char *text = NULL, detail[512] = "";
    size_t len = 0;
    sim_fatbin_status fs = sim_fatbin_find_ptx(data, size, major * 10 + minor, &text, &len, detail,
                                               sizeof detail);
    if (fs != SIM_FATBIN_OK) {
        sim_detail("%s: %s", name && *name ? name : "fatbin input",
                   detail[0] ? detail : "not a fatbin the simulator can read");
        return fs == SIM_FATBIN_OUT_OF_MEMORY ? SIM_ERR_OUT_OF_MEMORY
               : fs == SIM_FATBIN_NO_BINARY_FOR_GPU ? SIM_ERR_NO_BINARY_FOR_GPU
                                                    : SIM_ERR_INVALID_IMAGE;
    }
    st = add_ptx(s, text, len, name);
    free(text);
    return st;
}

static CUresult add_input(link_state *s, CUjitInputType type, const void *data, size_t size,
                          const char *name)
{
    sim_status st;
    switch (type) {
    case CU_JIT_INPUT_PTX: {
        /* PTX text, its size counting the NUL or not. */
        const char *text = data;
        size_t len = strnlen(text, size);
        st = add_ptx(s, text, len, name);
        break;
    }
    case CU_JIT_INPUT_FATBINARY:
        st = add_fatbin(s, data, size, name);
        break;
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_LIBRARY:
    case CU_JIT_INPUT_NVVM:
        sim_detail("cuLink: input \"%s\" is machine code or NVVM IR (input type %d); the simulator "
                   "links PTX (and fatbins holding PTX) only",
                   name ? name : "", (int)type);
        st = SIM_ERR_NOT_SUPPORTED;
        break;
    default:
        sim_detail("cuLink: input type %d is not a CUjitInputType", (int)type);
        st = SIM_ERR_INVALID_VALUE;
        break;
    }
    CUresult r = sim_cuda_result(st);
    write_logs(s, r, NULL);
    return r;
}

/* Per-input options: the logs are the linker's (cuLinkCreate's); the
 * input's own are checked for unknown numbers and otherwise ignored. */
static CUresult check_input_options(unsigned n, CUjit_option *options, void **values)
{
    link_state ignored = { 0 };
    return read_options(n, options, values, &ignored);
}

SIM_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
                                     size_t size, const char *name, unsigned int numOptions,
                                     CUjit_option *options, void **optionValues)
{
    SIM_COUNT(cuLinkAddData_v2);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    link_state *s = state_of(state);
    if (!s || !data || !size) {
        sim_detail("cuLinkAddData: %s", s ? "no data" : "not a linker of cuLinkCreate");
        return s ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    }
    CUresult r = check_input_options(numOptions, options, optionValues);
    return r ? r : add_input(s, type, data, size, name);
}

SIM_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                     unsigned int numOptions, CUjit_option *options,
                                     void **optionValues)
{
    SIM_COUNT(cuLinkAddFile_v2);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    link_state *s = state_of(state);
    if (!s || !path) {
        sim_detail("cuLinkAddFile: %s", s ? "path is NULL" : "not a linker of cuLinkCreate");
        return s ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    }
    CUresult r = check_input_options(numOptions, options, optionValues);
    if (r)
        return r;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_detail("cuLinkAddFile: cannot open \"%s\"", path);
        write_logs(s, CUDA_ERROR_FILE_NOT_FOUND, NULL);
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && (uint64_t)n <= MAX_LINK_BYTES &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = sim_malloc((size_t)n + 1)) != NULL) {
        n = (long)fread(buf, 1, (size_t)n, f);
        buf[n] = '\0';
    }
    fclose(f);
    if (!buf) {
        sim_detail("cuLinkAddFile: cannot read \"%s\"", path);
        r = n < 0 || (uint64_t)n > MAX_LINK_BYTES ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
        write_logs(s, r, NULL);
        return r;
    }
    r = n == 0 ? CUDA_ERROR_INVALID_IMAGE : add_input(s, type, buf, (size_t)n, path);
    if (n == 0) {
        sim_detail("cuLinkAddFile: \"%s\" is empty", path);
        write_logs(s, r, NULL);
    }
    free(buf);
    return r;
}

/* The linked text behind the CU_JIT_MAX_REGISTERS line (s->image; made
 * again by each cuLinkComplete, since inputs may have been added). */
static sim_status image_with_cap(link_state *s)
{
    char line[80];
    int n = snprintf(line, sizeof line, "%s%u\n", SIM_JIT_MAX_REGISTERS_LINE, s->max_registers);
    char *image = sim_malloc((size_t)n + s->len + 1);
    if (!image)
        return SIM_ERR_OUT_OF_MEMORY;
    memcpy(image, line, (size_t)n);
    memcpy(image + n, s->text, s->len + 1);
    free(s->image);
    s->image = image;
    return SIM_OK;
}

/* The linked image stays the linker's until cuLinkDestroy, as CUDA's. */
SIM_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    SIM_COUNT(cuLinkComplete);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    link_state *s = state_of(state);
    if (!s) {
        sim_detail("cuLinkComplete: not a linker of cuLinkCreate");
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!cubinOut) {
        sim_detail("cuLinkComplete: cubinOut is NULL");
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = CUDA_SUCCESS;
    if (!s->ninputs) {
        sim_detail("cuLinkComplete: nothing was added");
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        /* Together: two inputs may define the same name. */
        r = sim_cuda_result(sim_module_check_ptx(s->text, s->len, false));
    }
    if (!r && s->max_registers)
        r = sim_cuda_result(image_with_cap(s));
    write_logs(s, r, "gpuguard simulated driver: PTX inputs linked into one PTX module");
    if (r)
        return r;
    *cubinOut = s->image ? s->image : s->text;
    if (sizeOut)
        *sizeOut = strlen(*cubinOut) + 1;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLinkDestroy(CUlinkState state)
{
    SIM_COUNT(cuLinkDestroy);
    link_state *s = state_of(state);
    if (!s) {
        sim_detail("cuLinkDestroy: not a linker of cuLinkCreate");
        return CUDA_ERROR_INVALID_HANDLE;
    }
    s->magic = 0;
    free(s->image);
    free(s->text);
    free(s);
    return CUDA_SUCCESS;
}
