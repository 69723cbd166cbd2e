/*
 * Module images nvcc writes: classification, and the PTX inside a fatbin
 * (see ptx_fatbin.h for the layout and the contract). Every read goes
 * through a bounds check against the size the image's own headers claim
 * (and the caller's size, when it gave one); integers are read byte by
 * byte, so neither alignment nor the host's byte order matters.
 */
#include "ptx_fatbin.h"

#include "../core/sim_alloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GG_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef GG_HAVE_ZSTD
#include <zstd.h>
#endif

#define WRAPPER_MAGIC 0x466243B1u
#define WRAPPER_SIZE 24u /* int, int, two pointers (LP64) */
#define CONTAINER_MAGIC 0xBA55ED50u
#define CONTAINER_HEADER_MIN 16u
#define ENTRY_HEADER_MIN 64u
#define ELF_HEADER_SIZE 64u /* Elf64_Ehdr; a 32-bit header is shorter */
#define EM_CUDA_MACHINE 190u
#define SIM_MODULE_PREFIX "gg-sim-module:"

#define KIND_PTX 1u
#define KIND_ELF 2u
#define KIND_LTO 8u

#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define FLAG_ARCH_SPECIFIC 0x100000u
#define FLAG_FAMILY_SPECIFIC 0x200000u

/* How many entries the "what it holds" part of a message names. */
#define LISTED_MAX 16

static const unsigned char ELF_MAGIC[4] = { 0x7f, 'E', 'L', 'F' };

static uint32_t rd16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Whether the image starts with the n bytes of magic. Byte by byte, and
 * stopping at the first mismatch: a shorter NUL-terminated text of unknown
 * size differs at its NUL at the latest, so nothing past it is read. */
static bool has_magic(const unsigned char *p, size_t known, const unsigned char *magic, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (known && i >= known)
            return false;
        if (p[i] != magic[i])
            return false;
    }
    return true;
}

static bool has_magic32(const unsigned char *p, size_t known, uint32_t magic)
{
    const unsigned char m[4] = { (unsigned char)magic, (unsigned char)(magic >> 8), (unsigned char)(magic >> 16),
                                 (unsigned char)(magic >> 24) };
    return has_magic(p, known, m, 4);
}

/* Whether byte i is inside the image: within known (if known), else before
 * a NUL (the text's end; the NUL itself is not part of the text). */
