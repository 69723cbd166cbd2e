/* libFuzzer harness: the simulated driver's configuration parser
 * (GPUGUARD_SIM_CONFIG), linked from the simulator's core objects and
 * called directly. Contracts: any text parses (SIM_OK, with values inside
 * their documented ranges) or is refused with SIM_ERR_INVALID_VALUE and a
 * message (never "out of memory": the strict syntax check and cJSON must
 * agree on what is JSON); a failed parse leaves nothing allocated
 * (LeakSanitizer); an accepted config is valid UTF-8, has no \u0000 and
 * names no member twice (issue 26: the same checker as fault plans), and
 * so are the device names it gives the driver. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_json.h"
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
        size_t bad = 0;
        const char *twice = NULL;
        FUZZ_CHECK(fuzz_utf8_valid(text, &bad), "a config with bytes that are not UTF-8 (at %zu) was accepted", bad);
        FUZZ_CHECK(!fuzz_has_nul_escape(text), "a config with \\u0000 was accepted");
        cJSON *tree = size > 0 ? cJSON_Parse(text) : NULL;
        FUZZ_CHECK(size == 0 || tree != NULL, "an accepted config is not JSON to cJSON");
        FUZZ_CHECK(fuzz_names_unique(tree, &twice), "a config naming \"%s\" twice in an object was accepted", twice);
        cJSON_Delete(tree);
        FUZZ_CHECK(c.ndevices >= 0 && (c.ndevices == 0 || c.devices != NULL), "%d devices", c.ndevices);
        for (int i = 0; i < c.ndevices; i++) {
            const sim_device_config *d = &c.devices[i];
            FUZZ_CHECK(memchr(d->name, '\0', sizeof d->name) != NULL, "device %d: unterminated name", i);
            FUZZ_CHECK(fuzz_utf8_valid(d->name, &bad), "device %d: its name is not UTF-8 at %zu", i, bad);
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
