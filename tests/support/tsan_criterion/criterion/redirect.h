/* Stand-in for Criterion's output redirection (see criterion.h here):
 * cr_redirect_stdout / cr_redirect_stderr, typically a test's .init, send
 * the test's fd 1 / fd 2 to a temporary file; the *_eq_str assertions
 * compare everything written there so far. */
#ifndef GG_TSAN_CRITERION_REDIRECT_H
#define GG_TSAN_CRITERION_REDIRECT_H

#include <stdio.h> /* as Criterion's redirect.h */

#include "criterion.h"

void cr_redirect_stdout(void);
void cr_redirect_stderr(void);
/* Whether the redirected fd's content equals `expected` (prints it if not). */
bool crs_output_eq(int fd, const char *expected);

#define cr_assert_stdout_eq_str(s, ...) \
    CRS_CHECK_(crs_assert_failed, crs_output_eq(1, (s)), "stdout == " #s, __VA_ARGS__)
#define cr_expect_stdout_eq_str(s, ...) \
    CRS_CHECK_(crs_expect_failed, crs_output_eq(1, (s)), "stdout == " #s, __VA_ARGS__)
#define cr_assert_stderr_eq_str(s, ...) \
    CRS_CHECK_(crs_assert_failed, crs_output_eq(2, (s)), "stderr == " #s, __VA_ARGS__)
#define cr_expect_stderr_eq_str(s, ...) \
    CRS_CHECK_(crs_expect_failed, crs_output_eq(2, (s)), "stderr == " #s, __VA_ARGS__)

#endif