static bool text_byte(const unsigned char *p, size_t known, size_t i)
{
    return (known == 0 || i < known) && p[i] != '\0';
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The text's length: up to its NUL, or known bytes. */
static size_t text_length(const unsigned char *p, size_t known)
{
    if (known) {
        const unsigned char *nul = memchr(p, '\0', known);
        return nul ? (size_t)(nul - p) : known;
    }
    return strlen((const char *)p);
}

/* PTX starts with .version (the ISA requires it first), after white space
 * and comments. */
static bool starts_like_ptx(const unsigned char *p, size_t known)
{
    size_t i = 0;
    for (;;) {
        while (text_byte(p, known, i) && is_space(p[i]))
            i++;
        if (!text_byte(p, known, i))
            return false;
        if (p[i] == '/' && text_byte(p, known, i + 1) && p[i + 1] == '/') {
            while (text_byte(p, known, i) && p[i] != '\n')
                i++;
        } else if (p[i] == '/' && text_byte(p, known, i + 1) && p[i + 1] == '*') {
            i += 2;
            while (text_byte(p, known, i) && !(p[i] == '*' && text_byte(p, known, i + 1) && p[i + 1] == '/'))
                i++;
            if (!text_byte(p, known, i))
                return false;
            i += 2;
        } else {
            break;
        }
    }
    static const char version[] = ".version";
    for (size_t k = 0; k < sizeof version - 1; k++)
        if (!text_byte(p, known, i + k) || p[i + k] != (unsigned char)version[k])
            return false;
    return true;
}

/* Non-empty printable ASCII and white space, up to its NUL (or known
 * bytes); stops at the first byte that is not. ASCII only: PTX is ASCII
 * (only comments, which the .version rule skips, might not be), and a
 * binary image's first bytes are seldom all ASCII. */
static bool is_text(const unsigned char *p, size_t known)
{
    size_t i = 0;
    for (; text_byte(p, known, i); i++)
        if ((p[i] < 0x20 && !is_space(p[i])) || p[i] >= 0x7f)
            return false;
    return i > 0;
}

sim_image_kind sim_image_classify(const void *image, size_t known_size)
{
    const unsigned char *p = image;
    if (!p)
        return SIM_IMAGE_UNKNOWN;
    if (has_magic32(p, known_size, WRAPPER_MAGIC))
        return SIM_IMAGE_FATBIN_WRAPPER;
    if (has_magic32(p, known_size, CONTAINER_MAGIC))
        return SIM_IMAGE_FATBIN;
    if (has_magic(p, known_size, ELF_MAGIC, sizeof ELF_MAGIC)) {
        if (known_size && known_size < ELF_HEADER_SIZE)
            return SIM_IMAGE_UNKNOWN;
        /* e_type and e_machine sit at 16 and 18 in both ELF classes; the
         * byte order is the header's own (EI_DATA 2 = big-endian). */
        bool be = p[5] == 2;
        uint32_t type = be ? (uint32_t)p[16] << 8 | p[17] : rd16(p + 16);
        uint32_t machine = be ? (uint32_t)p[18] << 8 | p[19] : rd16(p + 18);
        if (machine == EM_CUDA_MACHINE)
            return SIM_IMAGE_CUBIN;
        if (type == 3 /* ET_DYN */)
            return SIM_IMAGE_SHARED_OBJECT;
        return SIM_IMAGE_UNKNOWN;
    }
    if (has_magic(p, known_size, (const unsigned char *)SIM_MODULE_PREFIX, strlen(SIM_MODULE_PREFIX)))
        return SIM_IMAGE_SIM_MODULE_PATH;
    if (starts_like_ptx(p, known_size) || is_text(p, known_size))
        return SIM_IMAGE_PTX;
    return SIM_IMAGE_UNKNOWN;
}

const char *sim_image_kind_name(sim_image_kind kind)
{
    switch (kind) {
    case SIM_IMAGE_PTX:
        return "PTX text";
    case SIM_IMAGE_FATBIN_WRAPPER:
        return "fatbin wrapper";
    case SIM_IMAGE_FATBIN:
        return "fatbin container";
    case SIM_IMAGE_CUBIN:
        return "cubin (ELF with machine code)";
    case SIM_IMAGE_SHARED_OBJECT:
        return "ELF shared object (simulator kernel module)";
    case SIM_IMAGE_SIM_MODULE_PATH:
        return "simulator kernel module path";
    case SIM_IMAGE_UNKNOWN:
        break;
    }
    return "unknown image";
}

const char *sim_fatbin_status_name(sim_fatbin_status st)
{
    switch (st) {
    case SIM_FATBIN_OK:
        return "SIM_FATBIN_OK";
    case SIM_FATBIN_NOT_PTX:
        return "SIM_FATBIN_NOT_PTX";
    case SIM_FATBIN_NO_BINARY_FOR_GPU:
        return "SIM_FATBIN_NO_BINARY_FOR_GPU";
    case SIM_FATBIN_INVALID_IMAGE:
        return "SIM_FATBIN_INVALID_IMAGE";
    case SIM_FATBIN_INVALID_VALUE:
        return "SIM_FATBIN_INVALID_VALUE";
    case SIM_FATBIN_OUT_OF_MEMORY:
        return "SIM_FATBIN_OUT_OF_MEMORY";
    }
    return "SIM_FATBIN_(unknown)";
}

/* ---- messages ---------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t size;
    size_t len; /* what was written, truncation aside */
} msg;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void msg_add(msg *m, const char *fmt, ...)
{
    if (!m->buf || m->size == 0)
        return;
    size_t at = m->len < m->size ? m->len : m->size - 1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->buf + at, m->size - at, fmt, ap);
    va_end(ap);
    if (n > 0)
        m->len = at + (size_t)n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static sim_fatbin_status fail(msg *m, sim_fatbin_status st, const char *fmt, ...)
{
    if (m->buf && m->size) {
        m->len = 0;
        m->buf[0] = '\0';
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(m->buf, m->size, fmt, ap);
        va_end(ap);
        if (n > 0)
            m->len = (size_t)n;
    }
    return st;
}

/* ---- fatbin entries ---------------------------------------------------- */

typedef struct {
    uint32_t kind;
    uint32_t arch;
    uint64_t flags;
    uint64_t offset; /* of the entry's header, from the container's start */
    uint32_t header_size;
    uint64_t payload_size;
} entry;

