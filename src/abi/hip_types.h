/*
 * The HIP runtime's types, with the ABI of HIP 5.2.3's hip_runtime_api.h
 * (AMD platform): what the declarations of hip_functions.h need, written
 * here so that the simulator and the interposer build without the HIP
 * headers. The enumerations come from hip_values.h's lists; the handles
 * carry the header's struct tags.
 */
#ifndef GG_ABI_HIP_TYPES_H
#define GG_ABI_HIP_TYPES_H

#include "abi/hip_values.h"

typedef enum hipError_t {
#define GG_ABI_HIP_ERROR_ENUM(name, num, msg) name = num,
    GG_ABI_HIP_ERRORS(GG_ABI_HIP_ERROR_ENUM)
#undef GG_ABI_HIP_ERROR_ENUM
} hipError_t;

typedef enum hipDeviceAttribute_t {
#define GG_ABI_HIP_ATTR_ENUM(name, num) name = num,
    GG_ABI_HIP_ATTRIBUTES(GG_ABI_HIP_ATTR_ENUM)
#undef GG_ABI_HIP_ATTR_ENUM
} hipDeviceAttribute_t;

typedef int hipDevice_t;
typedef void *hipDeviceptr_t;
/* The attributes hipPointerGetAttribute answers in the simulator (the same
 * values in HIP 5.2.3's driver_types.h and ROCm 6.x's:
 * docs/HIP-ABI-FACTS.md). */
typedef enum hipPointer_attribute {
    HIP_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    HIP_POINTER_ATTRIBUTE_RANGE_SIZE = 12
} hipPointer_attribute;
/* Opaque handles with the header's struct tags. */
typedef struct ihipCtx_t *hipCtx_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;

#endif /* GG_ABI_HIP_TYPES_H */
