/* How far past its deadline does a timed-out wait return? Waits on a hung
 * stream with a range of deadlines, repeatedly, and reports the overshoot
 * (return time minus deadline): median and maximum per deadline.
 *
 *   build/bin/bench_deadline_overshoot [rounds]        (default 20)
 */
#include <string.h>

#include "bench_support.h"

#define HANG "{\"misbehave\":[{\"kernel\":\"hang_me\",\"action\":\"hang\"}]}"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (rounds < 1 || rounds > 1000)
        rounds = 20;
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeout_policy = GG_TIMEOUT_RETURNS };
    bench_init_sim(HANG, &desc);
    gg_context ctx;
    gg_module module;
    gg_kernel hang;
    bench_check(gg_context_create(1, NULL, &ctx), "context");
    bench_check(gg_module_create_from_file(ctx, GG_BENCH_KERNEL_DIR "/core_kernels.so", NULL, &module), "module");
    bench_check(gg_kernel_create(module, "hang_me", &hang), "kernel");
    gg_stream stream;
    bench_check(gg_stream_create(ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "hung" }, &stream), "stream");
    gg_launch_desc launch = { .struct_size = sizeof(gg_launch_desc), .kernel = hang, .stream = stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    bench_check(gg_launch(&launch), "launch");

    static const unsigned deadlines[] = { 1, 5, 20, 100 };
    printf("%-12s %10s %14s %14s\n", "deadline_ms", "rounds", "median_over_ms", "max_over_ms");
    for (size_t d = 0; d < sizeof deadlines / sizeof deadlines[0]; d++) {
        double over[1000];
        for (int r = 0; r < rounds; r++) {
            double start = bench_now_ms();
            gg_status s = gg_stream_synchronize(stream, GG_WAIT_MS(deadlines[d]));
            over[r] = bench_now_ms() - start - deadlines[d];
            if (s != GG_TIMEOUT) {
                fprintf(stderr, "expected GG_TIMEOUT, got %s\n", gg_status_name(s));
                return 1;
            }
        }
        qsort(over, (size_t)rounds, sizeof over[0], cmp);
        printf("%-12u %10d %14.3f %14.3f\n", deadlines[d], rounds, over[rounds / 2], over[rounds - 1]);
    }
    bench_check(gg_context_destroy(ctx), "destroy");
    bench_check(gg_shutdown(), "shutdown");
    return 0;
}
