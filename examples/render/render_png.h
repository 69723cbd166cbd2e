/* The host side of render that has nothing to do with the GPU: turning the
 * kernel's escape counts into colours, and writing them as a PNG (libpng). */
#ifndef RENDER_PNG_H
#define RENDER_PNG_H

#include <stddef.h>
#include <stdint.h>

/* Colours width * height escape counts (the kernel's output: a smooth count
 * >= 0 outside the set, -1 inside) into 3 bytes of RGB per pixel. */
void render_colour(const float *counts, uint32_t width, uint32_t height, uint8_t *rgb);

/* Writes an 8-bit RGB PNG. Returns 0, or -1 with a message in err. */
int render_write_png(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height, char *err,
                     size_t err_size);

/* Reads the file back: 0 when it starts with the 8-byte PNG signature (its
 * size in *bytes), else -1 with a message in err. */
int render_check_png(const char *path, long *bytes, char *err, size_t err_size);

#endif
