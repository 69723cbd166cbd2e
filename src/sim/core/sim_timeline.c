/*
 * Device time: the simulated GPU's clock, read by events (cuEventRecord,
 * cuEventElapsedTime) and by PTX kernels (%globaltimer, %clock64), so that
 * what a program measures of its kernels on the simulator is the time the
 * simulated device spent on them, not the time the host took to simulate
 * them.
 *
 * The model. Device time runs with the wall clock (CLOCK_MONOTONIC) while
 * the device waits for work, as a GPU's timestamps do: a record made after
 * the host slept 20 ms is 20 ms after the one before. Each stream's ops run
 * one after another in device time: an op starts when its stream's
 * previous op ended (the stream's cursor), and not before the device time
 * at which it was submitted. So ops queued back to back follow each other
 * exactly, however long the host took to simulate them, and two streams
 * fed while the device idles overlap, as on a GPU.
 * What an op takes: a PTX kernel (without a misbehave rule) its simulated
 * time (sim_launch.c: warp-instructions times ns_per_warp_instruction, its
 * blocks spread over the device's multiprocessors, sim_block_slots.h); a
 * C-function kernel or a kernel under a misbehave rule the wall-clock time
 * it ran (the host code is the kernel; its watchdog is the wall clock's); a
 * wait on another stream ends no earlier than that stream's work; copies,
 * memsets, value writes and event records take none.
 * When simulated work ends later than the wall clock has reached (a kernel
 * the host interprets faster than the simulated GPU would run it), device
 * time jumps ahead to its end (the device's skew grows; it never shrinks):
 * work submitted afterwards never starts before work that has finished.
 * So the time between two events around queued PTX work is the same on
 * every host and every run; absolute device times, and gaps the host's
 * own pace makes, are not.
 */
#include "sim_core.h"

#include <time.h>

uint64_t sim_wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t later(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t device_now(const sim_device *d)
{
    return sim_wall_ns() + atomic_load(&d->skew_ns);
}

uint64_t sim_timeline_now(const sim_stream *s)
{
    return later(atomic_load(&s->cursor_ns), device_now(s->ctx->dev));
}

void sim_timeline_submitted(const sim_stream *s, sim_op *op)
{
    op->ready_ns = device_now(s->ctx->dev);
}

uint64_t sim_timeline_start(const sim_stream *s, const sim_op *op)
{
    return later(atomic_load(&s->cursor_ns), op->ready_ns);
}

void sim_timeline_reached(sim_stream *s, uint64_t at_ns)
{
    atomic_store(&s->cursor_ns, later(atomic_load(&s->cursor_ns), at_ns));
}

void sim_timeline_ended(sim_stream *s, uint64_t end_ns)
{
    /* One runner per stream at a time (its worker, or the submitting
     * thread under its run lock in fast mode): a plain store. */
    atomic_store(&s->cursor_ns, later(atomic_load(&s->cursor_ns), end_ns));
    /* The device's clock reaches end_ns at least: grow the skew to it
     * (never back: device time is monotonic). */
    sim_device *d = s->ctx->dev;
    unsigned long long skew = atomic_load(&d->skew_ns);
    for (;;) {
        uint64_t wall = sim_wall_ns();
        if (wall + skew >= end_ns)
            break;
        if (atomic_compare_exchange_weak(&d->skew_ns, &skew, end_ns - wall))
            break;
    }
}
