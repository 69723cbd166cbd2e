// 3x3 convolution of a float image with clamp-to-edge addressing, 2-D grid
// of 2-D blocks; the 9 weights come from global memory.
extern "C" __global__ void corpus_conv2d(const float *img, float *out, const float *w, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -1; dx <= 1; dx++) {
            int xx = min(max(x + dx, 0), width - 1);
            sum += w[(dy + 1) * 3 + (dx + 1)] * img[yy * width + xx];
        }
    }
    out[y * width + x] = sum;
}
