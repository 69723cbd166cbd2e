/*
 * model_runner: runs model programs (generated from seeds, or scripts)
 * against gpuguard over the simulated driver and exits 1 if any check
 * failed. The backend comes from GG_TEST_BACKEND (sim, sim-hip) and
 * GG_TEST_SIM_DRIVER_VERSION, as for the conformance suites.
 *
 *   model_runner [--seeds A-B] [--script FILE]... [--scripts DIR]
 *                [--timeline on|off|both|stride:N] [--verbose]
 *   model_runner --print SEED          prints seed's program as a script
 *   model_runner --decode FILE         prints the program a fuzz input decodes to
 *   model_runner --encode SCRIPT OUT   writes a fuzz_model input that decodes to SCRIPT
 *                                      (--encode-off: with timelines off)
 *
 * Every program runs under alarm(): a hang fails it, printing its script.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "model/model.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM_ALARM_S 30

static char *current_script;
static char current_label[256];

static void on_alarm(int sig)
{
    (void)sig;
    static const char head[] = "\n==== MODEL PROGRAM HUNG (over " "30" " s): ";
    if (write(2, head, sizeof head - 1) < 0) {
    }
    if (write(2, current_label, strlen(current_label)) < 0) {
    }
    if (write(2, "\n", 1) < 0) {
    }
    if (current_script != NULL && write(2, current_script, strlen(current_script)) < 0) {
    }
    _exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    fclose(f);
    if (buf == NULL)
        abort();
    buf[n] = '\0';
    if (size)
        *size = n;
    return buf;
}

static void usage(void)
{
    fprintf(stderr, "usage: model_runner [--seeds A-B] [--script FILE]... [--scripts DIR] [--timeline on|off|both|stride:N] "
                    "[--verbose]\n       model_runner --print SEED | --decode FILE | --encode[-off] SCRIPT OUT\n");
    exit(2);
}

typedef struct totals {
    unsigned programs, failed, failures;
    double slowest;
    char slowest_label[256];
} totals;

static void run_one(model_env *env, const model_program *p, const char *label, totals *t)
{
    current_script = model_print(p);
    snprintf(current_label, sizeof current_label, "%s", label);
    alarm(PROGRAM_ALARM_S);
    double start = now_s();
    unsigned failures = model_run(env, p, label);
    double took = now_s() - start;
    alarm(0);
    free(current_script);
    current_script = NULL;
    t->programs++;
    if (failures) {
        t->failed++;
        t->failures += failures;
        fprintf(stderr, "FAILED %s: %u check(s)\n", label, failures);
    }
    if (took > t->slowest) {
        t->slowest = took;
        snprintf(t->slowest_label, sizeof t->slowest_label, "%s", label);
    }
    if (env->verbose)
        fprintf(stderr, "%s: %.3f s, %u failure(s)\n", label, took, failures);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    unsigned long long first = 1, last = 0;
    const char *scripts[256];
    unsigned nscripts = 0;
    const char *dir = NULL;
    const char *timeline = "both";
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%llu-%llu", &first, &last) != 2)
                usage();
        } else if (strcmp(argv[i], "--script") == 0 && i + 1 < argc && nscripts < 256) {
            scripts[nscripts++] = argv[++i];
        } else if (strcmp(argv[i], "--scripts") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--timeline") == 0 && i + 1 < argc) {
            timeline = argv[++i];
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--print") == 0 && i + 1 < argc) {
            model_program p;
            model_generate(strtoull(argv[++i], NULL, 10), &p);
            char *text = model_print(&p);
            fputs(text, stdout);
            free(text);
            model_program_free(&p);
            return 0;
        } else if (strcmp(argv[i], "--decode") == 0 && i + 1 < argc) {
            size_t n;
            char *data = read_file(argv[++i], &n);
            if (data == NULL) {
                perror(argv[i]);
                return 2;
            }
            /* As fuzz_model reads it: byte 0 is the timeline mode. */
            model_program p;
            model_decode((const uint8_t *)data + (n ? 1 : 0), n ? n - 1 : 0, &p);
            char *text = model_print(&p);
            model_env decoded = { 0 };
            model_timeline_from_byte(n ? (uint8_t)data[0] : 0, &decoded);
            printf("# timeline %s, stride %u (fuzz_model input: --timeline %s)\n",
                   decoded.timeline == GG_TIMELINE_OFF ? "off" : "on",
                   decoded.timeline_stride ? decoded.timeline_stride : 1u,
                   decoded.timeline == GG_TIMELINE_OFF ? "off" : decoded.timeline_stride ? "stride:N" : "on");
            fputs(text, stdout);
            free(text);
            free(data);
            model_program_free(&p);
            return 0;
        } else if ((strcmp(argv[i], "--encode") == 0 || strcmp(argv[i], "--encode-off") == 0) && i + 2 < argc) {
            uint8_t mode = strcmp(argv[i], "--encode-off") == 0;
            char *text = read_file(argv[i + 1], NULL);
            char err[256];
            model_program p;
            if (text == NULL || !model_parse(text, &p, err, sizeof err)) {
                fprintf(stderr, "%s: %s\n", argv[i + 1], text ? err : strerror(errno));
                return 2;
            }
            uint8_t *bytes = malloc(p.count * 8 + 1);
            bytes[0] = mode;
            size_t n = 1 + model_encode(&p, bytes + 1, p.count * 8);
            FILE *f = fopen(argv[i + 2], "wb");
            if (f == NULL || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
                perror(argv[i + 2]);
                return 2;
            }
            free(bytes);
            free(text);
            model_program_free(&p);
            return 0;
        } else {
            usage();
        }
    }
    const char *backend = getenv("GG_TEST_BACKEND");
    bool hip = backend != NULL && strcmp(backend, "sim-hip") == 0;
    if (backend != NULL && backend[0] != '\0' && !hip && strcmp(backend, "sim") != 0) {
        fprintf(stderr, "GG_TEST_BACKEND='%s' is not sim or sim-hip\n", backend);
        return 2;
    }
    const char *version_text = getenv("GG_TEST_SIM_DRIVER_VERSION");
    int version = !hip && version_text != NULL ? atoi(version_text) : 0;
    model_env env = {
        .backend = hip ? "sim-hip" : "sim",
        .library = hip ? MODEL_LIB_DIR "/libgpuguard_sim_hip.so"
                   : version != 0 && version < 12000 ? MODEL_LIB_DIR "/libgpuguard_sim_cuda11.so"
                                                     : MODEL_LIB_DIR "/libgpuguard_sim_cuda.so",
        .kernels_path = MODEL_KERNELS,
        .driver_version = version,
        .verbose = verbose,
    };
    if (!model_process_setup(&env))
        return 2;

    /* The programs: seeds, then scripts (named files, then DIR's *.txt). */
    const char *files[512];
    unsigned nfiles = 0;
    for (unsigned i = 0; i < nscripts; i++)
        files[nfiles++] = scripts[i];
    char *owned[512];
    unsigned nowned = 0;
    if (dir != NULL) {
        DIR *d = opendir(dir);
        if (d == NULL) {
            perror(dir);
            return 2;
        }
        struct dirent *de;
        while ((de = readdir(d)) != NULL && nfiles < 512) {
            size_t len = strlen(de->d_name);
            if (len < 5 || strcmp(de->d_name + len - 4, ".txt") != 0)
                continue;
            char *path = malloc(strlen(dir) + len + 2);
            sprintf(path, "%s/%s", dir, de->d_name);
            owned[nowned++] = path;
        }
        closedir(d);
        qsort(owned, nowned, sizeof owned[0], compare_names);
        for (unsigned i = 0; i < nowned && nfiles < 512; i++)
            files[nfiles++] = owned[i];
    }

    signal(SIGALRM, on_alarm);
    gg_timeline_mode modes[2];
    unsigned nmodes = 0;
    uint32_t stride = 0;
    if (strcmp(timeline, "on") == 0 || strcmp(timeline, "both") == 0)
        modes[nmodes++] = GG_TIMELINE_ON;
    if (strcmp(timeline, "off") == 0 || strcmp(timeline, "both") == 0)
        modes[nmodes++] = GG_TIMELINE_OFF;
    /* "stride:N": on, marking every Nth launch of a stream (culprits are
     * then WINDOWs up to the next mark, checked against the truth alike). */
    if (strncmp(timeline, "stride:", 7) == 0) {
        char *end = NULL;
        unsigned long n = strtoul(timeline + 7, &end, 10);
        if (end == timeline + 7 || *end != '\0' || n < 1 || n > GG_TIMELINE_STRIDE_MAX)
            usage();
        stride = (uint32_t)n;
        modes[nmodes++] = GG_TIMELINE_ON;
    }
    if (nmodes == 0)
        usage();
    env.timeline_stride = stride;
    const char *face = hip ? "hip" : version_text && version_text[0] ? version_text : "cuda";
    totals t = { 0 };
    double start = now_s();
    for (unsigned m = 0; m < nmodes; m++) {
        env.timeline = modes[m];
        char stride_mode[48];
        snprintf(stride_mode, sizeof stride_mode, "timeline on, stride %u", stride);
        const char *mode = stride ? stride_mode : modes[m] == GG_TIMELINE_ON ? "timeline on" : "timeline off";
        for (unsigned long long seed = first; seed <= last; seed++) {
            model_program p;
            model_generate(seed, &p);
            char label[128];
            snprintf(label, sizeof label, "seed %llu, %s, %s", seed, face, mode);
            /* The script is the program: printing what it parses back to
             * gives the same text. */
            char *text = model_print(&p), err[256];
            model_program back;
            if (!model_parse(text, &back, err, sizeof err)) {
                fprintf(stderr, "FAILED %s: its printed script does not parse: %s\n%s", label, err, text);
                t.failed++;
            } else {
                char *again = model_print(&back);
                if (strcmp(text, again) != 0) {
                    fprintf(stderr, "FAILED %s: its script parses to another program:\n%s---\n%s", label, text, again);
                    t.failed++;
                }
                free(again);
                model_program_free(&back);
            }
            free(text);
            run_one(&env, &p, label, &t);
            model_program_free(&p);
        }
        for (unsigned i = 0; i < nfiles; i++) {
            char *text = read_file(files[i], NULL);
            char err[256];
            model_program p;
            if (text == NULL || !model_parse(text, &p, err, sizeof err)) {
                fprintf(stderr, "FAILED %s: %s\n", files[i], text ? err : strerror(errno));
                t.failed++;
                free(text);
                continue;
            }
            free(text);
            const char *base = strrchr(files[i], '/');
            char label[256];
            snprintf(label, sizeof label, "%s, %s, %s", base ? base + 1 : files[i], face, mode);
            run_one(&env, &p, label, &t);
            model_program_free(&p);
        }
    }
    for (unsigned i = 0; i < nowned; i++)
        free(owned[i]);
    fprintf(stderr, "model_runner (%s, truth %s): %u program(s), %u failed (%u check failures), %.1f s; slowest %.2f s "
                    "(%s)\n",
            face, model_truth_available() ? "on" : "OFF", t.programs, t.failed, t.failures, now_s() - start, t.slowest,
            t.slowest_label);
    return t.failed ? 1 : 0;
}
