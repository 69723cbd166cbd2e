/* The library's version at run time: gg_version() and gg_version_string(),
 * from the same generated header (gpuguard/version.h, CMake's project())
 * that gives programs GG_VERSION_MAJOR/MINOR/PATCH. */
#include <gpuguard/gpuguard.h>

uint32_t gg_version(void)
{
    return GG_VERSION_NUMBER(GG_VERSION_MAJOR, GG_VERSION_MINOR, GG_VERSION_PATCH);
}

const char *gg_version_string(void)
{
    return GG_VERSION_STRING;
}
