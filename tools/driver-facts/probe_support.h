/* What the driver-facts probes (sticky_probe.c, memory_probe.c,
 * limits_probe.c) share: printing each answer as "scenario | step |
 * answer", reading the kernels' PTX, waiting for a scenario's child. Each
 * probe is one translation unit that includes this header once, so the
 * functions are static; a probe sets g_scenario in each child. */
#ifndef GG_DRIVER_FACTS_PROBE_SUPPORT_H
#define GG_DRIVER_FACTS_PROBE_SUPPORT_H

#include <cuda.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

/* The scenario the answers printed belong to (set in each child). */
static const char *g_scenario;

/* The driver's name for r, or "(unnamed)". */
static const char *code_name(CUresult r)
{
    const char *name = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == NULL)
        return "(unnamed)";
    return name;
}

/* Prints one answer and returns it, so that a caller can stop on failure. */
static CUresult say(const char *step, CUresult r)
{
    printf("%s | %s | %d %s\n", g_scenario, step, (int)r, code_name(r));
    fflush(stdout);
    return r;
}

/* Prints a value the driver handed out (an address, a size, a count),
 * formatted by fmt (one conversion of an unsigned long long). */
__attribute__((unused)) static void value(const char *step, const char *fmt, unsigned long long v)
{
    printf("%s | %s | ", g_scenario, step);
    printf(fmt, v);
    printf("\n");
    fflush(stdout);
}

/* The whole file at path, NUL-terminated, or NULL (errno says why). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    size_t size = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (size + n + 1 > cap) {
            cap = (size + n + 1) * 2;
            char *grown = realloc(text, cap);
            if (grown == NULL) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = grown;
        }
        memcpy(text + size, chunk, n);
        size += n;
    }
    fclose(f);
    if (text)
        text[size] = '\0';
    return text;
}

/* Waits for a scenario's child (its alarm() bounds it): its wait status. */
static int wait_for_child(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

#endif
