/*
 * render: a Mandelbrot image that takes seconds of GPU time, on a GPU with a
 * watchdog, without losing the context.
 *
 * A GPU that drives a display (Windows TDR, X on Linux) kills any kernel
 * that runs longer than a couple of seconds, and the context with it: every
 * buffer and module in it is gone. On CUDA the error (LAUNCH_TIMEOUT) is
 * documented as sticky for the whole process, as the illegal address
 * measured in docs/DRIVER-FACTS.md: every context of it fails, and no new
 * one can be made; only a new process can use the GPU again.
 * gg_launch_chunked runs the same launch in slices of rows of blocks, times
 * each slice, sizes the next one to a target well under the budget, and
 * waits between slices, so no single submission comes near the limit. The
 * kernel only has to take one extra parameter, the slice's first row of
 * blocks, and add it to blockIdx.y.
 *
 * The program, on device 0 (the simulated driver's display GPU, watchdog on):
 *
 *   1. launches the whole image at once, on purpose, in a worker process
 *      forked before any GPU call (examples/common/example_worker.h):
 *      gg_launch returns OK, the watchdog kills the kernel, the next
 *      synchronize returns GG_LAUNCH_TIMEOUT, the context is DEAD and the
 *      death names the kernel;
 *   2. goes on where the driver allows: gg_context_recover answers
 *      GG_PROCESS_POISONED where the error reaches the whole process (CUDA),
 *      and the render continues in a new process (this program's first,
 *      which made no GPU call); where the driver keeps errors per context
 *      (HIP), it recovers the context and goes on in the worker;
 *   3. renders the same image with gg_launch_chunked, with a progress bar,
 *      and prints the slice statistics;
 *   4. shows that gpuguard now knows the kernel's cost: a plain launch of the
 *      whole grid under the default policy is refused before it can run;
 *   5. writes the image as a PNG and checks the file.
 *
 * Run `render --help` for the options. Exit status: 0 when the image was
 * written, 1 on any failure, 2 for bad options.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "example_support.h"
#include "example_worker.h"
#include "render_png.h"

#define PROGRAM "render"
/* Threads per block: 64 x 4, i.e. 64 pixels wide and 4 rows high. The
 * chunked launch slices the grid by whole rows of blocks, so short blocks
 * give it fine steps: 192 rows of blocks for a 768-pixel-high image, where
 * 16 x 16 blocks would give 48, each a sizeable part of a slice's target. */
#define BLOCK_X 64u
#define BLOCK_Y 4u
/* Kernel parameters, in order: see kernels/render_sim.c and render.cu. */
enum { PARAM_IMAGE, PARAM_WIDTH, PARAM_HEIGHT, PARAM_MAX_ITER, PARAM_BLOCK_OFFSET_Y, PARAM_ROW_STRIDE, PARAM_COUNT };
/* Keeps buffers within the simulator's 1 GiB and the grid well in range. */
#define MAX_SIDE 8192u
#define MAX_ITERATIONS 100000000u
/* The defaults: on a GPU (and on the simulator's HIP face, whose C twin of
 * the kernel runs in wall-clock time), a 1024 x 768 image at 10000
 * iterations, about 5 s of device time on the 2-core CI machine's
 * simulator, so that one launch of it overruns the 2 s watchdog by far and
 * the chunked run shows many slices. On the simulator's CUDA face the host
 * interprets the kernel's PTX, about 100 times slower than the C twin: a
 * smaller image, on the slow display GPU below. */
#define DEFAULT_WIDTH 1024u
#define DEFAULT_HEIGHT 768u
#define DEFAULT_ITERATIONS 10000u
#define PTX_SIM_WIDTH 800u
#define PTX_SIM_HEIGHT 600u
#define PTX_SIM_ITERATIONS 2000u
/* The simulated devices render asks for when GPUGUARD_SIM_CONFIG is not
 * set (only the simulated driver reads it). On the simulator a PTX
 * kernel's time is simulated: warp-instructions times the device's cost,
 * its blocks spread over the device's multiprocessors, the same on every
 * host. The default display GPU (8 multiprocessors, 50 ns a warp-
 * instruction) runs this image in a few ms; this one (1 multiprocessor,
 * 3 us) takes about 5 s of device time for the 800 x 600 image at 2000
 * iterations, which the host interprets in about 2 s: the watchdog kills
 * the whole-image launch, and the chunked run takes about a dozen
 * slices. Device 1 stays the simulator's default compute GPU. */
