/*
 * Modules: a module image is a shared object of host C kernels (see
 * include/gpuguard/sim_kernel.h), loaded with dlopen(RTLD_NOW|RTLD_LOCAL).
 * Images in memory are either an ELF shared object (written to a memfd and
 * loaded from /proc/self/fd/N) or the text "gg-sim-module:<path>".
 *
 * Or the image is PTX text (nvcc -ptx), in memory or in a file: decoded once
 * by src/sim/ptx and run by its interpreter.
 *
 * Functions keep their module's code mapped: an unloaded module is
 * dlclose'd (or its PTX freed) only when no launch still uses one of its
 * kernels.
 *
 * A PTX module's .global and .const variables live in one device
 * allocation of the context, made at load and initialised as declared,
 * so that the address cuModuleGetGlobal hands out works with every copy,
 * memset and kernel parameter like any device pointer (bounds checks,
 * frees, ordering on streams: none of it needs to know about modules).
 * The interpreter keeps reaching them through the module window
 * (ptx_ir.h: the parser resolved each symbol to it before any allocation
 * existed) with ptx->data pointing at the allocation's bytes: one copy of
 * the bytes, two addresses for them. The user cannot cuMemFree it; unload
 * frees it (host copies to it fail from then on), and the bytes stay
 * mapped until the last launch that uses the module has ended.
 */
#include "sim_alloc.h"
#include "sim_core.h"
#include "ptx/ptx_fatbin.h"
#include "ptx/ptx_module.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_IMAGE_BYTES (1ull << 30)
#define MAX_PARAM_BYTES 32764u /* CUDA's limit for kernel parameters */
/* A C kernel is found by its symbol, GG_SIM_KERNEL_PREFIX and the name:
 * names past this cannot be a C kernel's (PTX kernels' have no bound). */
#define C_SYMBOL_MAX 255u
#define TEXT_PREFIX "gg-sim-module:"

