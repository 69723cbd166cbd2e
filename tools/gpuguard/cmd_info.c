/*
 * gpuguard info [--json] [--verbose] [--backend NAME]
 *
 * Initialises the library and describes what it found: backend, driver
 * version, and every device. Exit 0 when at least one device is usable,
 * 1 (with the library's own account of what it tried) when none is.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "base/json_syntax.h"

typedef struct info_options {
    bool json;
    bool verbose; /* also list the driver entry points and their variants */
    const char *backend; /* NULL: GPUGUARD_BACKEND, else auto */
} info_options;

/* Everything the report shows, gathered before anything is printed so that
 * a failure half-way never leaves half a JSON document on stdout. */
typedef struct info_report {
    const char *backend;
    int driver_version;
    int device_count;
    gg_device_info *devices;
} info_report;

static void info_usage(FILE *out)
{
    fprintf(out,
            "usage: gpuguard info [--json] [--verbose] [--backend NAME]\n"
            "\n"
            "Shows the backend in use, the driver version and each device.\n"
            "\n"
            "  --json          print one JSON object instead of text\n"
            "  -v, --verbose   also list each driver entry point gpuguard calls,\n"
            "                  the variant (ABI) it calls it through and how it\n"
            "                  was resolved\n"
            "  --backend NAME  auto, cuda, hip, sim or sim-hip (overrides\n"
            "                  GPUGUARD_BACKEND; default auto: CUDA, then HIP);\n"
            "                  also --backend=NAME\n"
            "  -h, --help      show this help\n"
            "\n"
            "Exit status: 0 a device is usable, 1 none is, 2 bad usage: an unknown\n"
            "option, a value not among those listed (the message names the option\n"
            "and lists them), or a GPUGUARD_* variable gg_init refuses (named).\n");
}

