/* Fault injection: rules hit exactly the calls they name; immediate and
 * async errors flow through the same machinery as real ones; malformed
 * plans are refused naming the rule and field. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

TestSuite(faults, .init = setup);

/* Allocates `n` buffers; returns a string of '.' (ok) and 'x' (OOM), freeing all. */
static void alloc_pattern(int n, char *out)
{
    gg_buffer bufs[128];
    for (int i = 0; i < n; i++) {
        gg_status s = gg_buffer_create(rig.ctx, 64, NULL, &bufs[i]);
        cr_assert(s == GG_OK || s == GG_OUT_OF_MEMORY, "alloc %d: %s", i, gg_status_name(s));
        out[i] = s == GG_OK ? '.' : 'x';
        cr_assert(s == GG_OK || bufs[i].id == 0);
    }
    out[n] = '\0';
    for (int i = 0; i < n; i++)
        gg_buffer_destroy(bufs[i]);
}

Test(faults, rules_hit_exactly_the_calls_they_name)
{
    char pattern[129];
    GG_OK_(gg_fault_set_plan("{\"rules\":[{\"op\":\"alloc\",\"nth\":2,\"error\":\"out_of_memory\"}]}"));
    alloc_pattern(5, pattern);
    cr_assert_str_eq(pattern, ".x...");
    GG_OK_(gg_fault_set_plan("[{\"op\":\"alloc\",\"from\":3,\"to\":5,\"error\":\"out_of_memory\"}]"));
    alloc_pattern(7, pattern);
    cr_assert_str_eq(pattern, "..xxx..");
    GG_OK_(gg_fault_set_plan("[{\"op\":\"alloc\",\"from\":6,\"error\":\"out_of_memory\"}]"));
    alloc_pattern(8, pattern);
    cr_assert_str_eq(pattern, ".....xxx");
    GG_OK_(gg_fault_set_plan("[{\"op\":\"alloc\",\"every\":3,\"error\":\"out_of_memory\"}]"));
    alloc_pattern(9, pattern);
    cr_assert_str_eq(pattern, "..x..x..x");
    GG_OK_(gg_fault_clear());
    alloc_pattern(3, pattern);
    cr_assert_str_eq(pattern, "...");
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, seeded_probability_is_reproducible)
{
    const char *plan = "{\"seed\":42,\"rules\":[{\"op\":\"alloc\",\"probability\":0.3,\"error\":\"out_of_memory\"}]}";
    char first[101], second[101], other[101];
    GG_OK_(gg_fault_set_plan(plan));
    alloc_pattern(100, first);
    GG_OK_(gg_fault_set_plan(plan));
    alloc_pattern(100, second);
    cr_assert_str_eq(first, second);
    int failures = 0;
    for (int i = 0; i < 100; i++)
        failures += first[i] == 'x';
    cr_assert(failures > 10 && failures < 60, "%d failures at p=0.3", failures);
    GG_OK_(gg_fault_set_plan("{\"seed\":43,\"rules\":[{\"op\":\"alloc\",\"probability\":0.3,\"error\":\"out_of_memory\"}]}"));
    alloc_pattern(100, other);
    cr_assert_str_neq(first, other, "another seed gives another sequence");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, counts_report_calls_per_operation_and_rule_hits)
{
    GG_OK_(gg_fault_set_plan("[{\"op\":\"alloc\",\"nth\":1,\"error\":\"out_of_memory\"}]"));
    char pattern[8];
    alloc_pattern(3, pattern);
    char *json = NULL;
    GG_OK_(gg_fault_counts_json(&json));
    cr_assert(strstr(json, "\"alloc\":\t3") != NULL || strstr(json, "\"alloc\": 3") != NULL, "%s", json);
    cr_assert(strstr(json, "\"fired\":\t1") != NULL || strstr(json, "\"fired\": 1") != NULL, "%s", json);
    gg_free(json);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, immediate_sticky_injection_kills_the_context_with_the_cause)
{
    GG_OK_(gg_fault_set_plan("[{\"op\":\"launch\",\"kernel\":\"noop\",\"nth\":2,\"error\":\"illegal_address\"}]"));
    GG_OK_(launch_plain(rig.noop, GG_NO_STREAM));
    GG_OK_(launch_plain(rig.hang_me, GG_NO_STREAM)); /* another kernel: not counted by the rule */
    GG_EXPECT(GG_ILLEGAL_ADDRESS, launch_plain(rig.noop, GG_NO_STREAM));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.status, GG_ILLEGAL_ADDRESS);
    cr_assert_eq(death.native_code, 700);
    cr_assert_str_eq(death.driver_call, gg_test_backend_in_use()->fn_launch);
    cr_assert(strstr(death.message, "injected") != NULL, "%s", death.message);
    GG_EXPECT(GG_CONTEXT_DEAD, gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, async_injection_surfaces_at_the_next_sync_naming_the_launch)
{
    gg_stream stream;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "s" }, &stream));
    GG_OK_(gg_fault_set_plan("[{\"op\":\"launch\",\"nth\":1,\"error\":\"launch_failed\",\"mode\":\"async\"}]"));
    GG_OK_(launch_plain(rig.noop, stream)); /* goes through */
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf)); /* not a sync point */
    GG_EXPECT(GG_LAUNCH_FAILED, gg_stream_synchronize(stream, NULL));
    gg_error_info e = GG_ERROR_INFO_INIT;
    GG_OK_(gg_last_error(&e));
    cr_assert_eq(e.culprit.certainty, GG_ATTRIBUTION_EXACT);
    cr_assert_str_eq(e.culprit.kernel_name, "noop");
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_DEAD);
    /* An injected sticky fault poisons the process as a real one would
     * (CUDA); where recovery is allowed (HIP), it clears the latched error. */
    if (recover_as_the_driver_allows(rig.ctx)) {
        GG_OK_(gg_fault_clear());
        GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, device_filter_limits_a_rule)
{
    gg_context on0;
    GG_OK_(gg_context_create(0, NULL, &on0));
    GG_OK_(gg_fault_set_plan("[{\"op\":\"alloc\",\"device\":0,\"error\":\"out_of_memory\"}]"));
    gg_buffer a, b;
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_buffer_create(on0, 64, NULL, &a));
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &b)); /* device 1 */
    GG_OK_(gg_context_destroy(on0));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, failed_free_still_releases_the_handle)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf));
    GG_OK_(gg_fault_set_plan("[{\"op\":\"free\",\"error\":\"invalid_argument\"}]"));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_destroy(buf));
    size_t size;
    GG_EXPECT(GG_INVALID_HANDLE, gg_buffer_size(buf, &size));
    GG_OK_(gg_fault_clear());
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

