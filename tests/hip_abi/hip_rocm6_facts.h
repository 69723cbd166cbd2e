/* The ROCm 6 ABI facts, transcribed from published headers with their
 * sources (hip_rocm6_facts.c). Data only. */
#ifndef GG_HIP_ROCM6_FACTS_H
#define GG_HIP_ROCM6_FACTS_H

typedef struct gghip_fact {
    const char *name;   /* as the header spells it */
    long value;
    const char *source; /* repository, tag(s), path */
} gghip_fact;

typedef struct gghip_symbol_fact {
    const char *entry_point; /* the name in the API */
    const char *exported;    /* the symbol libamdhip64.so.6 exports for it */
    const char *version;     /* its version node */
    const char *source;
} gghip_symbol_fact;

extern const gghip_fact gghip_rocm6_errors[];
extern const int gghip_rocm6_error_count;
extern const gghip_fact gghip_rocm6_attributes[];
extern const int gghip_rocm6_attribute_count;
extern const gghip_fact gghip_rocm6_flags[];
extern const int gghip_rocm6_flag_count;
extern const gghip_symbol_fact gghip_rocm6_symbols[];
extern const int gghip_rocm6_symbol_count;
extern const gghip_symbol_fact gghip_rocm6_renamed[];
extern const int gghip_rocm6_renamed_count;

#endif
