/* The library's configuration: defaults, environment, gg_init's desc
 * (config.c; the gg__config record itself is state.h's). */
#ifndef GPUGUARD_CONFIG_H
#define GPUGUARD_CONFIG_H

#include "common/state.h"

/* Resolves defaults and environment into *out; on an invalid value returns
 * GG_INVALID_ARGUMENT with `message` naming the variable. */
gg_status gg__config_resolve(const gg_init_desc *desc, gg__config *out, char *message,
                             size_t message_size);
/* Frees what gg__config_resolve allocated in *config. */
void gg__config_release(gg__config *config);

#endif /* GPUGUARD_CONFIG_H */
