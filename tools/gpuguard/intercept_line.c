/* Choosing the interposer's variant from the driver's exports (see intercept_line.h). */
#include "intercept_line.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intercept_lines.h" /* generated from src/intercept/exports/cuda-lines.txt */

enum { LINE_FUNCTIONS = sizeof gg_icpt_line_functions / sizeof gg_icpt_line_functions[0],
       LINE_VARIANTS = sizeof gg_icpt_line_variants / sizeof gg_icpt_line_variants[0] };

/* The name a variant goes by in messages and in the override. */
static const char *variant_name(size_t v)
{
    return gg_icpt_line_variants[v].dir[0] ? gg_icpt_line_variants[v].dir : "full";
}

static int variant_named(const char *name)
{
    for (size_t v = 0; v < LINE_VARIANTS; v++)
        if (strcmp(name, variant_name(v)) == 0)
            return (int)v;
    return -1;
}

/* The newest variant whose every function the driver exports; `why` says
 * which function kept the next one out. Loads the driver (RTLD_LOCAL). */
static int variant_for_driver(const char *who, const char *driver, char *why, size_t why_size)
{
    void *lib = dlopen(driver, RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL) {
        const char *reason = dlerror();
        fprintf(stderr, "%s: the driver %s cannot be loaded: %s\n", who, driver, reason ? reason : "unknown reason");
        return -1;
    }
    bool exported[LINE_FUNCTIONS];
    for (size_t f = 0; f < LINE_FUNCTIONS; f++)
        exported[f] = dlsym(lib, gg_icpt_line_functions[f].name) != NULL;
    dlclose(lib);
    size_t chosen = 0;
    snprintf(why, why_size, "the driver exports all of the line functions");
    for (size_t v = 1; v < LINE_VARIANTS; v++) {
        const char *missing = NULL;
        for (size_t f = 0; f < LINE_FUNCTIONS && missing == NULL; f++)
            if (gg_icpt_line_functions[f].version <= gg_icpt_line_variants[v].version && !exported[f])
                missing = gg_icpt_line_functions[f].name;
        if (missing != NULL) {
            snprintf(why, why_size, "the driver does not export %s", missing);
            break;
        }
        chosen = v;
    }
    return (int)chosen;
}

int intercept_choose_line(const char *who, intercept_setup *setup)
{
    const char *override = getenv(INTERCEPT_ENV_LINE);
    int v;
    static char why[160];
    if (override != NULL && override[0] != '\0' && strcmp(override, "auto") != 0) {
        v = variant_named(override);
        if (v < 0) {
            fprintf(stderr, "%s: " INTERCEPT_ENV_LINE "=%s: not a variant of the interposer; the variants:", who,
                    override);
            for (size_t i = 0; i < LINE_VARIANTS; i++)
                fprintf(stderr, " %s", variant_name(i));
            fprintf(stderr, ", auto\n");
            return -1;
        }
        setup->line_origin = INTERCEPT_ENV_LINE;
    } else if (setup->driver[0] == '\0') {
        v = (int)LINE_VARIANTS - 1;
        setup->line_origin = "no CUDA driver";
    } else {
        v = variant_for_driver(who, setup->driver, why, sizeof why);
        if (v < 0)
            return -1;
        setup->line_origin = why;
    }
    setup->line = variant_name((size_t)v);
    if (gg_icpt_line_variants[v].dir[0] == '\0')
        return 0;
    char dir[sizeof setup->interposer_dir], file[sizeof setup->interposer];
    if (snprintf(dir, sizeof dir, "%s/%s", setup->interposer_dir, gg_icpt_line_variants[v].dir) >= (int)sizeof dir ||
        snprintf(file, sizeof file, "%s/libcuda.so.1", dir) >= (int)sizeof file) {
        fprintf(stderr, "%s: the interposer's folder %s: path too long\n", who, setup->interposer_dir);
        return -1;
    }
    if (access(file, R_OK) != 0) {
        fprintf(stderr, "%s: the interposer's variant %s (%s) is not built or installed: no %s\n", who,
                setup->line, setup->line_origin, file);
        return -1;
    }
    memcpy(setup->interposer_dir, dir, sizeof dir);
    memcpy(setup->interposer, file, sizeof file);
    return 0;
}
