/* A newer program, and the bounds of struct_size: compiled against the
 * real gpuguard.h, it hands the library structs LARGER than the library's
 * (as a program built against a later header would), and sizes at each
 * bound: 0 and 3 (refused), 4 (struct_size alone: all defaults), sizeof
 * (the common case), sizeof + 1 with the extra byte zero (accepted) and
 * nonzero (GG_UNSUPPORTED naming that byte). Also the version calls
 * against the header's macros, and the soname the program loaded. */
#include <gpuguard/gpuguard.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "abi_check.h"

#define CANARY 0xAB

/* gg_context_desc followed by bytes a later header would have fields in. */
typedef struct {
    gg_context_desc d;
    unsigned char later[16];
} newer_context_desc;

static gg_status create_with(const void *desc, gg_context *ctx)
{
    *ctx = (gg_context){ 0 };
    gg_status s = gg_context_create(0, desc, ctx);
    if (s == GG_OK)
        gg_context_destroy(*ctx);
    return s;
}

static int message_names_byte(size_t offset)
{
    char needle[64];
    snprintf(needle, sizeof needle, "byte %zu is not zero", offset);
    return strstr(abi_last_message(), needle) != NULL;
}

static void version_calls_match_the_header(void)
{
    CHECK(gg_version() == GG_VERSION_NUMBER(GG_VERSION_MAJOR, GG_VERSION_MINOR, GG_VERSION_PATCH), "0x%06x",
          (unsigned)gg_version());
    CHECK(strcmp(gg_version_string(), GG_VERSION_STRING) == 0, "%s vs %s", gg_version_string(), GG_VERSION_STRING);
    char built[32];
    snprintf(built, sizeof built, "%d.%d.%d", GG_VERSION_MAJOR, GG_VERSION_MINOR, GG_VERSION_PATCH);
    CHECK(strcmp(built, GG_VERSION_STRING) == 0, "GG_VERSION_STRING %s, macros %s", GG_VERSION_STRING, built);
    CHECK(gg_version() >> 16 == GG_VERSION_MAJOR && ((gg_version() >> 8) & 0xff) == GG_VERSION_MINOR &&
              (gg_version() & 0xff) == GG_VERSION_PATCH,
          "fields of 0x%06x", (unsigned)gg_version());
    /* The library this program loaded is named by its soname: while the
     * major is 0, libgpuguard.so.MAJOR.MINOR. */
    Dl_info where;
    CHECK(dladdr((void *)gg_version, &where) != 0 && where.dli_fname != NULL, "dladdr");
    if (GG_VERSION_MAJOR == 0 && where.dli_fname != NULL) {
        char soname[64];
        snprintf(soname, sizeof soname, "libgpuguard.so.%d.%d", GG_VERSION_MAJOR, GG_VERSION_MINOR);
        const char *base = strrchr(where.dli_fname, '/');
        base = base ? base + 1 : where.dli_fname;
        CHECK(strcmp(base, soname) == 0, "loaded %s, expected the soname %s", where.dli_fname, soname);
    }
}

static void input_sizes_at_each_bound(void)
{
    gg_context ctx;
    newer_context_desc n;
    memset(&n, 0, sizeof n);
    n.d.tag = "newer";

    n.d.struct_size = 0;
    CHECK(create_with(&n, &ctx) == GG_INVALID_ARGUMENT, "struct_size 0 accepted");
    CHECK(strstr(abi_last_message(), "GG_CONTEXT_DESC_INIT") != NULL, "%s", abi_last_message());
    n.d.struct_size = 3;
    CHECK(create_with(&n, &ctx) == GG_INVALID_ARGUMENT, "struct_size 3 accepted");
    n.d.struct_size = 4; /* struct_size alone: an all-default desc */
    CHECK(create_with(&n, &ctx) == GG_OK, "struct_size 4: %s", abi_last_message());
    n.d.struct_size = sizeof n.d;
    CHECK(create_with(&n, &ctx) == GG_OK, "sizeof: %s", abi_last_message());

    /* sizeof + 1 */
    n.d.struct_size = sizeof n.d + 1;
    CHECK(create_with(&n, &ctx) == GG_OK, "sizeof+1 with a zero byte: %s", abi_last_message());
    n.later[0] = 1;
    CHECK(create_with(&n, &ctx) == GG_UNSUPPORTED, "sizeof+1 with a nonzero byte accepted");
    CHECK(message_names_byte(sizeof n.d), "%s", abi_last_message());
    CHECK(strstr(abi_last_message(), "gg_context_desc") != NULL, "%s", abi_last_message());

    /* A newer program that uses a later field: refused, naming the first
     * nonzero byte; the same struct with that field zero is accepted. */
    n.later[0] = 0;
    n.d.struct_size = sizeof n;
    CHECK(create_with(&n, &ctx) == GG_OK, "larger, all zero: %s", abi_last_message());
    n.later[9] = 0x40;
    n.later[12] = 1;
    CHECK(create_with(&n, &ctx) == GG_UNSUPPORTED, "larger with a nonzero field accepted");
    CHECK(message_names_byte(sizeof n.d + 9), "%s", abi_last_message());

    /* NULL still means all defaults. */
    CHECK(create_with(NULL, &ctx) == GG_OK, "NULL desc: %s", abi_last_message());
}

