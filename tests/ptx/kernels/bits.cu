// The halves of a double (mov.b64 {lo, hi}, d) and a double made of two
// ints (mov.b64 d, {lo, hi}); a compound condition and double arithmetic.
extern "C" __global__ void bits(const double *in, int *hi, int *lo, double *swapped, double *math)
{
    int i = threadIdx.x;
    double d = in[i];
    hi[i] = __double2hiint(d);
    lo[i] = __double2loint(d);
    swapped[i] = __hiloint2double(__double2loint(d), __double2hiint(d));
    double m = d * 0.75 - 1.0 / (d + 3.0);
    if (d > -2.0 && d < 2.0)
        m = fmin(m, d) + fmax(-d, 0.25);
    math[i] = m;
}
