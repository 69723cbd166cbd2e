/* Interop: the driver's own objects behind gg objects (gg_*_native), and
 * objects made outside gpuguard adopted as gg objects (gg_stream_adopt,
 * gg_buffer_adopt, gg_kernel_adopt, gg_context_adopt: every adopt is
 * here; a context's record is made by context.c's gg__context_register).
 *
 * An adopted object is an ordinary record made through the one create path
 * (gg__create), so it gets every check and record gpuguard's own objects
 * get; its `adopted`/`owned` flags tell the release functions whether the
 * native object is gpuguard's to destroy (object.h). The checks that need
 * the context's child list (the same native object adopted twice) run in
 * the create path's `make` step, under the context's lock, so two racing
 * adoptions of one object cannot both pass. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/context.h"
#include "common/fault.h"
#include "common/fork.h"
#include "common/abi_struct.h"
#include "common/lifetime.h"
#include "common/timeline.h"
#include "common/module.h"

/* ---- native handles ----------------------------------------------------- */

/* The lookups below work in DEAD and FORKED contexts (no gg__enter): the
 * caller may need the native object to tear down its own state. */
#define NATIVE_GETTER(fn, kind, T, record, what)                                         \
    gg_status fn(T handle, void **native)                                               \
    {                                                                                   \
        gg__call c = GG__CALL(#fn);                                                      \
        if (native == NULL)                                                             \
            return gg__fail(&c, GG_INVALID_ARGUMENT, #fn ": native is NULL");          \
        *native = NULL;                                                                 \
        record *o = gg__lookup(&c, handle.id, kind, what);                              \
        if (o == NULL)                                                                  \
            return gg__lookup_status();                                                 \
        *native = o->native;                                                            \
        gg__leave(&c);                                                                  \
        return GG_OK;                                                                   \
    }

NATIVE_GETTER(gg_stream_native, GG__T_STREAM, gg_stream, gg__stream, "stream")
NATIVE_GETTER(gg_event_native, GG__T_EVENT, gg_event, gg__event, "event")
NATIVE_GETTER(gg_module_native, GG__T_MODULE, gg_module, gg__module, "module")
NATIVE_GETTER(gg_kernel_native, GG__T_KERNEL, gg_kernel, gg__kernel, "kernel")
#undef NATIVE_GETTER

/* ---- adoption ----------------------------------------------------------- */

/* What a `make` step found wrong. It cannot record an error itself (the
 * create path records its native code), so it keeps the refusal here and
 * returns `refusal_code`; the adopt function records the refusal after. */
typedef struct refusal {
    gg_status status;
    char message[GG_MESSAGE_MAX];
} refusal;

typedef struct adopt_args {
    gg_adopt_desc desc;
    void *native;           /* stream, function */
    uint64_t device_ptr;    /* buffers */
    size_t bytes;
    const char *name;       /* kernels */
    refusal *why;
} adopt_args;

/* A native code the create path classifies as a plain, non-sticky failure. */
static int refuse(gg__call *c, const adopt_args *a, gg_status status, const char *fmt, ...) GG__PRINTF(4, 5);
static int refuse(gg__call *c, const adopt_args *a, gg_status status, const char *fmt, ...)
{
    a->why->status = status;
    int used = snprintf(a->why->message, sizeof a->why->message, "%s: ", c->api);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->why->message + used, sizeof a->why->message - (size_t)used, fmt, ap);
    va_end(ap);
    int n = c->b->native_for_status(GG_INVALID_ARGUMENT);
    return n != 0 ? n : -1;
}

/* The live child of `type` in the context whose native object `same`
 * says is this one; NULL if none. Caller holds the context's lock. */
static gg__object *find_child(gg__context *ctx, gg__type type, bool (*same)(const gg__object *, const adopt_args *),
                              const adopt_args *a)
{
    for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
        if (o->type == type && same(o, a))
            return o;
    return NULL;
}

static void mark_adopted(gg__object *o, const adopt_args *a)
{
    o->adopted = true;
    o->owned = a->desc.take_ownership;
}

/* Records the refusal a `make` step kept (over the create path's record of
 * its code), or leaves the create path's status. */
static gg_status finish(gg__call *c, gg_status status, const refusal *why)
{
    if (status != GG_OK && why->status != GG_OK)
        return gg__fail(c, why->status, "%s", why->message);
    return status;
}

/* ---- streams ---- */

static bool same_stream(const gg__object *o, const adopt_args *a)
{
    return ((const gg__stream *)o)->native == a->native;
}

static int make_adopted_stream(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    const adopt_args *a = args;
    gg__stream *st = (gg__stream *)o;
    *op = GG__OP_STREAM_CONTEXT;
    gg__object *twin = find_child(c->ctx, GG__T_STREAM, same_stream, a);
    if (twin != NULL)
        return refuse(c, a, GG_INVALID_ARGUMENT, "native stream %p is gg stream %s already", a->native,
                      gg__object_label(twin).text);
    if (c->b->stream_context != NULL) {
        gg__nctx owner = NULL;
        int n = gg__drv(c, *op, c->b->stream_context(c->b->self, a->native, &owner));
        if (n != 0)
            return refuse(c, a, GG_INVALID_ARGUMENT, "%p is not a stream the driver knows: %s returned %s%s",
                          a->native, c->b->op_names[*op], c->b->code_name(n), c->injected ? " (injected fault)" : "");
        if (owner == NULL)
            gg__log(GG_LOG_DEBUG, 0, "%s: the %s runtime cannot tell stream %p's device: not checked", c->api,
                    c->b->name, a->native);
        else if (owner != c->ctx->native)
            return refuse(c, a, GG_WRONG_CONTEXT, "native stream %p belongs to native context %p, not to "
                          "context %s (native %p)", a->native, owner, gg__object_label(&c->ctx->h).text,
                          c->ctx->native);
    } else {
        gg__log(GG_LOG_DEBUG, 0, "%s: the %s backend cannot tell a stream's context: not checked", c->api,
                c->b->name);
    }
    if (!gg__launch_log_open(&st->log))
        return refuse(c, a, GG_OUT_OF_MEMORY, "out of host memory for the stream's %u launch records "
                      "(GPUGUARD_LAUNCH_RECORDS)", gg__lib.config.launch_records);
    st->native = a->native;
    mark_adopted(o, a);
    gg__timeline_attach(c->ctx, &st->log);
    return 0;
}

gg_status gg_stream_adopt(gg_context ctx, void *native_stream, const gg_adopt_desc *desc, gg_stream *out)
{
    gg__call c = GG__CALL("gg_stream_adopt");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_stream_adopt: out is NULL");
    out->id = 0;
    if (native_stream == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_stream_adopt: native_stream is NULL, the default stream, "
                        "which is no one's to adopt: pass GG_NO_STREAM to calls for it");
    gg_adopt_desc adopt;
    gg_status read = GG__ABI_COPY_IN(&c, desc, &adopt, gg_adopt_desc, GG_ADOPT_DESC_INIT);
    if (read != GG_OK)
        return read;
    refusal why = { GG_OK, "" };
    adopt_args a = { .desc = adopt, .native = native_stream, .why = &why };
    gg_status status = gg__create(&c, ctx.id, GG__T_CONTEXT, GG__T_STREAM, a.desc.tag, make_adopted_stream, &a,
                                  &out->id);
    return finish(&c, status, &why);
}

/* ---- buffers ---- */

static bool same_buffer(const gg__object *o, const adopt_args *a)
{
    const gg__buffer *b = (const gg__buffer *)o;
    return !(b->flags & GG_BUFFER_HOST_PINNED) && b->device_ptr == a->device_ptr;
}

/* Checks the range against the allocation the driver knows there. */
static int check_allocation(gg__call *c, const adopt_args *a)
{
    if (c->b->pointer_range == NULL) {
        gg__log(GG_LOG_DEBUG, 0, "%s: the %s backend cannot look addresses up: 0x%llx not checked", c->api,
                c->b->name, (unsigned long long)a->device_ptr);
        return 0;
    }
    gg__nctx owner = NULL;
    gg__dptr base = 0;
    size_t size = 0;
    int n = gg__drv(c, GG__OP_POINTER_QUERY, c->b->pointer_range(c->b->self, a->device_ptr, &owner, &base, &size));
    if (n != 0 && c->b->classify(n).status == GG_UNSUPPORTED && c->injected == 0) {
        gg__log(GG_LOG_DEBUG, 0, "%s: the driver cannot look addresses up (%s): 0x%llx not checked", c->api,
                c->b->code_name(n), (unsigned long long)a->device_ptr);
        return 0;
    }
    if (n != 0)
        return refuse(c, a, GG_INVALID_ARGUMENT, "0x%llx is not in any allocation the driver knows: %s returned %s%s",
                      (unsigned long long)a->device_ptr, c->b->op_names[GG__OP_POINTER_QUERY], c->b->code_name(n),
                      c->injected ? " (injected fault)" : "");
    if (owner != c->ctx->native)
        return refuse(c, a, GG_WRONG_CONTEXT, "0x%llx is memory of native context %p, not of context %s (native %p)",
                      (unsigned long long)a->device_ptr, owner, gg__object_label(&c->ctx->h).text, c->ctx->native);
    uint64_t offset = a->device_ptr - base;
    if (a->device_ptr < base || offset > size || a->bytes > size - offset)
        return refuse(c, a, GG_INVALID_ARGUMENT, "[0x%llx, +%zu) runs past its allocation [0x%llx, +%zu)",
                      (unsigned long long)a->device_ptr, a->bytes, (unsigned long long)base, size);
    if (a->desc.take_ownership && offset != 0)
        return refuse(c, a, GG_INVALID_ARGUMENT, "take_ownership needs a whole allocation: 0x%llx is %llu bytes "
                      "into the allocation at 0x%llx, which gpuguard could not free", (unsigned long long)a->device_ptr,
                      (unsigned long long)offset, (unsigned long long)base);
    return 0;
}

static int make_adopted_buffer(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    const adopt_args *a = args;
    gg__buffer *buf = (gg__buffer *)o;
    *op = GG__OP_POINTER_QUERY;
    gg__object *twin = find_child(c->ctx, GG__T_BUFFER, same_buffer, a);
    if (twin != NULL)
        return refuse(c, a, GG_INVALID_ARGUMENT, "device memory at 0x%llx is gg buffer %s already",
                      (unsigned long long)a->device_ptr, gg__object_label(twin).text);
    int n = check_allocation(c, a);
    if (n != 0)
        return n;
    buf->bytes = a->bytes;
    buf->flags = 0;
    buf->device_ptr = a->device_ptr;
    mark_adopted(o, a);
    return 0;
}

gg_status gg_buffer_adopt(gg_context ctx, uint64_t device_ptr, size_t bytes, const gg_adopt_desc *desc,
                          gg_buffer *out)
{
    gg__call c = GG__CALL("gg_buffer_adopt");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_adopt: out is NULL");
    out->id = 0;
    if (device_ptr == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_adopt: device_ptr is 0 (NULL)");
    if (bytes == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_adopt: bytes is 0");
    if (bytes > UINT64_MAX - device_ptr)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_buffer_adopt: 0x%llx + %zu bytes wraps around the address space",
                        (unsigned long long)device_ptr, bytes);
    gg_adopt_desc adopt;
    gg_status read = GG__ABI_COPY_IN(&c, desc, &adopt, gg_adopt_desc, GG_ADOPT_DESC_INIT);
    if (read != GG_OK)
        return read;
    refusal why = { GG_OK, "" };
    adopt_args a = { .desc = adopt, .device_ptr = device_ptr, .bytes = bytes,
                     .why = &why };
    gg_status status = gg__create(&c, ctx.id, GG__T_CONTEXT, GG__T_BUFFER, a.desc.tag, make_adopted_buffer, &a,
                                  &out->id);
    return finish(&c, status, &why);
}

/* ---- kernels ---- */

static bool same_kernel(const gg__object *o, const adopt_args *a)
{
    return ((const gg__kernel *)o)->native == a->native;
}

static int make_adopted_kernel(gg__call *c, gg__object *o, const void *args, gg__op *op)
{
    const adopt_args *a = args;
    gg__kernel *k = (gg__kernel *)o;
    *op = GG__OP_KERNEL_PARAMS;
    gg__object *twin = find_child(c->ctx, GG__T_KERNEL, same_kernel, a);
    if (twin != NULL)
        return refuse(c, a, GG_INVALID_ARGUMENT, "native function %p is gg kernel %s already", a->native,
                      gg__object_label(twin).text);
    k->native = a->native;
    k->module = NULL; /* no gg module: unloading one never takes it */
    k->module_id = 0;
    k->name = gg__intern(a->name);
    if (k->name == NULL)
        k->name = "?";
    c->kernel_name = k->name;
    gg__kernel_read_params(c, k);
    mark_adopted(o, a);
    return 0;
}

gg_status gg_kernel_adopt(gg_context ctx, void *native_function, const char *name, const gg_adopt_desc *desc,
                          gg_kernel *out)
{
    gg__call c = GG__CALL("gg_kernel_adopt");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_adopt: out is NULL");
    out->id = 0;
    if (native_function == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_adopt: native_function is NULL");
    if (name == NULL || name[0] == '\0')
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_kernel_adopt: name is %s (errors and culprits name the "
                        "kernel by it)", name ? "empty" : "NULL");
    gg_adopt_desc adopt;
    gg_status read = GG__ABI_COPY_IN(&c, desc, &adopt, gg_adopt_desc, GG_ADOPT_DESC_INIT);
    if (read != GG_OK)
        return read;
    refusal why = { GG_OK, "" };
    adopt_args a = { .desc = adopt, .native = native_function, .name = name,
                     .why = &why };
    const char *tag = a.desc.tag != NULL ? a.desc.tag : name;
    gg_status status = gg__create(&c, ctx.id, GG__T_CONTEXT, GG__T_KERNEL, tag, make_adopted_kernel, &a, &out->id);
    return finish(&c, status, &why);
}

/* ---- contexts ------------------------------------------------------------ */

/* Serialises adoptions of contexts: the check that a native context is not
 * a gg context already, and the publication of the new one, are one step. */
static pthread_mutex_t adopt_lock = PTHREAD_MUTEX_INITIALIZER;

gg_status gg_context_adopt(void *native_ctx, const gg_adopt_desc *desc, gg_context *out)
{
    gg__call c = GG__CALL("gg_context_adopt");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_adopt: out is NULL");
    out->id = 0;
    if (native_ctx == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_adopt: native_ctx is NULL (no context to adopt)");
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    gg_adopt_desc a;
    status = GG__ABI_COPY_IN(&c, desc, &a, gg_adopt_desc, GG_ADOPT_DESC_INIT);
    if (status != GG_OK) {
        gg__leave(&c);
        return status;
    }
    gg__fork_check_pid();
    if (c.b->ctx_device == NULL) {
        status = gg__fail(&c, GG_UNSUPPORTED, "gg_context_adopt: the %s backend cannot tell a native context's "
                          "device", c.b->name);
        gg__leave(&c);
        return status;
    }
    int device = -1;
    int n = gg__drv(&c, GG__OP_CTX_DEVICE, c.b->ctx_device(c.b->self, native_ctx, &device));
    if (n != 0 || device < 0 || device >= gg__lib.device_count) {
        if (n != 0)
            status = gg__fail_native(&c, c.b->classify(n).status == GG_INVALID_HANDLE ? GG_INVALID_HANDLE
                                                                                     : GG_INVALID_ARGUMENT,
                                     GG__OP_CTX_DEVICE, n, "gg_context_adopt: %p is not a context the driver "
                                     "knows: %s returned %s%s", native_ctx, c.b->op_names[GG__OP_CTX_DEVICE],
                                     c.b->code_name(n), c.injected ? " (injected fault)" : "");
        else
            status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_adopt: context %p is on device %d, which "
                              "gpuguard did not find at gg_init (%d device(s))", native_ctx, device,
                              gg__lib.device_count);
        gg__leave(&c);
        return status;
    }
    /* Someone's primary context (PyTorch's, CuPy's) is released, never
     * destroyed, and recovered by a primary reset: the record says so. */
    bool primary = c.b->one_context_per_device;
    if (!primary && c.b->ctx_is_primary != NULL) {
        n = gg__drv(&c, GG__OP_CTX_DEVICE, c.b->ctx_is_primary(c.b->self, device, native_ctx, &primary));
        if (n != 0) {
            status = gg__fail_native(&c, GG_INVALID_ARGUMENT, GG__OP_CTX_DEVICE, n,
                                     "gg_context_adopt: cannot tell whether %p is device %d's primary context: "
                                     "%s%s", native_ctx, device, c.b->code_name(n),
                                     c.injected ? " (injected fault)" : "");
            gg__leave(&c);
            return status;
        }
    } else if (!primary && (a.take_ownership || a.allow_reset)) {
        status = gg__fail(&c, GG_UNSUPPORTED, "gg_context_adopt: the %s backend cannot tell whether %p is a "
                          "primary context, so it cannot be adopted with take_ownership or allow_reset (a "
                          "primary context must be released or reset, never destroyed)", c.b->name, native_ctx);
        gg__leave(&c);
        return status;
    }
    gg_context_desc d = { .struct_size = sizeof d, .tag = a.tag, .use_primary = primary };
    pthread_mutex_lock(&adopt_lock);
    uint64_t existing = gg__context_of_native(native_ctx);
    if (existing != 0)
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_adopt: native context %p is gg context "
                          "0x%016llx already (adopted or created by gpuguard); use that one",
                          native_ctx, (unsigned long long)existing);
    else
        status = gg__context_register(&c, device, &d, native_ctx, &a, &out->id);
    pthread_mutex_unlock(&adopt_lock);
    gg__leave(&c);
    return status;
}
