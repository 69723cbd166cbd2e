/*
 * The gpuguard command-line tool: one function per subcommand.
 *
 * main.c owns the dispatch table and the top-level usage; each subcommand
 * lives in its own cmd_NAME.c, parses its own options and returns the
 * process exit status (CLI_EXIT_*).
 */
#ifndef GPUGUARD_TOOLS_CLI_H
#define GPUGUARD_TOOLS_CLI_H

#include <stdio.h>

#include "gpuguard/gpuguard.h"

enum {
    CLI_EXIT_OK = 0,     /* the command did what was asked */
    CLI_EXIT_FAILED = 1, /* it ran, and the answer is "no" (no device, ...) */
    CLI_EXIT_USAGE = 2   /* the command line was wrong */
};

/* argv[0] is the subcommand's name; options follow. */
typedef int (*cli_command_fn)(int argc, char **argv);

typedef struct cli_command {
    const char *name;
    cli_command_fn run;
    const char *summary; /* one line for the top-level usage */
} cli_command;

int cmd_info(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* Prints the top-level usage (all subcommands) to `out`. */
void cli_usage(FILE *out);

/* Makes `backend` the one gg_init will use. Environment variables override
 * gg_init's descriptor, so a --backend flag has to go through the
 * environment to beat a GPUGUARD_BACKEND the user left set. */
int cli_select_backend(const char *backend);

/* A gg_log_fn that writes to stderr, so GPUGUARD_LOG=debug shows the
 * library's messages without mixing them into machine-readable stdout. */
void cli_log_to_stderr(void *user, gg_log_level level, uint64_t object_id,
                       const char *message);

#endif /* GPUGUARD_TOOLS_CLI_H */
