/* An older program: compiled against a copy of gpuguard.h whose
 * gg_context_desc, gg_device_info, gg_error_info and gg_launch_desc lack
 * their last field (make_smaller_header.py), linked with the real library
 * and run over the simulator. It must work as a program built against the
 * header it has: inputs read as far as they go (the missing field takes
 * its default), outputs written up to its struct_size and not one byte
 * further (the canaries behind each struct). */
#include GG_ABI_SMALLER_HEADER /* the smaller copy (its full path, from CMake) */

#include <stdlib.h>
#include <string.h>

#include "abi_check.h"
#include "real_sizes.h"

#define CANARY 0xAB

static void the_copy_is_smaller(void)
{
    CHECK(sizeof(gg_context_desc) < abi_real_size_context_desc, "%zu vs %zu", sizeof(gg_context_desc),
          abi_real_size_context_desc);
    CHECK(sizeof(gg_device_info) < abi_real_size_device_info, "%zu vs %zu", sizeof(gg_device_info),
          abi_real_size_device_info);
    CHECK(sizeof(gg_error_info) < abi_real_size_error_info, "%zu vs %zu", sizeof(gg_error_info),
          abi_real_size_error_info);
    CHECK(sizeof(gg_launch_desc) < abi_real_size_launch_desc, "%zu vs %zu", sizeof(gg_launch_desc),
          abi_real_size_launch_desc);
}

static void device_properties_stop_at_the_older_size(void)
{
    struct {
        gg_device_info info;
        unsigned char canary[64];
    } box;
    memset(&box, CANARY, sizeof box);
    box.info.struct_size = sizeof box.info;
    CHECK(gg_device_properties(0, &box.info) == GG_OK, "%s", abi_last_message());
    CHECK(box.info.name[0] != '\0' && box.info.name[0] != (char)CANARY, "name not written");
    CHECK(box.info.max_block[0] > 0 && box.info.max_threads_per_block > 0, "limits not written");
    CHECK(box.info.struct_size == sizeof box.info, "struct_size changed to %u", box.info.struct_size);
    CHECK(abi_all_bytes(box.canary, sizeof box.canary, CANARY), "wrote past struct_size");
}

static void errors_stop_at_the_older_size(void)
{
    CHECK(gg_launch(NULL) == GG_INVALID_ARGUMENT, "gg_launch(NULL) accepted");
    struct {
        gg_error_info e;
        unsigned char canary[GG_MESSAGE_MAX + 64];
    } box;
    memset(&box, CANARY, sizeof box);
    box.e.struct_size = sizeof box.e;
    CHECK(gg_last_error(&box.e) == GG_OK, "gg_last_error refused an older gg_error_info");
    CHECK(box.e.status == GG_INVALID_ARGUMENT, "status %d", (int)box.e.status);
    CHECK(box.e.gg_call != NULL && strcmp(box.e.gg_call, "gg_launch") == 0, "gg_call");
    CHECK(abi_all_bytes(box.canary, sizeof box.canary, CANARY), "wrote the message the older header lacks");
}

static gg_kernel load_noop(gg_context ctx, gg_module *module)
{
    gg_kernel k = { 0 };
    CHECK(gg_module_create_from_file(ctx, GG_ABI_KERNEL_DIR "/core_kernels.so", NULL, module) == GG_OK, "%s",
          abi_last_message());
    CHECK(gg_kernel_create(*module, "noop", &k) == GG_OK, "%s", abi_last_message());
    return k;
}

static void contexts_and_launches_take_defaults_for_the_missing_fields(void)
{
    gg_context_desc cd = GG_CONTEXT_DESC_INIT;
    cd.tag = "older-program";
    gg_context ctx = { 0 };
    CHECK(gg_context_create(0, &cd, &ctx) == GG_OK, "%s", abi_last_message());
    char *json = NULL;
    CHECK(gg_objects_json(&json) == GG_OK && json != NULL && strstr(json, "older-program") != NULL,
          "the tag of the older desc was not read");
    gg_free(json);

    gg_module module = { 0 };
    gg_kernel k = load_noop(ctx, &module);
    /* No param_count in this header: the library reads 0, what a launch of
     * a kernel without parameters has. */
    gg_launch_desc ld = GG_LAUNCH_DESC_INIT;
    ld.kernel = k;
    ld.grid = (gg_dim3){ 2, 1, 1 };
    ld.block = (gg_dim3){ 32, 1, 1 };
    CHECK(gg_launch(&ld) == GG_OK, "%s", abi_last_message());
    CHECK(gg_context_synchronize(ctx, NULL) == GG_OK, "%s", abi_last_message());

    struct {
        gg_error_info e;
        unsigned char canary[GG_MESSAGE_MAX + 64];
    } death;
    memset(&death, CANARY, sizeof death);
    death.e.struct_size = sizeof death.e;
    CHECK(gg_context_death(ctx, &death.e) == GG_OK, "%s", abi_last_message());
    CHECK(death.e.status == GG_OK, "an alive context has a death: %d", (int)death.e.status);
    CHECK(abi_all_bytes(death.canary, sizeof death.canary, CANARY), "gg_context_death wrote past struct_size");

    CHECK(gg_kernel_destroy(k) == GG_OK, "%s", abi_last_message());
    CHECK(gg_module_destroy(module) == GG_OK, "%s", abi_last_message());
    CHECK(gg_context_destroy(ctx) == GG_OK, "%s", abi_last_message());
}

int main(void)
{
    gg_init_desc init = GG_INIT_DESC_INIT;
    init.backend = "sim";
    if (gg_init(&init) != GG_OK) {
        fprintf(stderr, "FAIL: gg_init: %s\n", abi_last_message());
        return 1;
    }
    the_copy_is_smaller();
    device_properties_stop_at_the_older_size();
    errors_stop_at_the_older_size();
    contexts_and_launches_take_defaults_for_the_missing_fields();
    gg_shutdown();
    if (abi_failures == 0)
        printf("abi_older: every check passed\n");
    return abi_failures;
}
