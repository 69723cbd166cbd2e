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
    gg_launch_desc launch = GG_LAUNCH_DESC_INIT; /* struct_size set in C++ too */
    launch.stream = GG_NO_STREAM;
    gg_state state = GG_STATE_INVALID;
    gg_wait_desc wait = GG_WAIT_DESC_INIT;
    wait.timeout_ms = 50;
    wait.on_timeout = GG_TIMEOUT_RETURNS;
    gg_event event = { 0 };
    (void)wait;
    return (int)(none.id + launch.stream.id) + (int)state + (int)(launch.struct_size != sizeof launch) + (int)(wait.struct_size != sizeof wait) + (gg_event_record(event, GG_NO_STREAM) == GG_OK);
}
