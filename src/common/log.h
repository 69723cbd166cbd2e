/* Logging: silent unless a callback or GPUGUARD_LOG asks for it. */
#ifndef GPUGUARD_LOG_H
#define GPUGUARD_LOG_H

#include <stdint.h>

#include "gpuguard/gpuguard.h"

#if defined(__GNUC__)
#define GG__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GG__PRINTF(a, b)
#endif

void gg__log(gg_log_level level, uint64_t object_id, const char *fmt, ...) GG__PRINTF(3, 4);
/* True when a message at `level` would be delivered (skip formatting otherwise). */
int gg__log_enabled(gg_log_level level);

#endif
