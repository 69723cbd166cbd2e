/*
 * The stream, event and module calls the CUDA and HIP faces share
 * (sim_face_objects.h).
 */
#include "sim_face_objects.h"

#define PTR(h) ((void *)(uintptr_t)(h))

/* The live object of kind behind h, retained (NULL on failure). A miss is
 * INVALID_HANDLE; faces that explain misses say "<noun> <h> is not <what>". */
static sim_status lookup(const sim_face *f, uint64_t h, sim_kind kind, const char *noun,
                         const char *what, sim_obj **out)
{
    *out = NULL;
    sim_status st = f->ready();
    if (st)
        return st;
    *out = sim_registry_get(h, kind);
    if (!*out && f->by_device)
        sim_detail("%s %p is not %s", noun, PTR(h), what);
    return *out ? SIM_OK : SIM_ERR_INVALID_HANDLE;
}

/* ---- streams ------------------------------------------------------------ */

sim_status sim_face_stream_of(const sim_face *f, uint64_t h, sim_ctx *c, sim_stream **out)
{
    if (f->is_per_thread_stream && f->is_per_thread_stream(h))
        return f->per_thread_stream(c, out);
    if (f->is_null_stream(h)) {
        *out = sim_ctx_null_stream(c);
        return *out ? SIM_OK : SIM_ERR_CONTEXT_DESTROYED;
    }
    sim_stream *s = (sim_stream *)sim_registry_get(h, SIM_KIND_STREAM);
    if (!s) {
        sim_detail("stream %p is not a live stream", PTR(h));
        return SIM_ERR_INVALID_HANDLE;
    }
    if (s->ctx != c) {
        sim_obj_release(&s->obj);
        if (f->by_device)
            sim_detail("stream %p belongs to device %d", PTR(h), s->ctx->dev->ordinal);
        else
            sim_detail("stream %p belongs to another context", PTR(h));
        return SIM_ERR_INVALID_HANDLE;
    }
    *out = s;
    return SIM_OK;
}

/* The stream behind h, retained: a user stream from its own context, the
 * null stream from the current one. */
static sim_status any_stream(const sim_face *f, uint64_t h, sim_stream **out)
{
    sim_status st;
    if (!f->is_null_stream(h)) {
        sim_obj *o;
        st = lookup(f, h, SIM_KIND_STREAM, "stream", "a live stream", &o);
        *out = (sim_stream *)o;
        return st;
    }
    sim_ctx *c;
    if ((st = f->current(&c)))
        return st;
    st = sim_face_stream_of(f, h, c, out);
    sim_obj_release(&c->obj);
    return st;
}

sim_status sim_face_stream_create(const sim_face *f, bool valid, unsigned int flags,
                                  uint64_t *out)
{
    sim_ctx *c;
    sim_status st = f->enter(&c);
    if (st)
        return st;
    sim_stream *s = NULL;
    st = valid ? sim_stream_create(c, flags, false, &s) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *out = s->obj.handle;
        sim_obj_release(&s->obj);
    }
    sim_obj_release(&c->obj);
    return st;
}

sim_status sim_face_stream_destroy(const sim_face *f, uint64_t h)
{
    sim_status st = f->ready();
    if (st)
        return st;
    if (f->is_null_stream(h))
        return SIM_ERR_INVALID_HANDLE;
    sim_stream *s = (sim_stream *)sim_registry_get(h, SIM_KIND_STREAM);
    if (!s)
        return SIM_ERR_INVALID_HANDLE;
    st = sim_ctx_health(s->ctx);
    if (!st) {
        if (sim_registry_remove(&s->obj))
            sim_stream_close(s); /* pending work still runs, then the worker exits */
        else
            st = SIM_ERR_INVALID_HANDLE;
    }
    sim_obj_release(&s->obj);
    return st;
}

/* op on the stream behind h (see any_stream). */
static sim_status on_stream(const sim_face *f, uint64_t h, sim_status (*op)(sim_stream *))
{
    sim_stream *s;
    sim_status st = any_stream(f, h, &s);
    if (st)
        return st;
    st = op(s);
    sim_obj_release(&s->obj);
    return st;
}

sim_status sim_face_stream_query(const sim_face *f, uint64_t h)
{
    return on_stream(f, h, sim_stream_query);
}

sim_status sim_face_stream_sync(const sim_face *f, uint64_t h)
{
    return on_stream(f, h, sim_stream_sync);
}

/* ---- events ------------------------------------------------------------- */

static sim_status get_event(const sim_face *f, uint64_t h, sim_event **out)
{
    sim_obj *o;
    sim_status st = lookup(f, h, SIM_KIND_EVENT, "event", "a live event", &o);
    *out = (sim_event *)o;
    return st;
}

sim_status sim_face_stream_wait_event(const sim_face *f, uint64_t hs, uint64_t he,
                                      unsigned int flags)
{
    sim_stream *s;
    sim_status st = any_stream(f, hs, &s);
    if (st)
        return st;
    sim_event *e;
    if ((st = get_event(f, he, &e))) {
        sim_obj_release(&s->obj);
        return st;
    }
    st = flags ? SIM_ERR_INVALID_VALUE : sim_ctx_health(s->ctx);
    if (!st)
        st = sim_stream_wait_event(s, e);
    sim_obj_release(&e->obj);
    sim_obj_release(&s->obj);
    return st;
}

