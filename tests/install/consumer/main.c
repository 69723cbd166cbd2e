/* Initialises the installed gpuguard over its installed simulator and
 * lists the devices. */
#include <stdio.h>

#include <gpuguard/gpuguard.h>

int main(void)
{
    gg_init_desc desc = { .backend = "sim" };
    if (gg_init(&desc) != GG_OK) {
        gg_error_info e;
        gg_last_error(&e);
        fprintf(stderr, "consumer: %s\n", e.message);
        return 1;
    }
    int count = 0;
    gg_device_count(&count);
    printf("consumer: %d device(s)\n", count);
    gg_shutdown();
    return count == 2 ? 0 : 1;
}
