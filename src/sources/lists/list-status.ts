import type { ListStateRow } from '../../store/schema.js';
import type { ListRegistryEntry } from './list-registry.js';
import type { ListSnapshotMeta, RefreshOutcome } from './snapshot-store.js';

/**
 * A list is stale when its source has not been checked successfully for this many refresh
 * intervals (one missed check is a hiccup, three are a problem worth an alert).
 */
export const LIST_STALE_AFTER_INTERVALS = 3;
/** With scheduled refreshes off, a list is stale when no one refreshed it for this long. */
export const LIST_STALE_WITHOUT_SCHEDULE_HOURS = 24;
/** After a failed or rejected refresh, the next scheduled try waits at most this long. */
export const LIST_RETRY_AFTER_FAILURE_MINUTES = 10;

/**
 * `fresh`: loaded and checked recently; `stale`: loaded, but published longer ago than its maximum
 * age, or the last check is too old, or the last new version was rejected; `failed`: loaded, but
 * the last refresh failed; `missing`: no version in memory (nothing stored and nothing readable),
 * so screenings report the list failed.
 */
export type ListState = 'fresh' | 'stale' | 'failed' | 'missing';
export type SourceHealth = 'up' | 'slow' | 'down';

export interface ListStatus {
  id: string;
  title: string;
  state: ListState;
  version: string | null;
  format: string | null;
  list_date: string | null;
  /** Whole days from `list_date` to now; null when the list's date is not known. */
  list_age_days: number | null;
  /** Past this age the list is stale (`LISTS_MAX_AGE_DAYS`); 0: never by its age. */
  max_age_days: number;
  fetched_at: string | null;
  checked_at: string | null;
  attempted_at: string | null;
  entity_count: number | null;
  last_outcome: RefreshOutcome | null;
  last_error: string | null;
}

const DAY_MS = 86_400_000;

/** Whole days from a publication date (`YYYY-MM-DD`, UTC) to `now`; undefined when there is none. */
export function listAgeDays(listDate: string | undefined, now: Date): number | undefined {
  const published = listDate ? Date.parse(`${listDate.slice(0, 10)}T00:00:00Z`) : Number.NaN;
  return Number.isNaN(published) ? undefined : Math.floor((now.getTime() - published) / DAY_MS);
}

/** Whether a list published on `listDate` is past its maximum age (0: no maximum). */
export function publishedTooLongAgo(listDate: string | undefined, now: Date, maxAgeDays: number): boolean {
  const age = listAgeDays(listDate, now);
  return maxAgeDays > 0 && age !== undefined && age > maxAgeDays;
}

/** What health says of a list: its state, and how old the version in service is. */
export interface ListPublication {
  state: ListState;
  list_date: string | null;
  list_age_days: number | null;
  max_age_days: number;
}

export function listState(
  loaded: ListSnapshotMeta | undefined,
  row: ListStateRow | undefined,
  now: Date,
  intervalMinutes: number,
  maxAgeDays = 0,
): ListState {
  if (!loaded) return 'missing';
  if (row?.outcome === 'failed') return 'failed';
  if (row?.outcome === 'rejected') return 'stale';
  // However recently it was checked, the version in service is as old as its publication.
  if (publishedTooLongAgo(loaded.listDate, now, maxAgeDays)) return 'stale';
  const maxAgeMs =
    intervalMinutes > 0
      ? intervalMinutes * LIST_STALE_AFTER_INTERVALS * 60_000
      : LIST_STALE_WITHOUT_SCHEDULE_HOURS * 3_600_000;
  const checked = row?.checked_at ? new Date(row.checked_at).getTime() : loaded.fetchedAt.getTime();
  return now.getTime() - checked > maxAgeMs ? 'stale' : 'fresh';
}

export function sourceHealth(state: ListState): SourceHealth {
  if (state === 'fresh') return 'up';
  return state === 'missing' ? 'down' : 'slow';
}

/** Whether the scheduler should try the list now. */
export function refreshDue(row: ListStateRow | undefined, now: Date, intervalMinutes: number): boolean {
  if (!row?.attempted_at) return true;
  const since = (at: Date | null) => (at ? now.getTime() - new Date(at).getTime() : Number.POSITIVE_INFINITY);
  // Scheduled refreshes off: only the first load, retried after a failure until the list has a
  // version (a service that never loads its lists screens against nothing).
  if (intervalMinutes === 0) {
    return row.snapshot_id === null && since(row.attempted_at) >= LIST_RETRY_AFTER_FAILURE_MINUTES * 60_000;
  }
  if (row.outcome === 'failed' || row.outcome === 'rejected') {
    return since(row.attempted_at) >= Math.min(intervalMinutes, LIST_RETRY_AFTER_FAILURE_MINUTES) * 60_000;
  }
  return since(row.checked_at) >= intervalMinutes * 60_000;
}

export function describeList(
  entry: ListRegistryEntry,
  loaded: ListSnapshotMeta | undefined,
  row: ListStateRow | undefined,
  state: ListState,
  judged: { now: Date; maxAgeDays: number },
): ListStatus {
  const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : null);
  return {
    id: entry.id,
    title: entry.title,
    state,
    version: loaded?.version ?? null,
    format: loaded?.format ?? null,
    list_date: loaded?.listDate ?? null,
    list_age_days: listAgeDays(loaded?.listDate, judged.now) ?? null,
    max_age_days: judged.maxAgeDays,
    fetched_at: iso(loaded?.fetchedAt),
    checked_at: iso(row?.checked_at),
    attempted_at: iso(row?.attempted_at),
    entity_count: loaded?.entityCount ?? null,
    last_outcome: (row?.outcome as RefreshOutcome | null) ?? null,
    last_error: row?.error ?? null,
  };
}
