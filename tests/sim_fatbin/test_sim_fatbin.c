/* The simulator's fatbin reader (src/sim/ptx/ptx_fatbin.h) over what nvcc
 * 13 wrote (tests/ptx/fixtures/fatbin; scripts/gen-fatbin-fixtures.sh).
 * Images are copied into buffers of exactly their size, so that ASan sees
 * any read past what the image (or, with no size given, its headers) holds. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptx_fatbin.h"

TestSuite(sim_fatbin, .timeout = 120);

#define FIX GG_FATBIN_FIXTURES "/"

/* Offsets measured on the fixtures (see ptx_fatbin.h). */
#define C_VERSION 4
#define C_HSIZE 6
#define C_FSIZE 8
#define E0 16 /* the first entry */
#define E_KIND 0
#define E_HSIZE 4
#define E_PSIZE 8
#define E_CSIZE 16
#define E_ARCH 28
#define E_FLAGS 40
#define E_USIZE 56

static unsigned char *load(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, FIX "%s", name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert_gt(n, 0, "%s is empty", path);
    unsigned char *buf = malloc((size_t)n);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* A NUL-terminated copy of a text file. */
static char *load_text(const char *name)
{
    size_t n;
    unsigned char *b = load(name, &n);
    char *s = malloc(n + 1);
    memcpy(s, b, n);
    s[n] = '\0';
    free(b);
    return s;
}

static unsigned char *dup_exact(const unsigned char *p, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    memcpy(c, p, n);
    return c;
}

static uint64_t get(const unsigned char *p, size_t at, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[at + (size_t)i];
    return v;
}

static void put(unsigned char *p, size_t at, int bytes, uint64_t v)
{
    for (int i = 0; i < bytes; i++)
        p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

/* Runs the reader and checks the contract every call must keep: a known
 * status; a NUL-terminated detail, empty exactly on success; PTX out only
 * on success, its length right. Returns the status; *text (if asked)
 * gets the PTX, else it is freed. */
static sim_fatbin_status run(const void *img, size_t known, int cc, char **text, char *detail, size_t dsize)
{
    char *t = (char *)1;
    size_t len = 12345;
    char own[1024];
    if (!detail) {
        detail = own;
        dsize = sizeof own;
    }
    memset(detail, 'x', dsize);
    sim_fatbin_status st = sim_fatbin_find_ptx(img, known, cc, &t, &len, detail, dsize);
    cr_assert(st >= SIM_FATBIN_OK && st <= SIM_FATBIN_OUT_OF_MEMORY, "status %d", (int)st);
    cr_assert_not_null(memchr(detail, '\0', dsize), "detail not terminated");
    if (st == SIM_FATBIN_OK) {
        cr_assert_not_null(t);
        cr_assert_gt(len, 0);
        cr_assert_eq(strlen(t), len, "length %zu, text of %zu", len, strlen(t));
        cr_assert(detail[0] == '\0', "detail on success: %s", detail);
    } else {
        cr_assert_null(t, "%s with text", sim_fatbin_status_name(st));
        cr_assert_eq(len, 0);
        cr_assert(detail[0] != '\0', "%s with no detail", sim_fatbin_status_name(st));
    }
    if (text)
        *text = t;
    else
        free(t);
    return st;
}

/* The PTX of a fixture for a device of capability cc, with and without its
 * size given; both must agree. */
static char *ptx_of(const char *name, int cc)
{
    size_t n;
    unsigned char *img = load(name, &n);
    char detail[512];
    char *a, *b;
    sim_fatbin_status st = run(img, n, cc, &a, detail, sizeof detail);
    cr_assert_eq(st, SIM_FATBIN_OK, "%s for %d: %s: %s", name, cc, sim_fatbin_status_name(st), detail);
    /* With no size, text ends at its NUL (a file has none); a container's
     * header bounds it, so its buffer stays exact. */
    unsigned char *unsized = img;
    if (sim_image_classify(img, n) == SIM_IMAGE_PTX) {
        unsized = malloc(n + 1);
        memcpy(unsized, img, n);
        unsized[n] = '\0';
    }
    st = run(unsized, 0, cc, &b, detail, sizeof detail);
    if (unsized != img)
        free(unsized);
    cr_assert_eq(st, SIM_FATBIN_OK, "%s for %d, size unknown: %s: %s", name, cc, sim_fatbin_status_name(st), detail);
    cr_assert_str_eq(a, b);
    free(b);
    free(img);
    return a;
}

/* The status and detail for a fixture that must not give PTX. */
static sim_fatbin_status refusal(const char *name, int cc, char *detail, size_t dsize)
{
    size_t n;
    unsigned char *img = load(name, &n);
    sim_fatbin_status st = run(img, n, cc, NULL, detail, dsize);
    char other[1024];
    cr_assert_eq(run(img, 0, cc, NULL, other, sizeof other), st, "%s: size unknown gives another answer", name);
    cr_assert_str_eq(other, detail);
    free(img);
    return st;
}

/* PTX without comments, white space runs made one space: the fatbin keeps
 * nvcc's PTX without its comments and with its tabs dropped. */
static char *normalize(const char *s)
{
    char *out = malloc(strlen(s) + 1);
    size_t o = 0;
    int space = 0;
    for (const char *p = s; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            space = 1;
            p++;
            continue;
        }
        if (space && o)
            out[o++] = ' ';
        space = 0;
        out[o++] = *p++;
    }
    out[o] = '\0';
    return out;
}

static const char *ptx_target(const char *ptx)
{
    const char *t = strstr(ptx, ".target ");
    cr_assert_not_null(t, "no .target in %.200s", ptx);
    return t;
}

static void assert_scale_ptx(const char *ptx, const char *target)
{
    cr_assert_not_null(strstr(ptx, ".version 9.0"), "%.300s", ptx);
    char want[64];
    snprintf(want, sizeof want, ".target %s\n", target);
    cr_assert_eq(strncmp(ptx_target(ptx), want, strlen(want)), 0, "wanted %s, got %.20s", target, ptx_target(ptx));
    cr_assert_not_null(strstr(ptx, ".entry scale("), "%.300s", ptx);
}

/* ---- classification ---------------------------------------------------- */

Test(sim_fatbin, classify)
{
    static const struct {
        const char *file;
        sim_image_kind kind;
    } cases[] = {
        { "scale.ptx", SIM_IMAGE_PTX },          { "ptx75_zstd.fatbin", SIM_IMAGE_FATBIN },
        { "ptx_multi.fatbin", SIM_IMAGE_FATBIN }, { "sass75.cubin", SIM_IMAGE_CUBIN },
        { "lto75.fatbin", SIM_IMAGE_FATBIN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        unsigned char *img = load(cases[i].file, &n);
        cr_assert_eq(sim_image_classify(img, n), cases[i].kind, "%s", cases[i].file);
        cr_assert_eq(sim_image_classify(img, 0), cases[i].kind, "%s, size unknown", cases[i].file);
        free(img);
    }
    cr_assert_eq(sim_image_classify(NULL, 0), SIM_IMAGE_UNKNOWN);
    cr_assert_eq(sim_image_classify("gg-sim-module:/tmp/k.so", 0), SIM_IMAGE_SIM_MODULE_PATH);
    cr_assert_eq(sim_image_classify("  // a comment\n/* and another */ .version 8.0\n", 0), SIM_IMAGE_PTX);
    cr_assert_eq(sim_image_classify(".target sm_75\n", 0), SIM_IMAGE_PTX, "text goes to the parser");
    cr_assert_eq(sim_image_classify("", 0), SIM_IMAGE_UNKNOWN);
    cr_assert_eq(sim_image_classify("\x01\x02", 0), SIM_IMAGE_UNKNOWN);
    cr_assert_eq(sim_image_classify("P\xed", 0), SIM_IMAGE_UNKNOWN, "a fatbin's first bytes are no text");
    /* A text shorter than a magic number it begins like: read to its NUL only. */
    unsigned char *elf_start = dup_exact((const unsigned char *)"\x7f" "EL", 4);
    cr_assert_eq(sim_image_classify(elf_start, 0), SIM_IMAGE_UNKNOWN);
    free(elf_start);

    /* A host shared object (x86-64, ET_DYN) and a host executable. */
    unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    put(elf, 16, 2, 3);
    put(elf, 18, 2, 62);
    unsigned char *so = dup_exact(elf, sizeof elf);
    cr_assert_eq(sim_image_classify(so, sizeof elf), SIM_IMAGE_SHARED_OBJECT);
    cr_assert_eq(sim_image_classify(so, 0), SIM_IMAGE_SHARED_OBJECT);
    cr_assert_eq(sim_image_classify(so, 63), SIM_IMAGE_UNKNOWN, "shorter than an ELF header");
    put(so, 16, 2, 2);
    cr_assert_eq(sim_image_classify(so, sizeof elf), SIM_IMAGE_UNKNOWN);
    free(so);

    /* The wrapper nvcc puts in .nvFatBinSegment. */
    struct {
        int magic, version;
        const void *data;
        void *name;
    } w = { 0x466243B1, 1, NULL, NULL };
    cr_assert_eq(sizeof w, 24);
    cr_assert_eq(sim_image_classify(&w, sizeof w), SIM_IMAGE_FATBIN_WRAPPER);
    cr_assert_eq(sim_image_classify(&w, 0), SIM_IMAGE_FATBIN_WRAPPER);
    cr_assert_str_eq(sim_image_kind_name(SIM_IMAGE_CUBIN), "cubin (ELF with machine code)");
}

/* ---- extraction -------------------------------------------------------- */

/* Every way nvcc 13 stores one PTX entry gives the same text: nvcc -ptx's
 * output without comments and tabs. */
Test(sim_fatbin, every_compression_gives_nvcc_ptx)
{
    char *ref = load_text("scale.ptx");
    char *ref_n = normalize(ref);
    static const char *files[] = { "ptx75_zstd.fatbin", "ptx75_size.fatbin", "ptx75_lz4.fatbin",
                                   "ptx75_none.fatbin", "sass75_ptx75.fatbin" };
    char *first = NULL;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *ptx = ptx_of(files[i], 75);
        assert_scale_ptx(ptx, "sm_75");
        char *n = normalize(ptx);
        cr_assert_str_eq(n, ref_n, "%s differs from nvcc -ptx", files[i]);
        free(n);
        if (!first)
            first = ptx;
        else {
            cr_assert_str_eq(ptx, first, "%s differs from %s", files[i], files[0]);
            free(ptx);
        }
    }
    free(first);
    free(ref_n);
    free(ref);
}

/* The header fields the layout documents, on the fixtures themselves. */
Test(sim_fatbin, layout_as_documented)
{
    size_t n;
    unsigned char *z = load("ptx75_zstd.fatbin", &n);
    cr_assert_eq(get(z, 0, 4), 0xBA55ED50u);
    cr_assert_eq(get(z, C_VERSION, 2), 1);
    cr_assert_eq(get(z, C_HSIZE, 2), 16);
    cr_assert_eq(get(z, C_FSIZE, 8), n - 16);
    cr_assert_eq(get(z, E0 + E_KIND, 2), 1);
    cr_assert_eq(get(z, E0 + E_HSIZE, 4), 80);
    cr_assert_eq(get(z, E0 + E_ARCH, 4), 75);
    cr_assert_eq(get(z, E0 + E_FLAGS, 8) & 0xA000, 0x8000, "zstd");
    cr_assert_eq(get(z, E0 + 80, 4), 0xFD2FB528u, "a zstd frame");
    char *ptx = ptx_of("ptx75_zstd.fatbin", 75);
    cr_assert_eq(get(z, E0 + E_USIZE, 8), strlen(ptx) + 1, "text and its NUL");
    free(ptx);
    free(z);
    unsigned char *l = load("ptx75_lz4.fatbin", &n);
    cr_assert_eq(get(l, E0 + E_FLAGS, 8) & 0xA000, 0x2000, "LZ4");
    free(l);
    unsigned char *s = load("ptx75_none.fatbin", &n);
    cr_assert_eq(get(s, E0 + E_FLAGS, 8) & 0xA000, 0, "stored");
    cr_assert_eq(get(s, E0 + E_CSIZE, 4), 0);
    cr_assert_eq(get(s, E0 + E_USIZE, 8), 0);
    free(s);
    unsigned char *d = load("ptx75_debug.fatbin", &n);
    /* -G: the source's name (offset and length at +32, +36) and ptxas's
     * options in a longer header. */
    cr_assert_gt(get(d, E0 + E_HSIZE, 4), 80);
    cr_assert_eq(get(d, E0 + 36, 4), 8);
    cr_assert_eq(memcmp(d + E0 + get(d, E0 + 32, 4), "scale.cu", 8), 0);
    cr_assert_eq(get(d, E0 + E_FLAGS, 8) & 2, 2, "debug flag");
    free(d);
}

Test(sim_fatbin, debug_fatbin)
{
    char *ptx = ptx_of("ptx75_debug.fatbin", 75);
    assert_scale_ptx(ptx, "sm_75, debug");
    cr_assert_not_null(strstr(ptx, ".loc"), "-G PTX has .loc directives");
    free(ptx);
}

/* Toolkits before CUDA 13 wrote PTX entries with a 64-byte header (and
 * LZ4): the LZ4 fixture with its entry's header cut to 64 bytes (the 16
 * bytes past +64 hold only the options record nvcc 13 adds). */
Test(sim_fatbin, older_toolkits_64_byte_ptx_header)
{
    size_t n;
    unsigned char *img = load("ptx75_lz4.fatbin", &n);
    cr_assert_eq(get(img, E0 + E_HSIZE, 4), 80);
    size_t m = n - 16;
    unsigned char *old = malloc(m);
    memcpy(old, img, E0 + 64);
    memcpy(old + E0 + 64, img + E0 + 80, n - (E0 + 80));
    put(old, E0 + E_HSIZE, 4, 64);
    put(old, E0 + 20, 4, 0); /* no options record */
    put(old, C_FSIZE, 8, m - 16);
    char *a, *b, detail[512];
    cr_assert_eq(run(old, m, 75, &a, detail, sizeof detail), SIM_FATBIN_OK, "%s", detail);
    cr_assert_eq(run(img, n, 75, &b, detail, sizeof detail), SIM_FATBIN_OK, "%s", detail);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    free(old);
    free(img);
}

/* PTX text images are copied; with a size, up to it. */
Test(sim_fatbin, ptx_text_image)
{
    char *ref = load_text("scale.ptx");
    char *ptx = ptx_of("scale.ptx", 75);
    cr_assert_str_eq(ptx, ref);
    free(ptx);
    char *t;
    cr_assert_eq(run(ref, 20, 75, &t, NULL, 0), SIM_FATBIN_OK);
    cr_assert_eq(strlen(t), 20);
    free(t);
    free(ref);
}

/* The wrapper __cudaRegisterFatBinary and cuModuleLoadFatBinary get. */
Test(sim_fatbin, wrapper)
{
    size_t n;
    unsigned char *img = load("ptx75_zstd.fatbin", &n);
    struct {
        int magic, version;
        const void *data;
        void *name;
    } w = { 0x466243B1, 1, img, NULL };
    char *a, *b, detail[512];
    cr_assert_eq(run(&w, 0, 75, &a, detail, sizeof detail), SIM_FATBIN_OK, "%s", detail);
    cr_assert_eq(run(&w, sizeof w, 75, &b, detail, sizeof detail), SIM_FATBIN_OK, "%s", detail);
    cr_assert_str_eq(a, b);
    assert_scale_ptx(a, "sm_75");
    free(a);
    free(b);
    w.version = 2;
    cr_assert_eq(run(&w, sizeof w, 75, NULL, detail, sizeof detail), SIM_FATBIN_OK, "%s", detail);
    w.version = 3;
    cr_assert_eq(run(&w, sizeof w, 75, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_IMAGE);
    cr_assert_not_null(strstr(detail, "version 3"), "%s", detail);
    w.version = 1;
    cr_assert_eq(run(&w, 23, 75, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_IMAGE);
    w.data = NULL;
    cr_assert_eq(run(&w, 0, 75, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_IMAGE);
    cr_assert_not_null(strstr(detail, "NULL"), "%s", detail);
    w.data = "not a container";
    cr_assert_eq(run(&w, 0, 75, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_IMAGE);
    free(img);
}

/* ---- the choice of entry ----------------------------------------------- */

Test(sim_fatbin, newest_ptx_at_or_below_the_device)
{
    static const struct {
        int cc;
        const char *target;
    } cases[] = { { 75, "sm_75" }, { 80, "sm_75" }, { 86, "sm_86" }, { 87, "sm_86" },
                  { 89, "sm_86" }, { 90, "sm_90" }, { 100, "sm_90" }, { 120, "sm_90" } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *ptx = ptx_of("ptx_multi.fatbin", cases[i].cc);
        assert_scale_ptx(ptx, cases[i].target);
        free(ptx);
    }
    char detail[512];
    cr_assert_eq(refusal("ptx_multi.fatbin", 70, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "PTX only for architectures a device of compute capability 7.0 cannot run"),
                       "%s", detail);
    cr_assert_not_null(strstr(detail, "PTX compute_75, PTX compute_86, PTX compute_90"), "%s", detail);
    cr_assert_not_null(strstr(detail, "-gencode arch=compute_70,code=compute_70"), "%s", detail);
}

Test(sim_fatbin, arch_and_family_specific_ptx)
{
    char *ptx = ptx_of("ptx90a.fatbin", 90);
    assert_scale_ptx(ptx, "sm_90a");
    free(ptx);
    char detail[512];
    cr_assert_eq(refusal("ptx90a.fatbin", 100, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "PTX compute_90a"), "%s", detail);
    cr_assert_eq(refusal("ptx90a.fatbin", 89, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);

    ptx = ptx_of("ptx100f.fatbin", 100);
    assert_scale_ptx(ptx, "sm_100f");
    free(ptx);
    ptx = ptx_of("ptx100f.fatbin", 103);
    assert_scale_ptx(ptx, "sm_100f");
    free(ptx);
    cr_assert_eq(refusal("ptx100f.fatbin", 110, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "PTX compute_100f"), "%s", detail);
    cr_assert_eq(refusal("ptx100f.fatbin", 90, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
}

/* At equal architecture, the plain entry wins over the arch-specific one:
 * a container of compute_90a then compute_90, spliced from the fixtures. */
Test(sim_fatbin, plain_before_arch_specific)
{
    size_t na, nm;
    unsigned char *a = load("ptx90a.fatbin", &na);
    unsigned char *m = load("ptx_multi.fatbin", &nm);
    /* ptx_multi's third entry is compute_90: find it by walking. */
    size_t off = E0, e90 = 0;
    while (off < nm) {
        if (get(m, off + E_ARCH, 4) == 90)
            e90 = off;
        off += get(m, off + E_HSIZE, 4) + get(m, off + E_PSIZE, 8);
    }
    cr_assert_neq(e90, 0);
    size_t len90 = nm - e90, n = na + len90;
    unsigned char *c = malloc(n);
    memcpy(c, a, na);
    memcpy(c + na, m + e90, len90);
    put(c, C_FSIZE, 8, n - 16);
    char *ptx, detail[512];
    cr_assert_eq(run(c, n, 90, &ptx, detail, sizeof detail), SIM_FATBIN_OK, "%s", detail);
    assert_scale_ptx(ptx, "sm_90");
    free(ptx);
    free(c);
    free(a);
    free(m);
}

/* ---- machine code only ------------------------------------------------- */

Test(sim_fatbin, sass_only_is_no_binary_for_gpu)
{
    char detail[512];
    cr_assert_eq(refusal("sass75.cubin", 75, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "cubin: SASS for sm_75, no PTX"), "%s", detail);
    cr_assert_not_null(strstr(detail, "-gencode arch=compute_75,code=compute_75"), "%s", detail);

    cr_assert_eq(refusal("sass_multi.fatbin", 86, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "fatbin holds no PTX (SASS sm_75, SASS sm_86)"), "%s", detail);
    cr_assert_not_null(strstr(detail, "-gencode arch=compute_86,code=compute_86"), "%s", detail);

    cr_assert_eq(refusal("sass75_zstd.fatbin", 75, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "SASS sm_75"), "%s", detail);

    cr_assert_eq(refusal("lto75.fatbin", 75, detail, sizeof detail), SIM_FATBIN_NO_BINARY_FOR_GPU);
    cr_assert_not_null(strstr(detail, "LTO-IR lto_75"), "%s", detail);
}

Test(sim_fatbin, simulator_modules_are_not_ptx)
{
    char detail[256];
    cr_assert_eq(run("gg-sim-module:/x.so", 0, 75, NULL, detail, sizeof detail), SIM_FATBIN_NOT_PTX);
    unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    put(elf, 16, 2, 3);
    put(elf, 18, 2, 62);
    cr_assert_eq(run(elf, sizeof elf, 75, NULL, detail, sizeof detail), SIM_FATBIN_NOT_PTX);
    cr_assert_not_null(strstr(detail, "shared object"), "%s", detail);
}

Test(sim_fatbin, invalid_values)
{
    size_t n;
    unsigned char *img = load("ptx75_zstd.fatbin", &n);
    char *t = (char *)1, detail[128];
    size_t len = 7;
    cr_assert_eq(sim_fatbin_find_ptx(NULL, 0, 75, &t, &len, detail, sizeof detail), SIM_FATBIN_INVALID_VALUE);
    cr_assert_null(t);
    cr_assert_eq(len, 0);
    cr_assert_eq(sim_fatbin_find_ptx(img, n, 75, NULL, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_VALUE);
    for (int cc = -1; cc <= 1000; cc += 1001)
        cr_assert_eq(run(img, n, cc, NULL, NULL, 0), SIM_FATBIN_INVALID_VALUE);
    cr_assert_eq(run(img, n, 9, NULL, NULL, 0), SIM_FATBIN_INVALID_VALUE);
    cr_assert_eq(run(img, n, 10, NULL, NULL, 0), SIM_FATBIN_NO_BINARY_FOR_GPU);
    /* No detail buffer, or one byte of it. */
    cr_assert_eq(sim_fatbin_find_ptx(img, n, 75, &t, NULL, NULL, 0), SIM_FATBIN_OK);
    free(t);
    cr_assert_eq(sim_fatbin_find_ptx(img, 10, 75, &t, NULL, detail, 1), SIM_FATBIN_INVALID_IMAGE);
    cr_assert(detail[0] == '\0', "one byte of detail: %s", detail);
    free(img);
}

/* ---- malformed containers ---------------------------------------------- */

/* Every prefix of every container, its size given: refused, never read
 * past (the copies are exactly as long as the prefix). */
Test(sim_fatbin, every_truncation_is_refused)
{
    static const char *files[] = { "ptx75_zstd.fatbin", "ptx75_lz4.fatbin", "ptx75_none.fatbin", "ptx75_debug.fatbin",
                                   "ptx_multi.fatbin",  "sass75_ptx75.fatbin", "sass_multi.fatbin", "lto75.fatbin" };
    size_t calls = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n;
        unsigned char *img = load(files[f], &n);
        for (size_t k = 4; k < n; k++) {
            unsigned char *p = dup_exact(img, k);
            char detail[512];
            sim_fatbin_status st = run(p, k, 75, NULL, detail, sizeof detail);
            cr_assert_eq(st, SIM_FATBIN_INVALID_IMAGE, "%s cut to %zu: %s (%s)", files[f], k,
                         sim_fatbin_status_name(st), detail);
            calls++;
            free(p);
        }
        free(img);
    }
    size_t n;
    unsigned char *cubin = load("sass75.cubin", &n);
    for (size_t k = 4; k < 64; k++) {
        unsigned char *p = dup_exact(cubin, k);
        cr_assert_eq(run(p, k, 75, NULL, NULL, 0), SIM_FATBIN_INVALID_IMAGE, "cubin cut to %zu", k);
        free(p);
    }
    free(cubin);
    cr_log_info("%zu truncated containers refused", calls);
}

/* One header field set to a value, and what must come of it. */
typedef struct {
    const char *file;
    size_t at; /* from the container's start */
    int bytes;
    int64_t delta; /* added to the field, unless set */
    int set;
    uint64_t value;
    sim_fatbin_status want;
    const char *says; /* in the detail */
    int grows;        /* claims more than the image: only with its size given */
} field_case;

static void check_field(const field_case *fc)
{
    size_t n;
    unsigned char *img = load(fc->file, &n);
    uint64_t v = fc->set ? fc->value : get(img, fc->at, fc->bytes) + (uint64_t)fc->delta;
    put(img, fc->at, fc->bytes, v);
    char detail[512];
    sim_fatbin_status st = run(img, n, 75, NULL, detail, sizeof detail);
    cr_assert_eq(st, fc->want, "%s, field at %zu = %llu: %s (%s)", fc->file, fc->at, (unsigned long long)v,
                 sim_fatbin_status_name(st), detail);
    if (fc->says)
        cr_assert_not_null(strstr(detail, fc->says), "%s, field at %zu: detail \"%s\" lacks \"%s\"", fc->file, fc->at,
                           detail, fc->says);
    if (!fc->grows) {
        char other[512];
        cr_assert_eq(run(img, 0, 75, NULL, other, sizeof other), st, "%s, field at %zu, size unknown: %s", fc->file,
                     fc->at, other);
    }
    free(img);
}

#define INV SIM_FATBIN_INVALID_IMAGE
Test(sim_fatbin, every_header_field_corrupted)
{
    const char *z = "ptx75_zstd.fatbin", *l = "ptx75_lz4.fatbin", *s = "ptx75_none.fatbin";
    const field_case cases[] = {
        /* the container */
        { z, 0, 4, 1, 0, 0, INV, "neither PTX", 0 },
        { z, C_VERSION, 2, 1, 0, 0, INV, "container version 2 at offset 4", 0 },
        { z, C_HSIZE, 2, -1, 0, 0, INV, "header size 15 at offset 6", 0 },
        { z, C_HSIZE, 2, 1, 0, 0, INV, "container claims 449 bytes", 1 },
        { z, C_HSIZE, 2, 0, 1, 0xffff, INV, "container claims", 1 },
        { z, C_FSIZE, 8, 1, 0, 0, INV, "container claims 449 bytes (header 16 + entries 433, offsets 6 and 8), the "
                                       "image has 448", 1 },
        { z, C_FSIZE, 8, -1, 0, 0, INV, "payload size 352 (offset 24) runs past", 0 },
        { z, C_FSIZE, 8, 0, 1, UINT64_MAX, INV, "at most", 0 },
        { z, C_FSIZE, 8, 0, 1, 1ull << 30, INV, "at most", 0 },
        { z, C_FSIZE, 8, 0, 1, 0, SIM_FATBIN_NO_BINARY_FOR_GPU, "no entries", 0 },
        { z, C_FSIZE, 8, 0, 1, 63, INV, "too few for an entry header", 0 },
        /* the entry's sizes */
        { z, E0 + E_HSIZE, 4, 0, 1, 63, INV, "header size 63 (offset 20)", 0 },
        { z, E0 + E_HSIZE, 4, 0, 1, 433, INV, "header size 433", 0 },
        { z, E0 + E_HSIZE, 4, 0, 1, UINT32_MAX, INV, "header size", 0 },
        { z, E0 + E_HSIZE, 4, 8, 0, 0, INV, "runs past", 0 },
        { z, E0 + E_PSIZE, 8, 1, 0, 0, INV, "payload size 353 (offset 24) runs past the container's end (352 bytes", 0 },
        { z, E0 + E_PSIZE, 8, 0, 1, UINT64_MAX, INV, "runs past", 0 },
        { z, E0 + E_PSIZE, 8, -8, 0, 0, INV, NULL, 0 },
        { z, E0 + E_CSIZE, 4, 1, 0, 0, INV, "compressed size 353 (offset 32) is not within its payload of 352", 0 },
        { z, E0 + E_CSIZE, 4, 0, 1, 0, INV, "compressed size 0", 0 },
        { z, E0 + E_CSIZE, 4, -1, 0, 0, INV, "zstd", 0 },
        { z, E0 + E_USIZE, 8, 1, 0, 0, INV, "its zstd frame holds 668 bytes, the entry's uncompressed size (offset "
                                            "72) says 669", 0 },
        { z, E0 + E_USIZE, 8, -1, 0, 0, INV, "says 667", 0 },
        { z, E0 + E_USIZE, 8, 0, 1, 0, INV, "uncompressed size 0", 0 },
        { z, E0 + E_USIZE, 8, 0, 1, UINT64_MAX, INV, "not between 1 and", 0 },
        { l, E0 + E_CSIZE, 4, 0, 1, 449, INV, "not within its payload", 0 },
        { l, E0 + E_CSIZE, 4, -1, 0, 0, INV, "LZ4", 0 },
        { l, E0 + E_USIZE, 8, 1, 0, 0, INV, "decompressed to 668 bytes, its uncompressed size (offset 72) says 669", 0 },
        { l, E0 + E_USIZE, 8, -1, 0, 0, INV, "LZ4", 0 },
        { l, E0 + E_USIZE, 8, 0, 1, 1u << 20, INV, "cannot hold", 0 },
        { s, E0 + E_PSIZE, 8, 1, 0, 0, INV, "runs past", 0 },
        { s, E0 + E_PSIZE, 8, 0, 1, 0, INV, NULL, 0 },
        /* flags, kind, architecture */
        { z, E0 + E_FLAGS, 8, 0x2000, 0, 0, INV, "both LZ4 and zstd", 0 },
        { z, E0 + E_FLAGS, 8, 0x2000 - 0x8000, 0, 0, INV, "LZ4", 0 },
        { l, E0 + E_FLAGS, 8, 0x8000 - 0x2000, 0, 0, INV, "not a zstd frame", 0 },
        { z, E0 + E_KIND, 2, 1, 0, 0, SIM_FATBIN_NO_BINARY_FOR_GPU, "SASS sm_75", 0 },
        { z, E0 + E_KIND, 2, 0, 1, 77, SIM_FATBIN_NO_BINARY_FOR_GPU, "kind 77", 0 },
        { z, E0 + E_ARCH, 4, 1, 0, 0, SIM_FATBIN_NO_BINARY_FOR_GPU, "compute_76", 0 },
        { z, E0 + E_ARCH, 4, 0, 1, UINT32_MAX, SIM_FATBIN_NO_BINARY_FOR_GPU, NULL, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_field(&cases[i]);
}

/* Padding after the last entry: zeros shorter than an entry header are
 * accepted, anything else is not. */
Test(sim_fatbin, trailing_bytes)
{
    size_t n;
    unsigned char *img = load("ptx75_zstd.fatbin", &n);
    unsigned char *p = calloc(1, n + 8);
    memcpy(p, img, n);
    put(p, C_FSIZE, 8, n + 8 - 16);
    cr_assert_eq(run(p, n + 8, 75, NULL, NULL, 0), SIM_FATBIN_OK);
    p[n + 3] = 1;
    char detail[256];
    cr_assert_eq(run(p, n + 8, 75, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_IMAGE);
    cr_assert_not_null(strstr(detail, "8 bytes at offset 448"), "%s", detail);
    /* Bytes after the container, outside what its header claims: not read. */
    memcpy(p, img, n);
    cr_assert_eq(run(p, n + 8, 75, NULL, NULL, 0), SIM_FATBIN_OK);
    free(p);
    free(img);
}

/* Only the chosen entry is decompressed: a broken compute_90 entry does not
 * stop a 7.5 device, and does stop a 9.0 one. */
Test(sim_fatbin, only_the_chosen_entry_is_decompressed)
{
    size_t n;
    unsigned char *img = load("ptx_multi.fatbin", &n);
    size_t e90 = 16 + 2 * (80 + 352);
    cr_assert_eq(get(img, e90 + E_ARCH, 4), 90);
    put(img, e90 + 80, 4, 0);
    cr_assert_eq(run(img, n, 75, NULL, NULL, 0), SIM_FATBIN_OK);
    char detail[256];
    cr_assert_eq(run(img, n, 90, NULL, detail, sizeof detail), SIM_FATBIN_INVALID_IMAGE);
    cr_assert_not_null(strstr(detail, "offset 880"), "%s", detail);
    free(img);
}

/* Every byte of every container changed four ways, its size given: any
 * answer the contract allows, never a crash or a read out of bounds. */
Test(sim_fatbin, every_byte_corrupted)
{
    static const char *files[] = { "ptx75_zstd.fatbin", "ptx75_lz4.fatbin", "ptx75_none.fatbin",
                                   "ptx75_debug.fatbin", "ptx_multi.fatbin", "sass75_zstd.fatbin" };
    size_t counts[SIM_FATBIN_OUT_OF_MEMORY + 1] = { 0 };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n;
        unsigned char *img = load(files[f], &n);
        for (size_t i = 0; i < n; i++) {
            const unsigned char orig = img[i];
            const unsigned char vals[4] = { (unsigned char)(orig ^ 0xff), 0, 0xff, (unsigned char)(orig + 1) };
            for (int k = 0; k < 4; k++) {
                if (vals[k] == orig)
                    continue;
                img[i] = vals[k];
                counts[run(img, n, 75, NULL, NULL, 0)]++;
            }
            img[i] = orig;
        }
        free(img);
    }
    cr_log_info("corrupted bytes: %zu OK, %zu no binary, %zu invalid image", counts[SIM_FATBIN_OK],
                counts[SIM_FATBIN_NO_BINARY_FOR_GPU], counts[SIM_FATBIN_INVALID_IMAGE]);
    cr_assert_eq(counts[SIM_FATBIN_OUT_OF_MEMORY], 0);
    cr_assert_eq(counts[SIM_FATBIN_INVALID_VALUE], 0);
    cr_assert_gt(counts[SIM_FATBIN_INVALID_IMAGE], 0);
}

/* ---- allocation failures ----------------------------------------------- */

/* The N-th allocation failing (GPUGUARD_SIM_FAIL_HOST_ALLOC, in a child
 * each: the count is per process) gives SIM_FATBIN_OUT_OF_MEMORY and
 * leaks nothing; past the last allocation, success. */
Test(sim_fatbin, allocation_failures)
{
    static const char *files[] = { "ptx75_zstd.fatbin", "ptx75_lz4.fatbin", "ptx75_none.fatbin", "scale.ptx" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n;
        unsigned char *img = load(files[f], &n);
        int oom = 0, ok = 0;
        for (int at = 1; at <= 8 && !ok; at++) {
            pid_t pid = fork();
            cr_assert_neq(pid, -1);
            if (pid == 0) {
                char v[16];
                snprintf(v, sizeof v, "%d", at);
                setenv("GPUGUARD_SIM_FAIL_HOST_ALLOC", v, 1);
                char *t = NULL, detail[256];
                sim_fatbin_status st = sim_fatbin_find_ptx(img, n, 75, &t, NULL, detail, sizeof detail);
                free(t);
                _exit((int)st);
            }
            int status;
            cr_assert_eq(waitpid(pid, &status, 0), pid);
            cr_assert(WIFEXITED(status), "%s, allocation %d failing: child died", files[f], at);
            int st = WEXITSTATUS(status);
            cr_assert(st == SIM_FATBIN_OK || st == SIM_FATBIN_OUT_OF_MEMORY, "%s, allocation %d failing: %d",
                      files[f], at, st);
            oom += st == SIM_FATBIN_OUT_OF_MEMORY;
            ok = st == SIM_FATBIN_OK;
        }
        cr_assert(ok && oom > 0, "%s: %d refusals, then %s", files[f], oom, ok ? "success" : "no success");
        free(img);
    }
}
