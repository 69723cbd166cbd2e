/* The environment variables libgpuguard reads (see env.h). */
#include "base/env.h"

#include <stdlib.h>

const char *const gg__env_names[GG__ENV_COUNT] = {
#define GG__ENV_NAME(suffix) "GPUGUARD_" #suffix,
    GG__ENV_LIST(GG__ENV_NAME)
#undef GG__ENV_NAME
};

const char *gg__env(gg__env_var var)
{
    return getenv(gg__env_names[var]);
}

static char ascii_lower(char ch)
{
    return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

bool gg__keyword(const char *text, const char *const *keywords, size_t count, size_t *index)
{
    for (size_t k = 0; k < count; k++) {
        size_t i = 0;
        while (text[i] != '\0' && ascii_lower(text[i]) == ascii_lower(keywords[k][i]))
            i++;
        if (text[i] == '\0' && keywords[k][i] == '\0') {
            if (index != NULL)
                *index = k;
            return true;
        }
    }
    return false;
}
