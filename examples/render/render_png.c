#include "render_png.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/* ---- colours ------------------------------------------------------------ */

/* A cyclic gradient: night blue, blue, near white, amber, dark brown, and
 * back to night blue, so that repeating it never shows a seam. */
static const struct stop {
    double at;
    double r, g, b;
} gradient[] = {
    { 0.00, 6, 10, 50 },    { 0.22, 30, 90, 180 }, { 0.45, 225, 238, 255 },
    { 0.65, 255, 175, 40 }, { 0.85, 90, 30, 10 },  { 1.00, 6, 10, 50 },
};

void render_colour(const float *counts, uint32_t width, uint32_t height, uint8_t *rgb)
{
    size_t n = (size_t)width * height;
    for (size_t i = 0; i < n; i++, rgb += 3) {
        if (counts[i] < 0.0f) { /* inside the set */
            rgb[0] = rgb[1] = rgb[2] = 0;
            continue;
        }
        /* Escape counts grow without bound near the set's edge; the log
         * spreads the colours evenly over the few far pixels and the many
         * pixels close in alike. */
        double t = fmod(log(counts[i] + 1.0) * 0.45 + 0.62, 1.0);
        size_t k = 0;
        while (gradient[k + 1].at < t)
            k++;
        const struct stop *a = &gradient[k], *b = &gradient[k + 1];
        double f = (t - a->at) / (b->at - a->at);
        rgb[0] = (uint8_t)(a->r + (b->r - a->r) * f + 0.5);
        rgb[1] = (uint8_t)(a->g + (b->g - a->g) * f + 0.5);
        rgb[2] = (uint8_t)(a->b + (b->b - a->b) * f + 0.5);
    }
}

/* ---- PNG ---------------------------------------------------------------- */

typedef struct png_errors {
    char *buf;
    size_t size;
} png_errors;

/* libpng reports errors through this callback, which must not return: keep
 * the message and jump back to render_write_png's setjmp. */
static void on_png_error(png_structp png, png_const_charp message)
{
    png_errors *e = png_get_error_ptr(png);
    snprintf(e->buf, e->size, "libpng: %s", message);
    png_longjmp(png, 1);
}

/* Warnings are not failures, and this program prints its own messages. */
static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

int render_write_png(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height, char *err,
                     size_t err_size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        snprintf(err, err_size, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    png_errors errors = { err, err_size };
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        snprintf(err, err_size, "libpng: out of memory");
        png_destroy_write_struct(&png, NULL);
        fclose(f);
        remove(path);
        return -1;
    }
    /* Nothing below changes png, info or f, so they are still valid here
     * after a longjmp from on_png_error. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        remove(path); /* no half-written file left behind */
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++)
        png_write_row(png, rgb + (size_t)y * width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    /* fclose flushes: a full disk shows up here, not in the writes. */
    if (fclose(f) != 0) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}

int render_check_png(const char *path, long *bytes, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "cannot reopen %s: %s", path, strerror(errno));
        return -1;
    }
    png_byte signature[8];
    size_t got = fread(signature, 1, sizeof signature, f);
    int ok = got == sizeof signature && png_sig_cmp(signature, 0, sizeof signature) == 0;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    if (!ok) {
        snprintf(err, err_size, "%s does not start with the PNG signature", path);
        return -1;
    }
    *bytes = size;
    return 0;
}