static void module_free(sim_obj *o)
{
    sim_module *m = (sim_module *)o;
    if (m->dl)
        dlclose(m->dl);
    if (m->ptx && m->data_alloc)
        m->ptx->data = NULL; /* the allocation's bytes, not the parser's */
    ptx_module_free(m->ptx);
    sim_alloc_release(m->data_alloc);
    free(m->fns);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static sim_status module_new(sim_ctx *c, void *dl, ptx_module *ptx, sim_module **out)
{
    sim_module *m = sim_calloc(1, sizeof *m);
    if (!m) {
        if (dl)
            dlclose(dl);
        ptx_module_free(ptx);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    sim_obj_init(&m->obj, SIM_KIND_MODULE, c, module_free);
    m->dl = dl;
    m->ptx = ptx;
    pthread_mutex_init(&m->lock, NULL);
    sim_obj_retain(&m->obj); /* the registry's reference */
    if (!sim_registry_add(&m->obj)) {
        sim_obj_release(&m->obj);
        sim_obj_release(&m->obj);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    *out = m;
    return SIM_OK;
}

static sim_status open_image(const char *path, void **dl)
{
    *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*dl) {
        const char *e = dlerror();
        sim_detail("cannot load module \"%s\": %s", path, e ? e : "dlopen failed");
        return SIM_ERR_INVALID_IMAGE;
    }
    return SIM_OK;
}

/* Moves the parsed module's variables into a device allocation of c (see
 * the top of the file). */
static sim_status place_module_data(sim_ctx *c, sim_module *m)
{
    ptx_module *ptx = m->ptx;
    if (!ptx->data_bytes)
        return SIM_OK;
    sim_status st = sim_mem_alloc_module_data(c, (size_t)ptx->data_bytes, &m->data_dptr, &m->data_alloc);
    if (st)
        return st;
    memcpy(m->data_alloc->host, ptx->data, (size_t)ptx->data_bytes);
    free(ptx->data);
    ptx->data = m->data_alloc->host;
    return SIM_OK;
}

/* ".version X.Y" (its first directive, ptx_image_is_ptx) as X*10+Y. */
static int ptx_text_version(const char *text)
{
    const char *v = strstr(text, ".version");
    unsigned major = 0, minor = 0;
    if (!v || sscanf(v + 8, " %u.%u", &major, &minor) != 2 || major > 99 || minor > 9)
        return 0;
    return (int)(major * 10 + minor);
}

/* A register cap as ptxas takes it: 0 (none) for 0 or more than 255 ("will
 * be ignored"), else at least SIM_MIN_REGISTER_CAP ("adjusting ... to lower
 * bound of 24"). */
static unsigned register_cap_taken(unsigned asked)
{
    if (asked == 0 || asked > SIM_MAX_REGISTERS_PER_THREAD)
        return 0;
    return asked < SIM_MIN_REGISTER_CAP ? SIM_MIN_REGISTER_CAP : asked;
}

unsigned sim_function_register_bound(unsigned virtual_registers, unsigned maxnreg, unsigned jit_max_registers)
{
    /* Measured on an H100, driver 580.159.04 (docs/DRIVER-FACTS.md,
     * "Register caps"): .maxnreg decides whatever the JIT option says (40
     * under a cap of 16 and of 38); CU_JIT_MAX_REGISTERS below 24 gives 24,
     * above 255 is ignored. ptxas 13.0 treats .maxnreg alike (10 gives 24,
     * 300 "will be ignored"). The interpreter's virtual registers (every
     * .reg slot) are what the PTX asks for: ptxas allocates at most those. */
    unsigned cap = register_cap_taken(maxnreg);
    if (cap == 0)
        cap = register_cap_taken(jit_max_registers);
    if (cap == 0)
        cap = SIM_MAX_REGISTERS_PER_THREAD;
    return virtual_registers < cap ? virtual_registers : cap;
}

/* The CU_JIT_MAX_REGISTERS a linked image carries on its first line
 * (SIM_JIT_MAX_REGISTERS_LINE); 0: none. */
static unsigned jit_max_registers(const char *text)
{
    size_t n = strlen(SIM_JIT_MAX_REGISTERS_LINE);
    unsigned value = 0;
    if (strncmp(text, SIM_JIT_MAX_REGISTERS_LINE, n) != 0 || sscanf(text + n, "%u", &value) != 1)
        return 0;
    return value;
}

/* jit_cap: the CU_JIT_MAX_REGISTERS the load was given (0: none); a cap
 * the image carries (a linked image's first line) wins, as a cubin's
 * register counts are fixed before it is loaded. */
static sim_status load_ptx(sim_ctx *c, const char *text, size_t len, unsigned jit_cap, sim_module **out)
{
    char err[512];
    ptx_module *ptx = ptx_module_parse(text, len, err, sizeof err);
    if (!ptx) {
        sim_detail("%s", err);
        return SIM_ERR_INVALID_IMAGE;
    }
    sim_module *m;
    sim_status st = module_new(c, NULL, ptx, &m);
    if (st)
        return st;
    m->ptx_version = ptx_text_version(text);
    m->max_registers = jit_max_registers(text);
    if (m->max_registers == 0)
        m->max_registers = jit_cap;
    st = place_module_data(c, m);
    if (st) {
        sim_registry_remove(&m->obj);
        sim_obj_release(&m->obj);
        return st;
    }
    *out = m;
    return SIM_OK;
}

/* A module file read whole (NUL-terminated; *len without the NUL), for the
 * images that are not shared objects: PTX text, fatbins and cubins. */
static sim_status read_module_file(const char *path, off_t size, char **image, size_t *len)
{
    if (size < 0 || (uint64_t)size > MAX_IMAGE_BYTES) {
        sim_detail("module file \"%s\" is too large", path);
        return SIM_ERR_INVALID_IMAGE;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_detail("module file \"%s\": %s", path, strerror(errno));
        return SIM_ERR_FILE_NOT_FOUND;
    }
    char *buf = sim_malloc((size_t)size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!buf)
        return SIM_ERR_OUT_OF_MEMORY;
    buf[n] = '\0';
    *image = buf;
    *len = n;
    return SIM_OK;
}

/* A fatbin (wrapped or bare) or a cubin: the newest PTX inside that the
 * device can run (ptx/ptx_fatbin.h), as the driver JIT-compiles it; an
 * image with machine code only cannot run here, as on a GPU of another
 * architecture: CUDA_ERROR_NO_BINARY_FOR_GPU, the detail saying how to
 * embed PTX. */
static sim_status load_nvcc_image(sim_ctx *c, const void *image, size_t known_size, unsigned jit_cap,
                                  sim_module **out)
{
    int major = 0, minor = 0;
    sim_device_attr(c->dev, SIM_ATTR_COMPUTE_CAPABILITY_MAJOR, &major);
    sim_device_attr(c->dev, SIM_ATTR_COMPUTE_CAPABILITY_MINOR, &minor);
    char *text = NULL;
    size_t len = 0;
    char detail[512] = "";
    sim_fatbin_status fs = sim_fatbin_find_ptx(image, known_size, major * 10 + minor, &text, &len, detail, sizeof detail);
    switch (fs) {
    case SIM_FATBIN_OK: {
        sim_status st = load_ptx(c, text, len, jit_cap, out);
        free(text);
        return st;
    }
    case SIM_FATBIN_NO_BINARY_FOR_GPU:
        sim_detail("%s", detail);
        return SIM_ERR_NO_BINARY_FOR_GPU;
    case SIM_FATBIN_OUT_OF_MEMORY:
        sim_detail("%s", detail);
        return SIM_ERR_OUT_OF_MEMORY;
    case SIM_FATBIN_INVALID_VALUE:
        sim_detail("%s", detail);
        return SIM_ERR_INVALID_VALUE;
    case SIM_FATBIN_NOT_PTX:
    case SIM_FATBIN_INVALID_IMAGE:
        break;
    }
    sim_detail("%s", detail[0] ? detail : "module image: not a fatbin the simulator can read");
    return SIM_ERR_INVALID_IMAGE;
}

/* What a module file holds, from its first bytes: PTX text, a fatbin or a
 * cubin (read whole and loaded as such, so that every size in a container's
 * headers is checked against the file's), else SIM_IMAGE_UNKNOWN (a shared
 * object, for dlopen). */
static sim_image_kind file_kind(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return SIM_IMAGE_UNKNOWN;
    char head[4097];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    if (n >= SELFMAG && !memcmp(head, ELFMAG, SELFMAG)) {
        sim_image_kind kind = sim_image_classify(head, n);
        return kind == SIM_IMAGE_CUBIN ? kind : SIM_IMAGE_UNKNOWN;
    }
    if (ptx_image_is_ptx(head))
        return SIM_IMAGE_PTX;
    sim_image_kind kind = sim_image_classify(head, n);
    return kind == SIM_IMAGE_FATBIN ? kind : SIM_IMAGE_UNKNOWN;
}

/* A module file that is PTX text (CUDA loads .ptx files with cuModuleLoad),
 * a fatbin or a cubin. */
static sim_status load_file_image(sim_ctx *c, const char *path, off_t size, sim_image_kind kind,
                                  sim_module **out)
{
    char *image = NULL;
    size_t len = 0;
    sim_status st = read_module_file(path, size, &image, &len);
    if (st)
        return st;
    st = kind == SIM_IMAGE_PTX ? load_ptx(c, image, len, 0, out) : load_nvcc_image(c, image, len, 0, out);
    free(image);
    return st;
}

sim_status sim_module_load_path(sim_ctx *c, const char *path, sim_module **out)
{
    if (!path || !path[0])
        return SIM_ERR_INVALID_VALUE;
    struct stat sb;
    errno = 0;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        sim_detail("module file \"%s\": %s", path, errno ? strerror(errno) : "not a file");
        return SIM_ERR_FILE_NOT_FOUND;
    }
    sim_image_kind kind = file_kind(path);
    if (kind != SIM_IMAGE_UNKNOWN)
        return load_file_image(c, path, sb.st_size, kind, out);
    /* A bare name would make dlopen search the library path: CUDA reads
     * module files relative to the working directory. */
    char buf[4096];
    if (!strchr(path, '/')) {
        if ((size_t)snprintf(buf, sizeof buf, "./%s", path) >= sizeof buf)
            return SIM_ERR_INVALID_VALUE;
        path = buf;
    }
    void *dl;
    sim_status st = open_image(path, &dl);
    return st ? st : module_new(c, dl, NULL, out);
}

/* Size of an ELF image from its header: the end of the section or program
 * header table, whichever is last (section headers end a linked .so). */
static sim_status elf_size(const void *image, size_t *size)
{
    Elf64_Ehdr h;
    memcpy(&h, image, sizeof h);
    if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_type != ET_DYN) {
        sim_detail("module image: not a 64-bit ELF shared object");
        return SIM_ERR_INVALID_IMAGE;
    }
    uint64_t end = sizeof h;
    uint64_t sh = h.e_shoff + (uint64_t)h.e_shnum * h.e_shentsize;
    uint64_t ph = h.e_phoff + (uint64_t)h.e_phnum * h.e_phentsize;
    end = sh > end ? sh : end;
    end = ph > end ? ph : end;
    if (end > MAX_IMAGE_BYTES) {
        sim_detail("module image: ELF header claims %llu bytes", (unsigned long long)end);
        return SIM_ERR_INVALID_IMAGE;
    }
    *size = (size_t)end;
    return SIM_OK;
}