/* "compute_90a", "sm_75", "lto_75", "kind 4 for 75". */
static void entry_name(msg *m, const entry *e)
{
    const char *suffix = (e->flags & FLAG_ARCH_SPECIFIC) ? "a" : (e->flags & FLAG_FAMILY_SPECIFIC) ? "f" : "";
    switch (e->kind) {
    case KIND_PTX:
        msg_add(m, "PTX compute_%u%s", (unsigned)e->arch, suffix);
        break;
    case KIND_ELF:
        msg_add(m, "SASS sm_%u%s", (unsigned)e->arch, suffix);
        break;
    case KIND_LTO:
        msg_add(m, "LTO-IR lto_%u%s", (unsigned)e->arch, suffix);
        break;
    default:
        msg_add(m, "an entry of kind %u for %u", (unsigned)e->kind, (unsigned)e->arch);
        break;
    }
}

/* Whether a device of compute capability cc runs PTX entry e; see the
 * header for the a/f rules. */
static bool ptx_usable(const entry *e, unsigned cc)
{
    if (e->flags & FLAG_ARCH_SPECIFIC)
        return e->arch == cc;
    if (e->flags & FLAG_FAMILY_SPECIFIC)
        return e->arch / 10 == cc / 10 && e->arch <= cc;
    return e->arch <= cc;
}

/* Preference at equal architecture: plain, then family, then arch-specific
 * (the most portable PTX is the likeliest to use only what the interpreter
 * knows). */
static int specificity(const entry *e)
{
    return (e->flags & FLAG_ARCH_SPECIFIC) ? 2 : (e->flags & FLAG_FAMILY_SPECIFIC) ? 1 : 0;
}

static bool better(const entry *a, const entry *best)
{
    if (a->arch != best->arch)
        return a->arch > best->arch;
    return specificity(a) < specificity(best);
}

/* ---- decompression ----------------------------------------------------- */

#ifdef GG_HAVE_ZSTD
/* zstd, streaming into a buffer that grows with what actually comes out, so
 * that a header claiming a large size costs nothing until data backs it.
 * *out gets usize + 1 bytes (room for a NUL). */