#define RENDER_SIM_CONFIG                                                                      \
    "{\"devices\":[{\"name\":\"gpuguard sim display GPU (1 SM, 3 us/instruction)\","           \
    "\"watchdog\":true,\"watchdog_ms\":2000,\"multiprocessors\":1,\"ns_per_warp_instruction\":3000}," \
    "{\"name\":\"gpuguard sim compute GPU\"}]}"

typedef struct options {
    uint32_t width, height, max_iter; /* 0: the device's default (see above) */
    float target_ms;        /* 0: the library's default, a quarter of the budget */
    int device;
    bool no_chunk;          /* only the plain launch, and report its fate */
    bool no_unchunked_demo; /* skip step 1 */
    bool in_order;          /* rows of blocks top to bottom, not interleaved */
    bool continued;         /* the run in a new process after step 1 poisoned the worker's */
    const char *output;
} options;

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: " PROGRAM " [options]\n"
            "\n"
            "Renders a Mandelbrot image on a GPU with a watchdog: first one launch of\n"
            "the whole image in a worker process, which the watchdog kills (the context\n"
            "dies; on CUDA the error reaches the whole process, so the render continues\n"
            "in a new one; on HIP the context is recovered), then the same image with\n"
            "gg_launch_chunked, which keeps every slice well under the budget. Writes\n"
            "the image as a PNG.\n"
            "\n"
            "options:\n"
            "  --width W            image width in pixels (default %u, or %u on the\n"
            "                       simulator's CUDA face; at most %u)\n"
            "  --height H           image height in pixels (default %u, or %u there;\n"
            "                       at most %u)\n"
            "  --iterations N       iterations per pixel before a point counts as inside\n"
            "                       the set (default %u, or %u there; the run time grows\n"
            "                       with it)\n"
            "  --target-ms T        time to aim for per slice, in ms (default: gpuguard's,\n"
            "                       a quarter of the watchdog budget)\n"
            "  --device D           device to use (default 0: the simulator's display GPU)\n"
            "  --no-chunk           only launch the whole image at once and report what\n"
            "                       happened: exit 1 if the watchdog killed it, else write\n"
            "                       the image and exit 0\n"
            "  --no-unchunked-demo  skip the launch that the watchdog kills\n"
            "  --in-order           render rows of blocks top to bottom instead of\n"
            "                       interleaved (slices then vary in cost; see render.c)\n"
            "  --output PATH        where to write the PNG (default render.png)\n"
            "  --help               this text\n"
            "\n"
            "Environment: GPUGUARD_BACKEND=sim forces the simulated driver (used anyway\n"
            "when no GPU driver is found), sim-hip the same simulator through the HIP\n"
            "runtime; GPUGUARD_WATCHDOG=auto:MS sets the budget. On the simulator's\n"
            "CUDA face the kernel's PTX is interpreted and its time simulated: unless\n"
            "GPUGUARD_SIM_CONFIG says otherwise, render asks for a slow display GPU\n"
            "(1 multiprocessor, 3 us a warp-instruction) whose watchdog a few seconds\n"
            "of the host's work overrun.\n"
            "Exit status: 0 image written, 1 failure, 2 bad options.\n",
            DEFAULT_WIDTH, PTX_SIM_WIDTH, MAX_SIDE, DEFAULT_HEIGHT, PTX_SIM_HEIGHT, MAX_SIDE, DEFAULT_ITERATIONS,
            PTX_SIM_ITERATIONS);
}

