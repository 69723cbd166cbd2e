/*
 * The interposer's allocations: plain ones, chosen once at load.
 *
 * The plan parser it shares with libgpuguard (src/base/fault_plan.c)
 * allocates through the base's counted allocator (src/base/alloc.h), whose
 * countdown GPUGUARD_FAIL_HOST_ALLOC is libgpuguard's. The interposer serves
 * programs that need not use gpuguard at all, and when one does (a sweep
 * with --host-alloc over a gpuguard program run through the interposer)
 * the sweep fails libgpuguard's N-th allocation and reads the count back
 * from libgpuguard's report: an interposer allocation failed by the same
 * variable would be a second, uncounted fault (the interposer would lose
 * its plan, and every cuInit would then fail). Until 0.3 the interposer
 * compiled its own plain definitions of the gg__ allocation functions in
 * place of the base's (a swap decided by which file the link named); now
 * it links the one allocator and says which kind of binary it is here, at
 * load, before any of its functions can be called: its constructor runs
 * before dlopen returns it and before any library or program that needs
 * it runs its own.
 */
#include "base/alloc.h"

__attribute__((constructor)) static void allocate_plainly(void)
{
    gg__alloc_serve_others();
}
