// printf in a kernel: several conversions, widths and precisions, a
// device string, a literal %%, and printf's return value (the number of
// arguments).
#include <cstdio>

__device__ const char g_word[] = "word";

extern "C" __global__ void print_values(int *ret, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        return;
    long long big = -1234567890123ll * (i + 1);
    unsigned long long ubig = 18446744073709551615ull - i;
    float f = 1.5f + i;
    double d = -2.25e-3 * (i + 1);
    int r = printf("t%d: %i %u %x %X %o %c|%5d|%-5d|%05d|%.3f %e %g %s %ld %lld %llu %% %8.2f\n",
                   i, -i - 1, 4000000000u + i, 255 + i, 0xabc + i, 8 + i, 'a' + i, i, i, i,
                   (double)f, d, d * 1e10, g_word, big, big, ubig, f);
    ret[i] = r;
    ret[n + i] = printf("no args\n");
}

// '*' widths and precisions (a negative precision is none), h and hh
// narrowing, %p, a NULL %s, %n (not supported: printed as written, its
// pointer skipped) and an unknown conversion (printed as written).
extern "C" __global__ void print_edges(const char *null_str, int *ret)
{
    ret[0] = printf("[%*d|%-*d|%.*f|%.*d|%c|%hd|%hhu|%lx|%p|%s|%.2s|%5s|%n|after %d|%y]\n", 6, 42, 4, -7, 2,
                    3.14159, -1, 5, 'Z', 70000, 300, 0xdeadbeefcafeul, (void *)0x1234, null_str, "abcdef",
                    "ab", ret + 1, 99);
}

// A %s argument that is not a readable address: the launch faults.
extern "C" __global__ void print_bad_string(const char *s)
{
    printf("%s\n", s);
}
