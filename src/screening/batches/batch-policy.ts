/** The batch screening policies, each a named constant with its unit (documented in docs/api.md). */

/** Items per batch. */
export const BATCH_ITEMS_MAX = 10_000;
/** Longest caller reference per item, in characters. */
export const BATCH_REFERENCE_MAX_CHARS = 100;
/** Largest batch request body (10,000 queries of up to 500 characters fit). */
export const BATCH_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/** Results per page of `GET /v1/screen/batch/:id`, the most and the default. */
export const BATCH_RESULTS_PAGE_MAX = 1_000;
/**
 * Items of one batch screened together and counted and stored in one statement: one round trip
 * and one quota increment per group instead of per item (the quota row is every screening's
 * bottleneck on PostgreSQL, and the statement itself the embedded database's).
 */
export const BATCH_GROUP_ITEMS = 16;
/** Groups one instance screens at once. */
export const BATCH_GROUPS_IN_FLIGHT = 4;
/**
 * How long a claim holds an item. An instance that dies holding items leaves them to others after
 * this long; it is far above a screening's longest time (its sources' timeouts), so a live claim
 * never lapses and an item is never screened twice.
 */
export const BATCH_ITEM_LEASE_MS = 10 * 60 * 1000;
/** How often an idle instance looks for items (a submission on the same instance wakes it at once). */
export const BATCH_POLL_INTERVAL_MS = 1_000;
/**
 * The claim loop's grace at shutdown. A group in flight is never abandoned (it takes seconds at
 * most, and a half-done group would wait out its lease), so a stopping instance waits for it anyway.
 */
export const BATCH_SHUTDOWN_GRACE_MS = 5_000;