static sim_status load_elf(sim_ctx *c, const void *image, sim_module **out)
{
    size_t size;
    sim_status st = elf_size(image, &size);
    if (st)
        return st;
    int fd = memfd_create("gg-sim-module", MFD_CLOEXEC);
    if (fd < 0) {
        sim_detail("module image: memfd_create: %s", strerror(errno));
        return SIM_ERR_OUT_OF_MEMORY;
    }
    const char *p = image;
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, p + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            sim_detail("module image: cannot write it to a memfd");
            return SIM_ERR_OUT_OF_MEMORY;
        }
        done += (size_t)n;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    void *dl;
    st = open_image(path, &dl);
    close(fd); /* the mapping outlives the descriptor */
    return st ? st : module_new(c, dl, NULL, out);
}

sim_status sim_module_load_data(sim_ctx *c, const void *image, unsigned jit_max_registers, sim_module **out)
{
    if (!image)
        return SIM_ERR_INVALID_VALUE;
    switch (sim_image_classify(image, 0)) {
    case SIM_IMAGE_FATBIN_WRAPPER:
    case SIM_IMAGE_FATBIN:
    case SIM_IMAGE_CUBIN:
        return load_nvcc_image(c, image, 0, jit_max_registers, out);
    default:
        break;
    }
    if (!memcmp(image, ELFMAG, SELFMAG))
        return load_elf(c, image, out);
    if (!strncmp(image, TEXT_PREFIX, strlen(TEXT_PREFIX)))
        return sim_module_load_path(c, (const char *)image + strlen(TEXT_PREFIX), out);
    if (ptx_image_is_ptx(image))
        return load_ptx(c, image, strlen(image), jit_max_registers, out);
    sim_detail("module image: neither PTX text, a fatbin, a cubin, an ELF shared object nor \"" TEXT_PREFIX "<path>\"");
    return SIM_ERR_INVALID_IMAGE;
}

