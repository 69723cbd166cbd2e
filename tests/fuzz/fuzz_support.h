/*
 * What the libFuzzer harnesses share. A harness must never report a false
 * crash: FUZZ_CHECK traps (libFuzzer then saves the input as a crash) only
 * when a documented contract is broken.
 */
#ifndef GG_FUZZ_SUPPORT_H
#define GG_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuguard/gpuguard.h>

/* A broken contract: say which, then let libFuzzer record the input. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz contract broken at %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (0)

/* The input as a NUL-terminated string (the APIs take C strings); an
 * embedded NUL simply ends it early. Free with free(). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* gg_init over the simulated driver in fast mode (every operation
 * completes at submission, kernels are not run). */
static inline gg_status fuzz_init_sim(void)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"fast\": true}", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_FUZZ_SIM_CUDA };
    return gg_init(&desc);
}

/* Every status a call returns must be one the API defines, and bad input
 * must come with a message saying what was wrong. */
static inline void fuzz_check_status(gg_status s, const char *call)
{
    FUZZ_CHECK((unsigned)s < GG__STATUS_COUNT, "%s returned %d", call, (int)s);
    if (s == GG_INVALID_ARGUMENT || s == GG_INVALID_HANDLE) {
        gg_error_info info = GG_ERROR_INFO_INIT;
        FUZZ_CHECK(gg_last_error(&info) == GG_OK, "gg_last_error after %s", call);
        FUZZ_CHECK(info.status == s, "%s returned %s, gg_last_error says %s", call, gg_status_name(s),
                   gg_status_name(info.status));
        FUZZ_CHECK(memchr(info.message, '\0', sizeof info.message) != NULL && info.message[0] != '\0',
                   "%s: %s with no message", call, gg_status_name(s));
    }
}

#endif
