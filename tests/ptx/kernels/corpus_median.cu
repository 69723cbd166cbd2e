// 3x3 median filter over an int image with clamp-to-edge addressing: each
// thread gathers its 9 neighbours into a per-thread array (indexed with
// loop variables, so it lives in local memory) and insertion-sorts it.
extern "C" __global__ void corpus_median(const int *img, int *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int v[9];
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = min(max(x + dx, 0), width - 1);
            int yy = min(max(y + dy, 0), height - 1);
            int p = img[yy * width + xx];
            int j = n++;
            while (j > 0 && v[j - 1] > p) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = p;
        }
    out[y * width + x] = v[4];
}