static bool is_function_of(sim_obj *o, void *m)
{
    return o->kind == SIM_KIND_FUNCTION && ((sim_function *)o)->mod == m;
}

sim_status sim_module_unload(sim_module *m)
{
    sim_registry_remove_if(is_function_of, m, NULL);
    if (!sim_registry_remove(&m->obj))
        return SIM_ERR_INVALID_HANDLE;
    if (m->data_dptr)
        sim_mem_free_module_data(m->obj.owner, m->data_dptr);
    return SIM_OK;
}

sim_status sim_module_global(sim_module *m, const char *name, uint64_t *dptr, size_t *bytes)
{
    const ptx_module *ptx = m->ptx;
    for (size_t i = 0; ptx && i < ptx->nvars; i++) {
        const ptx_variable *v = &ptx->vars[i];
        if (strcmp(v->name, name) != 0)
            continue;
        *dptr = m->data_dptr + v->offset;
        *bytes = (size_t)v->bytes;
        return SIM_OK;
    }
    sim_detail("module has no .global or .const variable called \"%s\"", name);
    return SIM_ERR_NOT_FOUND;
}

size_t sim_function_param_offset(const sim_function *f, unsigned index)
{
    size_t off = 0;
    for (unsigned i = 0;; i++) {
        size_t align = 1;
        if (f->aligns) {
            align = f->aligns[i];
        } else {
            while (align < 16 && f->sizes[i] % (align * 2) == 0)
                align *= 2;
        }
        off = (off + align - 1) / align * align;
        if (i == index)
            return off;
        off += f->sizes[i];
    }
}

