/* The HIP backend is not built yet (its own issue). Until then opening it
 * says so plainly, so "auto" falls through to a clear message. */
#include <stdio.h>

#include "common/backend.h"

gg__backend_open_result gg__hip_backend_open(const char *library, gg__backend *out)
{
    (void)out;
    gg__backend_open_result r = { .status = GG_NO_DRIVER };
    snprintf(r.message, sizeof r.message, "the HIP backend is not implemented in this build (asked for %s)",
             library ? library : "libamdhip64.so");
    return r;
}
