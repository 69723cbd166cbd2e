/*
 * printf in kernels: see ptx_printf.h.
 *
 * nvcc packs printf's arguments into a .local buffer, each at the next
 * multiple of its size: int, unsigned and char (promoted) take 4 bytes,
 * long, long long, pointers, strings (their address) and double (float is
 * promoted) take 8. The format says which is which, as for C's vprintf.
 */
#include "ptx_printf.h"
#include "ptx_block.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ptx_printf_fifo_init(ptx_printf_fifo *f, size_t limit)
{
    memset(f, 0, sizeof *f);
    f->limit = limit;
}

void ptx_printf_fifo_flush(ptx_printf_fifo *f, FILE *out)
{
    if (f->len) {
        fwrite(f->text, 1, f->len, out);
        fflush(out);
    }
    free(f->text);
    memset(f, 0, sizeof *f);
}

/* One printf's text as it is formatted. */
typedef struct text {
    char *s;
    size_t len, cap;
    bool oom;
} text;

static void append(text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 128;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *g = realloc(t->s, cap);
        if (!g) {
            t->oom = true;
            return;
        }
        t->s = g;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void append_format(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append_format(text *t, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        append(t, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        t->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    append(t, big, (size_t)n);
    free(big);
}

/* The NUL-terminated string at generic address addr (at most `max`
 * bytes, then cut), read byte by byte so that every byte is checked; NULL
 * after a fault. */
static char *read_device_string(ptx_block *blk, uint64_t addr, unsigned thread, size_t max)
{
    text s = { 0 };
    for (size_t i = 0; i < max; i++) {
        const char *c = ptx_memory_resolve(blk, PTX_SPACE_GENERIC, addr + i, 1, thread);
        if (!c) {
            free(s.s);
            return NULL;
        }
        if (*c == '\0')
            break;
        append(&s, c, 1);
    }
    append(&s, "", 0);
    if (s.oom) {
        free(s.s);
        ptx_block_fault(blk, GG_SIM_TRAP_LAUNCH_FAILED); /* out of host memory */
        return NULL;
    }
    return s.s;
}

/* The argument buffer as the format walks it. */
typedef struct args {
    uint64_t base;   /* generic address; 0: no arguments */
    uint64_t offset;
    unsigned used;
} args;

/* The next argument of `bytes` bytes; false if there is none (no buffer)
 * or after a fault. */
static bool next_arg(ptx_block *blk, args *a, unsigned bytes, unsigned thread, uint64_t *v)
{
    if (!a->base)
        return false;
    a->offset = (a->offset + bytes - 1) / bytes * bytes;
    const unsigned char *p = ptx_memory_resolve(blk, PTX_SPACE_GENERIC, a->base + a->offset, bytes, thread);
    if (!p)
        return false;
    *v = 0;
    memcpy(v, p, bytes);
    a->offset += bytes;
    a->used++;
    return true;
}

/* A width or precision: digits as written, or '*' read from the
 * arguments (an int), written into spec as digits. False after a fault or
 * without arguments. */
static bool width_field(ptx_block *blk, const char *fmt, size_t *i, args *a, unsigned thread, char *spec,
                        size_t *at, size_t cap, bool is_precision)
{
    if (fmt[*i] == '*') {
        ++*i;
        uint64_t v;
        if (!next_arg(blk, a, 4, thread, &v))
            return false;
        int n = (int)(uint32_t)v;
        if (is_precision && n < 0) {
            *at -= 1; /* a negative precision is none: drop the '.' */
            return true;
        }
        *at += (size_t)snprintf(spec + *at, cap - *at, "%d", n);
        return true;
    }
    size_t start = *i;
    while (fmt[*i] >= '0' && fmt[*i] <= '9' && *i - start < 9)
        ++*i;
    if (fmt[*i] >= '0' && fmt[*i] <= '9')
        return false; /* wider than 9 digits: not supported */
    memcpy(spec + *at, fmt + start, *i - start);
    *at += *i - start;
    return true;
}

/* One conversion, fmt[0] == '%': its text goes to t. Returns how many
 * format bytes it took. What is not supported is written as it stands
 * in the format. */
static size_t convert(ptx_block *blk, const char *fmt, args *a, unsigned thread, text *t)
{
    char spec[64];
    size_t at = 0, i = 1;
    spec[at++] = '%';
    while (fmt[i] && strchr("-+ #0", fmt[i]) && at < 16)
        spec[at++] = fmt[i++];
    bool ok = !strchr("-+ #0", fmt[i]) || !fmt[i];
    ok = ok && width_field(blk, fmt, &i, a, thread, spec, &at, sizeof spec - 8, false);
    if (ok && fmt[i] == '.') {
        i++;
        spec[at++] = '.';
        ok = width_field(blk, fmt, &i, a, thread, spec, &at, sizeof spec - 8, true);
    }
    size_t len_at = i;
    while (fmt[i] && strchr("hlLqjzt", fmt[i]))
        i++;
    size_t len_chars = i - len_at;
    char conv = fmt[i];
    if (conv)
        i++;
    if (blk->faulted)
        return i;
    /* long, long long, intmax_t, size_t, ptrdiff_t: 8 bytes on the device. */
    bool wide = len_chars > 0 && strchr("ljztq", fmt[len_at]);
    ok = ok && conv && len_chars <= 2 && !(len_chars && fmt[len_at] == 'L');
    uint64_t v;
    if (ok && strchr("diouxX", conv) && next_arg(blk, a, wide ? 8 : 4, thread, &v)) {
        if (wide) {
            snprintf(spec + at, sizeof spec - at, "ll%c", conv);
            if (conv == 'd' || conv == 'i')
                append_format(t, spec, (long long)v);
            else
                append_format(t, spec, (unsigned long long)v);
        } else {
            /* h and hh as written: the host narrows as the device does. */
            snprintf(spec + at, sizeof spec - at, "%.*s%c", (int)len_chars, fmt + len_at, conv);
            if (conv == 'd' || conv == 'i')
                append_format(t, spec, (int)(uint32_t)v);
            else
                append_format(t, spec, (unsigned)v);
        }
    } else if (ok && conv == 'c' && !len_chars && next_arg(blk, a, 4, thread, &v)) {
        snprintf(spec + at, sizeof spec - at, "c");
        append_format(t, spec, (int)(uint32_t)v);
    } else if (ok && strchr("fFeEgGaA", conv) && next_arg(blk, a, 8, thread, &v)) {
        double d;
        memcpy(&d, &v, sizeof d);
        snprintf(spec + at, sizeof spec - at, "%c", conv);
        append_format(t, spec, d);
    } else if (ok && conv == 'p' && !len_chars && next_arg(blk, a, 8, thread, &v)) {
        snprintf(spec + at, sizeof spec - at, "p");
        append_format(t, spec, (void *)(uintptr_t)v);
    } else if (ok && conv == 's' && !len_chars && next_arg(blk, a, 8, thread, &v)) {
        snprintf(spec + at, sizeof spec - at, "s");
        if (!v) {
            append_format(t, spec, "(null)");
        } else {
            char *s = read_device_string(blk, v, thread, PTX_PRINTF_MAX_STRING);
            if (s)
                append_format(t, spec, s);
            free(s);
        }
    } else if (!blk->faulted) {
        /* Not supported or no argument: as written. %n writes nothing
         * (a device printf cannot store through its argument here), but
         * its pointer is skipped so the arguments after it stay in place. */
        if (ok && conv == 'n')
            next_arg(blk, a, 8, thread, &v);
        append(t, fmt, i);
    }
    return i;
}

/* Formats one lane's printf; returns what vprintf returns. */
static int format_one(ptx_block *blk, uint64_t fmt_addr, uint64_t args_addr, unsigned thread, text *t)
{
    if (!fmt_addr)
        return -1;
    char *fmt = read_device_string(blk, fmt_addr, thread, PTX_PRINTF_MAX_STRING);
    if (!fmt)
        return -2;
    args a = { args_addr, 0, 0 };
    for (size_t i = 0; fmt[i] && !blk->faulted;) {
        if (fmt[i] != '%') {
            size_t run = strcspn(fmt + i, "%");
            append(t, fmt + i, run);
            i += run;
        } else if (fmt[i + 1] == '%') {
            append(t, "%", 1);
            i += 2;
        } else {
            i += convert(blk, fmt + i, &a, thread, t);
        }
    }
    free(fmt);
    return (int)a.used;
}

static bool load_u64(ptx_block *blk, const ptx_operand *slot, unsigned thread, uint64_t *v)
{
    const void *p = ptx_memory_resolve(blk, PTX_SPACE_LOCAL, slot->imm, 8, thread);
    if (!p)
        return false;
    memcpy(v, p, 8);
    return true;
}

void ptx_vprintf_lanes(ptx_block *blk, const ptx_insn *in, unsigned warp, uint32_t active)
{
    for (uint32_t m = active; m && !blk->faulted; m &= m - 1) {
        unsigned thread = warp * PTX_WARP_SIZE + (unsigned)__builtin_ctz(m);
        uint64_t fmt, args;
        if (!load_u64(blk, &in->ops[1], thread, &fmt) || !load_u64(blk, &in->ops[2], thread, &args))
            return;
        text t = { 0 };
        int r = format_one(blk, fmt, args, thread, &t);
        if (t.oom) {
            free(t.s);
            ptx_block_fault(blk, GG_SIM_TRAP_LAUNCH_FAILED); /* out of host memory */
            return;
        }
        ptx_printf_fifo *f = blk->printf_fifo;
        if (f && !blk->faulted && t.len) {
            if (f->overflowed || t.len > f->limit - f->len) {
                f->overflowed = true;
            } else {
                text all = { f->text, f->len, f->cap, false };
                append(&all, t.s, t.len);
                if (all.oom) {
                    f->overflowed = true;
                } else {
                    f->text = all.s;
                    f->len = all.len;
                    f->cap = all.cap;
                }
            }
        }
        free(t.s);
        if (blk->faulted)
            return;
        if (in->ops[0].kind != PTX_OPND_NONE) {
            int32_t *ret = ptx_memory_resolve(blk, PTX_SPACE_LOCAL, in->ops[0].imm, 4, thread);
            if (!ret)
                return;
            memcpy(ret, &r, 4);
        }
    }
}
