/* Modules and the kernels in them. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "common/abi_struct.h"
#include "common/chunk.h"
#include "common/fault.h"
#include "common/lifetime.h"
#include "common/module.h"

typedef struct module_args {
    const char *path;   /* or: */
    const void *image;
    size_t bytes;
} module_args;

static int make_module(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    const module_args *a = args;
    gg__nmodule *native = &((gg__module *)o)->native;
    *op = GG__OP_MODULE_LOAD;
    if (a->path == NULL)
        c->driver_call = c->b->module_load_data_call;
    return a->path ? gg__drv(c, *op, c->b->module_load_file(c->b->self, native, a->path))
                   : gg__drv(c, *op, c->b->module_load_data(c->b->self, native, a->image, a->bytes));
}

static gg_status module_load(gg__call *c, gg_context ctx, const char *path, const void *image, size_t bytes,
                             const gg_module_desc *desc, gg_module *out)
{
    gg_module_desc d;
    gg_status read = GG__ABI_COPY_IN(c, desc, &d, gg_module_desc, GG_MODULE_DESC_INIT);
    if (read != GG_OK)
        return read;
    if (d.flags != 0)
        return gg__fail(c, GG_INVALID_ARGUMENT, "%s: unknown desc->flags 0x%x (none are defined)", c->api, d.flags);
    module_args args = { path, image, bytes };
    gg_status status = gg__create(c, ctx.id, GG__T_CONTEXT, GG__T_MODULE, d.tag ? d.tag : path, make_module, &args,
                                  &out->id);
    gg_error_info *e = gg__last_error_slot();
    if (status != GG_OK && path != NULL && e->native_code != 0 && strstr(e->message, path) == NULL) {
        size_t len = strlen(e->message);
        snprintf(e->message + len, sizeof e->message - len, " (path '%s')", path);
    }
    return status;
}

int gg__module_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    *op = GG__OP_MODULE_UNLOAD;
    return call_driver ? gg__drv(c, *op, c->b->module_unload(c->b->self, ((gg__module *)o)->native)) : 0;
}

void gg__module_describe(const gg__object *o, struct cJSON *json)
{
    (void)o;
    (void)json;
}

gg_status gg_module_create_from_file(gg_context ctx, const char *path, const gg_module_desc *desc, gg_module *out)
{
    gg__call c = GG__CALL("gg_module_create_from_file");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_create_from_file: out is NULL");
    out->id = 0;
    if (path == NULL || path[0] == '\0')
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_create_from_file: path is %s", path ? "empty" : "NULL");
    return module_load(&c, ctx, path, NULL, 0, desc, out);
}

gg_status gg_module_create_from_data(gg_context ctx, const void *image, size_t bytes, const gg_module_desc *desc,
                               gg_module *out)
{
    gg__call c = GG__CALL("gg_module_create_from_data");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_create_from_data: out is NULL");
    out->id = 0;
    if (image == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_create_from_data: image is NULL");
    if (bytes == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_create_from_data: bytes is 0");
    return module_load(&c, ctx, NULL, image, bytes, desc, out);
}

gg_status gg_module_destroy(gg_module module)
{
    return gg__destroy("gg_module_destroy", module.id, GG__T_MODULE);
}

typedef struct kernel_args {
    uint64_t module_id;
    const char *name;
} kernel_args;

/* What the driver knows of the kernel's parameters, for the launch checks.
 * A failed query leaves them unknown (unchecked): gg_kernel_create (and
 * gg_kernel_adopt) do not fail for it. */
void gg__kernel_read_params(gg__call *c, gg__kernel *k)
{
    k->params_known = false;
    if (c->b->kernel_params == NULL)
        return;
    bool known = false;
    size_t count = 0, sizes[GG__KNOWN_PARAMS];
    int n = gg__drv(c, GG__OP_KERNEL_PARAMS,
                    c->b->kernel_params(c->b->self, k->native, &known, &count, sizes, GG__KNOWN_PARAMS));
    if (n != 0 || !known || count > UINT32_MAX) {
        if (n != 0)
            gg__log(GG_LOG_DEBUG, 0, "%s: the parameters of kernel '%s' are unknown: %s returned %s",
                    c->api, k->name, c->b->op_names[GG__OP_KERNEL_PARAMS], c->b->code_name(n));
        return;
    }
    k->param_count = (uint32_t)count;
    for (size_t i = 0; i < count && i < GG__KNOWN_PARAMS; i++)
        k->param_sizes[i] = sizes[i] > UINT16_MAX ? UINT16_MAX : (uint16_t)sizes[i];
    k->params_known = true;
}

static int make_kernel(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    const kernel_args *a = args;
    gg__kernel *k = (gg__kernel *)o;
    /* gg__create pinned the module and re-checked its id under the
     * context's lock (which a claim takes), so the id names it still. */
    gg__module *m = gg__handle_lookup(a->module_id, GG__T_MODULE);
    *op = GG__OP_MODULE_GET_FUNCTION;
    c->kernel_name = a->name;
    int n = gg__drv(c, *op, c->b->module_get_function(c->b->self, &k->native, m->native, a->name));
    if (n != 0)
        return n;
    k->module = m;
    k->module_id = a->module_id;
    k->name = a->name; /* interned by gg_kernel_create */
    gg__kernel_read_params(c, k);
    return 0;
}

gg_status gg_kernel_create(gg_module module, const char *name, gg_kernel *out)
{
    gg__call c = GG__CALL("gg_kernel_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_create: out is NULL");
    out->id = 0;
    if (name == NULL || name[0] == '\0')
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_create: name is %s", name ? "empty" : "NULL");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    /* Interned first (kept until gg_shutdown): attribution names the kernel
     * long after the caller's string is gone, and a name that cannot be
     * kept must fail the call, not become "?". */
    const char *interned = gg__intern(name);
    if (interned == NULL)
        return gg__fail(&c, GG_OUT_OF_MEMORY, "gg_kernel_create: out of host memory for the kernel's name");
    kernel_args args = { module.id, interned };
    return gg__create(&c, module.id, GG__T_MODULE, GG__T_KERNEL, interned, make_kernel, &args, &out->id);
}

/* Kernels have no native lifetime of their own, only timing events. */
int gg__kernel_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    *op = GG__OP_COUNT;
    gg__timing_release(c, (gg__kernel *)o, call_driver);
    return 0;
}

void gg__kernel_describe(const gg__object *o, struct cJSON *json)
{
    const gg__kernel *k = (const gg__kernel *)o;
    cJSON_AddStringToObject(json, "name", k->name ? k->name : "");
}

gg_status gg_kernel_name(gg_kernel kernel, const char **name)
{
    gg__call c = GG__CALL("gg_kernel_name");
    if (name == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_name: name is NULL");
    gg__kernel *k = gg__lookup(&c, kernel.id, GG__T_KERNEL, "kernel");
    if (k == NULL)
        return gg__lookup_status();
    *name = k->name;
    gg__leave(&c);
    return GG_OK;
}

gg_status gg_kernel_full_name(const char *name, const char **full)
{
    gg__call c = GG__CALL("gg_kernel_full_name");
    if (full != NULL)
        *full = NULL;
    if (name == NULL || full == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_full_name: %s is NULL", name == NULL ? "name" : "full");
    *full = gg__intern_find_record(name);
    if (*full == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_full_name: no kernel loaded since gg_init is named '%s' "
                                          "or shortened to it", name);
    gg__leave(&c);
    return GG_OK;
}

gg_status gg_kernel_destroy(gg_kernel kernel)
{
    return gg__destroy("gg_kernel_destroy", kernel.id, GG__T_KERNEL);
}
