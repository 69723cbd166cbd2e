/*
 * The gpuguard command-line tool: one function per subcommand.
 *
 * main.c owns the dispatch table and the top-level usage; each subcommand
 * lives in its own cmd_NAME.c, parses its own options and returns the
 * process exit status (CLI_EXIT_*).
 */
#ifndef GPUGUARD_TOOLS_CLI_H
#define GPUGUARD_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuguard/gpuguard.h"

enum {
    CLI_EXIT_OK = 0,     /* the command did what was asked */
    CLI_EXIT_FAILED = 1, /* it ran, and the answer is "no" (no device, ...) */
    CLI_EXIT_USAGE = 2,  /* the command line was wrong (or, for sweep, COMMAND cannot be executed) */
    CLI_EXIT_CANNOT_EXEC = 127 /* run: COMMAND cannot be executed (the shell's status for it) */
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

/* The values options take (cli_choices.c). Each *_list writes the valid
 * names, joined by ", ", into `out` and returns it, for the messages that
 * refuse a value. */
bool cli_backend_valid(const char *name);          /* --backend: auto, cuda, hip, sim, sim-hip */
const char *cli_backend_list(char *out, size_t size);
/* False, saying so prefixed by `who`, when GPUGUARD_BACKEND is set to a
 * value gg_init would refuse (the program's gg_init, or the interposer's
 * choice of driver, would otherwise go wrong after the tool started it). */
bool cli_backend_env_usable(const char *who);
bool cli_fault_error_valid(const char *name);      /* an "error" of a fault plan (the library's table) */
const char *cli_fault_error_list(char *out, size_t size);
bool cli_fault_op_valid(const char *name);         /* an "op" of a fault plan (the library's operations) */
const char *cli_fault_op_list(char *out, size_t size);

/* True when a file can be written at `path` (the tool writes it later,
 * after the runs): not a directory, in a folder that exists and is
 * writable; else false with "WHO: OPTION PATH: why" on stderr. */
bool cli_output_path_usable(const char *who, const char *option, const char *path);

/* A gg_log_fn that writes to stderr, so GPUGUARD_LOG=debug shows the
 * library's messages without mixing them into machine-readable stdout. */
void cli_log_to_stderr(void *user, gg_log_level level, uint64_t object_id,
                       const char *message);

#endif /* GPUGUARD_TOOLS_CLI_H */
