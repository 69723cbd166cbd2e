/* Statuses: one list makes the enum, the names and the messages; numbers are
 * fixed forever. */
#include <criterion/criterion.h>
#include <string.h>

#include "gpuguard/gpuguard.h"

Test(status, names_and_messages_cover_every_status)
{
    for (int s = 0; s < GG__STATUS_COUNT; s++) {
        const char *name = gg_status_name((gg_status)s);
        cr_assert(strncmp(name, "GG_", 3) == 0, "status %d has name %s", s, name);
        cr_assert_str_neq(name, "GG_UNKNOWN_STATUS", "status %d has no name", s);
        cr_assert_str_neq(gg_status_string((gg_status)s), "unknown status");
    }
    cr_assert_str_eq(gg_status_name((gg_status)9999), "GG_UNKNOWN_STATUS");
    cr_assert_str_eq(gg_status_name((gg_status)-1), "GG_UNKNOWN_STATUS");
}

Test(status, numbers_never_change)
{
    cr_assert_eq(GG_OK, 0);
    cr_assert_eq(GG_INVALID_HANDLE, 2);
    cr_assert_eq(GG_TIMEOUT, 9);
    cr_assert_eq(GG_LAUNCH_TIMEOUT, 10);
    cr_assert_eq(GG_CONTEXT_DEAD, 13);
    cr_assert_eq(GG_FORKED, 14);
    cr_assert_eq(GG_WATCHDOG_RISK, 16);
    cr_assert_eq(GG_DRIVER, 18);
    cr_assert_str_eq(gg_status_name(GG_CONTEXT_DEAD), "GG_CONTEXT_DEAD");
}

Test(status, last_error_rejects_null)
{
    cr_assert_eq(gg_last_error(NULL), GG_INVALID_ARGUMENT);
    gg_error_info e = GG_ERROR_INFO_INIT;
    cr_assert_eq(gg_last_error(&e), GG_OK);
    cr_assert_eq(e.status, GG_OK);
}
