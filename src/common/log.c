#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>

#include "common/state.h"

static const char *level_name(gg_log_level level)
{
    switch (level) {
    case GG_LOG_ERROR: return "error";
    case GG_LOG_WARN: return "warn";
    case GG_LOG_INFO: return "info";
    case GG_LOG_DEBUG: return "debug";
    default: return "off";
    }
}

int gg__log_enabled(gg_log_level level)
{
    return level != GG_LOG_OFF && level <= gg__lib.config.log_level;
}

void gg__log(gg_log_level level, uint64_t object_id, const char *fmt, ...)
{
    if (!gg__log_enabled(level))
        return;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (gg__lib.config.log_fn != NULL) {
        gg__lib.config.log_fn(gg__lib.config.log_user, level, object_id, message);
    } else {
        /* Only reached when GPUGUARD_LOG asked for messages with no callback:
         * stderr is then what the user asked for. */
        fprintf(stderr, "gpuguard %s: %s\n", level_name(level), message);
    }
}