static sim_fatbin_status unzstd(msg *m, const unsigned char *src, size_t csize, size_t usize, uint64_t at,
                                unsigned char **out)
{
    /* The frame's own content size, when its header has one, must agree. */
    unsigned long long fcs = ZSTD_getFrameContentSize(src, csize);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
        return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: PTX entry at offset %llu: not a zstd frame",
                    (unsigned long long)at);
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usize)
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: PTX entry at offset %llu: its zstd frame holds %llu bytes, the entry's "
                    "uncompressed size (offset %llu) says %zu",
                    (unsigned long long)at, fcs, (unsigned long long)at + 56, usize);
    size_t cap = usize < 65536 ? usize + 1 : 65536;
    unsigned char *buf = sim_malloc(cap);
    if (!buf)
        return fail(m, SIM_FATBIN_OUT_OF_MEMORY, "fatbin: out of memory for %zu bytes of PTX", usize);
    /* zstd allocates its context itself: one allocation of another library,
     * counted at the simulator's fault point. */
    ZSTD_DStream *z = sim_alloc_fault_point() ? NULL : ZSTD_createDStream();
    if (!z) {
        free(buf);
        return fail(m, SIM_FATBIN_OUT_OF_MEMORY, "fatbin: out of memory for a zstd context");
    }
    ZSTD_inBuffer in = { src, csize, 0 };
    ZSTD_outBuffer o = { buf, cap, 0 };
    size_t ret = 1;
    sim_fatbin_status st = SIM_FATBIN_OK;
    for (;;) {
        size_t in_before = in.pos, out_before = o.pos;
        ret = ZSTD_decompressStream(z, &o, &in);
        if (ZSTD_isError(ret)) {
            st = fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: PTX entry at offset %llu: zstd: %s",
                      (unsigned long long)at, ZSTD_getErrorName(ret));
            break;
        }
        if (o.pos > usize) {
            st = fail(m, SIM_FATBIN_INVALID_IMAGE,
                      "fatbin: PTX entry at offset %llu: decompresses to more than the %zu bytes its "
                      "uncompressed size (offset %llu) says",
                      (unsigned long long)at, usize, (unsigned long long)at + 56);
            break;
        }
        if (in.pos == in.size && (ret == 0 || o.pos < o.size))
            break; /* all input consumed, and all output flushed or no more to come */
        if (in.pos == in_before && o.pos == out_before && o.pos < o.size) {
            /* No progress with room to spare: never loop on it. */
            st = fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: PTX entry at offset %llu: zstd makes no progress",
                      (unsigned long long)at);
            break;
        }
        if (o.pos == o.size) {
            /* Full: grow, up to usize + 1 (one more byte than allowed shows
             * a payload that decompresses to too much). */
            size_t ncap = o.size > (usize + 1) / 2 ? usize + 1 : o.size * 2;
            unsigned char *nbuf = sim_realloc(buf, ncap);
            if (!nbuf) {
                st = fail(m, SIM_FATBIN_OUT_OF_MEMORY, "fatbin: out of memory for %zu bytes of PTX", usize);
                break;
            }
            buf = nbuf;
            o.dst = buf;
            o.size = ncap;
        }
    }
    ZSTD_freeDStream(z);
    if (st == SIM_FATBIN_OK && ret != 0)
        st = fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: PTX entry at offset %llu: zstd frame ends early",
                  (unsigned long long)at);
    if (st == SIM_FATBIN_OK && o.pos != usize)
        st = fail(m, SIM_FATBIN_INVALID_IMAGE,
                  "fatbin: PTX entry at offset %llu: decompressed to %zu bytes, its uncompressed size "
                  "(offset %llu) says %zu",
                  (unsigned long long)at, o.pos, (unsigned long long)at + 56, usize);
    if (st != SIM_FATBIN_OK) {
        free(buf);
        return st;
    }
    if (o.size < usize + 1) {
        unsigned char *nbuf = sim_realloc(buf, usize + 1);
        if (!nbuf) {
            free(buf);
            return fail(m, SIM_FATBIN_OUT_OF_MEMORY, "fatbin: out of memory for %zu bytes of PTX", usize);
        }
        buf = nbuf;
    }
    *out = buf;
    return SIM_FATBIN_OK;
}
#else
static sim_fatbin_status unzstd(msg *m, const unsigned char *src, size_t csize, size_t usize, uint64_t at,
                                unsigned char **out)
{
    (void)src, (void)csize, (void)usize, (void)out;
    return fail(m, SIM_FATBIN_INVALID_IMAGE,
                "fatbin: PTX entry at offset %llu is zstd-compressed and this simulator was built without "
                "libzstd (Debian libzstd-dev)",
                (unsigned long long)at);
}
#endif

#ifdef GG_HAVE_LZ4
/* An LZ4 block (no frame: the entry's sizes are its only framing). An LZ4
 * sequence turns each input byte into at most 255 output bytes, so a size
 * beyond that is refused before anything is allocated. */
static sim_fatbin_status unlz4(msg *m, const unsigned char *src, size_t csize, size_t usize, uint64_t at,
                               unsigned char **out)
{
    if ((uint64_t)usize > (uint64_t)csize * 256 + 64)
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: PTX entry at offset %llu: %zu compressed bytes cannot hold the %zu bytes its "
                    "uncompressed size (offset %llu) says",
                    (unsigned long long)at, csize, usize, (unsigned long long)at + 56);
    unsigned char *buf = sim_malloc(usize + 1);
    if (!buf)
        return fail(m, SIM_FATBIN_OUT_OF_MEMORY, "fatbin: out of memory for %zu bytes of PTX", usize);
    int n = LZ4_decompress_safe((const char *)src, (char *)buf, (int)csize, (int)usize);
    if (n < 0 || (size_t)n != usize) {
        free(buf);
        if (n < 0)
            return fail(m, SIM_FATBIN_INVALID_IMAGE,
                        "fatbin: PTX entry at offset %llu: not an LZ4 block of %zu bytes that decompresses "
                        "to at most %zu (its uncompressed size, offset %llu)",
                        (unsigned long long)at, csize, usize, (unsigned long long)at + 56);
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: PTX entry at offset %llu: decompressed to %d bytes, its uncompressed size "
                    "(offset %llu) says %zu",
                    (unsigned long long)at, n, (unsigned long long)at + 56, usize);
    }
    *out = buf;
    return SIM_FATBIN_OK;
}
#else
static sim_fatbin_status unlz4(msg *m, const unsigned char *src, size_t csize, size_t usize, uint64_t at,
                               unsigned char **out)
{
    (void)src, (void)csize, (void)usize, (void)out;
    return fail(m, SIM_FATBIN_INVALID_IMAGE,
                "fatbin: PTX entry at offset %llu is LZ4-compressed and this simulator was built without "
                "liblz4 (Debian liblz4-dev)",
                (unsigned long long)at);
}
#endif

