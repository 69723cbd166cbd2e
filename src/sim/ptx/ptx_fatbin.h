/*
 * Module images as nvcc and the CUDA runtime hand them to the driver
 * (cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary): which kind
 * an image is, and the PTX text inside it for the simulator's interpreter.
 *
 * The simulator runs PTX only. A fatbin's PTX entry is chosen as the driver
 * chooses it: the newest one a device of the given compute capability can
 * run (at or below its capability). Machine code (SASS: a cubin, or a
 * fatbin's ELF entries) is never run: an image with nothing else is
 * refused with SIM_FATBIN_NO_BINARY_FOR_GPU and a detail that says what it
 * holds and how to embed PTX.
 *
 * Container layout (none of it is documented by NVIDIA except the wrapper,
 * in the toolkit's include/fatbinary_section.h; measured on CUDA 13.0's
 * nvcc, November 2026; integers little-endian):
 *
 *   wrapper (what __cudaRegisterFatBinary and cuModuleLoadFatBinary get),
 *   24 bytes: u32 magic 0x466243B1, u32 version (1; 2 for pre-linked
 *   relocatable code), pointer to the container, pointer (file name or
 *   pre-linked fatbins; unused here).
 *
 *   container (what `nvcc -fatbin` writes to a file, and what the wrapper
 *   points to): u32 magic 0xBA55ED50, u16 version (1), u16 header size
 *   (16), u64 size of the entries that follow the header. The container is
 *   header size + that many bytes; the entries fill them exactly.
 *
 *   entry: u16 kind (1 PTX, 2 ELF/SASS, 8 LTO-IR), u16 (0x0101), u32 header
 *   size (64; 80 for PTX written by CUDA 13; more with a file name or
 *   options), u64 payload size (padded to 8 bytes), u32 compressed size at
 *   +16 (0 when stored), u32 offset of the options record at +20, u16 minor
 *   and u16 major version at +24 (PTX ISA 9.0; ELF 1.8), u32 architecture
 *   at +28 (75 = sm_75 / compute_75), u32 offset and u32 length of a file
 *   name at +32, u64 flags at +40, u64 at +48, u64 uncompressed size at +56
 *   (0 when stored). The payload follows the entry's header.
 *
 *   flags: 0x2000 = payload is an LZ4 block (nvcc -compress-mode=speed),
 *   0x8000 = payload is a zstd frame (CUDA 13's default for PTX; SASS too
 *   with -compress-mode=size), 0x0002 = debug (-G), 0x100000 =
 *   architecture-specific (compute_90a), 0x200000 = family-specific
 *   (compute_100f). Stored PTX is NUL-terminated text padded with zeros;
 *   decompressed PTX includes its NUL in the uncompressed size.
 *
 *   cubin: an ELF with e_machine EM_CUDA (190); with ELF ABI version 8
 *   (CUDA 13) the SM number is bits 8-15 of e_flags.
 *
 * Image size. cuModuleLoadData and cuModuleLoadFatBinary get no size. With
 * known_size 0 the reader takes the image's size from its own headers: a
 * wrapper is 24 bytes, a container is what its header says, PTX text ends
 * at its NUL, an ELF header is 64 bytes; nothing past what those headers
 * claim is ever read, and the headers are checked against each other (every
 * entry inside its container, every payload inside its entry's room). A
 * caller that passes a size gets every claim checked against it too; bytes
 * after the container (a section's padding, another container) are not
 * read. Of a cubin only the ELF header is read: it is refused anyway.
 *
 * Nothing here aborts, exits or prints; every function is thread-safe
 * (no state). Allocations go through sim_malloc (the simulator's host
 * allocation fault point); zstd's own decompression context counts as one
 * allocation through sim_alloc_fault_point().
 */
#ifndef GG_SIM_PTX_FATBIN_H
#define GG_SIM_PTX_FATBIN_H

#include <stddef.h>

/* What a module image is. */
typedef enum sim_image_kind {
    SIM_IMAGE_UNKNOWN = 0,
    SIM_IMAGE_PTX,            /* PTX text (NUL-terminated) */
    SIM_IMAGE_FATBIN_WRAPPER, /* the 24-byte wrapper pointing to a container */
    SIM_IMAGE_FATBIN,         /* a bare container, as `nvcc -fatbin` writes it */
    SIM_IMAGE_CUBIN,          /* an ELF for EM_CUDA: machine code only */
    SIM_IMAGE_SHARED_OBJECT,  /* a host ELF shared object: the simulator's C kernels */
    SIM_IMAGE_SIM_MODULE_PATH /* the text "gg-sim-module:<path>" (the simulator's own) */
} sim_image_kind;

/* What sim_fatbin_find_ptx found. The CUDA face maps them to CUresult as
 * the comments say. */
