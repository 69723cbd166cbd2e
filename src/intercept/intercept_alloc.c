/*
 * The interposer's allocations: the plan parser shared with libgpuguard
 * allocates through common/alloc.h, whose libgpuguard implementation
 * counts allocations for GPUGUARD_FAIL_HOST_ALLOC. The interposer serves
 * programs that do not use gpuguard, so its allocations are plain ones and
 * never the one that variable fails (it is libgpuguard's countdown).
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

void *gg__malloc(size_t size)
{
    return malloc(size);
}

void *gg__calloc(size_t count, size_t size)
{
    return calloc(count, size);
}

char *gg__strdup(const char *s)
{
    return strdup(s);
}

void gg__free(void *p)
{
    free(p);
}

bool gg__alloc_fault_point(void)
{
    return false;
}
