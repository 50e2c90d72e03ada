import { afterEach, describe, expect, it } from 'vitest';
import { ListChangeThread } from '../../../src/screening/monitoring/list-change-thread.js';
import type { SiftSubject } from '../../../src/screening/monitoring/monitor-sift.js';
import type { ListEntity } from '../../../src/sources/list-entity.js';
import { chunkEntities } from '../../../src/sources/lists/snapshot-chunks.js';

function entity(sourceId: string, name: string, identifiers: ListEntity['identifiers'] = []): ListEntity {
  return {
    source: 'ofac_sdn',
    list: 'SDN',
    source_id: sourceId,
    kind: 'person',
    names: [{ full: name, type: 'primary' }],
    programs: [],
    countries: [],
    birth_dates: [],
    identifiers,
    addresses: [],
    raw: { name, identifiers: identifiers.map((i) => i.value) },
  } as ListEntity;
}

const subject = (name: string | null, more: Partial<SiftSubject> = {}): SiftSubject => ({
  name,
  type: 'person',
  threshold: 0.5,
  sources: null,
  hasIdentifiers: false,
  ...more,
});

describe('the thread of a monitor run', () => {
  let thread: ListChangeThread | undefined;
  afterEach(async () => {
    await thread?.close();
    thread = undefined;
  });

  it('names what the version changed and passes the monitors a changed record may flag, and only those', async () => {
    const before = chunkEntities([entity('1', 'Ivan Petrov'), entity('2', 'Maria Lopez')]);
    const after = chunkEntities([
      entity('1', 'Ivan Petrov'),
      entity('3', 'Viktor Bout', [{ type: 'passport', value: 'X1' }]),
    ]);
    const started = await ListChangeThread.start('ofac_sdn', before, after);
    thread = started.thread;
    expect(started.delta.changed.map((r) => r.flagId)).toEqual(['ofac_sdn:3']);
    expect(started.delta.removed.map((r) => r.flagId)).toEqual(['ofac_sdn:2']);
    const passed = await thread.sift([
      subject('Viktor Bout'), // the added record, by name
      subject('Victor But'), // spelt otherwise
      subject('Ivan Petrov'), // unchanged: no news from this version
      subject('John Smith'),
      subject('Viktor Bout', { threshold: 0.999 }), // the exact name reaches even this threshold
      subject('Viktor Bout', { sources: ['un_sc'] }), // limited to another list
      subject(null, { hasIdentifiers: true }), // identifiers only, and the change carries some
      subject(null), // nothing to match by
    ]);
    expect(passed).toEqual([0, 1, 4, 6]);
  });

  it('answers each sift of a run in turn, many pages after one delta', async () => {
    const after = chunkEntities([entity('3', 'Viktor Bout')]);
    const started = await ListChangeThread.start('ofac_sdn', undefined, after);
    thread = started.thread;
    const pages = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        thread!.sift([subject('Jane Doe'), subject(i % 2 ? 'Viktor Bout' : 'Ana Ruiz')]),
      ),
    );
    expect(pages).toEqual([[], [1], [], [1], []]);
  });

  it('fails its start with the reason when the versions cannot be read, and stops', async () => {
    const [chunk] = chunkEntities([entity('3', 'Viktor Bout')]);
    const garbled = { ...chunk!, records: Buffer.from('not a chunk of records') };
    await expect(ListChangeThread.start('ofac_sdn', undefined, [garbled])).rejects.toThrow();
  });

  it('fails the sifts waiting on it when the thread stops, and the next ones at once', async () => {
    const started = await ListChangeThread.start(
      'ofac_sdn',
      undefined,
      chunkEntities([entity('3', 'Viktor Bout')]),
    );
    thread = started.thread;
    await thread.close();
    await expect(thread.sift([subject('Viktor Bout')])).rejects.toThrow(/stopped/);
  });
});
