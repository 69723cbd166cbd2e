/*
 * Configuration of the simulated driver, read at cuInit from the
 * environment variable GPUGUARD_SIM_CONFIG: JSON text, or "@/path/file.json".
 *
 * {
 *   "devices": [ {                       default: the two devices below
 *       "name": "text",                  default "gpuguard sim GPU <n>"
 *       "memory_mb": 1024,               > 0
 *       "watchdog": false,               kernel run-time limit on/off
 *       "watchdog_ms": 2000,             the limit, > 0
 *       "allocation_granularity": 1,     kernels may touch an allocation up to its size
 *                                        rounded up to this (a power of two, 1 to 4096):
 *                                        1 faults at the first byte past the end; a
 *                                        GPU's allocations are 256-byte aligned, so there
 *                                        an overrun within that goes unnoticed
 *       "multiprocessors": 8,            a PTX launch's blocks run side by side on
 *                                        them, in waves (sim_block_slots.h)
 *       "ns_per_warp_instruction": 50,   simulated time of one PTX warp-instruction
 *                                        (ns, in [0.001, 1000000]): %clock,
 *                                        %globaltimer, events and the watchdog of
 *                                        PTX kernels (sim_timeline.c)
 *       "max_threads_per_block": 1024,
 *       "max_grid": [2147483647, 65535, 65535],
 *       "max_block": [1024, 1024, 64],
 *       "stream_mem_ops": true,          stream write-value operations (32-bit) supported
 *       "stream_mem_ops_64": true } ],   64-bit ones too (only with stream_mem_ops)
 *   "misbehave": [ {
 *       "kernel": "name",                required
 *       "device": 0,                     optional, default any device
 *       "action": "fault" | "hang" | "overrun" | "slow",   required
 *       "launch": 3,                     optional 1-based launch of that kernel
 *                                        (on that device); default every launch
 *       "block_us": 1000,                slow: extra run time per block;
 *                                        overrun: run time on a device without
 *                                        watchdog (default 2000 ms)
 *       "error": "illegal_address" | "launch_failed" | "assert" } ],  fault only
 *   "fast": false                        true: every operation completes on the
 *                                        calling thread at submission, kernels
 *                                        are not run (for benchmarks); not with
 *                                        "misbehave"
 *   "record_launches": false             true: keep the ground truth of every
 *                                        launch (gg_sim_truth_launches, sim_truth.c);
 *                                        accepted with "fast", which records
 *                                        nothing (it runs no kernel)
 *   "driver_version": 12020              the CUDA driver the CUDA face imitates
 *                                        (cuDriverGetVersion, cuGetProcAddress):
 *                                        a positive multiple of 10; which
 *                                        versions a library accepts, and its
 *                                        default, are the face's (src/sim/README.md)
 *   "host_us": {"launch": 20,            host time (µs, 0 to 1000000) a launch call and a
 *               "write_value": 0}        stream write-value call take on the calling thread,
 *                                        on top of the simulator's own: a driver whose calls
 *                                        cost the host that much (gpuguard's timeline auto
 *                                        weighs these: src/common/timeline.c); launch's
 *                                        default is 0 in fast mode
 *   "sticky_scope": "process"            what a device fault's sticky error (illegal
 *                                        address, launch failed, assert, misaligned
 *                                        address, launch timeout) poisons: "process":
 *                                        every context of the process answers it, and
 *                                        no context can be created or retained after
 *                                        it (a real CUDA driver, measured: docs/
 *                                        DRIVER-FACTS.md, "Sticky errors reach the
 *                                        whole process"); "context": only the faulting
 *                                        context. Default "process" on the CUDA faces;
 *                                        the HIP face keeps a sticky error to its
 *                                        context as it always has (accepts "context",
 *                                        refuses "process": not measured on ROCm)
 * }
 *
 * With no variable set: device 0 "gpuguard sim display GPU" (watchdog on,
 * 2000 ms) and device 1 "gpuguard sim compute GPU" (no watchdog), 1024 MB,
 * 8 multiprocessors and the limits above each. Unknown keys and wrong types
 * are errors that name the key.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include "base/json_syntax.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIG_BYTES (1u << 20)

typedef struct perr {
    char *buf;
    size_t len;
} perr;

__attribute__((format(printf, 2, 3)))
static sim_status fail(perr *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->buf, e->len, fmt, ap);
    va_end(ap);
    return SIM_ERR_INVALID_VALUE;
}

static void device_defaults(sim_device_config *d, int ordinal)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "gpuguard sim GPU %d", ordinal);
    d->index = (unsigned)ordinal;
    d->memory_bytes = 1024ull << 20;
    d->watchdog = false;
    d->watchdog_ms = 2000;
    d->multiprocessors = 8;
    d->allocation_granularity = 1;
    d->ns_per_warp_instruction = 50.0;
    d->max_threads_per_block = 1024;
    d->stream_mem_ops = true;
    d->stream_mem_ops_64 = true;
    d->max_grid[0] = 2147483647u;
    d->max_grid[1] = 65535;
    d->max_grid[2] = 65535;
    d->max_block[0] = 1024;
    d->max_block[1] = 1024;
    d->max_block[2] = 64;
}

/* A launch call's host time when "host_us" does not say: a real driver's
 * launch costs the host more than a stream write-value (an H100: about
 * 4 us against 1.3 us to mapped host memory,
 * docs/DRIVER-FACTS.md, "The completion timeline's price"), but the simulator's own
 * costs are the other way round (a write-value is as dear as a launch: each
 * is a hand-off to the stream's worker), and gpuguard's timeline auto,
 * which weighs the two (src/common/timeline.c), would then mark fewer
 * launches on the simulator than on any measured GPU. Spent on the CPU, at least
 * this long (sim_host_spend). Not in fast mode. */