typedef enum sim_fatbin_status {
    SIM_FATBIN_OK = 0,            /* PTX text returned */
    SIM_FATBIN_NOT_PTX,           /* a simulator kernel module (shared object or
                                     gg-sim-module: path): load it as such */
    SIM_FATBIN_NO_BINARY_FOR_GPU, /* SASS only, or PTX only for newer
                                     architectures: CUDA_ERROR_NO_BINARY_FOR_GPU (209) */
    SIM_FATBIN_INVALID_IMAGE,     /* malformed or unknown: CUDA_ERROR_INVALID_IMAGE (200) */
    SIM_FATBIN_INVALID_VALUE,     /* a NULL argument or an impossible compute
                                     capability: CUDA_ERROR_INVALID_VALUE (1) */
    SIM_FATBIN_OUT_OF_MEMORY      /* CUDA_ERROR_OUT_OF_MEMORY (2) */
} sim_fatbin_status;

/* The largest PTX text a compressed entry may claim (uncompressed), and the
 * largest container accepted: bounds on what a corrupt header can make the
 * reader allocate or walk. PyCUDA's largest module is 1.2 MB of PTX. */
#define SIM_FATBIN_MAX_PTX_BYTES (256u << 20)
#define SIM_FATBIN_MAX_CONTAINER_BYTES (1u << 30)

/* Which kind of image `image` is, from its first bytes: the fatbin
 * wrapper's and container's magic numbers, the ELF magic (e_machine
 * EM_CUDA: cubin; ET_DYN for another machine: shared object), the
 * "gg-sim-module:" prefix, else PTX text (after white space and comments,
 * ".version"; or any NUL-terminated printable ASCII and white space: the
 * PTX parser will say what is wrong with it). known_size
 * 0 means unknown: then at most the magic, the 64 bytes of an ELF header or
 * the text up to its NUL (or first non-text byte) are read, comparing
 * magic numbers byte by byte so that a shorter text stops at its NUL.
 * A known size too short for what the magic announces still gives that
 * kind (sim_fatbin_find_ptx then says it is truncated), except an ELF
 * shorter than its header: SIM_IMAGE_UNKNOWN. NULL gives UNKNOWN. */
sim_image_kind sim_image_classify(const void *image, size_t known_size);

/* A static English name of a kind ("PTX text", "fatbin container", ...). */
const char *sim_image_kind_name(sim_image_kind kind);

/* The PTX text of a module image, for a device of compute capability
 * device_cc (major * 10 + minor: 75 for 7.5, 120 for 12.0; 10 to 999).
 *
 * PTX text: copied (up to its NUL, or known_size bytes). Fatbin (wrapper
 * or container): every entry is checked; of the PTX entries, the one with
 * the highest architecture the device can run (plain compute_XX: XX <=
 * device_cc; arch-specific compute_XXa: XX == device_cc; family-specific
 * compute_XXf: same major and XX <= device_cc; at equal architecture the
 * plain one first, then f, then a) is decompressed (zstd or LZ4), its
 * length checked against the entry's uncompressed size, and returned up to
 * its NUL. Only that entry's payload is decompressed: a corrupt payload in
 * an entry not chosen is not seen. Cubin, or a fatbin without a usable PTX
 * entry: SIM_FATBIN_NO_BINARY_FOR_GPU, the detail naming what the image
 * holds (sm_XX, compute_XX, lto_XX) and the nvcc option that embeds PTX.
 * Simulator kernel modules: SIM_FATBIN_NOT_PTX (nothing allocated).
 * Malformed images: SIM_FATBIN_INVALID_IMAGE, the detail naming the field
 * and its byte offset (from the start of the container or image).
 *
 * known_size: the image's size in bytes, 0 if unknown (see the file's
 * comment); for a wrapper it is the wrapper's size (the container it points
 * to has no known size).
 *
 * On SIM_FATBIN_OK, *ptx_text_out is a NUL-terminated copy, allocated with
 * sim_malloc (free it with free()), of *ptx_len bytes before the NUL (at
 * least 1); otherwise *ptx_text_out is NULL and *ptx_len 0. ptx_len may be
 * NULL. detail (may be NULL with detail_size 0) always gets a
 * NUL-terminated message, truncated to detail_size: "" on success, else
 * what was wrong, for the driver's error detail and the JIT error log. */
sim_fatbin_status sim_fatbin_find_ptx(const void *image, size_t known_size, int device_cc, char **ptx_text_out,
                                      size_t *ptx_len, char *detail, size_t detail_size);

/* A static name of a status ("SIM_FATBIN_OK", ...). */
const char *sim_fatbin_status_name(sim_fatbin_status st);

#endif
