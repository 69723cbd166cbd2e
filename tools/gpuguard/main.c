/*
 * gpuguard: command-line tool over libgpuguard.
 *
 *   gpuguard info [--json] [--backend NAME]
 *   gpuguard sweep [options] -- COMMAND [ARGS...]
 *   gpuguard run [options] -- COMMAND [ARGS...]
 *
 * main() only dispatches: each subcommand is a cli_command in the table
 * below, implemented in its own cmd_NAME.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cli.h"

static const cli_command commands[] = {
    {"info", cmd_info, "show the backend, driver version and devices"},
    {"sweep", cmd_sweep, "fail each driver call of a program in turn and classify the runs"},
    {"run", cmd_run, "run a program that does not use gpuguard over the interposer, with a fault plan"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

void cli_usage(FILE *out)
{
    fprintf(out,
            "usage: gpuguard [--help | --version] <command> [options]\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    char backends[64];
    fprintf(out,
            "\n"
            "Run 'gpuguard <command> --help' for a command's options.\n"
            "The backend comes from --backend or GPUGUARD_BACKEND\n"
            "(%s); auto tries CUDA then HIP.\n"
            "Exit status 2: bad usage (the message names the option).\n",
            cli_backend_list(backends, sizeof backends));
}

int cli_select_backend(const char *backend)
{
    if (setenv("GPUGUARD_BACKEND", backend, 1) != 0) {
        perror("gpuguard: setenv");
        return -1;
    }
    return 0;
}

void cli_log_to_stderr(void *user, gg_log_level level, uint64_t object_id,
                       const char *message)
{
    static const char *const names[] = {"off", "error", "warn", "info", "debug"};
    const char *name = (unsigned)level <= GG_LOG_DEBUG ? names[level] : "log";
    (void)user;
    if (object_id != 0)
        fprintf(stderr, "gpuguard: %s: [0x%016llx] %s\n", name,
                (unsigned long long)object_id, message);
    else
        fprintf(stderr, "gpuguard: %s: %s\n", name, message);
}

int main(int argc, char **argv)
{
    /* The tool's own copy of the base allocates plainly: GPUGUARD_FAIL_HOST_ALLOC
     * is the countdown of the libgpuguard in the programs it runs, and an
     * option check must never fail on it (src/base/alloc.h). */
    gg__alloc_serve_others();
    if (argc < 2) {
        cli_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
        strcmp(name, "help") == 0) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("gpuguard %d.%d.%d\n", GG_VERSION_MAJOR, GG_VERSION_MINOR,
               GG_VERSION_PATCH);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "gpuguard: unknown command '%s'\n\n", name);
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
}
