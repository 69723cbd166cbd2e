/* What does chunking cost? On a device without a watchdog, runs the same
 * grid of a kernel of known cost as one launch, then chunked at two slice
 * targets, and reports wall time, slices and the overhead against one launch.
 *
 *   build/bin/bench_chunk_overhead [us_per_block] [blocks]   (default 200 2000)
 */
#include "bench_support.h"

int main(int argc, char **argv)
{
    unsigned us = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
    unsigned blocks = argc > 2 ? (unsigned)atoi(argv[2]) : 2000;
    if (us == 0 || blocks == 0)
        return 2;
    bench_init_sim(NULL, NULL);
    gg_context ctx;
    gg_module module;
    gg_kernel spin;
    bench_check(gg_context_create(1, NULL, &ctx), "context");
    bench_check(gg_module_create_from_file(ctx, GG_BENCH_KERNEL_DIR "/core_kernels.so", NULL, &module), "module");
    bench_check(gg_kernel_create(module, "spin", &spin), "kernel");
    uint32_t offset = 0;
    void *params[] = { &us, &offset };
    gg_launch_desc launch = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { blocks, 1, 1 }, .block = { 1, 1, 1 }, .params = params,
                              .param_count = 2 };

    double start = bench_now_ms();
    bench_check(gg_launch(&launch), "launch");
    bench_check(gg_context_synchronize(ctx, GG_WAIT_MS(600000)), "sync");
    double single = bench_now_ms() - start;
    printf("%-22s %10s %8s %12s %10s\n", "mode", "total_ms", "slices", "largest_ms", "overhead");
    printf("%-22s %10.1f %8d %12s %10s\n", "one launch", single, 1, "-", "-");

    static const float targets[] = { 50.0f, 5.0f };
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
        start = bench_now_ms();
        bench_check(gg_launch_chunked(&launch, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1, .target_ms = targets[i] }, &stats),
                    "chunked");
        double total = bench_now_ms() - start;
        char mode[32];
        snprintf(mode, sizeof mode, "chunked, target %.0f ms", targets[i]);
        printf("%-22s %10.1f %8u %12.1f %9.1f%%\n", mode, total, stats.slices, stats.largest_slice_ms,
               100.0 * (total - single) / single);
    }
    bench_check(gg_context_destroy(ctx), "destroy");
    bench_check(gg_shutdown(), "shutdown");
    return 0;
}
