// Sparse matrix-vector product y = A*x with A in CSR form (doubles), one
// thread per row (the "scalar" CSR kernel); rows have 0 to many entries.
extern "C" __global__ void corpus_spmv(int rows, const int *row_ptr, const int *cols, const double *vals,
                                       const double *x, double *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        double dot = 0.0;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; j++)
            dot += vals[j] * x[cols[j]];
        y[row] = dot;
    }
}
