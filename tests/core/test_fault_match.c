/* The rule matching both fault gates share (gg__fault_plan_next_fired,
 * src/base/fault_plan.c): target sets, "*", the device and kernel filters
 * (each asked for only when a rule has one), the selection counts, and
 * going on from the rule that fired. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/fault_plan.h"

/* Two targets, "a" (0) and "b" (1). */
static bool op_targets(void *self, const char *name, gg__fault_targets *t)
{
    (void)self;
    int k = strcmp(name, "a") == 0 ? 0 : strcmp(name, "b") == 0 ? 1 : -1;
    if (k >= 0)
        gg__fault_targets_add(t, k);
    return k >= 0;
}

static bool never_kills(void *self, gg_status error, bool numeric, int native)
{
    (void)self;
    (void)error;
    (void)numeric;
    (void)native;
    return false;
}

static bool kernels_anywhere(void *self, const gg__fault_targets *t, bool any_target)
{
    (void)self;
    (void)t;
    (void)any_target;
    return true;
}

static gg__fault_plan *parse(const char *json)
{
    const gg__fault_naming naming = {
        .op_targets = op_targets, .kills_context = never_kills, .kernel_filter_allowed = kernels_anywhere,
        .kernel_filter_ops = "any",
    };
    gg__fault_plan *p = NULL;
    char message[256] = "";
    cr_assert_eq(gg__fault_plan_parse(json, &naming, &p, message, sizeof message), GG_OK, "%s", message);
    return p;
}

/* A call's device and kernel, and how often each was asked for. */
typedef struct fake_call {
    int device;
    const char *kernel;
    int device_asked, kernel_asked;
} fake_call;

static int device_of(const void *self)
{
    fake_call *c = (fake_call *)self;
    c->device_asked++;
    return c->device;
}

static bool names_kernel(const void *self, const char *filter)
{
    fake_call *c = (fake_call *)self;
    c->kernel_asked++;
    return c->kernel != NULL && strcmp(filter, c->kernel) == 0;
}

/* The index of the first rule that fires for target `target` of `c`, or -1. */
static int first_fired(gg__fault_plan *p, int target, fake_call *c, bool with_kernels)
{
    const gg__fault_call call = {
        .target = target, .self = c, .device = device_of, .names_kernel = with_kernels ? names_kernel : NULL
    };
    size_t i = 0;
    return gg__fault_plan_next_fired(p, &call, &i) != NULL ? (int)i : -1;
}

Test(fault_match, targets_and_any_target)
{
    gg__fault_plan *p = parse("{\"rules\": [{\"op\": \"b\", \"error\": \"driver\"}, {\"op\": \"*\", \"error\": \"driver\"}]}");
    fake_call c = { .device = 0 };
    cr_assert_eq(first_fired(p, 1, &c, true), 0, "b's rule fires for b");
    cr_assert_eq(first_fired(p, 0, &c, true), 1, "\"*\" fires for a");
    cr_assert_eq(c.device_asked + c.kernel_asked, 0, "no rule filters, yet a filter was asked");
    cr_assert_eq(p->rules[0].matched, 1);
    cr_assert_eq(p->rules[1].matched, 1, "a rule passed over for its target is not counted");
    gg__fault_plan_free(p);
}

Test(fault_match, the_device_filter_asks_only_for_its_rule)
{
    gg__fault_plan *p = parse("{\"rules\": [{\"op\": \"a\", \"device\": 1, \"error\": \"driver\"}]}");
    fake_call on0 = { .device = 0 }, on1 = { .device = 1 }, none = { .device = -1 };
    cr_assert_eq(first_fired(p, 0, &on0, true), -1);
    cr_assert_eq(first_fired(p, 0, &none, true), -1, "a call with no device matches no device filter");
    cr_assert_eq(first_fired(p, 0, &on1, true), 0);
    cr_assert_eq(on0.device_asked + on1.device_asked + none.device_asked, 3);
    cr_assert_eq(first_fired(p, 1, &on1, true), -1, "another target's call");
    cr_assert_eq(on1.device_asked, 1, "the device was asked for a call the rule's targets exclude");
    cr_assert_eq(p->rules[0].matched, 1, "only the call on device 1 matched");
    gg__fault_plan_free(p);
}

Test(fault_match, the_kernel_filter_needs_a_call_that_names_it)
{
    gg__fault_plan *p = parse("{\"rules\": [{\"op\": \"a\", \"kernel\": \"fill\", \"error\": \"driver\"}]}");
    fake_call fill = { .kernel = "fill" }, other = { .kernel = "copy" };
    cr_assert_eq(first_fired(p, 0, &other, true), -1);
    cr_assert_eq(first_fired(p, 0, &fill, false), -1, "without a kernel callback no kernel filter matches");
    cr_assert_eq(first_fired(p, 0, &fill, true), 0);
    cr_assert_eq(fill.kernel_asked + other.kernel_asked, 2);
    gg__fault_plan_free(p);
}

Test(fault_match, goes_on_after_the_rule_that_fired)
{
    gg__fault_plan *p = parse("{\"rules\": [{\"op\": \"a\", \"error\": \"driver\"}, {\"op\": \"b\", \"error\": \"driver\"},"
                              " {\"op\": \"a\", \"nth\": 2, \"error\": \"driver\"}, {\"op\": \"a\", \"error\": \"driver\"}]}");
    fake_call c = { .device = 0 };
    const gg__fault_call call = { .target = 0, .self = &c, .device = device_of };
    size_t i = 0;
    cr_assert_eq(gg__fault_plan_next_fired(p, &call, &i), &p->rules[0]);
    cr_assert_eq(i, 0);
    i++;
    /* Rule 2 matches but selects only its 2nd call: counted, not fired. */
    cr_assert_eq(gg__fault_plan_next_fired(p, &call, &i), &p->rules[3]);
    cr_assert_eq(i, 3);
    cr_assert_eq(p->rules[2].matched, 1);
    cr_assert_eq(p->rules[2].fired, 0);
    i++;
    cr_assert_null(gg__fault_plan_next_fired(p, &call, &i));
    cr_assert_eq(i, p->count, "past the last rule");
    i = 2;
    cr_assert_eq(gg__fault_plan_next_fired(p, &call, &i), &p->rules[2], "the 2nd matching call fires nth 2");
    cr_assert_eq(p->rules[2].fired, 1);
    cr_assert_eq(p->rules[1].matched, 0, "rule 1 (target b) never matched a");
    gg__fault_plan_free(p);
}
