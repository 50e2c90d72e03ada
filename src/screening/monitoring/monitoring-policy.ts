/** The monitoring policies, each a named constant with its unit (documented in docs/monitoring.md). */

import type { ItemsLimit } from '../batches/batch-input.js';

/** Monitors per page of `GET /v1/monitors` and of `GET /v1/alerts`, the most and the default. */
export const MONITORING_PAGE_MAX = 100;
export const MONITORING_PAGE_DEFAULT = 50;
/** Longest note closing an alert, in characters. */
export const ALERT_NOTE_MAX_CHARS = 2_000;
/** Monitors a run reads and sifts at once; its progress is saved after each page. */
export const MONITOR_RUN_PAGE = 1_000;
/**
 * Pages a run reads and sifts ahead of the one it screens: the reads (the database and the main
 * thread) and the sifts (the run's thread) then overlap instead of taking turns.
 */
export const MONITOR_RUN_PAGES_AHEAD = 2;
/**
 * How long a claim holds a list change. A run renews it after every page, so only a dead
 * instance's claim lapses, and another instance (or the restarted one) goes on from its last page.
 */
export const MONITOR_RUN_LEASE_MS = 2 * 60 * 1000;
/** How often an idle instance looks for list changes to run. */
export const MONITOR_RUN_POLL_INTERVAL_MS = 2_000;
/** At shutdown a run gets this long to finish its page; it resumes from there after a restart. */
export const MONITOR_RUN_SHUTDOWN_GRACE_MS = 2_000;
/** Full screenings a run does at once (each waits on the database and the matching thread). */
export const MONITOR_RUN_SCREENINGS_AT_ONCE = 4;
/**
 * The niceness of a run's thread on Linux (0 is the process's own, 19 the lowest): it works out the
 * delta and sifts the monitors, background work behind the threads answering requests.
 */
export const MONITOR_RUN_THREAD_NICENESS = 10;
/**
 * Monitored names' words whose expansions against the changed records the sift keeps: a run meets
 * each word of its monitors once instead of once per monitor (the memory is the run's thread's, and
 * goes with it).
 */
export const MONITOR_SIFT_CACHED_WORDS = 65_536;
/**
 * Failed attempts at running one list change (a failed attempt is retried from its last page,
 * after `MONITOR_RUN_RETRY_BASE_MS` doubled at each failure; a shutdown is no failure); after the
 * last, the change is given up and logged as an error.
 */
export const MONITOR_RUN_MAX_ATTEMPTS = 6;
export const MONITOR_RUN_RETRY_BASE_MS = 30_000;
/**
 * A run's last pass screens the monitors first screened since its change was written, less this
 * much: the instances' clocks may disagree by a little.
 */
export const MONITOR_FIRST_SCREENED_SKEW_MS = 60_000;
/** Parties one import may hold. */
export const MONITOR_IMPORT_MAX = 100_000;
export const MONITOR_IMPORT_ITEMS: ItemsLimit = { what: 'monitor import', max: MONITOR_IMPORT_MAX };
/**
 * An import is stored this many monitors (and their audit rows) per transaction, each chunk its
 * own short transaction: on the embedded database, whose one session every request needs, a
 * request asked meanwhile waits for at most one chunk (docs/reliability.md, "Batch work yields").
 * 100 rather than 250: another account's live screenings during a 100,000-row import p99 442 ms
 * rather than 733 ms, and the import took as long (66 s, `npm run bench:import-stall`).
 */
export const MONITOR_IMPORT_CHUNK = 100;
/**
 * How long the lease of an instance staging an import holds. Every chunk renews it, so only a dead
 * instance's lapses: its import is then abandoned, and its hidden monitors deleted.
 */
export const MONITOR_IMPORT_STAGING_LEASE_MS = 5 * 60 * 1000;
/** How often an instance looks for abandoned imports to clean up (a failed import nudges it). */
export const MONITOR_IMPORT_CLEANUP_POLL_INTERVAL_MS = 30_000;
/** Largest import body (CSV or JSON), in bytes. */
export const MONITOR_IMPORT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
/**
 * Imported monitors' first screenings are claimed and counted this many at a time (one statement
 * counts and stores them), `MONITOR_FIRST_SCREENING_GROUPS` groups at once per instance.
 */
export const MONITOR_FIRST_SCREENING_GROUP = 16;
export const MONITOR_FIRST_SCREENING_GROUPS = 4;
/** How long a claim on a first screening holds (far longer than a group takes). */
export const MONITOR_FIRST_SCREENING_LEASE_MS = 10 * 60 * 1000;
/** A first screening that failed for a passing reason (every source away) is tried again after this. */
export const MONITOR_FIRST_SCREENING_RETRY_MS = 60_000;
/** How often an idle instance looks for first screenings due. */
export const MONITOR_FIRST_SCREENING_POLL_INTERVAL_MS = 2_000;
