/*
 * A minimal stand-in for the part of Criterion these tests use, for
 * ThreadSanitizer builds only: Criterion itself cannot start under TSan
 * (its boxfort arena fails: Snaipe/Criterion#274). Each test runs in its
 * own forked process, as with Criterion; the runner is mini_criterion.c.
 */
#ifndef GG_MINI_CRITERION_H
#define GG_MINI_CRITERION_H

#include <stddef.h>
#include <string.h>

struct mc_opts {
    int unused;
    int signal;  /* the test passes if it dies of this signal */
    int timeout; /* seconds; 0: the runner's default */
};

struct mc_test {
    const char *suite, *name;
    void (*fn)(void);
    struct mc_opts opts;
    struct mc_test *next;
};

void mc_register(struct mc_test *t);
void mc_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

#define TestSuite(s, ...) \
    static const struct mc_opts mc_suite_##s __attribute__((unused)) = { 0, __VA_ARGS__ }

#define Test(s, n, ...)                                                                      \
    static void mc_fn_##s##_##n(void);                                                       \
    static struct mc_test mc_t_##s##_##n = { #s, #n, mc_fn_##s##_##n, { 0, __VA_ARGS__ }, NULL }; \
    __attribute__((constructor)) static void mc_reg_##s##_##n(void) { mc_register(&mc_t_##s##_##n); } \
    static void mc_fn_##s##_##n(void)

/* " " __VA_ARGS__ turns an optional format + arguments into a format. */
#define cr_assert(cond, ...)                                         \
    do {                                                             \
        if (!(cond))                                                 \
            mc_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__);     \
    } while (0)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_lt(a, b, ...) cr_assert((a) < (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...) cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_null(p, ...) cr_assert((p) == NULL, __VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0, __VA_ARGS__)

#endif
