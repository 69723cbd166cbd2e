/*
 * Kernel names longer than a culprit record holds (issue 31): numba's and
 * C++ templates' mangled names pass 200 bytes, and two instantiations of
 * one template differ only near the end. The culprit must name the right
 * one without ambiguity (the shortened form of GG_NAME_MAX, which
 * gg_kernel_full_name turns back into the whole name), and the
 * simulator's own record of the launch (written by the simulator, not by
 * gpuguard) must agree. PTX kernels: the CUDA face only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/launches.h"
#include "gpuguard/gg_sim_control.h"

static gg_test_rig rig;

static void setup(void)
{
    /* Each length faults and recovers in one process: per-context errors
     * (launches.h, PER_CONTEXT_STICKY). */
    gg_test_init_sim("{\"record_launches\":true, " PER_CONTEXT_STICKY "}");
    gg_test_rig_open(&rig, 1);
}

TestSuite(long_names, .init = setup);

/* A name of `len` bytes: a numba-like mangled prefix, 'x' padding, and the
 * tail `tail` (which is what differs between instantiations). */
static void make_name(char *out, size_t len, const char *tail)
{
    const char *head = "_ZN8__main__6kernelB2v1B96cw51cXTLSUwv1sDUaKaIeaSJ";
    size_t h = strlen(head), t = strlen(tail);
    memcpy(out, head, h);
    memset(out + h, 'x', len - h - t);
    memcpy(out + len - t, tail, t);
    out[len] = '\0';
}

/* A module of two kernels: `ok_name` returns, `bad_name` traps. */
static gg_module load_pair(const char *ok_name, const char *bad_name)
{
    char ptx[4096];
    snprintf(ptx, sizeof ptx,
             ".version 7.0\n.target sm_75\n.address_size 64\n"
             ".visible .entry %s()\n{\n\tret;\n}\n"
             ".visible .entry %s()\n{\n\ttrap;\n}\n",
             ok_name, bad_name);
    gg_module m;
    GG_OK_(gg_module_create_from_data(rig.ctx, ptx, strlen(ptx) + 1, NULL, &m));
    return m;
}

static void launch(gg_kernel k)
{
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = k, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    GG_OK_(gg_launch(&d));
}

/* Launches ok then bad; returns the death; checks the simulator's truth:
 * launch 2 faulted, under bad's whole name. */
static gg_error_info kill_with(const char *ok_name, const char *bad_name)
{
    gg_module m = load_pair(ok_name, bad_name);
    gg_kernel ok, bad;
    GG_OK_(gg_kernel_create(m, ok_name, &ok));
    GG_OK_(gg_kernel_create(m, bad_name, &bad));
    void *native = NULL;
    GG_OK_(gg_context_native(rig.ctx, &native));
    launch(ok);
    launch(bad);
    GG_EXPECT(GG_LAUNCH_FAILED, gg_context_synchronize(rig.ctx, GG_WAIT_MS(5000)));
    gg_error_info death = GG_ERROR_INFO_INIT;
    GG_OK_(gg_context_death(rig.ctx, &death));
    gg_sim_truth_launches_fn truth = (gg_sim_truth_launches_fn)gg_test_sim_symbol("gg_sim_truth_launches");
    gg_sim_launch_truth t[2];
    cr_assert_eq(truth(native, t, 2), 2ull);
    cr_assert_eq(t[1].state, GG_SIM_LAUNCH_FAULTED, "the simulator: launch 2 in state %d", t[1].state);
    /* The record keeps 511 bytes and the whole length. */
    size_t kept = strlen(bad_name) < sizeof t[1].kernel ? strlen(bad_name) : sizeof t[1].kernel - 1;
    cr_assert_eq(t[1].kernel_length, strlen(bad_name));
    cr_assert_eq(strlen(t[1].kernel), kept);
    cr_assert_eq(strncmp(t[1].kernel, bad_name, kept), 0, "the simulator's record names the faulting kernel");
    return death;
}

Test(long_names, a_63_byte_name_is_named_whole)
{
    if (gg_test_backend_in_use()->hip)
        cr_skip_test("PTX kernels run on the simulator's CUDA face only");
    char ok[64], bad[64];
    make_name(ok, 63, "E1a"), make_name(bad, 63, "E1b");
    gg_error_info death = kill_with(ok, bad);
    cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT);
    cr_assert_str_eq(death.culprit.kernel_name, bad);
    const char *full = NULL;
    GG_OK_(gg_kernel_full_name(death.culprit.kernel_name, &full));
    cr_assert_str_eq(full, bad);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* 64 bytes (one past what a record holds whole) and numba's 200: the
 * culprit's name is the shortened form, different from the other
 * instantiation's, and expands to the whole name the simulator recorded. */
Test(long_names, names_past_a_record_are_shortened_unambiguously)
{
    if (gg_test_backend_in_use()->hip)
        cr_skip_test("PTX kernels run on the simulator's CUDA face only");
    const size_t lengths[] = { 64, 200, 1000 };
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        char ok[1001], bad[1001];
        make_name(ok, lengths[i], "IfLi3EEvPT_"), make_name(bad, lengths[i], "IdLi3EEvPT_");
        gg_error_info death = kill_with(ok, bad);
        const char *culprit = death.culprit.kernel_name;
        cr_assert_eq(death.culprit.certainty, GG_ATTRIBUTION_EXACT);
        cr_assert_eq(strlen(culprit), (size_t)GG_NAME_SHORT_PREFIX + 17, "%zu bytes: '%s'", lengths[i], culprit);
        cr_assert_eq(culprit[GG_NAME_SHORT_PREFIX], '~', "'%s' says it is shortened", culprit);
        cr_assert_eq(strncmp(culprit, bad, GG_NAME_SHORT_PREFIX), 0);
        const char *full = NULL;
        GG_OK_(gg_kernel_full_name(culprit, &full));
        cr_assert_str_eq(full, bad, "%zu bytes: the culprit expands to the faulting kernel", lengths[i]);
        /* Whole names expand to themselves: the two are never confused. */
        const char *other = NULL;
        GG_OK_(gg_kernel_full_name(ok, &other));
        cr_assert_str_eq(other, ok);
        GG_OK_(gg_kernel_full_name(bad, &other));
        cr_assert_str_eq(other, bad);
        /* The message names the shortened form too. */
        cr_assert(strstr(death.message, culprit) != NULL, "%s", death.message);
        GG_OK_(gg_context_recover(rig.ctx));
    }
    const char *none = (const char *)1;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_full_name("no_such_kernel~0123456789abcdef", &none));
    cr_assert_null(none);
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_full_name(NULL, &none));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_full_name("x", NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