#define DEFAULT_HOST_US_LAUNCH 20u

static sim_status defaults(sim_config *c)
{
    c->devices = sim_calloc(2, sizeof *c->devices);
    if (!c->devices)
        return SIM_ERR_OUT_OF_MEMORY;
    c->ndevices = 2;
    device_defaults(&c->devices[0], 0);
    device_defaults(&c->devices[1], 1);
    snprintf(c->devices[0].name, sizeof c->devices[0].name, "gpuguard sim display GPU");
    c->devices[0].watchdog = true;
    snprintf(c->devices[1].name, sizeof c->devices[1].name, "gpuguard sim compute GPU");
    return SIM_OK;
}

/* A positive integer in [min, max]; names the key on error. */
static sim_status get_uint(const cJSON *v, const char *where, const char *key,
                           unsigned long long min, unsigned long long max,
                           unsigned long long *out, perr *e)
{
    if (!cJSON_IsNumber(v))
        return fail(e, "%s.%s: expected an integer", where, key);
    /* Range first: only then is the cast that checks integrality defined. */
    if (!(v->valuedouble >= (double)min && v->valuedouble <= (double)max))
        return fail(e, "%s.%s: %g is out of range [%llu, %llu]", where, key,
                    v->valuedouble, min, max);
    if (v->valuedouble != (double)(unsigned long long)v->valuedouble)
        return fail(e, "%s.%s: expected an integer", where, key);
    *out = (unsigned long long)v->valuedouble;
    return SIM_OK;
}

static sim_status get_dim3(const cJSON *v, const char *where, const char *key,
                           unsigned out[3], perr *e)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return fail(e, "%s.%s: expected an array of 3 integers", where, key);
    for (int i = 0; i < 3; i++) {
        unsigned long long x = 0; /* gcc -O3 cannot see that fail() never returns SIM_OK */
        sim_status st = get_uint(cJSON_GetArrayItem(v, i), where, key, 1, INT_MAX, &x, e);
        if (st)
            return st;
        out[i] = (unsigned)x;
    }
    return SIM_OK;
}

