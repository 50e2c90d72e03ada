import { describe, expect, it } from 'vitest';
import type { ListEntity } from '../../../src/sources/list-entity.js';
import { PackedEntities } from '../../../src/sources/lists/packed-entities.js';
import { chunkEntities, chunkNames, type SnapshotChunk } from '../../../src/sources/lists/snapshot-chunks.js';
import { matchableEntity } from '../../../src/sources/matchable-entity.js';
import { listRecordHash } from '../../../src/sources/record-hash.js';
import { FIXTURE_ENTITY_COUNTS } from '../../support/real-lists.js';
import { parseFromMirror } from './mirror.js';

/** Small enough that the excerpt of the UN list fills many chunks. */
const CHUNK_BYTES = 4 * 1024;

function pack(chunks: SnapshotChunk[]): PackedEntities {
  return new PackedEntities(chunks, chunks.map(chunkNames));
}

const awkward: ListEntity = {
  source: 'un_sc',
  list: 'UN_CONSOLIDATED',
  source_id: 'QDi:001/2',
  kind: 'person',
  names: [
    { full: 'Abu Muhammad AL-JAWLANI', type: 'primary', parts: { given: 'Abu', family: 'AL-JAWLANI' } },
    { full: 'أبو محمد الجولاني', type: 'original_script', script: 'Arab' },
  ],
  programs: ['Al-Qaida'],
  countries: ['SY'],
  birth_dates: ['1975/1979'],
  identifiers: [],
  addresses: [],
  remarks: 'Line one.\nLine two, with a \u2028 separator and a "quote".',
  raw: { COMMENTS1: 'a\r\nb', NESTED: [{ VALUE: null }, { VALUE: 3.5 }], FLAG: true },
};

describe('list entities packed as text and decoded on demand', () => {
  it('every entity decoded on demand equals the parsed one, its raw source record included', async () => {
    const un = await parseFromMirror('un_sc');
    const chunks = chunkEntities(un.entities, CHUNK_BYTES);
    expect(chunks.length).toBeGreaterThan(10);
    const packed = pack(chunks);
    expect(packed).toHaveLength(FIXTURE_ENTITY_COUNTS.un_sc);
    expect([...packed]).toEqual(un.entities);
    const haqqani = un.entities.find((e) => e.raw.REFERENCE_NUMBER === 'TAi.144')!;
    expect(packed.get(haqqani.source_id)).toEqual(haqqani);
    expect(packed.get(haqqani.source_id)?.raw).toMatchObject({ UN_LIST_TYPE: 'Taliban' });
  });

  it('the names stored for the index are the matchable form of every entity, in list order', async () => {
    const un = await parseFromMirror('un_sc');
    const chunks = chunkEntities(un.entities, CHUNK_BYTES);
    expect(chunks.flatMap(chunkNames)).toEqual(un.entities.map(matchableEntity));
  });

  it('no chunk holds more record text than its bound plus one record', async () => {
    const un = await parseFromMirror('un_sc');
    const bound = CHUNK_BYTES;
    const longest = Math.max(...un.entities.map((e) => Buffer.byteLength(JSON.stringify(e))));
    const chunks = chunkEntities(un.entities, bound);
    for (const chunk of chunks) {
      // The records plus the newlines between them.
      expect(chunk.records.byteLength).toBeLessThan(bound + longest + chunk.entityCount);
    }
    expect(chunks.reduce((sum, chunk) => sum + chunk.entityCount, 0)).toBe(FIXTURE_ENTITY_COUNTS.un_sc);
  });

  it('line breaks, separators and non-Latin text inside a record survive the packing', () => {
    const other = { ...awkward, source_id: '2', names: [{ full: 'Second', type: 'primary' as const }] };
    const packed = pack(chunkEntities([awkward, other]));
    expect(packed.get('QDi:001/2')).toEqual(awkward);
    expect(packed.at(1)).toEqual(other);
  });

  it('each decode is a fresh object, so a caller changing it never changes the list', () => {
    const packed = pack(chunkEntities([awkward]));
    const first = packed.at(0)!;
    first.names.length = 0;
    first.raw.FLAG = false;
    expect(packed.at(0)).toEqual(awkward);
  });

  it("gives each record's hash as a flag of the record computes it, the same at every call", async () => {
    const un = await parseFromMirror('un_sc');
    const packed = pack(chunkEntities(un.entities, CHUNK_BYTES));
    for (const entity of un.entities.slice(0, 50)) {
      const expected = listRecordHash(entity.source, entity.raw);
      expect(packed.recordHash(entity.source_id)).toBe(expected);
      expect(packed.recordHash(entity.source_id)).toBe(expected);
    }
    expect(new Set(un.entities.map((e) => packed.recordHash(e.source_id))).size).toBe(un.entities.length);
    expect(packed.recordHash('nope')).toBeUndefined();
  });

  it('an unknown source id or a position outside the list finds nothing', () => {
    const packed = pack(chunkEntities([awkward]));
    expect(packed.get('nope')).toBeUndefined();
    expect(packed.at(1)).toBeUndefined();
    expect(packed.at(-1)).toBeUndefined();
    expect(packed.at(0.5)).toBeUndefined();
  });

  it('a list without entities still makes one chunk, so a version without chunks means pruned', () => {
    const chunks = chunkEntities([]);
    expect(chunks).toHaveLength(1);
    expect(pack(chunks)).toHaveLength(0);
    expect([...pack(chunks)]).toEqual([]);
  });

  it('a stored chunk whose records, names and count disagree is refused', () => {
    const [chunk] = chunkEntities([awkward, { ...awkward, source_id: '2' }]);
    expect(() => pack([{ ...chunk!, entityCount: 3 }])).toThrow(/2 names for 3 entities/);
    const oneRecord = chunk!.records.subarray(0, chunk!.records.indexOf(0x0a));
    expect(() => pack([{ ...chunk!, records: oneRecord }])).toThrow(/1 records for 2 entities/);
  });
});
