/*
 * The values the tool's options accept, and the lists its messages give
 * (see cli.h). The fault-plan names come from the library's own tables,
 * compiled in: the error names from src/base/fault_plan.c (the parser
 * every plan goes through), the operation names from src/common/backend.h
 * (GG__OP_LIST, the names the fault gate counts and reports), so that the
 * tool can never accept or list a name the library would not.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/backend.h"
#include "base/fault_plan.h"

/* gg_init_desc.backend's names (GPUGUARD_BACKEND's), as gpuguard.h lists
 * them; matched ignoring ASCII case, as gg_init matches them. */
static const char *const backends[] = { "auto", "cuda", "hip", "sim", "sim-hip" };

static const char *const ops[] = {
#define CLI_OP_NAME(name, str) str,
    GG__OP_LIST(CLI_OP_NAME)
#undef CLI_OP_NAME
};

static bool ascii_case_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

/* names[0..count) joined by ", " into out (cut if it does not fit). */
static const char *join(const char *const *names, size_t count, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count && used < size; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return out;
}

bool cli_backend_valid(const char *name)
{
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (ascii_case_equal(name, backends[i]))
            return true;
    return false;
}

const char *cli_backend_list(char *out, size_t size)
{
    return join(backends, sizeof backends / sizeof backends[0], out, size);
}

/* The error names of fault plans, in the order of gg_status. */
static size_t fault_errors(const char **names, size_t max)
{
    static const gg_status statuses[] = {
#define CLI_STATUS(name, num, msg) GG_##name,
        GG_STATUS_LIST(CLI_STATUS)
#undef CLI_STATUS
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0] && n < max; i++) {
        const char *name = gg__fault_error_name(statuses[i]);
        if (name != NULL)
            names[n++] = name;
    }
    return n;
}

bool cli_backend_env_usable(const char *who)
{
    const char *value = getenv("GPUGUARD_BACKEND");
    if (value == NULL || cli_backend_valid(value))
        return true;
    char names[64];
    fprintf(stderr, "%s: GPUGUARD_BACKEND='%s' is not one of %s\n", who, value, cli_backend_list(names, sizeof names));
    return false;
}

bool cli_fault_error_valid(const char *name)
{
    const char *names[GG__STATUS_COUNT];
    size_t n = fault_errors(names, GG__STATUS_COUNT);
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

const char *cli_fault_error_list(char *out, size_t size)
{
    const char *names[GG__STATUS_COUNT];
    return join(names, fault_errors(names, GG__STATUS_COUNT), out, size);
}

bool cli_fault_op_valid(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i]) == 0)
            return true;
    return false;
}

const char *cli_fault_op_list(char *out, size_t size)
{
    return join(ops, sizeof ops / sizeof ops[0], out, size);
}

bool cli_output_path_usable(const char *who, const char *option, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s %s: %s (give a file's path)\n", who, option, path, strerror(EISDIR));
        return false;
    }
    char folder[PATH_MAX];
    if (snprintf(folder, sizeof folder, "%s", path) >= (int)sizeof folder) {
        fprintf(stderr, "%s: %s: the path is too long: %s\n", who, option, path);
        return false;
    }
    const char *dir = dirname(folder);
    int error = 0;
    if (stat(dir, &st) != 0)
        error = errno;
    else if (!S_ISDIR(st.st_mode))
        error = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        error = errno;
    if (error != 0) {
        fprintf(stderr, "%s: %s %s: cannot write in its folder %s: %s\n", who, option, path, dir, strerror(error));
        return false;
    }
    return true;
}
