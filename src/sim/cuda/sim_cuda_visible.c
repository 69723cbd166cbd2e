/*
 * CUDA_VISIBLE_DEVICES on the simulator's CUDA face, read at cuInit as the
 * real driver reads it (NVIDIA's documented rule): a comma-separated list
 * of device indices or UUIDs ("GPU-" and a unique prefix of the UUID's
 * text); only the listed devices are visible, as ordinals 0, 1, ... in the
 * list's order; the list ends at the first entry that names no device,
 * and what came before it stays visible; a list that leaves no device
 * makes cuInit fail with CUDA_ERROR_NO_DEVICE. Unset: every device. Not
 * measured on a real driver: a device listed twice (taken here as an entry
 * that ends the list) and spaces around entries (ignored here). MIG
 * identifiers name nothing here. A device keeps its UUID whatever ordinal
 * it gets, as a GPU does. The HIP face reads no visibility variable.
 */
#include "sim_alloc.h"
#include "sim_cuda.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UUID_PREFIX "gpuguard-sim"

void sim_cuda_uuid_bytes(unsigned index, unsigned char out[16])
{
    memcpy(out, UUID_PREFIX, 12);
    for (int i = 0; i < 4; i++)
        out[12 + i] = (unsigned char)(index >> (24 - 8 * i));
}

void sim_cuda_uuid_text(unsigned index, char out[41])
{
    unsigned char b[16];
    sim_cuda_uuid_bytes(index, b);
    snprintf(out, 41, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The configuration index one entry names, or -1. */
static int entry_device(const sim_config *c, const char *entry, size_t len)
{
    if (len == 0)
        return -1;
    bool digits = true;
    for (size_t i = 0; i < len; i++)
        digits = digits && isdigit((unsigned char)entry[i]);
    if (digits) {
        if (len > 9)
            return -1;
        int v = atoi(entry);
        return v < c->ndevices ? v : -1;
    }
    if (len <= 4 || strncmp(entry, "GPU-", 4) != 0)
        return -1;
    int found = -1;
    for (int d = 0; d < c->ndevices; d++) {
        char text[41];
        sim_cuda_uuid_text(c->devices[d].index, text);
        if (len <= strlen(text) && strncmp(text, entry, len) == 0) {
            if (found >= 0)
                return -1; /* a prefix of two UUIDs names neither */
            found = d;
        }
    }
    return found;
}

sim_status sim_cuda_visible_devices(sim_config *c, const char *value, char *err, size_t errlen)
{
    if (!value)
        return SIM_OK;
    int *order = sim_calloc((size_t)c->ndevices + 1, sizeof *order);
    if (!order)
        return SIM_ERR_OUT_OF_MEMORY;
    int n = 0;
    const char *p = value;
    while (*p && n < c->ndevices) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, ",");
        size_t trimmed = len;
        while (trimmed > 0 && p[trimmed - 1] == ' ')
            trimmed--;
        char entry[64];
        if (trimmed >= sizeof entry)
            break;
        memcpy(entry, p, trimmed);
        entry[trimmed] = '\0';
        int d = entry_device(c, entry, trimmed);
        for (int i = 0; d >= 0 && i < n; i++)
            if (order[i] == d)
                d = -1; /* listed twice */
        if (d < 0)
            break; /* the list ends at an entry that names no device */
        order[n++] = d;
        p += len;
        if (*p == ',')
            p++;
    }
    if (n == 0) {
        snprintf(err, errlen, "CUDA_VISIBLE_DEVICES=\"%.100s\" names no device of the %d configured", value,
                 c->ndevices);
        free(order);
        return SIM_ERR_NO_DEVICE;
    }
    sim_device_config *kept = sim_calloc((size_t)n, sizeof *kept);
    if (!kept) {
        free(order);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < n; i++)
        kept[i] = c->devices[order[i]];
    free(c->devices);
    c->devices = kept;
    c->ndevices = n;
    free(order);
    return SIM_OK;
}
