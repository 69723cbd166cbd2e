/*
 * Where the interposer looks for a real HIP runtime when nothing names
 * one (Debian's multiarch directories, ROCm's): shared with `gpuguard run`,
 * which must know whether the interposer will find one without loading it
 * itself (loading Debian's runtime into the tool leaks inside the UBSan
 * runtime of a sanitizer build, and costs its static constructors). Only
 * .so.5: the interposer presents HIP 5's ABI.
 */
#ifndef GG_INTERCEPT_PLACES_H
#define GG_INTERCEPT_PLACES_H

#define GG_INTERCEPT_HIP_PLACES                                                                                     \
    "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", "/usr/lib/aarch64-linux-gnu/libamdhip64.so.5",                   \
        "/opt/rocm/lib/libamdhip64.so.5", "/opt/rocm/hip/lib/libamdhip64.so.5", "/usr/lib64/libamdhip64.so.5"

#endif