typedef struct bad_plan {
    const char *json;
    const char *expect; /* must appear in the message */
} bad_plan;

static const bad_plan bad_plans[] = {
    { "{not json", "not valid JSON: at offset 1: expected a string (a member's name), found 'n'" },
    { "{", "at offset 1: expected a string (a member's name), found the end of the text" },
    /* cJSON alone would take the value and ignore what follows it. */
    { "{\"rules\": []} trailing junk", "at offset 14: expected the end of the text after the value, found 't'" },
    { "[] []", "at offset 3: expected the end of the text" },
    { "[{\"op\":\"alloc\",\"error\":\"driver\"},]", "at offset 33: expected a JSON value" },
    { "{\"rules\" []}", "at offset 9: expected ':'" },
    { "\"rules\"", "expected {\"rules\": [...]} or an array of rules" },
    { "{}", "the object has no \"rules\"" },
    { "{\"seed\": 7}", "the object has no \"rules\"" },
    /* Out-of-range seeds once reached a float-to-integer conversion (UB). */
    { "{\"seed\": -5, \"rules\": []}", "\"seed\" must be a whole number from 0 to 2^53" },
    { "{\"seed\": 1e30, \"rules\": []}", "\"seed\" must be a whole number" },
    { "{\"seed\": 1.5, \"rules\": []}", "\"seed\" must be a whole number" },
    { "{\"seed\": \"7\", \"rules\": []}", "\"seed\" must be a whole number" },
    { "{\"rules\": 3}", "rules" },
    { "{\"rules\": [], \"extra\": 1}", "\"extra\"" },
    { "[3]", "rule 0 is not a JSON object" },
    { "[{\"error\":\"out_of_memory\"}]", "rule 0: \"op\"" },
    { "[{\"op\":\"allocate\",\"error\":\"out_of_memory\"}]", "rule 0: \"op\": unknown operation \"allocate\"" },
    { "[{\"op\":\"alloc\"}]", "rule 0: \"error\"" },
    { "[{\"op\":\"alloc\",\"error\":\"kaboom\"}]", "rule 0: \"error\": unknown error \"kaboom\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"nht\":2}]", "rule 0: unknown field \"nht\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\"},{\"op\":\"free\",\"error\":\"driver\",\"nth\":0}]",
      "rule 1: \"nth\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"nth\":\"2\"}]", "rule 0: \"nth\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"nth\":1.5}]", "rule 0: \"nth\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"nth\":2,\"every\":3}]", "rule 0: choose one" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"from\":5,\"to\":2}]", "rule 0: \"to\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"probability\":1.5}]", "rule 0: \"probability\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"kernel\":\"x\"}]", "rule 0: \"kernel\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"mode\":\"async\"}]", "rule 0: \"mode\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"mode\":\"later\"}]", "rule 0: \"mode\"" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"device\":-1}]", "rule 0: \"device\"" },
    /* Issue 26: these were accepted. A NUL cut the string short for cJSON
     * ("alloc\u0000junk" ran as "alloc"), bytes that are not UTF-8 came
     * back out of the counts as invalid JSON, and of two "op"s the first
     * won where most readers take the last. */
    { "{\"rules\":[{\"op\":\"alloc\\u0000junk\",\"error\":\"out_of_memory\"}]}",
      "not valid JSON: at offset 22: expected a character other than NUL (\\u0000 is not allowed in strings)" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\\u0000x\"}]", "at offset 37: expected a character other than NUL" },
    { "[{\"op\":\"launch\",\"error\":\"launch_failed\",\"mode\":\"async\\u0000later\"}]",
      "at offset 53: expected a character other than NUL" },
    { "[{\"op\":\"launch\",\"kernel\":\"k\xff\",\"error\":\"launch_failed\"}]",
      "at offset 27: expected valid UTF-8, found byte 0xff (a byte that never occurs in UTF-8)" },
    { "[{\"op\":\"launch\",\"kernel\":\"k\xc0\x80\",\"error\":\"launch_failed\"}]", "(an overlong form)" },
    { "[{\"op\":\"launch\",\"kernel\":\"k\\ud800\",\"error\":\"launch_failed\"}]",
      "a \\u escape of a low surrogate after a high one" },
    { "[{\"op\":\"alloc\",\"op\":\"bogus\",\"error\":\"out_of_memory\"}]",
      "at offset 15: expected a member name not already in this object, found \"op\" again (first at offset 2)" },
    { "[{\"op\":\"alloc\",\"error\":\"out_of_memory\",\"error\":\"driver\"}]", "found \"error\" again" },
    { "{\"rules\":[],\"rules\":[{\"op\":\"alloc\",\"error\":\"out_of_memory\"}]}", "found \"rules\" again" },
};