static void other_inputs_follow_the_same_rule(gg_context ctx)
{
    struct {
        gg_wait_desc w;
        unsigned char later[8];
    } wait;
    memset(&wait, 0, sizeof wait);
    wait.w.struct_size = sizeof wait.w + 1;
    CHECK(gg_context_synchronize(ctx, &wait.w) == GG_OK, "wait sizeof+1 zero: %s", abi_last_message());
    wait.later[0] = 7;
    CHECK(gg_context_synchronize(ctx, &wait.w) == GG_UNSUPPORTED, "wait sizeof+1 nonzero accepted");
    CHECK(message_names_byte(sizeof wait.w), "%s", abi_last_message());
    CHECK(gg_context_synchronize(ctx, GG_WAIT_MS(1000)) == GG_OK, "GG_WAIT_MS: %s", abi_last_message());

    /* gg_launch reads its desc without a copy when the size is the
     * library's; any other size takes the checked path. */
    struct {
        gg_launch_desc d;
        unsigned char later[8];
    } launch;
    memset(&launch, 0, sizeof launch);
    launch.d.struct_size = sizeof launch.d + 1;
    launch.later[0] = 1;
    CHECK(gg_launch(&launch.d) == GG_UNSUPPORTED, "launch sizeof+1 nonzero accepted");
    CHECK(message_names_byte(sizeof launch.d), "%s", abi_last_message());
    launch.d.struct_size = 0;
    CHECK(gg_launch(&launch.d) == GG_INVALID_ARGUMENT, "launch struct_size 0 accepted");
    CHECK(strstr(abi_last_message(), "GG_LAUNCH_DESC_INIT") != NULL, "%s", abi_last_message());

    gg_stream s;
    CHECK(gg_stream_create(ctx, &(gg_stream_desc){ .flags = 0 }, &s) == GG_INVALID_ARGUMENT,
          "a stream desc without GG_STREAM_DESC_INIT accepted");
    CHECK(strstr(abi_last_message(), "GG_STREAM_DESC_INIT") != NULL, "%s", abi_last_message());
}

static void output_sizes_at_each_bound(void)
{
    struct {
        gg_device_info info;
        unsigned char later[16];
    } box;
    memset(&box, CANARY, sizeof box);
    box.info.struct_size = 0;
    CHECK(gg_device_properties(0, &box.info) == GG_INVALID_ARGUMENT, "output struct_size 0 accepted");
    CHECK(strstr(abi_last_message(), "GG_DEVICE_INFO_INIT") != NULL, "%s", abi_last_message());
    CHECK(abi_all_bytes((unsigned char *)&box + sizeof box.info.struct_size,
                        sizeof box - sizeof box.info.struct_size, CANARY),
          "a refused output struct was written");

    /* A newer program's larger info: the library's fields, then zeros up
     * to struct_size (fields this library does not have), then nothing. */
    memset(&box, CANARY, sizeof box);
    box.info.struct_size = sizeof box.info + 8;
    CHECK(gg_device_properties(0, &box.info) == GG_OK, "%s", abi_last_message());
    CHECK(box.info.max_grid[0] > 0, "fields not written");
    CHECK(abi_all_bytes(box.later, 8, 0), "the bytes past the library's struct were not zeroed");
    CHECK(abi_all_bytes(box.later + 8, 8, CANARY), "wrote past struct_size");
    CHECK(box.info.struct_size == sizeof box.info + 8, "struct_size changed to %u", box.info.struct_size);

    /* gg_last_error with struct_size 0 refuses and leaves the record: the
     * failure above is still the thread's last. */
    gg_error_info e;
    memset(&e, 0, sizeof e);
    CHECK(gg_last_error(&e) == GG_INVALID_ARGUMENT, "gg_last_error took struct_size 0");
    CHECK(strstr(abi_last_message(), "GG_DEVICE_INFO_INIT") != NULL, "the record changed: %s", abi_last_message());

    gg_init_desc cfg;
    memset(&cfg, 0, sizeof cfg);
    CHECK(gg_config(&cfg) == GG_INVALID_ARGUMENT, "gg_config took struct_size 0");
    cfg.struct_size = sizeof cfg;
    CHECK(gg_config(&cfg) == GG_OK && cfg.wait_timeout_ms > 0, "gg_config: %s", abi_last_message());
}

int main(void)
{
    version_calls_match_the_header();
    gg_init_desc bad = { .struct_size = 2, .backend = "sim" };
    CHECK(gg_init(&bad) == GG_INVALID_ARGUMENT, "gg_init took struct_size 2");
    gg_init_desc init = GG_INIT_DESC_INIT;
    init.backend = "sim";
    if (gg_init(&init) != GG_OK) {
        fprintf(stderr, "FAIL: gg_init: %s\n", abi_last_message());
        return 1;
    }
    input_sizes_at_each_bound();
    gg_context ctx = { 0 };
    CHECK(gg_context_create(0, NULL, &ctx) == GG_OK, "%s", abi_last_message());
    other_inputs_follow_the_same_rule(ctx);
    gg_context_destroy(ctx);
    output_sizes_at_each_bound();
    gg_shutdown();
    if (abi_failures == 0)
        printf("abi_newer: every check passed\n");
    return abi_failures;
}
