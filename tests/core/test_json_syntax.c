/* The strict JSON syntax check (src/base/json_syntax.c) against RFC 8259:
 * valid texts pass (the fuzzers check the other direction: what it passes,
 * cJSON parses), and each kind of error names the offset and what was
 * expected there. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_syntax.h"

Test(json_syntax, valid_texts_pass)
{
    static const char *const valid[] = {
        "{}", "[]", " \t\r\n[ ] \n", "0", "-0", "-12.5e+3", "1E-2", "true", "false", "null", "\"\"",
        "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"", "{\"a\": [1, {\"b\": null}], \"c\": \"d\"}",
        "\"\xc3\xa9 raw UTF-8 bytes pass through\"",
    };
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        char message[128] = "";
        cr_assert(gg__json_check_syntax(valid[i], message, sizeof message), "%s refused: %s", valid[i], message);
    }
}

Test(json_syntax, errors_name_the_offset_and_what_was_expected)
{
    static const struct {
        const char *text, *message;
    } invalid[] = {
        { "", "at offset 0: expected a JSON value (object, array, string, number, true, false or null), found the end "
              "of the text" },
        { "{\"a\" 1}", "at offset 5: expected ':' after the member's name, found '1'" },
        { "{\"a\": 1,}", "at offset 8: expected a string (a member's name), found '}'" },
        { "[1 2]", "at offset 3: expected ',' or ']' after an element, found '2'" },
        { "[1] x", "at offset 4: expected the end of the text after the value, found 'x'" },
        { "01", "at offset 1: expected the end of the text after the value, found '1'" },
        { "1.", "at offset 2: expected a digit after the decimal point, found the end of the text" },
        { "1e", "at offset 2: expected a digit of the exponent, found the end of the text" },
        { "-", "at offset 1: expected a digit, found the end of the text" },
        { "tru", "at offset 3: expected 'true', found the end of the text" },
        { "\"abc", "at offset 4: expected '\"' closing the string" },
        { "\"a\nb\"", "at offset 2: expected '\"' closing the string (control characters must be escaped), found "
                      "byte 0x0a" },
        { "\"\\x\"", "at offset 2: expected an escape" },
        { "\"\\u12g4\"", "at offset 5: expected a hex digit of a \\u escape, found 'g'" },
        { "\"\\udc00\"", "at offset 1: expected a \\u escape that is not a lone low surrogate" },
        { "\"\\ud800x\"", "at offset 7: expected a \\u escape of a low surrogate after a high one, found 'x'" },
        { "+1", "at offset 0: expected a JSON value" },
        { "NaN", "at offset 0: expected a JSON value" },
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        char message[160] = "";
        cr_assert_not(gg__json_check_syntax(invalid[i].text, message, sizeof message), "'%s' passed", invalid[i].text);
        cr_assert(strncmp(message, invalid[i].message, strlen(invalid[i].message)) == 0, "'%s': '%s', expected '%s'",
                  invalid[i].text, message, invalid[i].message);
    }
}

Test(json_syntax, nesting_is_bounded)
{
    char deep[2 * (GG_JSON_MAX_DEPTH + 2) + 1];
    size_t n = 0;
    for (int i = 0; i < GG_JSON_MAX_DEPTH + 1; i++)
        deep[n++] = '[';
    for (int i = 0; i < GG_JSON_MAX_DEPTH + 1; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    char message[160] = "";
    cr_assert(gg__json_check_syntax(deep, message, sizeof message), "%d levels: %s", GG_JSON_MAX_DEPTH + 1, message);
    memmove(deep + 1, deep, n + 1);
    deep[0] = '[';
    deep[n + 1] = ']';
    deep[n + 2] = '\0';
    cr_assert_not(gg__json_check_syntax(deep, message, sizeof message), "%d levels passed", GG_JSON_MAX_DEPTH + 2);
    cr_assert(strstr(message, "nested at most 64 deep") != NULL, "%s", message);
}

/* Issue 26: bytes that are not UTF-8 passed the check, and came back out of
 * gg_fault_counts_json and the fault report as invalid JSON. Each kind of
 * invalid sequence (RFC 3629 section 3) is refused at its first byte. */
