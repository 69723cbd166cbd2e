/* The strict JSON syntax check (src/common/json_syntax.c) against RFC 8259:
 * valid texts pass (the fuzzers check the other direction: what it passes,
 * cJSON parses), and each kind of error names the offset and what was
 * expected there. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/json_syntax.h"

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
