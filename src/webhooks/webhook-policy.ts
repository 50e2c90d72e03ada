/** The webhook policies, each a named constant with its unit (documented in docs/api.md). */

/** The events a webhook may subscribe to: after each live screening, and when a batch is closed. */
export const WEBHOOK_EVENTS = ['screening.complete', 'batch.complete', 'monitor.alert'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What a webhook registered without `events` receives. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['screening.complete'];

/** Webhooks per account (deleted ones do not count). */
export const WEBHOOKS_PER_ACCOUNT_MAX = 10;
/** Longest accepted endpoint URL, in characters. */
export const WEBHOOK_URL_MAX_CHARS = 2_048;
/** Random bytes in a signing secret (`whsec_` + their base64). */
export const WEBHOOK_SECRET_BYTES = 32;

/** Registration waits this long for the endpoint's host to resolve before answering 503. */
export const REGISTRATION_RESOLVE_TIMEOUT_MS = 5_000;
/** One attempt, DNS resolution, connection, TLS and response together, is cut after this long. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * A connection to a receiver is kept open this long after a delivery for the next one (no new TCP
 * and TLS handshake). Under the 5 s idle timeout of common servers (Node, nginx's 75 s), so that
 * the receiver rarely closes a connection just as a delivery reuses it.
 */
export const DELIVERY_IDLE_CONNECTION_MS = 4_000;
/** Idle connections kept per receiver (endpoint origin and checked address). */
export const DELIVERY_IDLE_CONNECTIONS_PER_RECEIVER = 8;
/** Receivers with connections kept at once per process; the least recently used are closed first. */
export const DELIVERY_RECEIVERS_KEPT_MAX = 256;
/** At most this much of a receiver's response body is read; the rest is dropped unread. */
export const RESPONSE_BODY_MAX_BYTES = 64 * 1024;
/**
 * How much of a failed response's body is kept in the attempt's `error`, for the customer to read:
 * enough for a receiver's reason, too little to read out what an internal service answers.
 */
export const RESPONSE_EXCERPT_MAX_CHARS = 100;

/** After the n-th failed attempt the next one comes this many minutes later; after the last, `failed`. */
export const RETRY_DELAYS_MINUTES = [1, 5, 15, 60, 1_440] as const;
/** Each retry is pushed later by a random share of its delay up to this fraction... */
export const RETRY_JITTER_FRACTION = 0.05;
/** ...and at most this long, so that receivers that failed together are not retried in lockstep. */
export const RETRY_JITTER_MAX_MS = 60_000;
/** Consecutive failed attempts after which a webhook is `degraded` (it keeps receiving events). */
export const DEGRADED_AFTER_FAILURES = 5;

/** How often each instance looks for due deliveries (new ones of its own are sent at once). */
export const DELIVERY_POLL_INTERVAL_MS = 1_000;
/** Screenings stored within this long of each other share one look for new deliveries. */
export const DELIVERY_NUDGE_DELAY_MS = 100;
/** Finished attempts written by one statement at most (they are written in groups). */
export const ATTEMPTS_PER_WRITE_MAX = 100;
/** Queued events one statement makes the deliveries of (the worker repeats it until none is left). */
export const FAN_OUT_EVENTS_PER_STATEMENT = 500;
/** Attempts in flight per instance; further due deliveries wait for a free slot. */
export const DELIVERY_CONCURRENCY = 32;
/**
 * Attempts in flight per instance for one account's webhooks together: half the slots, so that
 * receivers of one account that hang (each up to the 10 s attempt timeout) never hold every slot,
 * and the other accounts' deliveries go out at once.
 */
export const DELIVERY_CONCURRENCY_PER_ACCOUNT = DELIVERY_CONCURRENCY / 2;
/** Attempts in flight per instance to one webhook's endpoint: a slow endpoint holds no more. */
export const DELIVERY_CONCURRENCY_PER_WEBHOOK = 8;
/**
 * Due deliveries a claim looks at to choose from, oldest first (those of an account or webhook at
 * its share are skipped in the scan itself): enough to find other accounts' deliveries behind the
 * backlog of one, few enough that the rows it locks for the statement's instant stay few.
 */
export const DELIVERY_CLAIM_SCAN_ROWS = DELIVERY_CONCURRENCY * 4;
/** The worker claims more due deliveries once no more than this many attempts are in flight. */
export const DELIVERY_REFILL_AT = DELIVERY_CONCURRENCY / 2;
/**
 * A claimed delivery belongs to its instance this long. Well above the attempt timeout: only an
 * instance that died mid-attempt leaves a claim to expire, and the attempt is then made again.
 */
export const DELIVERY_CLAIM_LEASE_MS = 5 * 60_000;
/** PostgreSQL connections of each instance's delivery thread (claims and records; sends need none). */
export const DELIVERY_THREAD_POOL_SIZE = 2;
/** The delivery thread's niceness on Linux (0 is the process's own, 19 the lowest priority). */
export const DELIVERY_THREAD_NICENESS = 10;
/** A delivery thread that stopped unexpectedly is started again after this pause... */
export const DELIVERY_THREAD_RESTART_DELAY_MS = 1_000;
/** ...doubled each time it stops again within a minute of its start, up to this. */
export const DELIVERY_THREAD_RESTART_DELAY_MAX_MS = 30_000;
export const DELIVERY_THREAD_HEALTHY_AFTER_MS = 60_000;
/** On shutdown, attempts in flight get this long to finish before they are abandoned (and re-sent later). */
export const DELIVERY_SHUTDOWN_GRACE_MS = 5_000;

/** Delivery history (events, deliveries, attempts) is kept this long after the event. */
export const DELIVERY_HISTORY_RETENTION_DAYS = 30;
/** How often old delivery history is purged. */
export const DELIVERY_HISTORY_PURGE_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Rows deleted per statement by the purge, so it never holds long locks. */
export const DELIVERY_HISTORY_PURGE_BATCH_ROWS = 1_000;
/** Attempts listed by `GET /v1/webhooks/{id}/deliveries` unless `limit` says otherwise, and the most. */
export const ATTEMPTS_PAGE_DEFAULT = 50;
export const ATTEMPTS_PAGE_MAX = 100;