/* A whole decimal number in [min, max], or false with a message. */
static bool parse_uint(const char *option, const char *text, unsigned long min, unsigned long max, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = text[0] >= '0' && text[0] <= '9' ? strtoul(text, &end, 10) : 0;
    if (end == NULL || *end != '\0' || errno != 0 || v < min || v > max) {
        fprintf(stderr, PROGRAM ": %s expects a whole number from %lu to %lu, not '%s'\n", option, min, max, text);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* Returns 0 to go on, or an exit status (0 after --help, 2 for bad options). */
static int parse_options(int argc, char **argv, options *o, bool *done)
{
    *o = (options){ .output = "render.png" };
    *done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            *done = true;
            return 0;
        }
        if (strcmp(arg, "--no-chunk") == 0) {
            o->no_chunk = true;
            continue;
        }
        if (strcmp(arg, "--no-unchunked-demo") == 0) {
            o->no_unchunked_demo = true;
            continue;
        }
        if (strcmp(arg, "--in-order") == 0) {
            o->in_order = true;
            continue;
        }
        /* Every other option takes a value. */
        static const char *const valued[] = { "--width", "--height", "--iterations", "--target-ms", "--device",
                                              "--output" };
        bool known = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            known = known || strcmp(arg, valued[k]) == 0;
        if (!known) {
            fprintf(stderr, PROGRAM ": unknown option '%s' (see --help)\n", arg);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, PROGRAM ": %s needs a value (see --help)\n", arg);
            return 2;
        }
        const char *value = argv[++i];
        uint32_t u = 0;
        if (strcmp(arg, "--width") == 0) {
            if (!parse_uint(arg, value, 1, MAX_SIDE, &o->width))
                return 2;
        } else if (strcmp(arg, "--height") == 0) {
            if (!parse_uint(arg, value, 1, MAX_SIDE, &o->height))
                return 2;
        } else if (strcmp(arg, "--iterations") == 0) {
            if (!parse_uint(arg, value, 1, MAX_ITERATIONS, &o->max_iter))
                return 2;
        } else if (strcmp(arg, "--device") == 0) {
            if (!parse_uint(arg, value, 0, 1023, &u))
                return 2;
            o->device = (int)u;
        } else if (strcmp(arg, "--target-ms") == 0) {
            char *end = NULL;
            errno = 0;
            double t = strtod(value, &end);
            if (end == value || *end != '\0' || errno != 0 || !(t > 0.0 && t <= 600000.0)) {
                fprintf(stderr, PROGRAM ": --target-ms expects a time in ms above 0 and at most 600000, not '%s'\n",
                        value);
                return 2;
            }
            o->target_ms = (float)t;
        } else { /* --output */
            if (value[0] == '\0') {
                fprintf(stderr, PROGRAM ": --output expects a file name\n");
                return 2;
            }
            o->output = value;
        }
    }
    if (o->no_chunk && o->no_unchunked_demo) {
        fprintf(stderr, PROGRAM ": --no-chunk and --no-unchunked-demo together leave nothing to do\n");
        return 2;
    }
    return 0;
}

/* ---- the GPU side ------------------------------------------------------- */

/* Everything render makes in the context. A recovered context is a fresh
 * one: the old ids are stale, so these are made again after a recovery. */
typedef struct render_objects {
    gg_module module;
    gg_kernel kernel;
    gg_buffer image;
    uint64_t image_dptr;
} render_objects;

static gg_status make_objects(gg_context ctx, const char *image_path, size_t bytes, render_objects *o)
{
    gg_status s = gg_module_create_from_file(ctx, image_path, NULL, &o->module);
    if (s == GG_OK)
        s = gg_kernel_create(o->module, "mandelbrot", &o->kernel);
    if (s == GG_OK)
        s = gg_buffer_create(ctx, bytes, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "mandelbrot image" }, &o->image);
    if (s == GG_OK)
        s = gg_buffer_device_ptr(o->image, &o->image_dptr);
    return s;
}

/* The row interleaving. gg_launch_chunked predicts each slice's time from
 * the slices before it, which works when every row of blocks costs about the
 * same. Mandelbrot rows do not: a row through the set's body runs the full
 * iteration count on most of its pixels and costs ~100x a row of sky above
 * it. Rendered top to bottom, slices grow on the cheap rows and the first
 * slice that reaches the body takes many times its target (with a large
 * iteration count, past the watchdog). So the kernel draws logical row r at
 * image row r * stride mod rows: with a stride near rows / golden ratio and
 * coprime with rows, every run of consecutive logical rows is spread evenly
 * over the image, and every slice costs about the average per row. Any
 * kernel whose cost varies across the sliced dimension wants the same. */
