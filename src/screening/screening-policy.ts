/** The screening policies, each a named constant with its unit (documented in docs/api.md). */

/** Matches below this score are not reported unless the request sets another threshold. */
export const DEFAULT_MATCH_THRESHOLD = 0.5;
/** At most this many flags per source, so a vague query cannot return thousands. */
export const FLAGS_PER_SOURCE_LIMIT = 10;
/** A repeated screening within this time is answered from the cache (same account, entity, options, versions). */
export const RESULT_CACHE_TTL_MS = 6 * 60 * 60 * 1000;
/** Query length bounds in Unicode code points, after trimming. */
export const QUERY_MIN_CODE_POINTS = 2;
export const QUERY_MAX_CODE_POINTS = 500;
/** The retention purge deletes this many screenings per statement, so it never holds long locks. */
export const RETENTION_PURGE_BATCH_ROWS = 1_000;
/** How often the retention purge runs. */
export const RETENTION_PURGE_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Longest caller reference of a party (`reference`), in characters after trimming. */
export const REFERENCE_MAX_CHARS = 100;