/* The chosen entry's PTX as a NUL-terminated copy. */
static sim_fatbin_status entry_ptx(msg *m, const unsigned char *c, const entry *e, char **text, size_t *len)
{
    const unsigned char *h = c + e->offset;
    const unsigned char *payload = h + e->header_size;
    uint64_t at = e->offset;
    uint64_t comp = e->flags & (FLAG_LZ4 | FLAG_ZSTD);
    if (comp == (FLAG_LZ4 | FLAG_ZSTD))
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: PTX entry at offset %llu: flags (offset %llu) say both LZ4 and zstd",
                    (unsigned long long)at, (unsigned long long)at + 40);
    if (comp == 0) {
        /* Stored: NUL-terminated text, padded. */
        size_t n = e->payload_size ? text_length(payload, (size_t)e->payload_size) : 0;
        if (n == 0)
            return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: PTX entry at offset %llu is empty",
                        (unsigned long long)at);
        char *s = sim_malloc(n + 1);
        if (!s)
            return fail(m, SIM_FATBIN_OUT_OF_MEMORY, "fatbin: out of memory for %zu bytes of PTX", n);
        memcpy(s, payload, n);
        s[n] = '\0';
        *text = s;
        *len = n;
        return SIM_FATBIN_OK;
    }
    uint64_t csize = rd32(h + 16);
    uint64_t usize = rd64(h + 56);
    if (csize == 0 || csize > e->payload_size)
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: PTX entry at offset %llu: compressed size %llu (offset %llu) is not within its "
                    "payload of %llu bytes",
                    (unsigned long long)at, (unsigned long long)csize, (unsigned long long)at + 16,
                    (unsigned long long)e->payload_size);
    if (usize == 0 || usize > SIM_FATBIN_MAX_PTX_BYTES)
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: PTX entry at offset %llu: uncompressed size %llu (offset %llu) is not between 1 "
                    "and %u",
                    (unsigned long long)at, (unsigned long long)usize, (unsigned long long)at + 56,
                    SIM_FATBIN_MAX_PTX_BYTES);
    unsigned char *buf = NULL;
    sim_fatbin_status st = comp == FLAG_ZSTD ? unzstd(m, payload, (size_t)csize, (size_t)usize, at, &buf)
                                             : unlz4(m, payload, (size_t)csize, (size_t)usize, at, &buf);
    if (st != SIM_FATBIN_OK || !buf)
        return st != SIM_FATBIN_OK ? st : SIM_FATBIN_INVALID_IMAGE;
    buf[usize] = '\0';
    size_t n = strlen((const char *)buf);
    if (n == 0) {
        free(buf);
        return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: PTX entry at offset %llu decompresses to empty text",
                    (unsigned long long)at);
    }
    *text = (char *)buf;
    *len = n;
    return SIM_FATBIN_OK;
}

/* ---- images ------------------------------------------------------------ */

/* What to tell a user whose image has no PTX the device can run. */
static void embed_hint(msg *m, unsigned cc)
{
    msg_add(m,
            "; the simulator runs PTX only: embed PTX for compute_%u or older (nvcc -gencode "
            "arch=compute_%u,code=compute_%u), or load the text of nvcc -ptx",
            cc, cc, cc);
}