Test(faults, malformed_plans_are_refused_naming_rule_and_field)
{
    GG_OK_(gg_fault_set_plan("[{\"op\":\"alloc\",\"nth\":1,\"error\":\"out_of_memory\"}]"));
    for (size_t i = 0; i < sizeof bad_plans / sizeof bad_plans[0]; i++) {
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_fault_set_plan(bad_plans[i].json));
        cr_assert(strstr(gg_test_last_message(), bad_plans[i].expect) != NULL, "plan %zu: message '%s' lacks '%s'", i,
                  gg_test_last_message(), bad_plans[i].expect);
    }
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_fault_set_plan(NULL));
    /* The plan in force was left as it was. */
    char *counts = NULL;
    GG_OK_(gg_fault_counts_json(&counts));
    cr_assert(strstr(counts, "\"plan\":\t\"[{\\\"op\\\":\\\"alloc\\\"") != NULL, "the report shows the plan in force: %s",
              counts);
    gg_free(counts);
    gg_buffer buf;
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_buffer_create(rig.ctx, 64, NULL, &buf));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, empty_plans_count_calls_and_inject_nothing)
{
    /* Documented as valid: the sweep's counting run uses one. Whitespace
     * around the value is allowed; nothing else is. */
    const char *const empty[] = { "[]", " {\"rules\": []}\n", "{\"seed\": 9007199254740992, \"rules\": []}" };
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        GG_OK_(gg_fault_set_plan(empty[i]));
        gg_buffer buf;
        GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf));
        GG_OK_(gg_buffer_destroy(buf));
        char *counts = NULL;
        GG_OK_(gg_fault_counts_json(&counts));
        cr_assert(strstr(counts, "\"alloc\":\t1") != NULL, "plan %zu counts the alloc: %s", i, counts);
        gg_free(counts);
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(faults, plans_from_the_environment_and_the_report_file)
{
    GG_OK_(gg_context_destroy(rig.ctx));
    GG_OK_(gg_shutdown());
    char plan_path[] = "/tmp/gg_plan_XXXXXX";
    int fd = mkstemp(plan_path);
    const char *plan = "[{\"op\":\"stream_create\",\"nth\":1,\"error\":\"out_of_memory\"}]";
    cr_assert_eq(write(fd, plan, strlen(plan)), (ssize_t)strlen(plan));
    close(fd);
    char arg[64], report[] = "/tmp/gg_report_XXXXXX";
    close(mkstemp(report));
    snprintf(arg, sizeof arg, "@%s", plan_path);
    setenv("GPUGUARD_FAULTS", arg, 1);
    setenv("GPUGUARD_FAULT_REPORT", report, 1);
    gg_test_init_sim(NULL);
    gg_context ctx;
    GG_OK_(gg_context_create(1, NULL, &ctx));
    gg_stream s;
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_stream_create(ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "first" }, &s));
    GG_OK_(gg_stream_create(ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "second" }, &s));
    GG_OK_(gg_context_destroy(ctx));
    gg_test_finish();
    FILE *f = fopen(report, "r");
    cr_assert_not_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    cr_assert(strstr(text, "\"stream_create\"") != NULL && strstr(text, "\"fired\"") != NULL, "%s", text);
    unlink(report);
    unlink(plan_path);
    /* A malformed plan in the environment fails init, naming the variable. */
    setenv("GPUGUARD_FAULTS", "[{\"op\":\"nope\"}]", 1);
    const gg_test_backend *tb = gg_test_backend_in_use();
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = tb->name, .cuda_library = tb->hip ? NULL : tb->library,
                          .hip_library = tb->hip ? tb->library : NULL };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "GPUGUARD_FAULTS") != NULL, "%s", gg_test_last_message());
}

