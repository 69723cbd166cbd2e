/* Leaves live objects in a dead context and returns from main: the exit
 * handler must release them without a driver call, a print or an abort. */
#include <stdio.h>
#include <stdlib.h>

#include "gpuguard/gpuguard.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (gg_init(NULL) != GG_OK)
        return 3;
    gg_context ctx;
    gg_module module;
    gg_kernel touch;
    gg_buffer buf;
    gg_stream stream;
    if (gg_context_create(1, NULL, &ctx) != GG_OK || gg_module_create_from_file(ctx, argv[1], NULL, &module) != GG_OK ||
        gg_kernel_create(module, "touch", &touch) != GG_OK || gg_buffer_create(ctx, 64, NULL, &buf) != GG_OK ||
        gg_stream_create(ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "left-behind" }, &stream) != GG_OK || gg_context_push(ctx) != GG_OK)
        return 4;
    uint64_t dptr = 0, bytes = 1u << 30;
    gg_buffer_device_ptr(buf, &dptr);
    void *params[] = { &dptr, &bytes };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = touch, .stream = stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
                         .params = params, .param_count = 2 };
    if (gg_launch(&d) != GG_OK)
        return 5;
    if (gg_stream_synchronize(stream, GG_WAIT_MS(5000)) != GG_ILLEGAL_ADDRESS)
        return 6;
    if (gg_context_state(ctx) != GG_STATE_DEAD)
        return 7;
    return 0; /* everything still alive, the context still pushed */
}
