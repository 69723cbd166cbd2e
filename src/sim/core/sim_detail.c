/*
 * Per-thread detail of the latest failure: the reason behind a bare error
 * code (which config key, which kernel lacks a parameter declaration, what
 * dlopen said). Never printed; read with gg_sim_last_error_detail().
 */
#include "sim_core.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char t_detail[512];

void sim_detail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_detail, sizeof t_detail, fmt, ap);
    va_end(ap);
}

const char *sim_detail_get(void)
{
    return t_detail;
}