sim_status sim_face_event_create(const sim_face *f, bool valid, unsigned int flags,
                                 uint64_t *out)
{
    sim_ctx *c;
    sim_status st = f->enter(&c);
    if (st)
        return st;
    sim_event *e = NULL;
    st = valid ? sim_event_create(c, flags, &e) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *out = e->obj.handle;
        sim_obj_release(&e->obj);
    }
    sim_obj_release(&c->obj);
    return st;
}

sim_status sim_face_event_destroy(const sim_face *f, uint64_t h)
{
    sim_event *e;
    sim_status st = get_event(f, h, &e);
    if (st)
        return st;
    st = sim_ctx_health(e->ctx);
    if (!st && !sim_registry_remove(&e->obj))
        st = SIM_ERR_INVALID_HANDLE;
    sim_obj_release(&e->obj);
    return st;
}

sim_status sim_face_event_record(const sim_face *f, uint64_t he, uint64_t hs)
{
    sim_event *e;
    sim_status st = get_event(f, he, &e);
    if (st)
        return st;
    sim_stream *s = NULL;
    st = sim_ctx_health(e->ctx);
    if (!st)
        st = sim_face_stream_of(f, hs, e->ctx, &s);
    if (!st)
        st = sim_event_record(e, s);
    if (s)
        sim_obj_release(&s->obj);
    sim_obj_release(&e->obj);
    return st;
}

/* op on the event behind h. */
static sim_status on_event(const sim_face *f, uint64_t h, sim_status (*op)(sim_event *))
{
    sim_event *e;
    sim_status st = get_event(f, h, &e);
    if (st)
        return st;
    st = op(e);
    sim_obj_release(&e->obj);
    return st;
}

sim_status sim_face_event_query(const sim_face *f, uint64_t h)
{
    return on_event(f, h, sim_event_query);
}

sim_status sim_face_event_sync(const sim_face *f, uint64_t h)
{
    return on_event(f, h, sim_event_sync);
}

sim_status sim_face_event_elapsed(const sim_face *f, float *ms, uint64_t ha, uint64_t hb)
{
    sim_event *a, *b;
    sim_status st = get_event(f, ha, &a);
    if (st)
        return st;
    if ((st = get_event(f, hb, &b))) {
        sim_obj_release(&a->obj);
        return st;
    }
    st = ms ? sim_event_elapsed(a, b, ms) : SIM_ERR_INVALID_VALUE;
    sim_obj_release(&a->obj);
    sim_obj_release(&b->obj);
    return st;
}

/* ---- modules and launches ----------------------------------------------- */

static sim_status get_module(const sim_face *f, uint64_t h, sim_module **out)
{
    sim_obj *o;
    sim_status st = lookup(f, h, SIM_KIND_MODULE, "module", "a loaded module", &o);
    *out = (sim_module *)o;
    return st;
}

sim_status sim_face_module_load(const sim_face *f, bool valid, const void *what, bool is_path,
                                unsigned jit_max_registers, uint64_t *out)
{
    sim_ctx *c;
    sim_status st = f->enter(&c);
    if (st)
        return st;
    sim_module *m = NULL;
    st = SIM_ERR_INVALID_VALUE;
    if (valid && what)
        st = is_path ? sim_module_load_path(c, what, &m) : sim_module_load_data(c, what, jit_max_registers, &m);
    if (!st) {
        *out = m->obj.handle;
        sim_obj_release(&m->obj);
    }
    sim_obj_release(&c->obj);
    return st;
}

sim_status sim_face_module_unload(const sim_face *f, uint64_t h)
{
    sim_module *m;
    sim_status st = get_module(f, h, &m);
    if (st)
        return st;
    st = sim_ctx_health(m->obj.owner);
    if (!st)
        st = sim_module_unload(m);
    sim_obj_release(&m->obj);
    return st;
}

sim_status sim_face_module_function(const sim_face *f, uint64_t h, bool out_ok,
                                    const char *name, uint64_t *out)
{
    sim_module *m;
    sim_status st = get_module(f, h, &m);
    if (st)
        return st;
    sim_function *fn = NULL;
    st = sim_ctx_health(m->obj.owner);
    if (!st)
        st = out_ok && name ? sim_module_function(m, name, &fn) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        *out = fn->obj.handle;
        sim_obj_release(&fn->obj);
    }
    sim_obj_release(&m->obj);
    return st;
}

sim_status sim_face_module_global(const sim_face *f, uint64_t h, const char *name,
                                  uint64_t *dptr, size_t *bytes)
{
    sim_module *m;
    sim_status st = get_module(f, h, &m);
    if (st)
        return st;
    st = sim_ctx_health(m->obj.owner);
    uint64_t d = 0;
    size_t n = 0;
    if (!st)
        st = name ? sim_module_global(m, name, &d, &n) : SIM_ERR_INVALID_VALUE;
    if (!st) {
        if (dptr)
            *dptr = d;
        if (bytes)
            *bytes = n;
    }
    sim_obj_release(&m->obj);
    return st;
}

sim_status sim_face_launch(sim_stream *s, sim_function *fn, const unsigned int grid[3],
                           const unsigned int block[3], unsigned int shared_bytes,
                           void **params)
{
    sim_launch_desc d = {
        .fn = fn,
        .grid = { grid[0], grid[1], grid[2] },
        .block = { block[0], block[1], block[2] },
        .shared_bytes = shared_bytes,
        .params = params,
    };
    return sim_launch_submit(s, &d);
}
