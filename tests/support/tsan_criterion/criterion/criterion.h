/*
 * A stand-in for the part of Criterion 2.4 that gpuguard's suites use, for
 * ThreadSanitizer builds only (cmake/GgHelpers.cmake puts this directory
 * first in the include path when GG_SANITIZE matches "thread"): Criterion
 * itself cannot start under TSan ("Could not initialize inheritable arena"
 * with gcc, a crash in libcriterion with clang). The runner, main() included,
 * is ../mini_criterion.c: one forked process per test, as with Criterion.
 *
 * Assertions report "file:line: Assertion Failed"; cr_assert* ends the test
 * process at once (_exit(1)), cr_expect* marks the test failed and goes on.
 */
#ifndef GG_TSAN_CRITERION_H
#define GG_TSAN_CRITERION_H

/* What Criterion's own criterion.h brings in (suites rely on it). */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Options of Test(suite, name, ...) and TestSuite(suite, ...). A suite's
 * options apply to each of its tests; a test's own timeout wins. */
struct crs_options {
    int first_; /* lets the options list be empty */
    void (*init)(void);
    void (*fini)(void);
    double timeout; /* seconds; 0: the runner's default */
    int signal;     /* the test passes iff it dies of this signal */
    int exit_code;  /* the test passes iff it exits with this status */
    bool disabled;
    const char *description;
};

struct crs_test {
    const char *suite, *name, *file;
    int line;
    void (*fn)(void);
    struct crs_options opts;
    struct crs_test *next;
};

struct crs_suite {
    const char *name;
    struct crs_options opts;
    struct crs_suite *next;
};

void crs_register_test(struct crs_test *t);
void crs_register_suite(struct crs_suite *s);
void crs_assert_failed(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
void crs_expect_failed(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void crs_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void crs_log(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int crs_strcmp(const char *a, const char *b); /* NULL-safe strcmp */

#define CRS_ID_(a, b, c) crs_##a##_##b##_##c

#define Test(suite, name, ...) CRS_TEST_(suite, name, __VA_ARGS__)
#define CRS_TEST_(suite, name, ...)                                                          \
    static void CRS_ID_(fn, suite, name)(void);                                              \
    static struct crs_test CRS_ID_(test, suite, name) = {                                    \
        #suite, #name, __FILE__, __LINE__, CRS_ID_(fn, suite, name), { 0, __VA_ARGS__ }, NULL \
    };                                                                                       \
    __attribute__((constructor)) static void CRS_ID_(reg, suite, name)(void)                 \
    {                                                                                        \
        crs_register_test(&CRS_ID_(test, suite, name));                                      \
    }                                                                                        \
    static void CRS_ID_(fn, suite, name)(void)

#define TestSuite(suite, ...) CRS_SUITE_(suite, __VA_ARGS__)
#define CRS_SUITE_(suite, ...)                                                              \
    static struct crs_suite CRS_ID_(suite, suite, opts) = { #suite, { 0, __VA_ARGS__ }, NULL }; \
    __attribute__((constructor)) static void CRS_ID_(suite, suite, reg)(void)                \
    {                                                                                        \
        crs_register_suite(&CRS_ID_(suite, suite, opts));                                    \
    }                                                                                        \
    struct crs_suite_decl_##suite /* takes the ';' after TestSuite(...) */

/* " " __VA_ARGS__: the optional message (a format string literal and its
 * arguments) behind a space the runner drops; " " when there is none (an
 * empty format would trip -Wformat-zero-length). */
#define CRS_CHECK_(report, cond, expr, ...)                             \
    do {                                                                \
        if (!(cond))                                                    \
            report(__FILE__, __LINE__, expr, " " __VA_ARGS__);          \
    } while (0)

#define cr_assert(cond, ...) CRS_CHECK_(crs_assert_failed, (cond), #cond, __VA_ARGS__)
#define cr_expect(cond, ...) CRS_CHECK_(crs_expect_failed, (cond), #cond, __VA_ARGS__)
#define cr_assert_not(cond, ...) CRS_CHECK_(crs_assert_failed, !(cond), "!(" #cond ")", __VA_ARGS__)
#define cr_expect_not(cond, ...) CRS_CHECK_(crs_expect_failed, !(cond), "!(" #cond ")", __VA_ARGS__)
#define cr_assert_fail(...) crs_assert_failed(__FILE__, __LINE__, "", " " __VA_ARGS__)
#define cr_expect_fail(...) crs_expect_failed(__FILE__, __LINE__, "", " " __VA_ARGS__)
#define cr_skip_test(...) crs_skip(" " __VA_ARGS__)

/* Comparisons; r is crs_assert_failed or crs_expect_failed. The operands are
 * stringified here, before they are macro-expanded. */
#define CRS_STR_(r, a, op, b, text, ...) CRS_CHECK_(r, crs_strcmp((a), (b)) op 0, text, __VA_ARGS__)
#define CRS_ARR_(r, a, b, n, text, ...) CRS_CHECK_(r, memcmp((a), (b), (n)) == 0, text, __VA_ARGS__)

#define cr_assert_eq(a, b, ...) CRS_CHECK_(crs_assert_failed, (a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) CRS_CHECK_(crs_assert_failed, (a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) CRS_CHECK_(crs_assert_failed, (a) < (b), #a " < " #b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) CRS_CHECK_(crs_assert_failed, (a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) CRS_CHECK_(crs_assert_failed, (a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) CRS_CHECK_(crs_assert_failed, (a) >= (b), #a " >= " #b, __VA_ARGS__)
#define cr_assert_null(p, ...) CRS_CHECK_(crs_assert_failed, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) CRS_CHECK_(crs_assert_failed, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) CRS_STR_(crs_assert_failed, a, ==, b, "(as strings) " #a " == " #b, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) CRS_STR_(crs_assert_failed, a, !=, b, "(as strings) " #a " != " #b, __VA_ARGS__)
#define cr_assert_arr_eq(a, b, n, ...) CRS_ARR_(crs_assert_failed, a, b, n, "(as bytes) " #a " == " #b, __VA_ARGS__)

#define cr_expect_eq(a, b, ...) CRS_CHECK_(crs_expect_failed, (a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) CRS_CHECK_(crs_expect_failed, (a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_expect_lt(a, b, ...) CRS_CHECK_(crs_expect_failed, (a) < (b), #a " < " #b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) CRS_CHECK_(crs_expect_failed, (a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) CRS_CHECK_(crs_expect_failed, (a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) CRS_CHECK_(crs_expect_failed, (a) >= (b), #a " >= " #b, __VA_ARGS__)
#define cr_expect_null(p, ...) CRS_CHECK_(crs_expect_failed, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_expect_not_null(p, ...) CRS_CHECK_(crs_expect_failed, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) CRS_STR_(crs_expect_failed, a, ==, b, "(as strings) " #a " == " #b, __VA_ARGS__)
#define cr_expect_str_neq(a, b, ...) CRS_STR_(crs_expect_failed, a, !=, b, "(as strings) " #a " != " #b, __VA_ARGS__)
#define cr_expect_arr_eq(a, b, n, ...) CRS_ARR_(crs_expect_failed, a, b, n, "(as bytes) " #a " == " #b, __VA_ARGS__)

#define cr_log_error(...) crs_log("[ERR ] ", __VA_ARGS__)
#define cr_log_warn(...) crs_log("[WARN] ", __VA_ARGS__)
#define cr_log_info(...) crs_log("[----] ", __VA_ARGS__)

#endif
