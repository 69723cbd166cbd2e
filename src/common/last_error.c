/* gg_last_error: the thread's last failure, handed out through the growable
 * gg_error_info. In a file of its own, above both the call protocol (which
 * records the failure, call.c) and the struct rules (abi_struct.c, which
 * records its refusals through the call protocol), so that neither of
 * those two includes the other's header. */
#include "common/abi_struct.h"
#include "common/call.h"

gg_status gg_last_error(gg_error_info *info)
{
    /* A refusal here leaves the record as it was (no gg__fail). */
    if (info == NULL || GG__ABI_OUT_CHECK(NULL, info, gg_error_info, GG_ERROR_INFO_INIT) != GG_OK)
        return GG_INVALID_ARGUMENT;
    gg_error_info copy = *gg__last_error_slot();
    if (copy.native_name == NULL)
        copy.native_name = "";
    if (copy.gg_call == NULL)
        copy.gg_call = "";
    if (copy.driver_call == NULL)
        copy.driver_call = "";
    gg__abi_out(info, &copy, sizeof copy);
    return GG_OK;
}
