/*
 * mandelbrot for gpuguard's simulated driver (build/kernels/render_sim.so).
 *
 * The same kernel as ../render.cu, written as a host C function that the
 * simulator calls once per block (see gpuguard/sim_kernel.h); the function
 * loops over its block's blockDim.x * blockDim.y threads itself. The
 * parameters match the .cu kernel's one for one:
 *
 *   mandelbrot(uint64 image, uint32 width, uint32 height, uint32 max_iter,
 *              uint32 block_offset_y, uint32 row_stride)
 *
 * image is width * height floats, row-major: each pixel's smooth escape
 * count, or -1 for a point that did not escape within max_iter (inside the
 * set). The host turns those into colours.
 *
 * block_offset_y is the chunking parameter: gg_launch_chunked runs the grid
 * in slices of rows of blocks and passes each slice's first row here, so the
 * kernel adds it to blockIdx.y (inside a slice, blockIdx.y starts at 0 and
 * gridDim.y is the slice's height, not the image's).
 *
 * row_stride interleaves the rows of blocks: logical row r (the order in
 * which the chunked launch runs them) draws image row (r * row_stride) mod
 * rows. render.c explains why; stride 1 is plain top-to-bottom order.
 */
#include <math.h>
#include <stdint.h>

#include "gpuguard/sim_kernel.h"

/* The view, kept identical in render.cu: the whole set, centred, fitted to
 * the image whatever its aspect ratio. */
#define VIEW_CENTER_X (-0.75)
#define VIEW_CENTER_Y 0.0
#define VIEW_WIDTH 3.5
#define VIEW_HEIGHT 2.5
/* Escaping at |z| > 16 rather than 2 costs a few iterations per pixel but
 * makes the smooth count below accurate, so colour bands blend. */
#define BAILOUT_SQUARED 256.0

/* The smooth escape count of pixel (px, py), or -1 inside the set. */
static float escape_count(uint32_t px, uint32_t py, uint32_t width, uint32_t height, uint32_t max_iter)
{
    double step_x = VIEW_WIDTH / width, step_y = VIEW_HEIGHT / height;
    double step = step_x > step_y ? step_x : step_y;
    /* nvcc contracts a * b + c into one fused multiply-add (fma.rn.f64 in
     * render.ptx: one rounding, not two), and near the set's edge the
     * iteration amplifies that last bit into another escape count. The
     * twin fuses the same three places, so that it draws the image the
     * real kernel draws (tests/demo/check_demo.sh compares them). */
    double cr = fma((double)px + 0.5 - 0.5 * width, step, VIEW_CENTER_X);
    double ci = fma((double)py + 0.5 - 0.5 * height, step, VIEW_CENTER_Y);
    double zr = 0.0, zi = 0.0, zr2 = 0.0, zi2 = 0.0;
    uint32_t n = 0;
    while (n < max_iter && zr2 + zi2 <= BAILOUT_SQUARED) {
        zi = fma(2.0 * zr, zi, ci);
        zr = zr2 - zi2 + cr;
        zr2 = zr * zr;
        zi2 = zi * zi;
        n++;
    }
    if (n >= max_iter)
        return -1.0f;
    /* n + 1 - log2(log|z|): removes the integer steps between bands. */
    return (float)(n + 1 - log2(0.5 * log(zr2 + zi2)));
}

GG_SIM_KERNEL_PARAMS(mandelbrot, sizeof(uint64_t), sizeof(uint32_t), sizeof(uint32_t), sizeof(uint32_t),
                     sizeof(uint32_t), sizeof(uint32_t));
GG_SIM_KERNEL(mandelbrot)
{
    uint64_t image = GG_SIM_PARAM(b, uint64_t, 0);
    uint32_t width = GG_SIM_PARAM(b, uint32_t, 1);
    uint32_t height = GG_SIM_PARAM(b, uint32_t, 2);
    uint32_t max_iter = GG_SIM_PARAM(b, uint32_t, 3);
    uint32_t block_offset_y = GG_SIM_PARAM(b, uint32_t, 4);
    uint32_t row_stride = GG_SIM_PARAM(b, uint32_t, 5);

    /* Which rows of pixels this block draws. The total number of rows of
     * blocks comes from the height: gridDim.y is only this slice's. */
    uint32_t rows = (height + b->block_dim.y - 1) / b->block_dim.y;
    uint64_t logical = (uint64_t)b->block_idx.y + block_offset_y;
    if (logical >= rows)
        return;
    uint64_t block_row = logical * row_stride % rows;
    uint64_t x0 = (uint64_t)b->block_idx.x * b->block_dim.x;
    if (x0 >= width)
        return;
    /* The last block of a row and the last row of blocks may stick out of
     * the image; like the .cu kernel's bounds test, skip those threads. */
    uint32_t nx = width - x0 < b->block_dim.x ? (uint32_t)(width - x0) : b->block_dim.x;

    for (uint32_t ty = 0; ty < b->block_dim.y; ty++) {
        uint64_t y = block_row * b->block_dim.y + ty;
        if (y >= height)
            break;
        /* A block deep inside the set runs max_iter iterations per pixel:
         * poll between rows so a watchdog kill stops it promptly. */
        if (b->rt->cancelled(b))
            return;
        /* One map per row: the row's pixels are contiguous, and map() is a
         * bounds check against the live allocations, too costly per pixel.
         * NULL means out of bounds: the launch is already failing. */
        float *row = b->rt->map(b, image + (y * width + x0) * sizeof(float), (size_t)nx * sizeof(float));
        if (row == NULL)
            return;
        for (uint32_t tx = 0; tx < nx; tx++)
            row[tx] = escape_count((uint32_t)(x0 + tx), (uint32_t)y, width, height, max_iter);
    }
}
