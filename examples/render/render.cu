// mandelbrot for a real CUDA GPU: the same kernel as kernels/render_sim.c.
//
// Compiled to PTX (build/kernels/render.ptx) when CMake finds nvcc; render
// loads it with gg_module_create_from_file. extern "C" keeps the symbol name plain
// for gg_kernel_create. The parameters match render_sim.c one for one:
//
//   image           width * height floats: smooth escape count, -1 inside
//   block_offset_y  first row of blocks of this slice (gg_launch_chunked
//                   sets it; the kernel adds it to blockIdx.y)
//   row_stride      logical row r draws image row (r * row_stride) % rows,
//                   which spreads each slice over the image (see render.c)

// The view, kept identical in render_sim.c.
#define VIEW_CENTER_X (-0.75)
#define VIEW_CENTER_Y 0.0
#define VIEW_WIDTH 3.5
#define VIEW_HEIGHT 2.5
#define BAILOUT_SQUARED 256.0

__device__ static float escape_count(unsigned px, unsigned py, unsigned width, unsigned height, unsigned max_iter)
{
    double step_x = VIEW_WIDTH / width, step_y = VIEW_HEIGHT / height;
    double step = step_x > step_y ? step_x : step_y;
    double cr = VIEW_CENTER_X + ((double)px + 0.5 - 0.5 * width) * step;
    double ci = VIEW_CENTER_Y + ((double)py + 0.5 - 0.5 * height) * step;
    double zr = 0.0, zi = 0.0, zr2 = 0.0, zi2 = 0.0;
    unsigned n = 0;
    while (n < max_iter && zr2 + zi2 <= BAILOUT_SQUARED) {
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        zr2 = zr * zr;
        zi2 = zi * zi;
        n++;
    }
    if (n >= max_iter)
        return -1.0f;
    return (float)(n + 1 - log2(0.5 * log(zr2 + zi2)));
}

extern "C" __global__ void mandelbrot(float *image, unsigned width, unsigned height, unsigned max_iter,
                                      unsigned block_offset_y, unsigned row_stride)
{
    // gridDim.y is only this slice's height: the image's comes from height.
    unsigned rows = (height + blockDim.y - 1) / blockDim.y;
    unsigned long long logical = (unsigned long long)blockIdx.y + block_offset_y;
    if (logical >= rows)
        return;
    unsigned block_row = (unsigned)(logical * row_stride % rows);
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long y = (unsigned long long)block_row * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    image[y * width + x] = escape_count(x, (unsigned)y, width, height, max_iter);
}
