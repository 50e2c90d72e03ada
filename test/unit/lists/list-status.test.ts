import { describe, expect, it } from 'vitest';
import { listAgeDays, listState, refreshDue, sourceHealth } from '../../../src/sources/lists/list-status.js';
import { publicationDate } from '../../../src/sources/lists/publication-date.js';
import type { ListSnapshotMeta } from '../../../src/sources/lists/snapshot-store.js';
import type { ListStateRow } from '../../../src/store/schema.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);
const meta = { fetchedAt: minutesAgo(10) } as ListSnapshotMeta;
function row(change: Partial<ListStateRow>): ListStateRow {
  return {
    list_id: 'un_sc',
    snapshot_id: 'x',
    checked_at: minutesAgo(5),
    attempted_at: minutesAgo(5),
    outcome: 'unchanged',
    error: null,
    ...change,
  };
}

describe('list state and health', () => {
  it('a list with no version in memory is missing and its source down, whatever the last attempt', () => {
    expect(listState(undefined, row({ outcome: 'accepted' }), NOW, 60)).toBe('missing');
    expect(sourceHealth('missing')).toBe('down');
  });

  it('a loaded list checked within three intervals is fresh, older than that stale', () => {
    expect(listState(meta, row({ checked_at: minutesAgo(179) }), NOW, 60)).toBe('fresh');
    expect(listState(meta, row({ checked_at: minutesAgo(181) }), NOW, 60)).toBe('stale');
    expect(sourceHealth('stale')).toBe('slow');
  });

  it('with scheduled refreshes off a list goes stale after a day without a check', () => {
    expect(listState(meta, row({ checked_at: minutesAgo(23 * 60) }), NOW, 0)).toBe('fresh');
    expect(listState(meta, row({ checked_at: minutesAgo(25 * 60) }), NOW, 0)).toBe('stale');
  });

  it('a rejected new version makes the list stale and a failed refresh makes it failed, still served', () => {
    expect(listState(meta, row({ outcome: 'rejected' }), NOW, 60)).toBe('stale');
    expect(listState(meta, row({ outcome: 'failed' }), NOW, 60)).toBe('failed');
    expect(sourceHealth('failed')).toBe('slow');
    expect(sourceHealth('fresh')).toBe('up');
  });
});

describe("a list's publication date and age", () => {
  const published = (listDate: string | undefined) => ({ ...meta, listDate }) as ListSnapshotMeta;

  it('a list checked just now is stale once its publication is older than its maximum age', () => {
    // NOW is 2026-03-01: published 7 days before is within 7 days, 8 days before is not.
    expect(listState(published('2026-02-22'), row({}), NOW, 60, 7)).toBe('fresh');
    expect(listState(published('2026-02-21'), row({}), NOW, 60, 7)).toBe('stale');
    expect(listState(published('2023-12-28'), row({}), NOW, 60, 14)).toBe('stale');
  });

  it('no maximum (0), or no known date, never makes a list stale by its age', () => {
    expect(listState(published('2023-12-28'), row({}), NOW, 60, 0)).toBe('fresh');
    expect(listState(published(undefined), row({}), NOW, 60, 7)).toBe('fresh');
  });

  it('counts whole days from the publication date (UTC) to now', () => {
    expect(listAgeDays('2026-03-01', NOW)).toBe(0);
    expect(listAgeDays('2026-02-27', NOW)).toBe(2);
    expect(listAgeDays(undefined, NOW)).toBeUndefined();
  });

  it("takes the date the file states, else its main file's Last-Modified, else none", () => {
    const files = [
      { name: 'SDN.CSV', url: 'x', sha256: 'a', bytes: 1, lastModified: 'Thu, 28 Dec 2023 18:05:11 GMT' },
      { name: 'ALT.CSV', url: 'x', sha256: 'b', bytes: 1, lastModified: 'Fri, 27 Nov 2026 10:00:00 GMT' },
    ];
    expect(publicationDate('2026-02-27', files)).toBe('2026-02-27');
    expect(publicationDate(undefined, files)).toBe('2023-12-28');
    expect(
      publicationDate(undefined, [{ name: 'SDN.CSV', url: 'x', sha256: 'a', bytes: 1 }]),
    ).toBeUndefined();
  });
});

describe('refresh schedule', () => {
  it('a list never tried is due at once', () => {
    expect(refreshDue(undefined, NOW, 60)).toBe(true);
  });

  it('a checked list is due one interval after its last successful check', () => {
    expect(refreshDue(row({ checked_at: minutesAgo(59) }), NOW, 60)).toBe(false);
    expect(refreshDue(row({ checked_at: minutesAgo(60) }), NOW, 60)).toBe(true);
  });

  it('with scheduled refreshes off (0), only a list that has no version yet is loaded, retried after a failure', () => {
    expect(refreshDue(undefined, NOW, 0)).toBe(true);
    const never = { snapshot_id: null, outcome: 'failed' };
    expect(refreshDue(row({ ...never, attempted_at: minutesAgo(9) }), NOW, 0)).toBe(false);
    expect(refreshDue(row({ ...never, attempted_at: minutesAgo(10) }), NOW, 0)).toBe(true);
    const loaded = {
      snapshot_id: 'a-version',
      checked_at: minutesAgo(10_000),
      attempted_at: minutesAgo(10_000),
    };
    expect(refreshDue(row(loaded), NOW, 0)).toBe(false);
  });

  it('after a failure the next try comes within ten minutes, not a whole interval', () => {
    expect(refreshDue(row({ outcome: 'failed', attempted_at: minutesAgo(9) }), NOW, 60)).toBe(false);
    expect(refreshDue(row({ outcome: 'failed', attempted_at: minutesAgo(10) }), NOW, 60)).toBe(true);
    expect(refreshDue(row({ outcome: 'rejected', attempted_at: minutesAgo(5) }), NOW, 5)).toBe(true);
  });
});