/* A container at c; known is its image's size (0: unknown). */
static sim_fatbin_status find_in_container(msg *m, const unsigned char *c, size_t known, unsigned cc, char **text,
                                           size_t *len)
{
    if (known && known < CONTAINER_HEADER_MIN)
        return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: container truncated: %zu bytes, its header is %u",
                    known, CONTAINER_HEADER_MIN);
    if (rd32(c) != CONTAINER_MAGIC)
        return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: no container magic 0x%08X at offset 0 (found 0x%08X)",
                    CONTAINER_MAGIC, (unsigned)rd32(c));
    uint32_t version = rd16(c + 4);
    if (version != 1)
        return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: container version %u at offset 4 (only 1 is known)",
                    (unsigned)version);
    uint32_t hsize = rd16(c + 6);
    uint64_t fsize = rd64(c + 8);
    if (hsize < CONTAINER_HEADER_MIN)
        return fail(m, SIM_FATBIN_INVALID_IMAGE, "fatbin: container header size %u at offset 6 (at least %u)",
                    (unsigned)hsize, CONTAINER_HEADER_MIN);
    if (fsize > SIM_FATBIN_MAX_CONTAINER_BYTES - hsize)
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: container claims %llu bytes of entries at offset 8 (at most %u accepted)",
                    (unsigned long long)fsize, SIM_FATBIN_MAX_CONTAINER_BYTES - hsize);
    uint64_t total = hsize + fsize;
    if (known && total > known)
        return fail(m, SIM_FATBIN_INVALID_IMAGE,
                    "fatbin: container claims %llu bytes (header %u + entries %llu, offsets 6 and 8), the "
                    "image has %zu",
                    (unsigned long long)total, (unsigned)hsize, (unsigned long long)fsize, known);

    entry listed[LISTED_MAX];
    size_t nentries = 0, nlisted = 0;
    entry best = { 0 };
    bool have_best = false, have_ptx = false;
    for (uint64_t off = hsize; off < total;) {
        uint64_t left = total - off;
        if (left < ENTRY_HEADER_MIN) {
            /* Zeros shorter than an entry header: padding, not an entry. */
            for (uint64_t i = off; i < total; i++)
                if (c[i] != 0)
                    return fail(m, SIM_FATBIN_INVALID_IMAGE,
                                "fatbin: %llu bytes at offset %llu, too few for an entry header (%u)",
                                (unsigned long long)left, (unsigned long long)off, ENTRY_HEADER_MIN);
            break;
        }
        const unsigned char *h = c + off;
        entry e = { .kind = rd16(h), .arch = rd32(h + 28), .flags = rd64(h + 40), .offset = off };
        e.header_size = rd32(h + 4);
        e.payload_size = rd64(h + 8);
        if (e.header_size < ENTRY_HEADER_MIN || e.header_size > left)
            return fail(m, SIM_FATBIN_INVALID_IMAGE,
                        "fatbin: entry at offset %llu: header size %u (offset %llu) is not between %u and the "
                        "%llu bytes left in the container",
                        (unsigned long long)off, (unsigned)e.header_size, (unsigned long long)off + 4,
                        ENTRY_HEADER_MIN, (unsigned long long)left);
        if (e.payload_size > left - e.header_size)
            return fail(m, SIM_FATBIN_INVALID_IMAGE,
                        "fatbin: entry at offset %llu: payload size %llu (offset %llu) runs past the container's "
                        "end (%llu bytes left after the entry's header)",
                        (unsigned long long)off, (unsigned long long)e.payload_size, (unsigned long long)off + 8,
                        (unsigned long long)(left - e.header_size));
        nentries++;
        if (nlisted < LISTED_MAX)
            listed[nlisted++] = e;
        if (e.kind == KIND_PTX) {
            have_ptx = true;
            if (ptx_usable(&e, cc) && (!have_best || better(&e, &best))) {
                best = e;
                have_best = true;
            }
        }
        off += e.header_size + e.payload_size;
    }

    if (have_best)
        return entry_ptx(m, c, &best, text, len);

    /* Nothing to run: say what is there. */
    if (nentries == 0) {
        fail(m, SIM_FATBIN_NO_BINARY_FOR_GPU, "fatbin holds no entries");
    } else if (have_ptx) {
        fail(m, SIM_FATBIN_NO_BINARY_FOR_GPU,
             "fatbin holds PTX only for architectures a device of compute capability %u.%u cannot run (", cc / 10,
             cc % 10);
    } else {
        fail(m, SIM_FATBIN_NO_BINARY_FOR_GPU, "fatbin holds no PTX (");
    }
    if (nentries) {
        for (size_t i = 0; i < nlisted; i++) {
            if (i)
                msg_add(m, ", ");
            entry_name(m, &listed[i]);
        }
        if (nentries > nlisted)
            msg_add(m, " and %zu more", nentries - nlisted);
        msg_add(m, ")");
    }
    embed_hint(m, cc);
    return SIM_FATBIN_NO_BINARY_FOR_GPU;
}