/* Issue 26: a plan file is read whole; a NUL byte in it used to end the
 * plan there without a word. */
Test(faults, a_plan_file_with_a_nul_byte_is_refused)
{
    GG_OK_(gg_context_destroy(rig.ctx));
    GG_OK_(gg_shutdown());
    char plan_path[] = "/tmp/gg_plan_XXXXXX";
    int fd = mkstemp(plan_path);
    static const char plan[] = "[]\0[{\"op\":\"alloc\",\"error\":\"out_of_memory\"}]";
    cr_assert_eq(write(fd, plan, sizeof plan - 1), (ssize_t)(sizeof plan - 1));
    close(fd);
    char arg[64];
    snprintf(arg, sizeof arg, "@%s", plan_path);
    setenv("GPUGUARD_FAULTS", arg, 1);
    const gg_test_backend *tb = gg_test_backend_in_use();
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = tb->name, .cuda_library = tb->hip ? NULL : tb->library,
                          .hip_library = tb->hip ? tb->library : NULL };
    gg_status status = gg_init(&desc);
    unsetenv("GPUGUARD_FAULTS");
    unlink(plan_path);
    cr_assert_eq(status, GG_INVALID_ARGUMENT, "%s", gg_status_name(status));
    cr_assert(strstr(gg_test_last_message(), "GPUGUARD_FAULTS") != NULL &&
                  strstr(gg_test_last_message(), "has a NUL byte at offset 2") != NULL,
              "%s", gg_test_last_message());
}