static void function_free(sim_obj *o)
{
    sim_function *f = (sim_function *)o;
    sim_module *m = f->mod;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nfns; i++)
        if (m->fns[i] == f) {
            m->fns[i] = m->fns[--m->nfns];
            break;
        }
    pthread_mutex_unlock(&m->lock);
    sim_obj_release(&m->obj);
    free(f->face_state);
    free(f->name);
    free(f);
}

/* Reads and checks the kernel's GG_SIM_KERNEL_PARAMS declaration. */
static sim_status find_params(sim_module *m, sim_function *f)
{
    char sym[C_SYMBOL_MAX + 32];
    snprintf(sym, sizeof sym, GG_SIM_PARAMS_PREFIX "%s", f->name);
    const unsigned *decl = dlsym(m->dl, sym);
    if (!decl) {
        sim_detail("kernel \"%s\" has no GG_SIM_KERNEL_PARAMS declaration (symbol %s)",
                   f->name, sym);
        return SIM_ERR_INVALID_IMAGE;
    }
    size_t total = 0;
    for (unsigned i = 0; i < decl[0]; i++) {
        unsigned sz = decl[1 + i];
        if (sz == 0 || sz > MAX_PARAM_BYTES || (total += (sz + 15u) / 16u * 16u) > 2 * MAX_PARAM_BYTES) {
            sim_detail("kernel \"%s\": parameter %u has size %u, or the total is too large",
                       f->name, i, sz);
            return SIM_ERR_INVALID_IMAGE;
        }
    }
    f->nparams = decl[0];
    f->sizes = decl + 1;
    f->param_bytes = total;
    return SIM_OK;
}

static sim_status find_c_kernel(sim_module *m, sim_function *f)
{
    if (strlen(f->name) > C_SYMBOL_MAX) {
        sim_detail("kernel \"%.40s...\" not found in the module: a C kernel's name has at most %u bytes",
                   f->name, C_SYMBOL_MAX);
        return SIM_ERR_NOT_FOUND;
    }
    char sym[C_SYMBOL_MAX + 32];
    snprintf(sym, sizeof sym, GG_SIM_KERNEL_PREFIX "%s", f->name);
    f->fn = (gg_sim_kernel_fn)(uintptr_t)dlsym(m->dl, sym);
    if (!f->fn) {
        sim_detail("kernel \"%s\" not found in the module (symbol %s)", f->name, sym);
        return SIM_ERR_NOT_FOUND;
    }
    return find_params(m, f);
}

/* A PTX .entry: its parameter sizes are the .param declarations'. */
static sim_status find_ptx_kernel(sim_module *m, sim_function *f)
{
    const ptx_kernel *k = ptx_module_kernel(m->ptx, f->name);
    if (!k) {
        sim_detail("kernel \"%s\" not found in the module (no .entry of that name)", f->name);
        return SIM_ERR_NOT_FOUND;
    }
    size_t total = 0;
    for (unsigned i = 0; i < k->nparams; i++)
        total += (k->param_sizes[i] + 15u) / 16u * 16u;
    f->ptx = k;
    f->nparams = k->nparams;
    f->sizes = k->param_sizes;
    f->aligns = k->param_aligns;
    f->param_bytes = total;
    return SIM_OK;
}

static sim_function *cached_function(sim_module *m, const char *name)
{
    sim_function *hit = NULL;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nfns && !hit; i++)
        if (!strcmp(m->fns[i]->name, name))
            /* Only a still-registered one: an unregistered one may be
             * about to be freed. */
            hit = (sim_function *)sim_registry_get(m->fns[i]->obj.handle, SIM_KIND_FUNCTION);
    pthread_mutex_unlock(&m->lock);
    return hit;
}

