/*
 * A stand-in public header for tests/abi/test_check_abi.py: one library,
 * built once per variant (CMakeLists.txt), each variant making one change
 * that tools/abi/check_abi.py must accept (an addition) or refuse (a
 * break). ABI_PROBE_BASE builds the baseline; the names say the change.
 */
#ifndef ABI_PROBE_H
#define ABI_PROBE_H

#include <stdint.h>

#define ABI_PROBE_API __attribute__((visibility("default")))

/** Growable, like gpuguard's descs: the caller sets struct_size. */
typedef struct abi_probe_desc {
    uint32_t struct_size; /**< sizeof (abi_probe_desc) as the caller was compiled */
#ifdef ABI_PROBE_CHANGE_MEMBER
    int64_t width;        /**< the break abidiff's append suppression hides */
#else
    int32_t width;
#endif
#ifdef ABI_PROBE_INSERT_MEMBER
    int32_t inserted;     /**< in the middle: moves height */
#endif
    int32_t height;
#ifdef ABI_PROBE_APPEND_GROWABLE
    int32_t depth;        /**< appended: compatible */
#endif
} abi_probe_desc;

/** Passed by value, no struct_size: its size is part of the ABI. */
typedef struct abi_probe_handle {
    uint64_t id;
#ifdef ABI_PROBE_APPEND_HANDLE
    uint64_t generation;
#endif
} abi_probe_handle;

/** Growable, with 4 bytes of tail padding after flags. */
typedef struct abi_probe_padded {
    uint32_t struct_size; /**< sizeof (abi_probe_padded) as the caller was compiled */
    uint64_t value;
    uint32_t flags;
#ifdef ABI_PROBE_APPEND_INTO_PADDING
    uint32_t extra;       /**< lands in the old tail padding, which an old struct_size covers */
#endif
#ifdef ABI_PROBE_NAME_PADDING
    uint32_t reserved_probe_tail; /**< names the old tail padding (never read) ... */
    uint64_t later;       /**< ... so that this one starts at the old size: compatible */
#endif
} abi_probe_padded;

/** Has struct_size but is passed by value: it cannot grow either. */
typedef struct abi_probe_options {
    uint32_t struct_size; /**< sizeof (abi_probe_options) as the caller was compiled */
    int32_t level;
#ifdef ABI_PROBE_APPEND_BY_VALUE
    int32_t extra;
#endif
} abi_probe_options;

/** An enum whose values callers compile in. */
typedef enum abi_probe_mode {
    ABI_PROBE_FAST = 0,
#ifdef ABI_PROBE_RENUMBER_ENUM
    ABI_PROBE_SAFE = 2,
#else
    ABI_PROBE_SAFE = 1,
#endif
#ifdef ABI_PROBE_ADD_ENUMERATOR
    ABI_PROBE_PARANOID = 2,
#endif
} abi_probe_mode;

/** width + height of DESC (0 for NULL). */
ABI_PROBE_API int abi_probe_area(const abi_probe_desc *desc);
/** The id of HANDLE, truncated. */
ABI_PROBE_API int abi_probe_handle_id(abi_probe_handle handle);
/** The flags of PADDED (0 for NULL). */
ABI_PROBE_API int abi_probe_flags(const abi_probe_padded *padded);
/** The level of OPTIONS. */
ABI_PROBE_API int abi_probe_level(abi_probe_options options);
/** MODE as an int. */
#ifdef ABI_PROBE_CHANGE_PARAM
ABI_PROBE_API int abi_probe_mode_value(abi_probe_mode mode, int scale);
#else
ABI_PROBE_API int abi_probe_mode_value(abi_probe_mode mode);
#endif
#ifndef ABI_PROBE_REMOVE_SYMBOL
/** 1; the REMOVE_SYMBOL variant drops it. */
ABI_PROBE_API int abi_probe_legacy(void);
#endif
#ifdef ABI_PROBE_ADD_SYMBOL
/** 2; only the ADD_SYMBOL variant has it. */
ABI_PROBE_API int abi_probe_added(void);
#endif
#ifdef ABI_PROBE_EXPORT_INTERNAL
/** An internal helper exported by mistake (the double underscore). */
ABI_PROBE_API int abi_probe__internal(void);
#endif

#endif