/* Returns -1 to go on, else the exit status to return at once. */
static int parse_options(int argc, char **argv, info_options *opt)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--json") == 0) {
            opt->json = true;
        } else if (strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) {
            opt->verbose = true;
        } else if (strcmp(arg, "--backend") == 0 || strncmp(arg, "--backend=", 10) == 0) {
            char names[64];
            if (arg[9] == '\0' && i + 1 >= argc) {
                fprintf(stderr, "gpuguard info: --backend needs a name (%s)\n\n",
                        cli_backend_list(names, sizeof names));
                info_usage(stderr);
                return CLI_EXIT_USAGE;
            }
            opt->backend = arg[9] == '=' ? arg + 10 : argv[++i];
            /* Checked here, so that the message names the option given
             * (gg_init would name GPUGUARD_BACKEND, through which it goes). */
            if (!cli_backend_valid(opt->backend)) {
                fprintf(stderr, "gpuguard info: --backend '%s' is not one of %s\n", opt->backend,
                        cli_backend_list(names, sizeof names));
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            info_usage(stdout);
            return CLI_EXIT_OK;
        } else {
            fprintf(stderr, "gpuguard info: unknown option '%s'\n\n", arg);
            info_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    return -1;
}

/* Reports `status` (from the gg call that just failed) and returns 1; 2
 * for GG_INVALID_ARGUMENT from gg_init (a GPUGUARD_* variable it refused,
 * which the message names). */
static int report_failure(const info_options *opt, gg_status status, bool at_init)
{
    bool usage = at_init && status == GG_INVALID_ARGUMENT;
    gg_error_info err = GG_ERROR_INFO_INIT;
    gg_last_error(&err);
    /* The record belongs to the last failure on this thread, which is the
     * call we are reporting; fall back to the generic text if it is empty. */
    const char *message = err.message[0] ? err.message : gg_status_string(status);

    if (opt->json) {
        cJSON *root = cJSON_CreateObject();
        cJSON *error = cJSON_AddObjectToObject(root, "error");
        cJSON_AddStringToObject(error, "status", gg_status_name(status));
        cJSON_AddStringToObject(error, "message", message);
        if (err.gg_call && err.gg_call[0])
            cJSON_AddStringToObject(error, "call", err.gg_call);
        if (err.native_code != 0) {
            cJSON_AddNumberToObject(error, "native_code", err.native_code);
            if (err.native_name && err.native_name[0])
                cJSON_AddStringToObject(error, "native_name", err.native_name);
        }
        char *text = gg__json_valid_utf8(cJSON_Print(root)); /* bytes not UTF-8 become U+FFFD */
        if (text)
            puts(text);
        cJSON_free(text);
        cJSON_Delete(root);
    } else if (usage) {
        fprintf(stderr, "gpuguard info: %s\n", message);
    } else {
        fprintf(stderr, "gpuguard info: no usable GPU (%s): %s\n",
                gg_status_name(status), message);
        if (status == GG_NO_DRIVER || status == GG_NO_DEVICE)
            fprintf(stderr, "gpuguard info: to use the simulated driver, "
                            "pass --backend sim or set GPUGUARD_BACKEND=sim\n");
    }
    return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
}

/* Fills *rep (after a successful gg_init). Returns the first failure. */
static gg_status gather(info_report *rep)
{
    gg_status s;
    rep->backend = gg_backend_name();
    if ((s = gg_driver_version(&rep->driver_version)) != GG_OK)
        return s;
    if ((s = gg_device_count(&rep->device_count)) != GG_OK)
        return s;
    if (rep->device_count <= 0)
        return GG_NO_DEVICE;
    rep->devices = calloc((size_t)rep->device_count, sizeof *rep->devices);
    if (!rep->devices)
        return GG_OUT_OF_MEMORY;
    for (int i = 0; i < rep->device_count; i++) {
        rep->devices[i] = (gg_device_info)GG_DEVICE_INFO_INIT;
        if ((s = gg_device_properties(i, &rep->devices[i])) != GG_OK)
            return s;
    }
    return GG_OK;
}

/* CUDA encodes 1000*major + 10*minor; HIP 10000000*major + 100000*minor + patch. */
static void print_driver_version(const char *backend, int v)
{
    if (strcmp(backend, "cuda") == 0)
        printf("driver version: %d (%d.%d)\n", v, v / 1000, (v % 1000) / 10);
    else if (strcmp(backend, "hip") == 0)
        printf("driver version: %d (%d.%d.%d)\n", v, v / 10000000,
               (v / 100000) % 100, v % 100000);
    else
        printf("driver version: %d\n", v);
}

/* "cuCtxCreate -> cuCtxCreate_v3 (11040, cuGetProcAddress_v2)", one a line. */
static void print_entry_points(void)
{
    gg_entry_point_info e = GG_ENTRY_POINT_INFO_INIT;
    if (gg_driver_entry_point(0, &e) != GG_OK) {
        printf("entry points:   not reported by this backend\n");
        return;
    }
    printf("entry points:\n");
    for (size_t i = 0; gg_driver_entry_point(i, &e) == GG_OK; i++) {
        if (e.variant == NULL) {
            printf("  %-28s (none: %s entry point missing from this driver)\n", e.name,
                   e.required ? "required" : "optional");
            continue;
        }
        printf("  %-28s -> %s", e.name, e.variant);
        if (e.abi_version != 0)
            printf(" (ABI %d", e.abi_version);
        else
            printf(" (");
        printf("%s%s)\n", e.abi_version != 0 ? ", " : "", e.resolved_by);
    }
}

static void print_text(const info_report *rep, bool verbose)
{
    printf("backend:        %s\n", rep->backend);
    print_driver_version(rep->backend, rep->driver_version);
    if (verbose)
        print_entry_points();
    printf("devices:        %d\n", rep->device_count);
    for (int i = 0; i < rep->device_count; i++) {
        const gg_device_info *d = &rep->devices[i];
        printf("\ndevice %d: %s\n", i, d->name);
        printf("  simulated:             %s\n", d->simulated ? "yes" : "no");
        printf("  watchdog:              %s\n", d->watchdog ? "yes" : "no");
        printf("  total memory:          %llu bytes (%.1f GiB)\n",
               (unsigned long long)d->total_memory,
               (double)d->total_memory / (1024.0 * 1024.0 * 1024.0));
        printf("  multiprocessors:       %d\n", d->multiprocessors);
        printf("  max threads per block: %d\n", d->max_threads_per_block);
        printf("  max block:             %d x %d x %d\n", d->max_block[0],
               d->max_block[1], d->max_block[2]);
        printf("  max grid:              %d x %d x %d\n", d->max_grid[0],
               d->max_grid[1], d->max_grid[2]);
    }
}

static cJSON *dims_json(const int dims[3])
{
    return cJSON_CreateIntArray(dims, 3);
}

static cJSON *entry_points_json(void)
{
    cJSON *list = cJSON_CreateArray();
    gg_entry_point_info e = GG_ENTRY_POINT_INFO_INIT;
    for (size_t i = 0; list != NULL && gg_driver_entry_point(i, &e) == GG_OK; i++) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", e.name);
        if (e.variant != NULL)
            cJSON_AddStringToObject(item, "variant", e.variant);
        else
            cJSON_AddNullToObject(item, "variant");
        cJSON_AddNumberToObject(item, "abi_version", e.abi_version);
        cJSON_AddStringToObject(item, "resolved_by", e.resolved_by ? e.resolved_by : "");
        cJSON_AddBoolToObject(item, "required", e.required);
        cJSON_AddItemToArray(list, item);
    }
    return list;
}

