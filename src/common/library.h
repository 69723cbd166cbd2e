/*
 * gg_init / gg_shutdown's locks (library.c). The global state they write is
 * state.h's.
 */
#ifndef GPUGUARD_LIBRARY_H
#define GPUGUARD_LIBRARY_H

#include <stdbool.h>

#include "common/state.h"

/* Takes (true) or releases (false) gg_init / gg_shutdown's lock (fork
 * handlers: gg__global_locks). */
void gg__library_lock(bool take);

/* Takes (true) or releases (false) every global lock of the library, in one
 * fixed order; none of them is ever held while taking another. The fork
 * handlers' (gg_init hands it to gg__fork_watch). */
void gg__global_locks(bool take);

#endif /* GPUGUARD_LIBRARY_H */
