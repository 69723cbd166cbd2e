/* Settings: the init descriptor's zeroes become defaults, then the
 * environment overrides, parsed strictly: an invalid value is an error that
 * names the variable, never a silent default. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/fault_plan.h"
#include "common/state.h"
#include "common/object.h"
#include "common/config.h"

#define DEFAULT_WAIT_TIMEOUT_MS 10000u
#define DEFAULT_WATCHDOG_BUDGET_MS 2000u /* Windows TDR's default delay */
/* A completion mark may cost up to half a launch before auto marks fewer
 * launches: on the one GPU measured (an H100) a mark cost 20 to 33 % of a
 * launch, so auto keeps every culprit exact there (README, "The completion
 * timeline's cost"). */
#define DEFAULT_TIMELINE_BUDGET 50u
#define TIMELINE_BUDGET_MAX 10000u

static bool copy_string(char *dst, size_t size, const char *src)
{
    if (strlen(src) >= size)
        return false;
    memcpy(dst, src, strlen(src) + 1);
    return true;
}

/* Plain decimal digits only: strtoull would also take leading spaces, a
 * sign and "0x", which a setting written by hand should not silently get. */
static bool parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (*text == '\0')
        return false;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > max)
            return false;
    }
    if (v < min)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* One rule for case: every keyword value (backend, log level, watchdog,
 * timeout policy, timeline) is matched ignoring ASCII case, by gg__keyword
 * alone (env.h); paths and numbers are taken as written. */
#define KEYWORD(text, names, index) gg__keyword((text), (names), sizeof(names) / sizeof(names)[0], (index))

/* *canonical: the keyword as listed (lower case). */
static bool parse_backend(const char *text, const char **canonical)
{
    static const char *const names[] = { "auto", "cuda", "hip", "sim", "sim-hip" };
    size_t k;
    if (!KEYWORD(text, names, &k))
        return false;
    *canonical = names[k];
    return true;
}

/* "kill" or "return": what a passed wait deadline does. */
static bool parse_timeout_policy(const char *text, gg_timeout_policy *out)
{
    static const char *const names[] = { "kill", "return" };
    static const gg_timeout_policy policies[] = { GG_TIMEOUT_KILLS_CONTEXT, GG_TIMEOUT_RETURNS };
    size_t k;
    if (!KEYWORD(text, names, &k))
        return false;
    *out = policies[k];
    return true;
}

/* "auto", "process" or "context": how far a sticky error reaches (poison.h). */
static bool parse_sticky_scope(const char *text, gg__sticky_scope *out)
{
    static const char *const names[] = { "auto", "process", "context" };
    static const gg__sticky_scope scopes[] = { GG__STICKY_AUTO, GG__STICKY_PROCESS, GG__STICKY_CONTEXT };
    size_t k;
    if (!KEYWORD(text, names, &k))
        return false;
    *out = scopes[k];
    return true;
}

static bool parse_timeline(const char *text, gg_timeline_mode *out)
{
    static const char *const names[] = { "auto", "on", "off" };
    static const gg_timeline_mode modes[] = { GG_TIMELINE_AUTO, GG_TIMELINE_ON, GG_TIMELINE_OFF };
    size_t k;
    if (!KEYWORD(text, names, &k))
        return false;
    *out = modes[k];
    return true;
}

/* The folder a report file is to be written in exists and is writable:
 * checked at init, since the report is written at exit, where nobody
 * could be told that it failed. */
static bool report_folder_usable(const char *path, char *why, size_t why_size)
{
    char folder[512];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(folder, sizeof folder, ".");
    else if (slash == path)
        snprintf(folder, sizeof folder, "/");
    else
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
    if (access(folder, W_OK | X_OK) != 0) {
        snprintf(why, why_size, "folder '%s': %s", folder, strerror(errno));
        return false;
    }
    return true;
}

static bool parse_log_level(const char *text, gg_log_level *out)
{
    static const char *const names[] = { "off", "error", "warn", "info", "debug" }; /* gg_log_level's order */
    size_t k;
    if (!KEYWORD(text, names, &k))
        return false;
    *out = (gg_log_level)k;
    return true;
}

/* "auto", "refuse" or "allow", optionally followed by ":BUDGET_MS". */
static bool parse_watchdog(const char *text, gg_watchdog_policy *policy, uint32_t *budget)
{
    static const char *const names[] = { "auto", "refuse", "allow" };
    static const gg_watchdog_policy policies[] = { GG_WATCHDOG_AUTO_CHUNK, GG_WATCHDOG_REFUSE, GG_WATCHDOG_ALLOW };
    char word[16];
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    size_t k;
    if (len == 0 || len >= sizeof word)
        return false;
    memcpy(word, text, len);
    word[len] = '\0';
    if (!KEYWORD(word, names, &k))
        return false;
    *policy = policies[k];
    return colon == NULL || parse_u32(colon + 1, 1, 3600000, budget);
}


#define BAD(...) do { snprintf(message, message_size, __VA_ARGS__); gg__config_release(out); return GG_INVALID_ARGUMENT; } while (0)

