/* libFuzzer harness: the simulator's module image reader
 * (src/sim/ptx/ptx_fatbin.c: sim_fatbin_find_ptx), linked alone.
 *
 * Input: one control byte, then the image. The control byte's low three
 * bits pick the device's compute capability, bit 3 asks for the image to be
 * handed over once more inside a fatbin wrapper.
 *
 * Contracts: with the image's size given (in a buffer of exactly that size,
 * so ASan sees any read past it) any input gives a status the header
 * defines, a NUL-terminated detail that is empty exactly on success, and
 * PTX (non-empty, its length right) exactly on success. When that call
 * proved every header claim inside the image (it did not answer "invalid
 * image"), the same image with no size given (and a NUL after it, as a
 * text image has) gives the same answer, and so does a wrapper pointing to
 * it. Nothing leaks (LeakSanitizer). An input that starts with the
 * wrapper's magic has its pointer replaced (by one to the bytes after the
 * wrapper when those are a container whose claims hold, else by NULL):
 * the reader follows that pointer, and a fuzzed one points anywhere. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_fatbin.h"

#define FUZZ_CHECK(cond, ...)                                                                   \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz contract broken at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            __builtin_trap();                                                                   \
        }                                                                                       \
    } while (0)

#define WRAPPER_MAGIC 0x466243B1

typedef struct {
    int magic, version;
    const void *data;
    void *name;
} wrapper;

typedef struct {
    sim_fatbin_status st;
    char *text;
    size_t len;
    char detail[512];
} answer;

static void ask(const void *img, size_t known, int cc, answer *a)
{
    a->text = (char *)1;
    a->len = 99;
    memset(a->detail, 'x', sizeof a->detail);
    a->st = sim_fatbin_find_ptx(img, known, cc, &a->text, &a->len, a->detail, sizeof a->detail);
    FUZZ_CHECK(a->st >= SIM_FATBIN_OK && a->st <= SIM_FATBIN_OUT_OF_MEMORY, "status %d", (int)a->st);
    FUZZ_CHECK(a->st != SIM_FATBIN_INVALID_VALUE && a->st != SIM_FATBIN_OUT_OF_MEMORY, "%s: %s",
               sim_fatbin_status_name(a->st), a->detail);
    FUZZ_CHECK(memchr(a->detail, '\0', sizeof a->detail) != NULL, "detail not terminated");
    if (a->st == SIM_FATBIN_OK) {
        FUZZ_CHECK(a->text != NULL && a->len > 0, "OK with %zu bytes", a->len);
        FUZZ_CHECK(strlen(a->text) == a->len, "length %zu, text of %zu", a->len, strlen(a->text));
        FUZZ_CHECK(a->detail[0] == '\0', "OK with a detail: %s", a->detail);
    } else {
        FUZZ_CHECK(a->text == NULL && a->len == 0, "%s with text", sim_fatbin_status_name(a->st));
        FUZZ_CHECK(a->detail[0] != '\0', "%s with no detail", sim_fatbin_status_name(a->st));
    }
}

static void same(const answer *a, const answer *b, const char *what)
{
    FUZZ_CHECK(a->st == b->st, "%s: %s (%s), with the size given %s (%s)", what, sim_fatbin_status_name(b->st),
               b->detail, sim_fatbin_status_name(a->st), a->detail);
    FUZZ_CHECK(strcmp(a->detail, b->detail) == 0, "%s: \"%s\", with the size given \"%s\"", what, b->detail,
               a->detail);
    if (a->st == SIM_FATBIN_OK)
        FUZZ_CHECK(a->len == b->len && memcmp(a->text, b->text, a->len) == 0, "%s: other PTX", what);
}

/* The bytes as a bare container, if their headers' claims hold (the size
 * given): a copy of exactly their size, else NULL. */
static unsigned char *safe_container(const unsigned char *p, size_t n, int cc)
{
    if (n == 0 || sim_image_classify(p, n) != SIM_IMAGE_FATBIN)
        return NULL;
    unsigned char *c = malloc(n);
    if (!c)
        return NULL;
    memcpy(c, p, n);
    answer a;
    ask(c, n, cc, &a);
    free(a.text);
    if (a.st == SIM_FATBIN_INVALID_IMAGE) {
        free(c);
        return NULL;
    }
    return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int ccs[8] = { 75, 70, 80, 86, 89, 90, 100, 120 };
    if (size < 2)
        return 0;
    int cc = ccs[data[0] & 7];
    int rewrap = data[0] & 8;
    size_t n = size - 1;

    unsigned char *img = malloc(n);
    if (!img)
        return 0;
    memcpy(img, data + 1, n);
    /* A wrapper of the input's own: its pointer made safe. */
    unsigned char *tail = NULL;
    if (n >= sizeof(wrapper) && sim_image_classify(img, n) == SIM_IMAGE_FATBIN_WRAPPER) {
        tail = safe_container(img + sizeof(wrapper), n - sizeof(wrapper), cc);
        const void *ptr = tail;
        memcpy(img + offsetof(wrapper, data), &ptr, sizeof ptr);
    }

    answer known;
    ask(img, n, cc, &known);
    if (known.st != SIM_FATBIN_INVALID_IMAGE) {
        /* The same with no size: a NUL after it, as text images have. */
        unsigned char *term = malloc(n + 1);
        if (term) {
            memcpy(term, img, n);
            term[n] = '\0';
            answer unknown;
            ask(term, 0, cc, &unknown);
            same(&known, &unknown, "size unknown");
            free(unknown.text);
            free(term);
        }
        if (rewrap && sim_image_classify(img, n) == SIM_IMAGE_FATBIN) {
            wrapper w = { WRAPPER_MAGIC, 1, img, NULL };
            answer wrapped;
            ask(&w, sizeof w, cc, &wrapped);
            same(&known, &wrapped, "in a wrapper");
            free(wrapped.text);
        }
    }
    free(known.text);
    free(tail);
    free(img);
    return 0;
}