/* Well-formed UTF-8 as RFC 3629's table lists the byte ranges (written
 * independently of the library's decoder, so that one cannot vouch for
 * itself). */
static bool valid_utf8(const char *text, size_t *bad)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (s[i] != 0) {
        unsigned char b = s[i];
        unsigned char lo = 0x80, hi = 0xBF;
        int more;
        if (b <= 0x7F) more = 0;
        else if (b >= 0xC2 && b <= 0xDF) more = 1;
        else if (b == 0xE0) more = 2, lo = 0xA0;
        else if (b == 0xED) more = 2, hi = 0x9F;
        else if (b >= 0xE1 && b <= 0xEF) more = 2;
        else if (b == 0xF0) more = 3, lo = 0x90;
        else if (b == 0xF4) more = 3, hi = 0x8F;
        else if (b >= 0xF1 && b <= 0xF3) more = 3;
        else { *bad = i; return false; }
        for (int k = 1; k <= more; k++) {
            unsigned char c = s[i + k];
            if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) {
                *bad = i;
                return false;
            }
        }
        i += (size_t)more + 1;
    }
    return true;
}

/* Issue 26: what gpuguard writes is valid JSON in valid UTF-8 whatever
 * bytes a program gave it: a tag that is not UTF-8, and one cut at
 * GG_NAME_MAX - 1 bytes inside a character, become U+FFFD in the dump. */
Test(faults, dumps_are_valid_utf8_whatever_the_tags)
{
    char cut[GG_NAME_MAX + 2];
    memset(cut, 'a', GG_NAME_MAX - 2);
    memcpy(cut + GG_NAME_MAX - 2, "\xc3\xa9", 3); /* the tag keeps the 0xc3 */
    gg_stream s1, s2;
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "bad\xff" "tag" }, &s1));
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = cut }, &s2));
    char *dump = NULL;
    GG_OK_(gg_objects_json(&dump));
    size_t bad = 0;
    cr_assert(valid_utf8(dump, &bad), "the dump is not UTF-8 at byte %zu: %s", bad, dump);
    cr_assert(strstr(dump, "\"bad\xef\xbf\xbdtag\"") != NULL, "%s", dump);
    cr_assert(strstr(dump, "aaaaaaaa\xef\xbf\xbd\"") != NULL, "%s", dump);
    cJSON *root = cJSON_Parse(dump);
    cr_assert_not_null(root, "the dump is not JSON: %s", dump);
    cJSON_Delete(root);
    gg_free(dump);
    /* The counts, with a plan whose names are all UTF-8, name its rules as
     * accepted, kernel filters included. */
    GG_OK_(gg_fault_set_plan("[{\"op\":\"launch\",\"kernel\":\"\xc3\xa9t\xc3\xa9\",\"error\":\"launch_failed\"},"
                             "{\"op\":\"alloc\",\"nth\":9,\"error\":\"out_of_memory\"}]"));
    char *counts = NULL;
    GG_OK_(gg_fault_counts_json(&counts));
    cr_assert(valid_utf8(counts, &bad), "the counts are not UTF-8 at byte %zu: %s", bad, counts);
    root = cJSON_Parse(counts);
    cr_assert_not_null(root, "the counts are not JSON: %s", counts);
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(root, "rules");
    cr_assert_eq(cJSON_GetArraySize(rules), 2, "%s", counts);
    const cJSON *r0 = cJSON_GetArrayItem(rules, 0), *r1 = cJSON_GetArrayItem(rules, 1);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r0, "op")->valuestring, "launch");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r0, "kernel")->valuestring, "\xc3\xa9t\xc3\xa9");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r1, "op")->valuestring, "alloc");
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(r1, "kernel"), "%s", counts);
    cJSON_Delete(root);
    gg_free(counts);
    GG_OK_(gg_fault_clear());
    GG_OK_(gg_stream_destroy(s1));
    GG_OK_(gg_stream_destroy(s2));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