Test(json_syntax, invalid_utf8_is_refused_naming_the_byte_and_why)
{
    static const struct {
        const char *text, *message;
    } invalid[] = {
        { "\"k\xff\"", "at offset 2: expected valid UTF-8, found byte 0xff (a byte that never occurs in UTF-8)" },
        { "\"\xf8\x88\x80\x80\x80\"", "at offset 1: expected valid UTF-8, found byte 0xf8 (a byte that never" },
        { "\"ab\x80\"", "at offset 3: expected valid UTF-8, found byte 0x80 (a continuation byte with no lead" },
        { "\"\xc3\xa9\xa9\"", "at offset 3: expected valid UTF-8, found byte 0xa9 (a continuation byte" },
        { "\"\xc0\xaf\"", "at offset 1: expected valid UTF-8, found byte 0xc0 (an overlong form)" },
        { "\"\xc1\xbf\"", "at offset 1: expected valid UTF-8, found byte 0xc1 (an overlong form)" },
        { "\"\xe0\x80\xaf\"", "at offset 1: expected valid UTF-8, found byte 0xe0 (an overlong form)" },
        { "\"\xf0\x8f\xbf\xbf\"", "at offset 1: expected valid UTF-8, found byte 0xf0 (an overlong form)" },
        { "\"\xed\xa0\x80\"", "at offset 1: expected valid UTF-8, found byte 0xed (a UTF-16 surrogate" },
        { "\"\xed\xbf\xbf\"", "at offset 1: expected valid UTF-8, found byte 0xed (a UTF-16 surrogate" },
        { "\"\xf4\x90\x80\x80\"", "at offset 1: expected valid UTF-8, found byte 0xf4 (a code point above U+10FFFF)" },
        { "\"\xf5\x80\x80\x80\"", "at offset 1: expected valid UTF-8, found byte 0xf5 (a code point above U+10FFFF)" },
        { "\"\xc3\"", "at offset 1: expected valid UTF-8, found byte 0xc3 (a sequence cut short)" },
        { "\"\xe2\x82\"", "at offset 1: expected valid UTF-8, found byte 0xe2 (a sequence cut short)" },
        { "\"\xf0\x9f\x98", "at offset 1: expected valid UTF-8, found byte 0xf0 (a sequence cut short)" },
        { "\"\xe2x\x82\"", "at offset 1: expected valid UTF-8, found byte 0xe2 (a sequence cut short)" },
        /* In a member's name as in a value. */
        { "{\"k\xfe\": 1}", "at offset 3: expected valid UTF-8, found byte 0xfe" },
        /* Escaped surrogates that do not pair (already refused before). */
        { "\"\\ud800\"", "at offset 7: expected a \\u escape of a low surrogate after a high one" },
        { "\"\\ud800\\u0041\"", "at offset 7: expected a \\u escape of a low surrogate after a high one" },
        { "\"\\udfff\\ud800\"", "at offset 1: expected a \\u escape that is not a lone low surrogate" },
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        char message[200] = "";
        cr_assert_not(gg__json_check_syntax(invalid[i].text, message, sizeof message), "case %zu passed", i);
        cr_assert(strncmp(message, invalid[i].message, strlen(invalid[i].message)) == 0, "case %zu: '%s', expected '%s'",
                  i, message, invalid[i].message);
    }
    /* The edges of each valid range pass. */
    static const char *const valid[] = {
        "\"\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbf \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf\"",
        "{\"\xe2\x82\xac\": \"\\ud83d\\ude00\"}",
    };
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        char message[200] = "";
        cr_assert(gg__json_check_syntax(valid[i], message, sizeof message), "valid %zu refused: %s", i, message);
    }
}

/* Issue 26: "alloc\u0000junk" was accepted and ran as "alloc" (cJSON keeps
 * a C string). NUL is refused in values and names alike. */
Test(json_syntax, nul_in_a_string_is_refused)
{
    static const struct {
        const char *text, *message;
    } invalid[] = {
        { "{\"op\":\"alloc\\u0000junk\"}", "at offset 12: expected a character other than NUL (\\u0000 is not allowed" },
        { "[\"\\u0000\"]", "at offset 2: expected a character other than NUL" },
        { "{\"a\\u0000\": 1}", "at offset 3: expected a character other than NUL" },
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        char message[200] = "";
        cr_assert_not(gg__json_check_syntax(invalid[i].text, message, sizeof message), "case %zu passed", i);
        cr_assert(strncmp(message, invalid[i].message, strlen(invalid[i].message)) == 0, "case %zu: '%s', expected '%s'",
                  i, message, invalid[i].message);
    }
    char message[200] = "";
    cr_assert(gg__json_check_syntax("\"\\u0001 \\u0100\"", message, sizeof message), "%s", message);
}

