/* libFuzzer harness: the simulated driver's configuration parser
 * (GPUGUARD_SIM_CONFIG), linked from the simulator's core objects and
 * called directly. Contracts: any text parses (SIM_OK, with values inside
 * their documented ranges) or is refused with SIM_ERR_INVALID_VALUE and a
 * message (never "out of memory": the strict syntax check and cJSON must
 * agree on what is JSON); a failed parse leaves nothing allocated
 * (LeakSanitizer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_core.h"

#define FUZZ_CHECK(cond, ...)                                                                   \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz contract broken at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            __builtin_trap();                                                                   \
        }                                                                                       \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sim_config c;
    char err[512];
    sim_status st = sim_config_parse(text, &c, err, sizeof err);
    if (st == SIM_OK) {
        FUZZ_CHECK(c.ndevices >= 0 && (c.ndevices == 0 || c.devices != NULL), "%d devices", c.ndevices);
        for (int i = 0; i < c.ndevices; i++) {
            const sim_device_config *d = &c.devices[i];
            FUZZ_CHECK(memchr(d->name, '\0', sizeof d->name) != NULL, "device %d: unterminated name", i);
            FUZZ_CHECK(d->memory_bytes > 0, "device %d: no memory", i);
            FUZZ_CHECK(!d->watchdog || d->watchdog_ms > 0, "device %d: watchdog of 0 ms", i);
        }
        FUZZ_CHECK(c.nrules >= 0 && (c.nrules == 0 || c.rules != NULL), "%d rules", c.nrules);
        FUZZ_CHECK(!(c.fast && c.nrules > 0), "\"fast\" with \"misbehave\" was accepted");
        for (int i = 0; i < c.nrules; i++)
            FUZZ_CHECK(c.rules[i].device < c.ndevices, "misbehave[%d] names device %d of %d", i, c.rules[i].device,
                       c.ndevices);
        sim_config_free(&c);
    } else {
        FUZZ_CHECK(st == SIM_ERR_INVALID_VALUE, "status %d", (int)st);
        FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0', "refused with no message");
        /* Nothing fails allocations here: an out-of-memory refusal would
         * mean the syntax check passed a text cJSON then refused. (The
         * prefix, not a substring: messages quote the input's own keys.) */
        FUZZ_CHECK(strncmp(err, "GPUGUARD_SIM_CONFIG: out of memory", 34) != 0, "%s", err);
    }
    free(text);
    return 0;
}
