/* Compiled as C++11 and as C11 (tests/header/CMakeLists.txt): the public
 * headers are valid in both, and GG_NO_STREAM is a gg_stream with id 0
 * in both. Syntax only: nothing is linked or run. */
#include <gpuguard/gpuguard.h>
#include <gpuguard/gg_sim_control.h>
#include <gpuguard/sim_kernel.h>

GG_SIM_KERNEL_NO_PARAMS(header_probe);
GG_SIM_KERNEL(header_probe)
{
    (void)b;
}

int header_probe_uses(void);
int header_probe_uses(void)
{
    gg_stream none = GG_NO_STREAM;
    gg_launch_desc launch = { { 0 }, GG_NO_STREAM, { 1, 1, 1 }, { 1, 1, 1 }, 0, 0, 0 };
    gg_state state = GG_STATE_INVALID;
    gg_context_state_t old_name = state; /* the deprecated alias still builds */
    gg_wait_desc wait = { 50, GG_TIMEOUT_RETURNS, 0 };
    gg_event event = { 0 };
    (void)wait;
    return (int)(none.id + launch.stream.id) + (int)old_name + (gg_event_record(event, GG_NO_STREAM) == GG_OK);
}