/* Issue 26: {"op":"alloc","op":"bogus"} ran as alloc (cJSON takes the first
 * of two names; most readers the last). Names are compared decoded. */
Test(json_syntax, duplicate_names_are_refused_naming_the_name_and_both_offsets)
{
    static const struct {
        const char *text, *message;
    } invalid[] = {
        { "{\"op\":\"alloc\",\"op\":\"bogus\"}",
          "at offset 14: expected a member name not already in this object, found \"op\" again (first at offset 1)" },
        { "{\"rules\": [], \"seed\": 1, \"rules\": []}", "at offset 25: expected a member name not already in this "
                                                     "object, found \"rules\" again (first at offset 1)" },
        /* The same name written two ways. */
        { "{\"op\": 1, \"\\u006fp\": 2}", "at offset 10: expected a member name not already in this object, found "
                                        "\"\\u006fp\" again (first at offset 1)" },
        { "{\"\\ud83d\\ude00\": 1, \"\xf0\x9f\x98\x80\": 2}", "at offset 20: expected a member name not already" },
        /* Inside a nested object, after one closed with the same names. */
        { "[{\"a\": {\"a\": 1}, \"b\": {\"a\": 1, \"a\": 2}}]", "at offset 31: expected a member name not already" },
        { "{\"\": 1, \"\": 2}", "at offset 8: expected a member name not already in this object, found \"\" again" },
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        char message[200] = "";
        cr_assert_not(gg__json_check_syntax(invalid[i].text, message, sizeof message), "case %zu passed", i);
        cr_assert(strncmp(message, invalid[i].message, strlen(invalid[i].message)) == 0, "case %zu: '%s', expected '%s'",
                  i, message, invalid[i].message);
    }
    /* The same name in different objects, and names that differ only in
     * case or by a prefix, are fine. */
    static const char *const valid[] = {
        "[{\"op\": 1}, {\"op\": 2}]", "{\"a\": {\"a\": {\"a\": 1}}, \"b\": {\"a\": 2}}", "{\"op\": 1, \"OP\": 2}",
        "{\"a\": 1, \"ab\": 2, \"\\u0061b\\u0063\": 3}",
    };
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        char message[200] = "";
        cr_assert(gg__json_check_syntax(valid[i], message, sizeof message), "valid %zu refused: %s", i, message);
    }
    /* A long name is cut in the message, not inside a UTF-8 sequence. */
    char text[256], message[300] = "";
    snprintf(text, sizeof text, "{\"%s\xc3\xa9xyz\": 1, \"%s\xc3\xa9xyz\": 2}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    cr_assert_not(gg__json_check_syntax(text, message, sizeof message));
    cr_assert(strstr(message, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"... again") != NULL, "%s", message);
}

/* The duplicate check's fixed table: GG_JSON_MAX_OPEN_MEMBERS names in open
 * objects pass, one more is refused naming the bound. */
Test(json_syntax, open_member_names_are_bounded)
{
    static char text[GG_JSON_MAX_OPEN_MEMBERS * 16 + 16];
    size_t n = 0;
    text[n++] = '{';
    for (int i = 0; i < GG_JSON_MAX_OPEN_MEMBERS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\"k%d\":0", i ? "," : "", i);
    snprintf(text + n, sizeof text - n, "}");
    char message[200] = "";
    cr_assert(gg__json_check_syntax(text, message, sizeof message), "%s", message);
    snprintf(text + n, sizeof text - n, ",\"last\":0}");
    cr_assert_not(gg__json_check_syntax(text, message, sizeof message));
    cr_assert(strstr(message, "expected at most 512 members in the objects open at this point") != NULL, "%s", message);
}

/* What gpuguard writes: invalid bytes become U+FFFD, valid text is kept
 * (the same pointer, nothing copied). */
Test(json_syntax, output_repair_replaces_each_invalid_byte)
{
    char *valid = strdup("{\"tag\": \"\xc3\xa9t\xc3\xa9\"}");
    cr_assert_eq(gg__json_valid_utf8(valid), valid);
    free(valid);
    char *text = gg__json_valid_utf8(strdup("\"a\xff" "b\xc3\" \xed\xa0\x80"));
    cr_assert_str_eq(text, "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\" \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    char message[200];
    cr_assert(gg__json_check_syntax("\"a\xef\xbf\xbd\"", message, sizeof message), "%s", message);
    free(text);
    cr_assert_null(gg__json_valid_utf8(NULL));
}
