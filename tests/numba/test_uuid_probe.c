/*
 * Checks the cuDeviceGetUuid probe (uuid_probe.c) through dlopen, as numba
 * reaches it: before cuInit it returns the simulator's
 * CUDA_ERROR_NOT_INITIALIZED; after, each of the simulator's devices gets a
 * version-4 UUID of its own, the same on a second call; the ordinal one past
 * the last device gets CUDA_ERROR_INVALID_DEVICE, and NULL
 * CUDA_ERROR_INVALID_VALUE. The simulator's own calls (cuInit,
 * cuDeviceGetCount) are found through the probe's handle.
 * Usage: test_numba_uuid_probe PATH_TO_PROBE
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char bytes[16];
} uuid16;
typedef int (*get_uuid_fn)(uuid16 *, int);
typedef int (*init_fn)(unsigned);
typedef int (*get_count_fn)(int *);

static int failures;

static void expect(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "%s: got %d, want %d\n", what, got, want);
        failures++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROBE\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    get_uuid_fn get_uuid;
    init_fn init;
    get_count_fn get_count;
    *(void **)&get_uuid = dlsym(lib, "cuDeviceGetUuid");
    *(void **)&init = dlsym(lib, "cuInit");
    *(void **)&get_count = dlsym(lib, "cuDeviceGetCount");
    if (!get_uuid || !init || !get_count) {
        fprintf(stderr, "cuDeviceGetUuid, cuInit or cuDeviceGetCount not found through %s\n",
                argv[1]);
        return 1;
    }
    uuid16 first, again, other;
    expect(get_uuid(&first, 0), 3, "cuDeviceGetUuid before cuInit (CUDA_ERROR_NOT_INITIALIZED)");
    expect(init(0), 0, "cuInit");
    int count = 0;
    expect(get_count(&count), 0, "cuDeviceGetCount");
    if (count < 2) {
        fprintf(stderr, "the simulator has %d devices; the test needs 2 (its default)\n", count);
        return 1;
    }
    expect(get_uuid(&first, 0), 0, "cuDeviceGetUuid(0)");
    expect(get_uuid(&again, 0), 0, "cuDeviceGetUuid(0) again");
    expect(get_uuid(&other, count - 1), 0, "cuDeviceGetUuid(last)");
    expect(memcmp(first.bytes, again.bytes, 16), 0, "device 0's UUID is the same twice");
    expect(memcmp(first.bytes, other.bytes, 16) != 0, 1, "devices 0 and last differ");
    expect((first.bytes[6] & 0xf0) == 0x40, 1, "version-4 bits");
    expect((first.bytes[8] & 0xc0) == 0x80, 1, "RFC 4122 variant bits");
    expect(get_uuid(&other, count), 101, "cuDeviceGetUuid(count) (CUDA_ERROR_INVALID_DEVICE)");
    expect(get_uuid(&other, -1), 101, "cuDeviceGetUuid(-1) (CUDA_ERROR_INVALID_DEVICE)");
    expect(get_uuid(NULL, 0), 1, "cuDeviceGetUuid(NULL) (CUDA_ERROR_INVALID_VALUE)");
    if (!failures)
        printf("cuDeviceGetUuid probe: %d devices, distinct stable UUIDs, bounds refused\n", count);
    return failures ? 1 : 0;
}
