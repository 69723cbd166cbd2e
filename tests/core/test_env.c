/* The environment variables libgpuguard reads: one table (src/base/env.h)
 * that the code reads through, checked here against the sources (every
 * getenv("GPUGUARD_...") names a table entry, every entry is read) and the
 * documentation (README.md's table and gg_init's comment in gpuguard.h);
 * and one keyword comparison, ignoring ASCII case, for all of them (through
 * gg_init: test_init.c). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    cr_assert_eq(fread(text, 1, (size_t)size, f), (size_t)size, "reading %s", path);
    text[size] = '\0';
    fclose(f);
    return text;
}

/* Whether `text` has `name` as a whole word (not GPUGUARD_FAULTS inside
 * GPUGUARD_FAULTS_X or GPUGUARD_FAULT_REPORT). */
static bool has_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p != NULL; p = strstr(p + 1, name)) {
        char after = p[n];
        if (!(after == '_' || (after >= 'A' && after <= 'Z') || (after >= '0' && after <= '9')))
            return true;
    }
    return false;
}

static bool in_table(const char *name, size_t len)
{
    for (int i = 0; i < GG__ENV_COUNT; i++)
        if (strlen(gg__env_names[i]) == len && strncmp(gg__env_names[i], name, len) == 0)
            return true;
    return false;
}

Test(env, every_variable_is_documented_in_readme_and_header)
{
    char *readme = read_text(GG_TEST_SOURCE_DIR "/README.md");
    char *header = read_text(GG_TEST_SOURCE_DIR "/include/gpuguard/gpuguard.h");
    /* gg_init's contract comment: from the comment before its declaration. */
    char *decl = strstr(header, "GG_API gg_status gg_init(");
    cr_assert_not_null(decl);
    *decl = '\0';
    char *comment = strstr(header, "/** Loads a backend and initialises the library.");
    cr_assert_not_null(comment, "gg_init's comment moved: update this test");
    for (int i = 0; i < GG__ENV_COUNT; i++) {
        char row[96];
        snprintf(row, sizeof row, "| `%s` |", gg__env_names[i]);
        cr_expect(strstr(readme, row) != NULL, "README.md's table of environment variables lacks %s",
                  gg__env_names[i]);
        cr_expect(has_word(comment, gg__env_names[i]), "gg_init's comment in gpuguard.h does not name %s",
                  gg__env_names[i]);
    }
    free(readme);
    free(header);
}

/* Reads every .c file of `folder` into the checks of
 * the_sources_read_exactly_the_table; returns how many there were. */
static int check_sources(const char *folder, bool used[GG__ENV_COUNT])
{
    DIR *d = opendir(folder);
    cr_assert_not_null(d, "%s", folder);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        char *text = read_text(path);
        files++;
        /* A variable read by its literal name must be one of the table's
         * (library.c only asks which of two sources a plan came from). */
        for (const char *p = strstr(text, "getenv(\"GPUGUARD_"); p != NULL; p = strstr(p + 1, "getenv(\"GPUGUARD_")) {
            const char *name = p + strlen("getenv(\"");
            size_t n = strcspn(name, "\"");
            cr_expect(in_table(name, n), "%s reads %.*s, which is not in src/base/env.h's table", e->d_name,
                      (int)n, name);
        }
        /* Keywords are compared by gg__keyword alone: no locale-dependent
         * comparison of its own anywhere (comments aside, which say why). */
        for (const char *p = strstr(text, "casecmp("); p != NULL; p = strstr(p + 1, "casecmp("))
            cr_expect(false, "%s compares ignoring case itself (...casecmp): use gg__keyword", e->d_name);
        for (int i = 0; i < GG__ENV_COUNT; i++) {
            char use[64];
            snprintf(use, sizeof use, "gg__env(GG__ENV_%s)", gg__env_names[i] + strlen("GPUGUARD_"));
            used[i] = used[i] || strstr(text, use) != NULL;
        }
        free(text);
    }
    closedir(d);
    return files;
}

/* libgpuguard's core and the base it is built over (whose allocator reads
 * GPUGUARD_FAIL_HOST_ALLOC). */
Test(env, the_sources_read_exactly_the_table)
{
    bool used[GG__ENV_COUNT] = { false };
    int common = check_sources(GG_TEST_SOURCE_DIR "/src/common", used);
    cr_assert_gt(common, 10, "found only %d sources in src/common", common);
    int base = check_sources(GG_TEST_SOURCE_DIR "/src/base", used);
    cr_assert_gt(base, 3, "found only %d sources in src/base", base);
    for (int i = 0; i < GG__ENV_COUNT; i++)
        cr_expect(used[i], "%s is in the table but nothing reads it through gg__env", gg__env_names[i]);
}

Test(env, keywords_ignore_ascii_case_only)
{
    static const char *const names[] = { "auto", "on", "off", "sim-hip" };
    size_t k = 99;
    cr_assert(gg__keyword("ON", names, 4, &k) && k == 1);
    cr_assert(gg__keyword("oFf", names, 4, &k) && k == 2);
    cr_assert(gg__keyword("SIM-HIP", names, 4, &k) && k == 3);
    cr_assert_not(gg__keyword("o", names, 4, &k));
    cr_assert_not(gg__keyword("onn", names, 4, &k));
    cr_assert_not(gg__keyword("", names, 4, &k));
    cr_assert_not(gg__keyword("on ", names, 4, &k));
    /* Not a locale's notion of case: U+0130 (capital I with dot) is not
     * "i", and a Latin-1 byte is not folded. */
    static const char *const info[] = { "info" };
    cr_assert_not(gg__keyword("\xc4\xb0NFO", info, 1, &k));
    cr_assert_not(gg__keyword("\xc9nfo", info, 1, &k));
    cr_assert(gg__keyword("INFO", info, 1, &k));
}

/* ---- the test harness's torture-round count (tests/support) ------------- */

#include "support/torture_rounds.h"

Test(torture_rounds, takes_a_smaller_count_and_ignores_anything_else)
{
    unsetenv("GG_TORTURE_ROUNDS");
    cr_assert_eq(gg_torture_rounds(200), 200);
    static const struct { const char *text; unsigned want; } cases[] = {
        {"60", 60}, {"1", 1}, {"200", 200}, /* the full count itself */
        {"201", 200},                       /* one past: never more than the suite's own */
        {"0", 200}, {"", 200}, {"6x", 200}, {"-5", 200}, {"abc", 200},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv("GG_TORTURE_ROUNDS", cases[i].text, 1);
        cr_assert_eq(gg_torture_rounds(200), cases[i].want, "GG_TORTURE_ROUNDS=\"%s\": %u rounds, want %u",
                     cases[i].text, gg_torture_rounds(200), cases[i].want);
    }
    unsetenv("GG_TORTURE_ROUNDS");
}
