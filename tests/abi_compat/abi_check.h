/* A plain check for the ABI programs (no Criterion: each program is one
 * process whose header is the point of the test). CHECK counts failures
 * and says which; main returns their count. */
#ifndef GG_TESTS_ABI_CHECK_H
#define GG_TESTS_ABI_CHECK_H

#include <stdio.h>

static int abi_failures;

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            abi_failures++;                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                     \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
        }                                                                                       \
    } while (0)

/* The last failure's message, for CHECKs on what a refusal says; in the
 * older program, whose gg_error_info has no message, its call's name. */
static inline const char *abi_last_message(void)
{
    static _Thread_local gg_error_info e;
    e = (gg_error_info)GG_ERROR_INFO_INIT;
    gg_last_error(&e);
#ifdef GG_ABI_SMALLER_HEADER
    return e.gg_call;
#else
    return e.message;
#endif
}

/* Whether every byte of p[0..n) is `value`. */
static inline int abi_all_bytes(const void *p, size_t n, unsigned char value)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != value)
            return 0;
    return 1;
}

#endif /* GG_TESTS_ABI_CHECK_H */
