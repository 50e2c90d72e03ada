import { NameIndex, type QueryType, SharedVocabulary } from '../../matching/index.js';
import { DEFAULT_MATCH_THRESHOLD } from '../screening-policy.js';
import type { ChangedRecord } from './list-delta.js';
import type { RunMonitor } from './monitor-store.js';
import { MONITOR_SIFT_CACHED_WORDS } from './monitoring-policy.js';

/** What the sift needs of a monitor: plain data, sent to the thread that sifts. */
export interface SiftSubject {
  /** The name screened, or null for a request by identifiers only. */
  name: string | null;
  type: QueryType;
  threshold: number;
  /** The sources the request is limited to (null: all). */
  sources: readonly string[] | null;
  hasIdentifiers: boolean;
}

export function siftSubject(monitor: RunMonitor): SiftSubject {
  const { request } = monitor;
  return {
    name: request.query === undefined ? null : monitor.entity,
    type: monitor.queryType as QueryType,
    threshold: request.options?.threshold ?? DEFAULT_MATCH_THRESHOLD,
    sources: request.options?.sources ?? null,
    hasIdentifiers: request.identifiers !== undefined && request.identifiers.length > 0,
  };
}

/**
 * Which monitors a list change may touch, judged by name against an index of the changed records
 * only: its cost per monitor is one search of a small index, so a run's full screenings (and its
 * alerts) grow with the size of the change. It searches at the monitor's own threshold: a
 * screening flags a listed record only when its name scores that much (the birth date, countries
 * and identifiers weigh a match found by name, never find one), so the sift passes every monitor a
 * changed record can flag, and the full screening, which decides, is done for those only. A
 * monitor that gives identifiers is passed whenever a changed record carries any.
 */
export class MonitorSift {
  private readonly changed: NameIndex;
  private readonly changedHaveIdentifiers: boolean;

  constructor(
    private readonly listId: string,
    records: readonly ChangedRecord[],
  ) {
    this.changed = NameIndex.build(
      records.map((record) => record.matchable),
      new SharedVocabulary(MONITOR_SIFT_CACHED_WORDS),
    );
    this.changedHaveIdentifiers = records.some((record) => record.entity.identifiers.length > 0);
  }

  mayMatch(subject: SiftSubject): boolean {
    if (subject.sources !== null && !subject.sources.includes(this.listId)) return false;
    if (subject.hasIdentifiers && this.changedHaveIdentifiers) return true;
    if (subject.name === null) return false;
    const found = this.changed.search(subject.name, {
      type: subject.type,
      threshold: subject.threshold,
      limitPerSource: 1,
    });
    for (const matches of found.values()) if (matches.length > 0) return true;
    return false;
  }
}
