// Tiled matrix multiply C[m][n] = A[m][k] * B[k][n] (row-major floats) with
// 16x16 tiles staged in shared memory between two barriers; sizes need not be
// multiples of the tile: out-of-range elements of a tile are zero.
#define TILE 16
extern "C" __global__ void corpus_matmul(const float *A, const float *B, float *C, int m, int n, int k)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < m && ak < k) ? A[row * k + ak] : 0.0f;
        Bs[ty][tx] = (bk < k && col < n) ? B[bk * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++)
            sum += As[ty][i] * Bs[i][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        C[row * n + col] = sum;
}