static uint32_t interleave_stride(uint32_t rows)
{
    if (rows <= 2)
        return 1;
    uint32_t stride = (uint32_t)(rows * 0.6180339887 + 0.5);
    for (;; stride++) { /* ends at rows - 1 at the latest: coprime with rows */
        uint32_t a = rows, b = stride;
        while (b != 0) {
            uint32_t t = a % b;
            a = b;
            b = t;
        }
        if (a == 1)
            return stride;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Progress of the chunked launch: a bar redrawn in place on a terminal,
 * a line per tenth otherwise (logs, CI). Called between slices, on the
 * calling thread; returning false would cancel the rest. */
typedef struct progress_state {
    bool tty;
    int tenths_shown;
} progress_state;

static bool on_progress(void *user, const gg_chunk_progress *p)
{
    progress_state *s = user;
    double done = (double)p->blocks_done / (double)p->blocks_total;
    int percent = (int)(done * 100.0);
    if (s->tty) {
        enum { BAR = 30 };
        char bar[BAR + 1];
        int filled = (int)(done * BAR);
        memset(bar, '#', (size_t)filled);
        memset(bar + filled, '.', (size_t)(BAR - filled));
        bar[BAR] = '\0';
        /* Trailing spaces erase what a longer previous line left. */
        printf("\r   [%s] %3d%%  slice %u  %.1f ms    ", bar, percent, p->slices, p->last_slice_ms);
        fflush(stdout);
    } else if (percent / 10 > s->tenths_shown) {
        s->tenths_shown = percent / 10;
        printf("   %3d%%  slice %u  %.1f ms\n", percent, p->slices, p->last_slice_ms);
    }
    return true;
}

/* A NaN is what the 0xFF fill before each render looks like as a float; the
 * kernel never writes one. Any left means blocks that did not run. */
static size_t unwritten_pixels(const float *counts, size_t n)
{
    size_t missing = 0;
    for (size_t i = 0; i < n; i++)
        missing += isnan(counts[i]) ? 1 : 0;
    return missing;
}

/* Copies the image out, checks it, colours it and writes the PNG. */
static int save_image(const options *o, gg_buffer image, size_t bytes)
{
    size_t pixels = (size_t)o->width * o->height;
    float *counts = malloc(bytes);
    uint8_t *rgb = malloc(pixels * 3);
    int rc = 1;
    char err[512];
    long png_bytes = 0;
    if (counts == NULL || rgb == NULL) {
        fprintf(stderr, PROGRAM ": out of host memory for a %u x %u image\n", o->width, o->height);
        goto out;
    }
    gg_status s = gg_memcpy_dtoh(counts, image, 0, bytes, GG_NO_STREAM);
    if (s != GG_OK) {
        example_report(PROGRAM, s, "gg_memcpy_dtoh");
        goto out;
    }
    size_t missing = unwritten_pixels(counts, pixels);
    if (missing != 0) {
        fprintf(stderr, PROGRAM ": %zu of %zu pixels were never written: some blocks did not run\n", missing,
                pixels);
        goto out;
    }
    render_colour(counts, o->width, o->height, rgb);
    if (render_write_png(o->output, rgb, o->width, o->height, err, sizeof err) != 0 ||
        render_check_png(o->output, &png_bytes, err, sizeof err) != 0) {
        fprintf(stderr, PROGRAM ": %s\n", err);
        goto out;
    }
    printf("   wrote %s: %u x %u, %ld bytes, PNG signature checked; every pixel was computed\n", o->output,
           o->width, o->height, png_bytes);
    rc = 0;
out:
    free(counts);
    free(rgb);
    return rc;
}

/* Reports a failed gpuguard call; the exit status for it. */
static int fail(gg_status status, const char *call)
{
    example_report(PROGRAM, status, call);
    return 1;
}

#define TRY(call)                                  \
    do {                                           \
        gg_status s_ = (call);                     \
        if (s_ != GG_OK)                           \
            return fail(s_, #call);                \
    } while (0)

/* ---- the program -------------------------------------------------------- */

/* The demonstration; *made is the context it created, for main to destroy
 * on an error path (a context's destroy releases everything in it). */
static int run(options *o, gg_context *made)
{
    /* Before the driver starts: only the simulator reads it, at cuInit. */
    setenv("GPUGUARD_SIM_CONFIG", RENDER_SIM_CONFIG, 0);
    TRY(example_init());
    int count = 0;
    TRY(gg_device_count(&count));
    if (o->device >= count) {
        fprintf(stderr, PROGRAM ": --device %d: there %s %d device%s (0..%d)\n", o->device,
                count == 1 ? "is" : "are", count, count == 1 ? "" : "s", count - 1);
        return 2;
    }
    gg_device_info info = GG_DEVICE_INFO_INIT;
    TRY(gg_device_properties(o->device, &info));
    gg_init_desc config = GG_INIT_DESC_INIT;
    TRY(gg_config(&config));
    /* gpuguard cannot query a device's limit, only whether it has one: the
     * budget is a setting (2000 ms, Windows' default, unless changed). */
    uint32_t budget_ms = config.watchdog_budget_ms ? config.watchdog_budget_ms : 2000;
    /* The backend too: GPUGUARD_BACKEND=sim and sim-hip give the same
     * simulated devices, over the CUDA driver API or the HIP runtime. */
    const char *backend = strcmp(gg_backend_name(), "hip") == 0 ? "HIP" : "CUDA";
    if (!o->continued)
        printf("device %d: %s (%s, %s, %s backend)\n", o->device, info.name,
               info.simulated ? "simulated" : "real GPU", info.watchdog ? "watchdog on" : "no watchdog", backend);
    if (info.watchdog && !o->continued)
        printf("   gpuguard's watchdog budget: %u ms\n", budget_ms);

    char file[256], image_path[4200];
    example_image_name(&info, "render", file, sizeof file);
    if (!example_image_path(file, image_path, sizeof image_path)) {
        fprintf(stderr, PROGRAM ": cannot locate the kernel image %s\n", file);
        return 1;
    }
    /* The defaults for what runs the kernel (see DEFAULT_WIDTH). */
    size_t len = strlen(file);
    bool interpreted = info.simulated && len > 4 && strcmp(file + len - 4, ".ptx") == 0;
    if (o->width == 0)
        o->width = interpreted ? PTX_SIM_WIDTH : DEFAULT_WIDTH;
    if (o->height == 0)
        o->height = interpreted ? PTX_SIM_HEIGHT : DEFAULT_HEIGHT;
    if (o->max_iter == 0)
        o->max_iter = interpreted ? PTX_SIM_ITERATIONS : DEFAULT_ITERATIONS;
    if (info.simulated && !o->continued)
        printf("   kernel: %s (%s)\n", file,
               interpreted ? "its PTX, interpreted; device time simulated"
                           : "the kernel's C twin; device time is the host's wall clock");

    const gg_dim3 grid = { (o->width + BLOCK_X - 1) / BLOCK_X, (o->height + BLOCK_Y - 1) / BLOCK_Y, 1 };
    const size_t bytes = (size_t)o->width * o->height * sizeof(float);
    gg_context ctx;
    render_objects obj;
    TRY(gg_context_create(o->device, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "render" }, &ctx));
    *made = ctx;
    TRY(make_objects(ctx, image_path, bytes, &obj));
    if (o->continued)
        printf("\n2. in a new process (pid %ld): gg_context_create returned GG_OK; module and buffer loaded\n",
               (long)getpid());

    /* The kernel's parameters. cuLaunchKernel-style: an array of pointers
     * to each value. block_offset is 0 for a plain launch; a chunked launch
     * substitutes each slice's own offset for it. */
    uint32_t width = o->width, height = o->height, max_iter = o->max_iter, block_offset = 0;
    uint32_t row_stride = o->in_order ? 1 : interleave_stride(grid.y);
    void *params[PARAM_COUNT];
    params[PARAM_IMAGE] = &obj.image_dptr;
    params[PARAM_WIDTH] = &width;
    params[PARAM_HEIGHT] = &height;
    params[PARAM_MAX_ITER] = &max_iter;
    params[PARAM_BLOCK_OFFSET_Y] = &block_offset;
    params[PARAM_ROW_STRIDE] = &row_stride;
    gg_launch_desc launch = { .struct_size = sizeof(gg_launch_desc), .kernel = obj.kernel, .grid = grid, .block = { BLOCK_X, BLOCK_Y, 1 },
                              .params = params, .param_count = PARAM_COUNT };
    if (!o->continued)
        printf("image: %u x %u pixels, %u iterations, %u x %u blocks of %u x %u threads\n", o->width, o->height,
               o->max_iter, grid.x, grid.y, BLOCK_X, BLOCK_Y);

    /* 1. The whole image in one launch. gpuguard would refuse a launch it
     * knows cannot fit the budget; policy ALLOW makes it launch as asked,
     * as a plain CUDA program would. */
    bool have_image = false;
    if (!o->no_unchunked_demo) {
        printf("\n1. without chunking: one launch of all %u blocks (watchdog policy ALLOW)\n", grid.x * grid.y);
        TRY(gg_context_set_watchdog(ctx, GG_WATCHDOG_ALLOW, 0));
        TRY(gg_memset(obj.image, 0, 0xFF, bytes, GG_NO_STREAM));
        TRY(gg_launch(&launch));
        printf("   gg_launch returned GG_OK: a launch only queues the kernel\n");
        double start = now_ms();
        /* Long enough for the whole image on a device without a watchdog;
         * on one with a watchdog the kernel dies long before. */
        gg_status s = gg_context_synchronize(ctx, GG_WAIT_MS(600000));
        double waited = now_ms() - start;
        printf("   gg_context_synchronize returned %s after %.0f ms of waiting\n", gg_status_name(s), waited);
        if (s == GG_OK) {
            printf("   the launch finished: %s\n",
                   info.watchdog ? "it fits the watchdog on this device (try more --iterations)"
                                 : "this device has no watchdog to stop it");
            have_image = true;
        } else if (s == GG_LAUNCH_TIMEOUT && gg_context_state(ctx) == GG_STATE_DEAD) {
            gg_error_info death = GG_ERROR_INFO_INIT;
            TRY(gg_context_death(ctx, &death));
            printf("   the context is DEAD: %s (%s %d)\n", gg_status_name(death.status), death.native_name,
                   (int)death.native_code);
            if (death.culprit.certainty != GG_ATTRIBUTION_NONE)
                printf("   culprit: kernel '%s', launch #%llu (%s)\n", death.culprit.kernel_name,
                       (unsigned long long)death.culprit.sequence,
                       death.culprit.certainty == GG_ATTRIBUTION_EXACT ? "exact" : "one of several");
            /* The same in a user's words: what a plain CUDA program would
             * only see as "launch timeout" on its next call. */
            printf("   in words: the display's watchdog stopped the kernel after about %.0f s of running: a GPU\n"
                   "   that drives a screen may not run one launch longer than a couple of seconds (gpuguard's\n"
                   "   budget: %.1f s). Everything in the context went with it; gpuguard named the kernel%s.\n",
                   budget_ms / 1000.0, budget_ms / 1000.0,
                   death.culprit.certainty == GG_ATTRIBUTION_EXACT ? " for certain" : "");
            if (o->no_chunk) {
                printf("   no image: the watchdog killed the only launch (run without --no-chunk to chunk it)\n");
                return 1;
            }
            /* 2. Everything in the dead context is gone with it. Freeing
             * is still safe (gpuguard skips the driver). Whether this
             * process may have a fresh context, the driver decides: ask. */
            TRY(gg_buffer_destroy(obj.image));
            TRY(gg_module_destroy(obj.module));
            s = gg_context_recover(ctx);
            if (s == GG_PROCESS_POISONED) {
                printf("   gg_context_recover returned GG_PROCESS_POISONED: the %s driver keeps this error for\n"
                       "   the whole process, not only the context, and makes no new context in it. So the\n"
                       "   render continues in a new process.\n", backend);
                TRY(gg_context_destroy(ctx));
                TRY(gg_shutdown());
                return EXAMPLE_WORKER_POISONED;
            }
            if (s != GG_OK)
                return fail(s, "gg_context_recover");
            TRY(make_objects(ctx, image_path, bytes, &obj));
            launch.kernel = obj.kernel; /* params[] points at obj.image_dptr */
            printf("\n2. gg_context_recover: the context is %s again (the %s driver keeps this error in its\n"
                   "   context): recovered in this process; module and buffer loaded anew\n",
                   gg_context_state(ctx) == GG_STATE_ALIVE ? "ALIVE" : "not alive?", backend);
        } else {
            return fail(s, "gg_context_synchronize");
        }
        /* Back to the default policy: chunk what is chunkable, refuse
         * launches known to be too long. */
        TRY(gg_context_set_watchdog(ctx, GG_WATCHDOG_DEFAULT, 0));
    }

    gg_chunk_stats stats = GG_CHUNK_STATS_INIT;
    if (!o->no_chunk) {
        /* 3. The same launch, chunked along y (dimension 1). */
        float target = o->target_ms > 0 ? o->target_ms : info.watchdog ? (float)budget_ms / 4.0f : 0;
        printf("\n3. gg_launch_chunked: slices of rows of blocks, ");
        if (target > 0)
            printf("aiming at %.0f ms each%s\n", target, o->target_ms > 0 ? "" : " (a quarter of the budget)");
        else
            printf("no watchdog: one slice\n");
        progress_state progress = { .tty = isatty(STDOUT_FILENO) == 1 };
        gg_chunk_desc chunk = {
            .struct_size = sizeof(gg_chunk_desc), .offset_param = PARAM_BLOCK_OFFSET_Y,
            .dimension = 1,
            .target_ms = o->target_ms, /* 0: gpuguard's default */
            /* Without a watchdog the whole grid may be one long slice: give
             * its wait the time a large image needs. */
            .slice_timeout_ms = info.watchdog ? 0 : 600000,
            .progress = on_progress,
            .progress_user = &progress,
        };
        TRY(gg_memset(obj.image, 0, 0xFF, bytes, GG_NO_STREAM));
        gg_status s = gg_launch_chunked(&launch, &chunk, &stats);
        if (progress.tty)
            printf("\n");
        if (s != GG_OK)
            return fail(s, "gg_launch_chunked");
        printf("   done: %llu blocks in %u slice%s\n", (unsigned long long)stats.blocks, stats.slices,
               stats.slices == 1 ? "" : "s");
        printf("   largest slice  %8.1f ms%s\n", stats.largest_slice_ms, info.watchdog ? "" : " (no watchdog)");
        if (info.watchdog)
            printf("   budget         %8u ms\n", budget_ms);
        /* Per block from this run's own figures; stats.ms_per_block is
         * the kernel's timing history, which earlier launches weigh in. */
        printf("   device time    %8.1f ms  (%.3f ms per block)\n", stats.device_ms,
               stats.blocks ? stats.device_ms / (double)stats.blocks : 0.0);
        printf("   wall time      %8.1f ms\n", stats.total_ms);
        have_image = true;

        /* 4. The chunked run taught gpuguard the kernel's cost per block.
         * Under the default policy a plain launch that cannot fit the
         * budget is now refused up front, instead of killing the context.
         * Only tried when the image clearly cannot fit: one predicted just
         * under the budget would be launched, and might still be killed. */
        if (info.watchdog && stats.device_ms > 2.0f * (float)budget_ms) {
            s = gg_launch(&launch);
            gg_error_info err = GG_ERROR_INFO_INIT;
            gg_last_error(&err);
            printf("\n4. a plain gg_launch of the whole image under the default policy: %s\n",
                   gg_status_name(s));
            if (s == GG_OK) {
                fprintf(stderr, PROGRAM ": gpuguard launched a kernel measured at %.0f ms, over the %u ms budget\n",
                        stats.device_ms, budget_ms);
                return 1;
            }
            if (s != GG_WATCHDOG_RISK)
                return fail(s, "gg_launch");
            printf("   %s\n", err.message);
        }
    }

    if (have_image) {
        printf("\n5. the image\n");
        if (save_image(o, obj.image, bytes) != 0)
            return 1;
    }
    TRY(gg_context_destroy(ctx));
    TRY(gg_shutdown());

    if (!o->no_chunk && info.watchdog) {
        bool under = stats.largest_slice_ms < (float)budget_ms;
        printf("\nlargest slice %.1f ms %s budget %u ms\n", stats.largest_slice_ms, under ? "<" : ">=", budget_ms);
        return under ? 0 : 1;
    }
    return 0;
}

/* run() and the cleanup of every error path: destroying the context
 * releases whatever is still in it, dead or alive (harmless when run()
 * already destroyed it, or made none); gg_shutdown is harmless when run()
 * already shut down. */
static int run_and_clean_up(void *options_)
{
    gg_context ctx = { 0 };
    int rc = run(options_, &ctx);
    gg_context_destroy(ctx);
    gg_shutdown();
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    bool done;
    int rc = parse_options(argc, argv, &o, &done);
    if (rc != 0 || done)
        return rc;
    if (o.no_unchunked_demo)
        return run_and_clean_up(&o);
    /* The launch the watchdog kills runs in a worker process, forked before
     * this one makes any GPU call. */
    rc = example_in_worker(PROGRAM, run_and_clean_up, &o);
    if (rc != EXAMPLE_WORKER_POISONED)
        return rc < 0 ? 1 : rc;
    /* The worker's process is poisoned; this one has made no GPU call: the
     * render goes on here, from a fresh context. */
    o.no_unchunked_demo = true;
    o.continued = true;
    return run_and_clean_up(&o);
}
