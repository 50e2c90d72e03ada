import { describe, expect, it } from 'vitest';
import { listDelta } from '../../../src/screening/monitoring/list-delta.js';
import type { ListEntity } from '../../../src/sources/list-entity.js';
import { chunkEntities } from '../../../src/sources/lists/snapshot-chunks.js';

function entity(sourceId: string, raw: Record<string, unknown>): ListEntity {
  return {
    source: 'opensanctions',
    list: 'TEST',
    source_id: sourceId,
    kind: 'person',
    names: [{ full: `Person ${sourceId}`, type: 'primary' }],
    programs: [],
    countries: [],
    birth_dates: [],
    identifiers: [],
    addresses: [],
    raw,
  } as ListEntity;
}

describe('the change between two list versions', () => {
  it('names the records added, changed and removed, by flag id and record hash', () => {
    const before = chunkEntities([entity('a', { v: 1 }), entity('b', { v: 1 }), entity('c', { v: 1 })]);
    const after = chunkEntities([entity('a', { v: 1 }), entity('b', { v: 2 }), entity('d', { v: 1 })]);
    const delta = listDelta(before, after);
    expect(delta.changed.map((r) => r.flagId)).toEqual(['opensanctions:b', 'opensanctions:d']);
    expect(delta.removed.map((r) => r.flagId)).toEqual(['opensanctions:c']);
    expect(delta.changed[0]!.recordHash).not.toBe(listDelta(undefined, before).changed[1]!.recordHash);
  });

  it('sees no change in what a record hash leaves out (the export date of an aggregator)', () => {
    const before = chunkEntities([entity('a', { v: 1, last_seen: '2026-01-01' })]);
    const after = chunkEntities([entity('a', { v: 1, last_seen: '2026-02-01' })]);
    expect(listDelta(before, after)).toEqual({ changed: [], removed: [] });
  });

  it('counts every record as added when there is no previous version', () => {
    const only = chunkEntities([entity('a', { v: 1 }), entity('b', { v: 1 })]);
    const delta = listDelta(undefined, only);
    expect(delta.changed.map((r) => r.flagId)).toEqual(['opensanctions:a', 'opensanctions:b']);
    expect(delta.removed).toEqual([]);
  });
});