static sim_status parse_device(const cJSON *o, int i, sim_device_config *d, perr *e)
{
    char where[32];
    snprintf(where, sizeof where, "devices[%d]", i);
    device_defaults(d, i);
    if (!cJSON_IsObject(o))
        return fail(e, "%s: expected an object", where);
    for (const cJSON *k = o->child; k; k = k->next) {
        unsigned long long x = 0;
        sim_status st = SIM_OK;
        if (!strcmp(k->string, "name")) {
            if (!cJSON_IsString(k) || !k->valuestring[0] || strlen(k->valuestring) >= sizeof d->name)
                return fail(e, "%s.name: expected a non-empty string under %zu bytes", where, sizeof d->name);
            snprintf(d->name, sizeof d->name, "%s", k->valuestring);
        } else if (!strcmp(k->string, "memory_mb")) {
            if (!(st = get_uint(k, where, k->string, 1, 1ull << 24, &x, e)))
                d->memory_bytes = x << 20;
        } else if (!strcmp(k->string, "watchdog")) {
            if (!cJSON_IsBool(k))
                return fail(e, "%s.watchdog: expected true or false", where);
            d->watchdog = cJSON_IsTrue(k);
        } else if (!strcmp(k->string, "watchdog_ms")) {
            if (!(st = get_uint(k, where, k->string, 1, 3600000, &x, e)))
                d->watchdog_ms = (unsigned)x;
        } else if (!strcmp(k->string, "allocation_granularity")) {
            if ((st = get_uint(k, where, k->string, 1, 4096, &x, e)))
                return st;
            if (x & (x - 1))
                return fail(e, "%s.allocation_granularity: %llu is not a power of two", where, x);
            d->allocation_granularity = (unsigned)x;
        } else if (!strcmp(k->string, "multiprocessors")) {
            if (!(st = get_uint(k, where, k->string, 1, 4096, &x, e)))
                d->multiprocessors = (unsigned)x;
        } else if (!strcmp(k->string, "ns_per_warp_instruction")) {
            /* A number, fractions allowed: the bounds keep the watchdog's
             * instruction budget (watchdog_ms / cost) within 64 bits. */
            if (!cJSON_IsNumber(k) || !(k->valuedouble >= 0.001 && k->valuedouble <= 1e6))
                return fail(e, "%s.%s: expected a number in [0.001, 1000000]", where, k->string);
            d->ns_per_warp_instruction = k->valuedouble;
        } else if (!strcmp(k->string, "max_threads_per_block")) {
            if (!(st = get_uint(k, where, k->string, 1, 1u << 20, &x, e)))
                d->max_threads_per_block = (unsigned)x;
        } else if (!strcmp(k->string, "stream_mem_ops") ||
                   !strcmp(k->string, "stream_mem_ops_64")) {
            if (!cJSON_IsBool(k))
                return fail(e, "%s.%s: expected true or false", where, k->string);
            bool *dst = strcmp(k->string, "stream_mem_ops") ? &d->stream_mem_ops_64
                                                             : &d->stream_mem_ops;
            *dst = cJSON_IsTrue(k);
        } else if (!strcmp(k->string, "max_grid")) {
            st = get_dim3(k, where, k->string, d->max_grid, e);
        } else if (!strcmp(k->string, "max_block")) {
            st = get_dim3(k, where, k->string, d->max_block, e);
        } else {
            return fail(e, "%s: unknown key \"%s\"", where, k->string);
        }
        if (st)
            return st;
    }
    return SIM_OK;
}

static sim_status parse_action(const cJSON *k, const char *where, sim_misbehave *r, perr *e)
{
    static const struct { const char *name; sim_mb_action a; } actions[] = {
        { "fault", SIM_MB_FAULT }, { "hang", SIM_MB_HANG },
        { "overrun", SIM_MB_OVERRUN }, { "slow", SIM_MB_SLOW },
    };
    if (cJSON_IsString(k))
        for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
            if (!strcmp(k->valuestring, actions[i].name)) {
                r->action = actions[i].a;
                return SIM_OK;
            }
    return fail(e, "%s.action: expected \"fault\", \"hang\", \"overrun\" or \"slow\"", where);
}

