/* The library behind abi_probe.h (see there); what it computes does not
 * matter, only the ABI each variant exports. */
#include "abi_probe.h"

#include <stddef.h>

int abi_probe_area(const abi_probe_desc *desc)
{
    return desc == NULL ? 0 : (int)desc->width + (int)desc->height;
}

int abi_probe_handle_id(abi_probe_handle handle)
{
    return (int)handle.id;
}

int abi_probe_flags(const abi_probe_padded *padded)
{
    return padded == NULL ? 0 : (int)padded->flags;
}

int abi_probe_level(abi_probe_options options)
{
    return (int)options.level;
}

#ifdef ABI_PROBE_CHANGE_PARAM
int abi_probe_mode_value(abi_probe_mode mode, int scale)
{
    return (int)mode * scale;
}
#else
int abi_probe_mode_value(abi_probe_mode mode)
{
    return (int)mode;
}
#endif

#ifndef ABI_PROBE_REMOVE_SYMBOL
int abi_probe_legacy(void)
{
    return 1;
}
#endif

#ifdef ABI_PROBE_ADD_SYMBOL
int abi_probe_added(void)
{
    return 2;
}
#endif

#ifdef ABI_PROBE_EXPORT_INTERNAL
int abi_probe__internal(void)
{
    return 3;
}
#endif

/* Not exported (hidden by default): must not appear in any dump. */
int abi_probe_hidden_helper(void);
int abi_probe_hidden_helper(void)
{
    return 4;
}