static bool remember(sim_module *m, sim_function *f)
{
    pthread_mutex_lock(&m->lock);
    bool ok = true;
    if (m->nfns == m->capfns) {
        size_t cap = m->capfns ? m->capfns * 2 : 8;
        sim_function **n = sim_realloc(m->fns, cap * sizeof *n);
        if ((ok = n != NULL)) {
            m->fns = n;
            m->capfns = cap;
        }
    }
    if (ok)
        m->fns[m->nfns++] = f;
    pthread_mutex_unlock(&m->lock);
    return ok;
}

sim_status sim_module_function(sim_module *m, const char *name, sim_function **out)
{
    if (!name || !name[0])
        return SIM_ERR_INVALID_VALUE;
    sim_function *f = cached_function(m, name);
    if (f) {
        *out = f;
        return SIM_OK;
    }
    f = sim_calloc(1, sizeof *f);
    if (!f)
        return SIM_ERR_OUT_OF_MEMORY;
    f->name = sim_strdup(name);
    sim_status st = !f->name ? SIM_ERR_OUT_OF_MEMORY : m->ptx ? find_ptx_kernel(m, f) : find_c_kernel(m, f);
    if (st) {
        free(f->name);
        free(f);
        return st;
    }
    sim_obj_init(&f->obj, SIM_KIND_FUNCTION, m->obj.owner, function_free);
    sim_obj_retain(&m->obj);
    f->mod = m;
    sim_obj_retain(&f->obj); /* the registry's reference */
    if (!sim_registry_add(&f->obj)) {
        sim_obj_release(&f->obj);
        sim_obj_release(&f->obj);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    /* Remembered once registered, so its handle is final when read. */
    if (!remember(m, f)) {
        sim_registry_remove(&f->obj);
        sim_obj_release(&f->obj);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    *out = f;
    return SIM_OK;
}

/* Static .shared: the kernel's own (nvcc declares a kernel's __shared__
 * arrays in its body) plus the module-scope ones, which any kernel may
 * use. .const: every .const variable of the module. */
void sim_function_get_info(const sim_function *f, sim_function_info *out)
{
    memset(out, 0, sizeof *out);
    if (!f->ptx)
        return;
    const ptx_module *m = f->mod->ptx;
    out->is_ptx = true;
    out->max_threads = f->ptx->max_threads;
    out->static_shared = f->ptx->static_shared_bytes + m->module_shared_bytes;
    for (size_t i = 0; i < m->nvars; i++)
        if (m->vars[i].space == PTX_SPACE_CONST)
            out->const_bytes += (unsigned)m->vars[i].bytes;
    out->local_bytes = f->ptx->local_bytes;
    out->nregs = sim_function_register_bound(f->ptx->nregs, f->ptx->max_registers, f->mod->max_registers);
    out->ptx_version = f->mod->ptx_version;
}

/* A name two linked inputs both define (kernels and variables: the parser
 * checks one input's names, not a concatenation's), or NULL. */
static const char *defined_twice(const ptx_module *m)
{
    for (size_t i = 0; i < m->nkernels; i++)
        for (size_t j = i + 1; j < m->nkernels; j++)
            if (!strcmp(m->kernels[i].name, m->kernels[j].name))
                return m->kernels[i].name;
    for (size_t i = 0; i < m->nvars; i++)
        for (size_t j = i + 1; j < m->nvars; j++)
            if (!strcmp(m->vars[i].name, m->vars[j].name))
                return m->vars[i].name;
    return NULL;
}

sim_status sim_module_check_ptx(const char *text, size_t len, bool link_input)
{
    char err[512];
    ptx_module *ptx = ptx_module_parse_as(text, len, link_input ? PTX_PARSE_LINK_INPUT : PTX_PARSE_MODULE, err,
                                          sizeof err);
    if (!ptx) {
        sim_detail("%s", err);
        return SIM_ERR_INVALID_IMAGE;
    }
    const char *twice = defined_twice(ptx);
    if (twice)
        sim_detail("PTX: \"%s\" is defined twice", twice);
    ptx_module_free(ptx);
    return twice ? SIM_ERR_INVALID_IMAGE : SIM_OK;
}