static sim_status parse_error(const cJSON *k, const char *where, sim_misbehave *r, perr *e)
{
    static const struct { const char *name; sim_status st; } errors[] = {
        { "illegal_address", SIM_ERR_ILLEGAL_ADDRESS },
        { "launch_failed", SIM_ERR_LAUNCH_FAILED },
        { "assert", SIM_ERR_ASSERT },
    };
    if (cJSON_IsString(k))
        for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
            if (!strcmp(k->valuestring, errors[i].name)) {
                r->error = errors[i].st;
                return SIM_OK;
            }
    return fail(e, "%s.error: expected \"illegal_address\", \"launch_failed\" or \"assert\"", where);
}

static sim_status parse_rule(const cJSON *o, int i, int ndevices, sim_misbehave *r, perr *e)
{
    char where[32];
    snprintf(where, sizeof where, "misbehave[%d]", i);
    memset(r, 0, sizeof *r);
    r->device = -1;
    r->error = SIM_ERR_ILLEGAL_ADDRESS;
    atomic_init(&r->seen, 0);
    if (!cJSON_IsObject(o))
        return fail(e, "%s: expected an object", where);
    bool has_error = false;
    for (const cJSON *k = o->child; k; k = k->next) {
        unsigned long long x = 0;
        sim_status st = SIM_OK;
        if (!strcmp(k->string, "kernel")) {
            if (!cJSON_IsString(k) || !k->valuestring[0] || strlen(k->valuestring) >= sizeof r->kernel)
                return fail(e, "%s.kernel: expected a non-empty string under %zu bytes", where, sizeof r->kernel);
            snprintf(r->kernel, sizeof r->kernel, "%s", k->valuestring);
        } else if (!strcmp(k->string, "device")) {
            if (!(st = get_uint(k, where, k->string, 0, (unsigned)(ndevices > 0 ? ndevices - 1 : 0), &x, e)))
                r->device = (int)x;
        } else if (!strcmp(k->string, "action")) {
            st = parse_action(k, where, r, e);
        } else if (!strcmp(k->string, "launch")) {
            st = get_uint(k, where, k->string, 1, 1ull << 52, &r->launch, e);
        } else if (!strcmp(k->string, "block_us")) {
            st = get_uint(k, where, k->string, 0, 3600ull * 1000000u, &r->block_us, e);
            r->has_block_us = true;
        } else if (!strcmp(k->string, "error")) {
            st = parse_error(k, where, r, e);
            has_error = true;
        } else {
            return fail(e, "%s: unknown key \"%s\"", where, k->string);
        }
        if (st)
            return st;
    }
    if (!r->kernel[0])
        return fail(e, "%s.kernel: missing", where);
    if (r->action == SIM_MB_NONE)
        return fail(e, "%s.action: missing", where);
    if (has_error && r->action != SIM_MB_FAULT)
        return fail(e, "%s.error: only allowed with \"action\": \"fault\"", where);
    if (r->action == SIM_MB_SLOW && !r->has_block_us)
        return fail(e, "%s.block_us: required for \"action\": \"slow\"", where);
    return SIM_OK;
}

/* A CUDA version number as the driver reports it: 1000 * major + 10 * minor. */
static sim_status get_driver_version(const cJSON *k, int *out, perr *e)
{
    if (!cJSON_IsNumber(k) || !(k->valuedouble >= 1 && k->valuedouble <= 1e6) ||
        k->valuedouble != (double)(int)k->valuedouble || (int)k->valuedouble % 10 != 0)
        return fail(e, "driver_version: expected a CUDA version number such as 12020 "
                       "(1000 * major + 10 * minor)");
    *out = (int)k->valuedouble;
    return SIM_OK;
}


/* "host_us": {"launch": N, "write_value": N}, whole microseconds. */
static sim_status get_host_us(const cJSON *k, sim_config *c, perr *e)
{
    if (!cJSON_IsObject(k))
        return fail(e, "host_us: expected an object such as {\"launch\": 3, \"write_value\": 1}");
    for (const cJSON *f = k->child; f; f = f->next) {
        uint32_t *out = !strcmp(f->string, "launch")        ? &c->host_us_launch
                        : !strcmp(f->string, "write_value") ? &c->host_us_write_value
                                                            : NULL;
        if (!out)
            return fail(e, "host_us: unknown key \"%s\" (launch, write_value)", f->string);
        if (!cJSON_IsNumber(f) || !(f->valuedouble >= 0 && f->valuedouble <= 1e6) ||
            f->valuedouble != (double)(uint32_t)f->valuedouble)
            return fail(e, "host_us.%s: expected whole microseconds from 0 to 1000000", f->string);
        *out = (uint32_t)f->valuedouble;
        if (out == &c->host_us_launch)
            c->host_us_launch_given = true;
    }
    return SIM_OK;
}

