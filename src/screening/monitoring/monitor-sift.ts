import type { NameIndex, QueryType } from '../../matching/index.js';
import { DEFAULT_MATCH_THRESHOLD } from '../screening-policy.js';
import type { RunMonitor } from './monitor-store.js';

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
  constructor(
    private readonly listId: string,
    private readonly changed: NameIndex,
    private readonly changedHaveIdentifiers: boolean,
  ) {}

  mayMatch(monitor: RunMonitor): boolean {
    const { request } = monitor;
    const sources = request.options?.sources;
    if (sources !== undefined && !sources.includes(this.listId)) return false;
    if (request.identifiers !== undefined && request.identifiers.length > 0 && this.changedHaveIdentifiers)
      return true;
    if (request.query === undefined) return false; // identifiers only
    const threshold = request.options?.threshold ?? DEFAULT_MATCH_THRESHOLD;
    const found = this.changed.search(monitor.entity, {
      type: monitor.queryType as QueryType,
      threshold,
      limitPerSource: 1,
    });
    for (const matches of found.values()) if (matches.length > 0) return true;
    return false;
  }
}
