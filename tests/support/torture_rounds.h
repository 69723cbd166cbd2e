#ifndef GG_TEST_TORTURE_ROUNDS_H
#define GG_TEST_TORTURE_ROUNDS_H
/* How many rounds a torture loop (a fork or a spawned process per round)
 * runs. Header-only, so that suites which do not link gg_test_support
 * (the interposer's) can use it. */
#include <stdlib.h>

/* The number of rounds to run: `full`, or GG_TORTURE_ROUNDS when that is a
 * number from 1 to `full` (anything else is ignored: never more rounds than
 * the suite's own count, never none). scripts/test.sh --tsan sets it to 60:
 * under ThreadSanitizer each forked or spawned process costs most of a
 * second (its shadow memory and its exit-time checks), and what TSan adds,
 * a report of a race, needs the racing accesses once, not 200 times; the
 * normal and ASan builds run every round. */
static inline unsigned gg_torture_rounds(unsigned full)
{
    const char *text = getenv("GG_TORTURE_ROUNDS");
    if (text == NULL || *text == '\0')
        return full;
    char *end = NULL;
    unsigned long asked = strtoul(text, &end, 10);
    if (*end != '\0' || asked == 0 || asked > full)
        return full;
    return (unsigned)asked;
}

#endif