sim_fatbin_status sim_fatbin_find_ptx(const void *image, size_t known_size, int device_cc, char **ptx_text_out,
                                      size_t *ptx_len, char *detail, size_t detail_size)
{
    msg m = { detail, detail ? detail_size : 0, 0 };
    if (m.buf && m.size)
        m.buf[0] = '\0';
    if (ptx_text_out)
        *ptx_text_out = NULL;
    if (ptx_len)
        *ptx_len = 0;
    if (!image || !ptx_text_out)
        return fail(&m, SIM_FATBIN_INVALID_VALUE, "module image: %s is NULL", image ? "the PTX output" : "the image");
    if (device_cc < 10 || device_cc > 999)
        return fail(&m, SIM_FATBIN_INVALID_VALUE, "module image: compute capability %d is not between 10 and 999",
                    device_cc);
    unsigned cc = (unsigned)device_cc;
    const unsigned char *p = image;
    char *text = NULL;
    size_t len = 0;
    sim_fatbin_status st;

    switch (sim_image_classify(image, known_size)) {
    case SIM_IMAGE_PTX: {
        len = text_length(p, known_size);
        text = sim_malloc(len + 1);
        if (!text)
            return fail(&m, SIM_FATBIN_OUT_OF_MEMORY, "module image: out of memory for %zu bytes of PTX", len);
        memcpy(text, p, len);
        text[len] = '\0';
        st = SIM_FATBIN_OK;
        break;
    }
    case SIM_IMAGE_FATBIN:
        st = find_in_container(&m, p, known_size, cc, &text, &len);
        break;
    case SIM_IMAGE_FATBIN_WRAPPER: {
        if (known_size && known_size < WRAPPER_SIZE)
            return fail(&m, SIM_FATBIN_INVALID_IMAGE, "fatbin wrapper truncated: %zu bytes, it has %u", known_size,
                        WRAPPER_SIZE);
        uint32_t version = rd32(p + 4);
        if (version != 1 && version != 2)
            return fail(&m, SIM_FATBIN_INVALID_IMAGE, "fatbin wrapper: version %u at offset 4 (1 or 2 are known)",
                        (unsigned)version);
        const unsigned char *data;
        memcpy(&data, p + 8, sizeof data);
        if (!data)
            return fail(&m, SIM_FATBIN_INVALID_IMAGE, "fatbin wrapper: NULL container pointer at offset 8");
        if (!has_magic32(data, 0, CONTAINER_MAGIC))
            return fail(&m, SIM_FATBIN_INVALID_IMAGE,
                        "fatbin wrapper: what it points to (offset 8) is not a fatbin container");
        st = find_in_container(&m, data, 0, cc, &text, &len);
        break;
    }
    case SIM_IMAGE_CUBIN: {
        /* ELF ABI version 8 (CUDA 13's cubins) keeps the SM in e_flags
         * bits 8-15; other versions are not decoded here. */
        if (p[8] == 8 && p[4] == 2 && p[5] == 1) {
            unsigned sm = (unsigned)(rd32(p + 48) >> 8) & 0xffu;
            fail(&m, SIM_FATBIN_NO_BINARY_FOR_GPU, "module image is a cubin: SASS for sm_%u, no PTX", sm);
        } else {
            fail(&m, SIM_FATBIN_NO_BINARY_FOR_GPU, "module image is a cubin: machine code (SASS), no PTX");
        }
        embed_hint(&m, cc);
        return SIM_FATBIN_NO_BINARY_FOR_GPU;
    }
    case SIM_IMAGE_SHARED_OBJECT:
    case SIM_IMAGE_SIM_MODULE_PATH:
        return fail(&m, SIM_FATBIN_NOT_PTX, "module image is a %s: no PTX in it",
                    sim_image_kind_name(sim_image_classify(image, known_size)));
    case SIM_IMAGE_UNKNOWN:
    default:
        if (has_magic(p, known_size, ELF_MAGIC, sizeof ELF_MAGIC)) {
            if (known_size && known_size < ELF_HEADER_SIZE)
                return fail(&m, SIM_FATBIN_INVALID_IMAGE, "module image: ELF truncated: %zu bytes, its header is %u",
                            known_size, ELF_HEADER_SIZE);
            return fail(&m, SIM_FATBIN_INVALID_IMAGE,
                        "module image: an ELF that is neither a cubin (e_machine %u) nor a shared object",
                        EM_CUDA_MACHINE);
        }
        return fail(&m, SIM_FATBIN_INVALID_IMAGE,
                    "module image: neither PTX text, a fatbin, a cubin nor a simulator kernel module");
    }
    if (st != SIM_FATBIN_OK)
        return st;
    *ptx_text_out = text;
    if (ptx_len)
        *ptx_len = len;
    return SIM_FATBIN_OK;
}
