/* A header the docs checker must refuse (tests/header: header_docs_checker_fails). */
/** Documented. GG_OK. */
GG_API gg_status gg_documented(void);
GG_API gg_status gg_undocumented(void);