static sim_status parse_root(const cJSON *root, sim_config *c, perr *e)
{
    if (!cJSON_IsObject(root))
        return fail(e, "top level: expected an object");
    const cJSON *devs = NULL, *rules = NULL;
    for (const cJSON *k = root->child; k; k = k->next) {
        if (!strcmp(k->string, "devices")) {
            devs = k;
        } else if (!strcmp(k->string, "misbehave")) {
            rules = k;
        } else if (!strcmp(k->string, "fast")) {
            if (!cJSON_IsBool(k))
                return fail(e, "fast: expected true or false");
            c->fast = cJSON_IsTrue(k);
        } else if (!strcmp(k->string, "record_launches")) {
            if (!cJSON_IsBool(k))
                return fail(e, "record_launches: expected true or false");
            c->record_launches = cJSON_IsTrue(k);
        } else if (!strcmp(k->string, "driver_version")) {
            sim_status st = get_driver_version(k, &c->driver_version, e);
            if (st)
                return st;
        } else if (!strcmp(k->string, "host_us")) {
            sim_status st = get_host_us(k, c, e);
            if (st)
                return st;
        } else if (!strcmp(k->string, "sticky_scope")) {
            if (cJSON_IsString(k) && !strcmp(k->valuestring, "process"))
                c->sticky_scope = SIM_STICKY_PROCESS;
            else if (cJSON_IsString(k) && !strcmp(k->valuestring, "context"))
                c->sticky_scope = SIM_STICKY_CONTEXT;
            else
                return fail(e, "sticky_scope: expected \"process\" or \"context\"");
        } else {
            return fail(e, "top level: unknown key \"%s\"", k->string);
        }
    }
    if (!c->host_us_launch_given && !c->fast)
        c->host_us_launch = DEFAULT_HOST_US_LAUNCH;
    /* Misbehaviour happens while kernels run, and fast mode runs none. */
    if (c->fast && rules && cJSON_GetArraySize(rules) > 0)
        return fail(e, "misbehave: not available with \"fast\": true (kernels are not run)");
    if (devs) {
        if (!cJSON_IsArray(devs))
            return fail(e, "devices: expected an array");
        int n = cJSON_GetArraySize(devs);
        if (n > 64)
            return fail(e, "devices: at most 64 devices");
        c->devices = sim_calloc(n ? (size_t)n : 1, sizeof *c->devices);
        if (!c->devices)
            return SIM_ERR_OUT_OF_MEMORY;
        c->ndevices = n;
        for (int i = 0; i < n; i++) {
            sim_status st = parse_device(cJSON_GetArrayItem(devs, i), i, &c->devices[i], e);
            if (st)
                return st;
        }
    } else {
        sim_status st = defaults(c);
        if (st)
            return st;
    }
    if (rules) {
        if (!cJSON_IsArray(rules))
            return fail(e, "misbehave: expected an array");
        int n = cJSON_GetArraySize(rules);
        c->rules = sim_calloc(n ? (size_t)n : 1, sizeof *c->rules);
        if (!c->rules)
            return SIM_ERR_OUT_OF_MEMORY;
        c->nrules = n;
        for (int i = 0; i < n; i++) {
            sim_status st = parse_rule(cJSON_GetArrayItem(rules, i), i, c->ndevices, &c->rules[i], e);
            if (st)
                return st;
        }
    }
    return SIM_OK;
}

