/* Names and messages of gg_status, generated from GG_STATUS_LIST. */
#include "gpuguard/gpuguard.h"

#include <stddef.h>

static const char *const status_names[] = {
#define GG__STATUS_NAME(name, num, msg) [num] = "GG_" #name,
    GG_STATUS_LIST(GG__STATUS_NAME)
#undef GG__STATUS_NAME
};

static const char *const status_messages[] = {
#define GG__STATUS_MSG(name, num, msg) [num] = msg,
    GG_STATUS_LIST(GG__STATUS_MSG)
#undef GG__STATUS_MSG
};

const char *gg_status_name(gg_status status)
{
    if ((unsigned)status >= sizeof status_names / sizeof status_names[0] || status_names[status] == NULL)
        return "GG_UNKNOWN_STATUS";
    return status_names[status];
}

const char *gg_status_string(gg_status status)
{
    if ((unsigned)status >= sizeof status_messages / sizeof status_messages[0] ||
        status_messages[status] == NULL)
        return "unknown status";
    return status_messages[status];
}
