/* Helpers shared by the HIP backend's suites. */
#include <criterion/criterion.h>
#include <dlfcn.h>

#include "hip_test.h"

int hip_test_fake_count(const char *name, int arg)
{
    /* The fake is loaded (RTLD_NODELETE) by the backend under test. */
    void *h = dlopen(GG_FAKE_HIP, RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(h, "the fake runtime is loaded");
    int (*count)(int) = (int (*)(int))dlsym(h, name);
    cr_assert_not_null(count, "the fake exports %s", name);
    int n = count(arg);
    dlclose(h);
    return n;
}