static int print_json(const info_report *rep, bool verbose)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "backend", rep->backend);
    cJSON_AddNumberToObject(root, "driver_version", rep->driver_version);
    if (verbose)
        cJSON_AddItemToObject(root, "entry_points", entry_points_json());
    cJSON *devices = cJSON_AddArrayToObject(root, "devices");
    for (int i = 0; i < rep->device_count; i++) {
        const gg_device_info *d = &rep->devices[i];
        cJSON *dev = cJSON_CreateObject();
        cJSON_AddNumberToObject(dev, "index", i);
        cJSON_AddStringToObject(dev, "name", d->name);
        cJSON_AddStringToObject(dev, "backend", d->backend ? d->backend : rep->backend);
        /* A double holds integers exactly up to 2^53 bytes: plenty. */
        cJSON_AddNumberToObject(dev, "total_memory", (double)d->total_memory);
        cJSON_AddBoolToObject(dev, "watchdog", d->watchdog);
        cJSON_AddBoolToObject(dev, "simulated", d->simulated);
        cJSON_AddNumberToObject(dev, "multiprocessors", d->multiprocessors);
        cJSON_AddNumberToObject(dev, "max_threads_per_block", d->max_threads_per_block);
        cJSON_AddItemToObject(dev, "max_block", dims_json(d->max_block));
        cJSON_AddItemToObject(dev, "max_grid", dims_json(d->max_grid));
        cJSON_AddItemToArray(devices, dev);
    }
    char *text = gg__json_valid_utf8(cJSON_Print(root)); /* bytes not UTF-8 become U+FFFD */
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "gpuguard info: out of memory printing JSON\n");
        return CLI_EXIT_FAILED;
    }
    puts(text);
    cJSON_free(text);
    return CLI_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    info_options opt = {0};
    int rc = parse_options(argc, argv, &opt);
    if (rc >= 0)
        return rc;
    if (opt.backend && cli_select_backend(opt.backend) != 0)
        return CLI_EXIT_FAILED;

    gg_init_desc desc = GG_INIT_DESC_INIT;
    desc.log_fn = cli_log_to_stderr;
    gg_status s = gg_init(&desc);
    if (s != GG_OK)
        return report_failure(&opt, s, true);

    info_report rep = {0};
    s = gather(&rep);
    if (s != GG_OK)
        rc = report_failure(&opt, s, false);
    else if (opt.json)
        rc = print_json(&rep, opt.verbose);
    else {
        print_text(&rep, opt.verbose);
        rc = CLI_EXIT_OK;
    }
    free(rep.devices);
    gg_shutdown();
    return rc;
}
