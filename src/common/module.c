/* Modules and the kernels in them. */
#include <stdio.h>
#include <string.h>

#include "common/child.h"
#include "common/lifetime.h"

static gg_status module_load(gg__call *c, gg_context ctx_handle, const char *path, const void *image,
                             size_t bytes, gg_module *out)
{
    gg_status status;
    gg__context *ctx = gg__create_begin(c, ctx_handle, &status);
    if (ctx == NULL)
        return status;
    gg__nmodule native = NULL;
    int n = path ? gg__drv(c, GG__OP_MODULE_LOAD, c->b->module_load_file(c->b->self, &native, path))
                 : gg__drv(c, GG__OP_MODULE_LOAD, c->b->module_load_data(c->b->self, &native, image, bytes));
    status = gg__check(c, GG__OP_MODULE_LOAD, n);
    if (status != GG_OK && path != NULL) {
        gg_error_info *e = gg__last_error_slot();
        size_t len = strlen(e->message);
        snprintf(e->message + len, sizeof e->message - len, " (path '%s')", path);
    }
    if (status == GG_OK) {
        gg__module *m = gg__object_new(GG__T_MODULE);
        if (m)
            m->native = native;
        out->id = gg__create_record(c, ctx, m ? &m->h : NULL, path);
        if (out->id == 0) {
            c->b->module_unload(c->b->self, native);
            status = GG_OUT_OF_MEMORY;
        }
    }
    gg__create_end(c, ctx);
    return status;
}

gg_status gg_module_load_file(gg_context ctx, const char *path, gg_module *out)
{
    gg__call c = GG__CALL("gg_module_load_file");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_load_file: out is NULL");
    out->id = 0;
    if (path == NULL || path[0] == '\0')
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_load_file: path is %s", path ? "empty" : "NULL");
    return module_load(&c, ctx, path, NULL, 0, out);
}

gg_status gg_module_load_data(gg_context ctx, const void *image, size_t bytes, gg_module *out)
{
    gg__call c = GG__CALL("gg_module_load_data");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_load_data: out is NULL");
    out->id = 0;
    if (image == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_load_data: image is NULL");
    if (bytes == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_module_load_data: bytes is 0");
    return module_load(&c, ctx, NULL, image, bytes, out);
}

gg_status gg_module_unload(gg_module module)
{
    return gg__destroy_child("gg_module_unload", module.id, GG__T_MODULE);
}

gg_status gg_kernel_get(gg_module module, const char *name, gg_kernel *out)
{
    gg__call c = GG__CALL("gg_kernel_get");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_get: out is NULL");
    out->id = 0;
    if (name == NULL || name[0] == '\0')
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_get: name is %s", name ? "empty" : "NULL");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    gg__module *m = gg__lookup(&c, module.id, GG__T_MODULE, "module");
    if (m == NULL)
        return GG_INVALID_HANDLE;
    gg__context *ctx = m->h.context;
    pthread_mutex_lock(&ctx->lock);
    status = gg__enter(&c, ctx);
    if (status == GG_OK) {
        gg__nfunc native = NULL;
        c.kernel_name = name;
        int n = gg__drv(&c, GG__OP_MODULE_GET_FUNCTION, c.b->module_get_function(c.b->self, &native, m->native, name));
        status = gg__check(&c, GG__OP_MODULE_GET_FUNCTION, n);
        const char *interned = status == GG_OK ? gg__intern(name) : NULL;
        if (status == GG_OK) {
            gg__kernel *k = interned ? gg__object_new(GG__T_KERNEL) : NULL;
            if (k) {
                k->module = m;
                k->module_id = module.id;
                k->native = native;
                k->name = interned;
            }
            out->id = gg__create_record(&c, ctx, k ? &k->h : NULL, name);
            if (out->id == 0)
                status = GG_OUT_OF_MEMORY;
        }
    }
    gg__leave(&c);
    pthread_mutex_unlock(&ctx->lock);
    return status;
}

gg_status gg_kernel_name(gg_kernel kernel, const char **name)
{
    gg__call c = GG__CALL("gg_kernel_name");
    if (name == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_name: name is NULL");
    gg__kernel *k = gg__lookup(&c, kernel.id, GG__T_KERNEL, "kernel");
    if (k == NULL)
        return GG_INVALID_HANDLE;
    *name = k->name;
    return GG_OK;
}
