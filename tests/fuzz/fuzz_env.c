/* libFuzzer harness: the environment variables gg_init reads. The input is
 * lines "INDEX=VALUE"-like: each line's first byte picks a variable, the
 * rest is its value. Contracts: gg_init succeeds or fails with a status the
 * API defines and, for GG_INVALID_ARGUMENT, a message naming one of the
 * variables; after gg_shutdown nothing is left alive and a second gg_init
 * behaves the same (no state leaks between inits); and (issue 26, where
 * GPUGUARD_TIMELINE=ON was refused and GPUGUARD_TIMEOUT_POLICY=Return
 * accepted) flipping the ASCII case of every keyword variable's value
 * changes nothing: the same status, the same message but for case. */
#include <strings.h>

#include "fuzz_support.h"

/* Not fuzzed: the library paths (they would load anything), the report
 * path (it would write anywhere), GPUGUARD_FAIL_HOST_ALLOC (read once per
 * process, so it cannot vary between inputs) and "@file" plans. */
static const char *const variables[] = {
    "GPUGUARD_BACKEND",        "GPUGUARD_LOG",      "GPUGUARD_WAIT_TIMEOUT_MS", "GPUGUARD_WATCHDOG",
    "GPUGUARD_SYNC_LAUNCHES",  "GPUGUARD_FAULTS",   "GPUGUARD_TIMELINE",        "GPUGUARD_TIMEOUT_POLICY",
    "GPUGUARD_LAUNCH_RECORDS",
};
#define VARIABLE_COUNT (sizeof variables / sizeof variables[0])

/* The variables whose values are keywords (gpuguard.h: matched ignoring
 * case); the others hold numbers or JSON, where case matters. */
static bool keyword_variable(const char *name)
{
    static const char *const keywords[] = { "GPUGUARD_BACKEND", "GPUGUARD_LOG", "GPUGUARD_WATCHDOG",
                                            "GPUGUARD_TIMELINE", "GPUGUARD_TIMEOUT_POLICY" };
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(name, keywords[i]) == 0)
            return true;
    return false;
}

/* Every ASCII letter of the keyword variables' values in the other case. */
static bool flip_keyword_case(void)
{
    bool flipped = false;
    for (size_t i = 0; i < VARIABLE_COUNT; i++) {
        const char *v = getenv(variables[i]);
        if (v == NULL || !keyword_variable(variables[i]))
            continue;
        char *copy = strdup(v);
        if (copy == NULL)
            abort();
        for (char *p = copy; *p != '\0'; p++) {
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A'), flipped = true;
            else if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a'), flipped = true;
        }
        setenv(variables[i], copy, 1);
        free(copy);
    }
    return flipped;
}

static void clear_all(void)
{
    for (size_t i = 0; i < VARIABLE_COUNT; i++)
        unsetenv(variables[i]);
}

/* Silences GPUGUARD_LOG=debug and friends: the library prints only to the
 * callback it is given, and a fuzzer's output should stay readable. */
static void quiet_log(void *user, gg_log_level level, uint64_t context, const char *message)
{
    (void)user;
    (void)level;
    (void)context;
    (void)message;
}

static gg_status init_once(char *message, size_t size)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_FUZZ_SIM_CUDA, .log_fn = quiet_log };
    gg_status s = gg_init(&desc);
    fuzz_check_status(s, "gg_init");
    gg_error_info info = GG_ERROR_INFO_INIT;
    gg_last_error(&info);
    snprintf(message, size, "%s", s == GG_OK ? "" : info.message);
    if (s == GG_OK) {
        uint64_t live = 1;
        FUZZ_CHECK(gg_live_objects(&live) == GG_OK && live == 0, "a fresh gg_init has %llu live objects",
                   (unsigned long long)live);
        FUZZ_CHECK(gg_shutdown() == GG_OK, "gg_shutdown");
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clear_all();
    setenv("GPUGUARD_SIM_CONFIG", "{\"fast\": true}", 1);
    char *text = fuzz_string(data, size);
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        const char *name = variables[(unsigned char)line[0] % VARIABLE_COUNT];
        /* The backend must stay the simulator: other values would load real drivers. */
        if ((strcmp(name, "GPUGUARD_BACKEND") == 0 && strcasecmp(line + 1, "sim") != 0) ||
            (strcmp(name, "GPUGUARD_FAULTS") == 0 && line[1] == '@'))
            continue;
        setenv(name, line + 1, 1);
    }
    char first[GG_MESSAGE_MAX], second[GG_MESSAGE_MAX];
    gg_status s = init_once(first, sizeof first);
    if (s == GG_INVALID_ARGUMENT) {
        bool named = false;
        for (size_t i = 0; i < VARIABLE_COUNT; i++)
            named = named || strstr(first, variables[i]) != NULL;
        FUZZ_CHECK(named, "GG_INVALID_ARGUMENT naming no variable: %s", first);
    }
    gg_status again = init_once(second, sizeof second);
    FUZZ_CHECK(again == s && strcmp(first, second) == 0, "gg_init gave %s (%s), then %s (%s)", gg_status_name(s),
               first, gg_status_name(again), second);
    if (flip_keyword_case()) {
        char flipped[GG_MESSAGE_MAX];
        gg_status other = init_once(flipped, sizeof flipped);
        FUZZ_CHECK(other == s && strcasecmp(first, flipped) == 0,
                   "with the keywords' case flipped gg_init gave %s (%s), not %s (%s)", gg_status_name(other), flipped,
                   gg_status_name(s), first);
    }
    clear_all();
    free(text);
    return 0;
}