sim_status sim_config_parse(const char *text, sim_config *out, char *err, size_t errlen)
{
    perr e = { err, errlen };
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    if (!text) {
        out->host_us_launch = DEFAULT_HOST_US_LAUNCH;
        return defaults(out);
    }
    char syntax[256];
    if (!gg__json_check_syntax(text, syntax, sizeof syntax))
        return fail(&e, "GPUGUARD_SIM_CONFIG: not valid JSON: %s", syntax);
    /* The syntax is right, so cJSON fails only for want of memory. */
    cJSON *root = sim_alloc_fault_point() ? NULL : cJSON_ParseWithOpts(text, NULL, true);
    if (!root)
        return fail(&e, "GPUGUARD_SIM_CONFIG: out of memory parsing the JSON");
    sim_status st = parse_root(root, out, &e);
    cJSON_Delete(root);
    if (st)
        sim_config_free(out);
    return st;
}

static char *read_file(const char *path, perr *e, sim_status *st)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *st = fail(e, "GPUGUARD_SIM_CONFIG: cannot open \"%s\": %s", path, strerror(errno));
        return NULL;
    }
    char *buf = sim_malloc(MAX_CONFIG_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_CONFIG_BYTES + 1, f) : 0;
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad || n > MAX_CONFIG_BYTES) {
        free(buf);
        *st = fail(e, "GPUGUARD_SIM_CONFIG: cannot read \"%s\" (error or larger than %u bytes)",
                   path, MAX_CONFIG_BYTES);
        return NULL;
    }
    buf[n] = '\0';
    /* Parsed as a C string: a NUL byte would silently end the text there. */
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        *st = fail(e, "GPUGUARD_SIM_CONFIG: \"%s\" has a NUL byte at offset %zu (the config is UTF-8 text)", path,
                   (size_t)(nul - buf));
        free(buf);
        return NULL;
    }
    return buf;
}

sim_status sim_config_load(sim_config *out, char *err, size_t errlen)
{
    const char *env = getenv("GPUGUARD_SIM_CONFIG");
    if (!env || !env[0])
        return sim_config_parse(NULL, out, err, errlen);
    if (env[0] != '@')
        return sim_config_parse(env, out, err, errlen);
    perr e = { err, errlen };
    sim_status st = SIM_OK;
    memset(out, 0, sizeof *out);
    char *text = read_file(env + 1, &e, &st);
    if (!text)
        return st;
    st = sim_config_parse(text, out, err, errlen);
    free(text);
    return st;
}

static pthread_mutex_t g_peek_lock = PTHREAD_MUTEX_INITIALIZER;
static char *g_peek_text;   /* the GPUGUARD_SIM_CONFIG text last peeked at */
static int g_peek_version;
static sim_sticky_scope g_peek_sticky_scope;

/* Parses GPUGUARD_SIM_CONFIG again if its text changed since the last
 * peek; the caller holds g_peek_lock. */
static void peek_locked(void)
{
    const char *env = getenv("GPUGUARD_SIM_CONFIG");
    const char *text = env ? env : "";
    if (g_peek_text && strcmp(g_peek_text, text) == 0)
        return;
    free(g_peek_text);
    g_peek_text = sim_strdup(text);
    sim_config c;
    char err[256];
    g_peek_version = 0;
    g_peek_sticky_scope = SIM_STICKY_UNSET;
    if (sim_config_load(&c, err, sizeof err) == SIM_OK) {
        g_peek_version = c.driver_version;
        g_peek_sticky_scope = c.sticky_scope;
        sim_config_free(&c);
    }
}

int sim_config_peek_driver_version(void)
{
    pthread_mutex_lock(&g_peek_lock);
    peek_locked();
    int v = g_peek_version;
    pthread_mutex_unlock(&g_peek_lock);
    return v;
}

sim_sticky_scope sim_config_peek_sticky_scope(void)
{
    pthread_mutex_lock(&g_peek_lock);
    peek_locked();
    sim_sticky_scope s = g_peek_sticky_scope;
    pthread_mutex_unlock(&g_peek_lock);
    return s;
}

void sim_config_free(sim_config *c)
{
    free(c->devices);
    free(c->rules);
    memset(c, 0, sizeof *c);
}
