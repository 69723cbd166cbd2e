/*
 * printf in kernels (vprintf): each call is formatted when it runs, as C
 * printf would format it on the host, into a buffer the launch owns; the
 * launch writes the buffer to the process's stdout when it ends, as a real
 * driver prints device printf output at the synchronisation after the
 * kernel.
 *
 * Like the driver's printf FIFO (cudaLimitPrintfFifoSize, 1 MiB by
 * default), the buffer is bounded: PTX_PRINTF_FIFO_BYTES of text per
 * launch; a printf whose text does not fit is dropped, and so is all
 * output after it in that launch.
 */
#ifndef GG_PTX_PRINTF_H
#define GG_PTX_PRINTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PTX_PRINTF_FIFO_BYTES (1u << 20)
/* The longest format string and %s argument read from device memory. */
#define PTX_PRINTF_MAX_STRING 65536u

typedef struct ptx_printf_fifo {
    char *text;
    size_t len, cap;
    size_t limit;        /* PTX_PRINTF_FIFO_BYTES unless a test says otherwise */
    bool overflowed;     /* something was dropped: everything after it is */
} ptx_printf_fifo;

/* An empty buffer holding at most limit bytes. */
void ptx_printf_fifo_init(ptx_printf_fifo *f, size_t limit);
/* Writes what the buffer holds to out (if any, then fflush) and frees it. */
void ptx_printf_fifo_flush(ptx_printf_fifo *f, FILE *out);

struct ptx_block;
struct ptx_insn;
/* Runs PTX_OP_VPRINTF `in` for the lanes `active` of warp `warp`, in lane
 * order: reads each lane's format and argument-buffer addresses from its
 * .local slots, formats, appends to the block's buffer and stores the
 * result (the number of arguments the format used, -1 for a NULL format)
 * when the call takes it. A format or %s string the lane cannot read
 * faults the block (ILLEGAL_ADDRESS); a conversion it does not support
 * (%n, %*d, %Lf ...) is printed as written. */
void ptx_vprintf_lanes(struct ptx_block *blk, const struct ptx_insn *in, unsigned warp, uint32_t active);

#endif
