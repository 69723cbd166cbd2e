/*
 * The functions whose calls the interposer counts, by one index: the
 * wrapped ones first, then the pass-through ones (see intercept.h).
 */
#include "intercept.h"
#include "intercept_passthrough.h"

const char *gg_icpt_tracked_name(int index)
{
    return index < GG_ICPT_COUNT ? gg_icpt_names[index] : gg_icpt_pass_rows[index - GG_ICPT_COUNT].name;
}

gg_icpt_face gg_icpt_tracked_face(int index)
{
    if (index < GG_ICPT_COUNT)
        return gg_icpt_face_of((gg_icpt_function)index);
    return (gg_icpt_face)gg_icpt_pass_rows[index - GG_ICPT_COUNT].face;
}

bool gg_icpt_tracked_failable(int index)
{
    /* Every wrapped function returns a CUresult / hipError_t (the
     * simulator's prototypes; test_sim_abi checks them against the real
     * headers). */
    return index < GG_ICPT_COUNT || gg_icpt_pass_rows[index - GG_ICPT_COUNT].result == GG_ICPT_PASS_ERROR;
}

#if !defined(__x86_64__)
/* No trampolines here (CMakeLists.txt): nothing to hand out instead. */
void *gg_icpt_pass_entry_for(void *driver_pointer)
{
    (void)driver_pointer;
    return NULL;
}
#endif
