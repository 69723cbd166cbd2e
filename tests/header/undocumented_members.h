/* A header the reference checker must refuse (tests/header:
 * header_reference_checker_fails): each kind of gap once. */
/** Documented. */
typedef enum gg_fixture_enum {
    GG_FIXTURE_DOCUMENTED = 0, /**< documented */
    GG_FIXTURE_UNDOCUMENTED = 1 /* a plain comment is not in the reference */
} gg_fixture_enum;

/** Documented. */
typedef struct gg_fixture_struct {
    int documented; /**< documented */
    int undocumented;
} gg_fixture_struct;

typedef struct gg_fixture_undocumented_type {
    int field; /**< documented, in an undocumented type */
} gg_fixture_undocumented_type;