gg_status gg__config_resolve(const gg_init_desc *desc, gg__config *out, char *message, size_t message_size)
{
    gg_init_desc d = desc ? *desc : (gg_init_desc){ 0 };
    memset(out, 0, sizeof *out);

    /* The descriptor, zeroes resolved to defaults. */
    const char *backend = NULL;
    if (!parse_backend(d.backend ? d.backend : "auto", &backend))
        BAD("gg_init: desc->backend '%s' is not one of auto, cuda, hip, sim, sim-hip", d.backend);
    copy_string(out->backend, sizeof out->backend, backend);
    if (d.cuda_library && !copy_string(out->cuda_library, sizeof out->cuda_library, d.cuda_library))
        BAD("gg_init: desc->cuda_library is longer than %zu bytes", sizeof out->cuda_library - 1);
    if (d.hip_library && !copy_string(out->hip_library, sizeof out->hip_library, d.hip_library))
        BAD("gg_init: desc->hip_library is longer than %zu bytes", sizeof out->hip_library - 1);
    out->log_fn = d.log_fn;
    out->log_user = d.log_user;
    if ((unsigned)d.log_level > GG_LOG_DEBUG)
        BAD("gg_init: desc->log_level %d is not a gg_log_level", (int)d.log_level);
    out->log_level = d.log_level ? d.log_level : (d.log_fn ? GG_LOG_WARN : GG_LOG_OFF);
    out->wait_timeout_ms = d.wait_timeout_ms ? d.wait_timeout_ms : DEFAULT_WAIT_TIMEOUT_MS;
    if ((unsigned)d.cleanup > GG_CLEANUP_WARN_ONCE)
        BAD("gg_init: desc->cleanup %d is not a gg_cleanup_policy", (int)d.cleanup);
    out->cleanup = d.cleanup ? d.cleanup : GG_CLEANUP_WARN_ONCE;
    if ((unsigned)d.timeout_policy > GG_TIMEOUT_RETURNS)
        BAD("gg_init: desc->timeout_policy %d is not a gg_timeout_policy", (int)d.timeout_policy);
    out->timeout_policy = d.timeout_policy ? d.timeout_policy : GG_TIMEOUT_KILLS_CONTEXT;
    if ((unsigned)d.watchdog > GG_WATCHDOG_ALLOW)
        BAD("gg_init: desc->watchdog %d is not a gg_watchdog_policy", (int)d.watchdog);
    out->watchdog = d.watchdog ? d.watchdog : GG_WATCHDOG_AUTO_CHUNK;
    out->watchdog_budget_ms = d.watchdog_budget_ms ? d.watchdog_budget_ms : DEFAULT_WATCHDOG_BUDGET_MS;
    out->sync_launches = d.sync_launches;
    if ((unsigned)d.timeline > GG_TIMELINE_OFF)
        BAD("gg_init: desc->timeline %d is not a gg_timeline_mode", (int)d.timeline);
    out->timeline = d.timeline;
    if (d.timeline_stride > GG_TIMELINE_STRIDE_MAX)
        BAD("gg_init: desc->timeline_stride %u is above GG_TIMELINE_STRIDE_MAX (%u)", d.timeline_stride,
            GG_TIMELINE_STRIDE_MAX);
    out->timeline_stride = d.timeline_stride;
    if (d.timeline_budget_percent > TIMELINE_BUDGET_MAX)
        BAD("gg_init: desc->timeline_budget_percent %u is above %u", d.timeline_budget_percent,
            TIMELINE_BUDGET_MAX);
    out->timeline_budget_percent = d.timeline_budget_percent ? d.timeline_budget_percent : DEFAULT_TIMELINE_BUDGET;
    out->launch_records = GG__LAUNCH_RECORDS_DEFAULT;
    if (d.fault_plan_json && (out->fault_plan_json = gg__strdup(d.fault_plan_json)) == NULL) {
        snprintf(message, message_size, "gg_init: out of memory copying desc->fault_plan_json");
        gg__config_release(out);
        return GG_OUT_OF_MEMORY;
    }

    /* The environment, for what a user sets from outside the program. */
    const char *v;
    if ((v = gg__env(GG__ENV_BACKEND)) != NULL) {
        if (!parse_backend(v, &backend))
            BAD("GPUGUARD_BACKEND='%s' is not one of auto, cuda, hip, sim, sim-hip", v);
        copy_string(out->backend, sizeof out->backend, backend);
    }
    if ((v = gg__env(GG__ENV_CUDA_LIBRARY)) != NULL &&
        (v[0] == '\0' || !copy_string(out->cuda_library, sizeof out->cuda_library, v)))
        BAD("GPUGUARD_CUDA_LIBRARY must be a non-empty path shorter than %zu bytes", sizeof out->cuda_library);
    if ((v = gg__env(GG__ENV_HIP_LIBRARY)) != NULL &&
        (v[0] == '\0' || !copy_string(out->hip_library, sizeof out->hip_library, v)))
        BAD("GPUGUARD_HIP_LIBRARY must be a non-empty path shorter than %zu bytes", sizeof out->hip_library);
    if ((v = gg__env(GG__ENV_LOG)) != NULL && !parse_log_level(v, &out->log_level))
        BAD("GPUGUARD_LOG='%s' is not one of off, error, warn, info, debug", v);
    if ((v = gg__env(GG__ENV_WAIT_TIMEOUT_MS)) != NULL && !parse_u32(v, 1, 86400000u, &out->wait_timeout_ms))
        BAD("GPUGUARD_WAIT_TIMEOUT_MS='%s' is not a whole number of milliseconds from 1 to 86400000", v);
    if ((v = gg__env(GG__ENV_WATCHDOG)) != NULL &&
        !parse_watchdog(v, &out->watchdog, &out->watchdog_budget_ms))
        BAD("GPUGUARD_WATCHDOG='%s' is not auto, refuse or allow, optionally followed by :BUDGET_MS", v);
    if ((v = gg__env(GG__ENV_TIMEOUT_POLICY)) != NULL && !parse_timeout_policy(v, &out->timeout_policy))
        BAD("GPUGUARD_TIMEOUT_POLICY='%s' is not kill or return", v);
    if ((v = gg__env(GG__ENV_SYNC_LAUNCHES)) != NULL) {
        if (strcmp(v, "1") == 0)
            out->sync_launches = true;
        else if (strcmp(v, "0") == 0)
            out->sync_launches = false;
        else
            BAD("GPUGUARD_SYNC_LAUNCHES='%s' is not 0 or 1", v);
    }
    if ((v = gg__env(GG__ENV_TIMELINE)) != NULL && !parse_timeline(v, &out->timeline))
        BAD("GPUGUARD_TIMELINE='%s' is not one of auto, on, off", v);
    if ((v = gg__env(GG__ENV_TIMELINE_STRIDE)) != NULL &&
        !parse_u32(v, 1, GG_TIMELINE_STRIDE_MAX, &out->timeline_stride))
        BAD("GPUGUARD_TIMELINE_STRIDE='%s' is not a whole number from 1 to %u (mark every Nth launch)", v,
            GG_TIMELINE_STRIDE_MAX);
    if ((v = gg__env(GG__ENV_TIMELINE_BUDGET)) != NULL &&
        !parse_u32(v, 1, TIMELINE_BUDGET_MAX, &out->timeline_budget_percent))
        BAD("GPUGUARD_TIMELINE_BUDGET='%s' is not a whole number of percent from 1 to %u", v, TIMELINE_BUDGET_MAX);
    /* Checked once desc and environment are merged: either may set either. */
    if (out->timeline == GG_TIMELINE_OFF && out->timeline_stride != 0)
        BAD("a timeline stride of %u was set (GPUGUARD_TIMELINE_STRIDE or desc->timeline_stride) but the "
            "timeline is off (GPUGUARD_TIMELINE=off or desc->timeline): there is nothing to mark",
            out->timeline_stride);
    if ((v = gg__env(GG__ENV_STICKY_SCOPE)) != NULL && !parse_sticky_scope(v, &out->sticky_scope))
        BAD("GPUGUARD_STICKY_SCOPE='%s' is not one of auto, process, context", v);
    if ((v = gg__env(GG__ENV_LAUNCH_RECORDS)) != NULL &&
        (!parse_u32(v, 1, GG__LAUNCH_RECORDS_MAX, &out->launch_records) ||
         (out->launch_records & (out->launch_records - 1)) != 0))
        BAD("GPUGUARD_LAUNCH_RECORDS='%s' is not a power of two from 1 to %u (launch records kept per stream)", v,
            GG__LAUNCH_RECORDS_MAX);
    if ((v = gg__env(GG__ENV_FAULT_REPORT)) != NULL &&
        (v[0] == '\0' || !copy_string(out->fault_report_path, sizeof out->fault_report_path, v)))
        BAD("GPUGUARD_FAULT_REPORT must be a non-empty path shorter than %zu bytes", sizeof out->fault_report_path);
    char why[600];
    if (out->fault_report_path[0] != '\0' && !report_folder_usable(out->fault_report_path, why, sizeof why))
        BAD("GPUGUARD_FAULT_REPORT='%s' cannot be written: %s", out->fault_report_path, why);
    if ((v = gg__env(GG__ENV_FAIL_HOST_ALLOC)) != NULL && !gg__alloc_env_valid())
        BAD("GPUGUARD_FAIL_HOST_ALLOC='%s' is not a whole number >= 1 (plain digits)", v);
    if ((v = gg__env(GG__ENV_FAULTS)) != NULL) {
        gg__free(out->fault_plan_json);
        gg_status status;
        out->fault_plan_json = gg__fault_plan_text(v, "GPUGUARD_FAULTS", &status, message, message_size);
        if (out->fault_plan_json == NULL) {
            gg__config_release(out);
            return status;
        }
    }
    return GG_OK;
}

void gg__config_release(gg__config *config)
{
    gg__free(config->fault_plan_json);
    config->fault_plan_json = NULL;
}
