import { expect, it } from 'vitest';
import { loadListEntities } from '../../../bench/matching/list-names.js';
import { makeQueries } from '../../../bench/matching/queries.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import { SharedVocabulary } from '../../../src/matching/shared-vocabulary.js';
import type { MatchableEntity } from '../../../src/matching/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';

describeWithRealLists('an index combining the indexes of several lists', (listsDir) => {
  const real = loadListEntities(listsDir);
  const bySource = new Map<string, MatchableEntity[]>();
  for (const entity of real) bySource.set(entity.source, [...(bySource.get(entity.source) ?? []), entity]);
  const shared = new SharedVocabulary();
  const parts = [...bySource.values()].map((entities) => NameIndex.build(entities, shared));
  const combined = NameIndex.combine(parts);

  it('holds every entity and name of its parts', () => {
    expect(combined.size).toEqual({
      entities: parts.reduce((sum, part) => sum + part.size.entities, 0),
      names: parts.reduce((sum, part) => sum + part.size.names, 0),
    });
    expect([...combined.sources].sort()).toEqual([...bySource.keys()].sort());
  });

  it('gives per source exactly what the part holding it gives, explanations included, with and without filters', () => {
    const queries = makeQueries(real, 300, 11);
    queries.forEach((query, k) => {
      const options = {
        type: k % 3 === 0 ? ('entity' as const) : ('person' as const),
        threshold: 0.5,
        limitPerSource: 5,
      };
      const expected = new Map(parts.flatMap((part) => [...part.search(query, options)]));
      const found = combined.search(query, options);
      expect(new Map([...found].sort())).toEqual(new Map([...expected].sort()));
      const two = [...bySource.keys()].slice(1, 3);
      const filtered = combined.search(query, { ...options, sources: two });
      expect(new Map([...filtered].sort())).toEqual(
        new Map([...expected].filter(([s]) => two.includes(s)).sort()),
      );
    });
  });

  it('recombines from a combined index, taking only the sources asked of it', () => {
    // The matching thread's update of one list: the others taken from the combined index.
    const [first, ...others] = [...bySource.keys()];
    const again = NameIndex.combine([parts[0]!, { index: combined, sources: others }]);
    expect(again.size).toEqual(combined.size);
    expect([...again.sources].sort()).toEqual([first, ...others].sort());
    const alone = NameIndex.combine([{ index: combined, sources: [first!] }]);
    expect(alone.size).toEqual(parts[0]!.size);
    for (const [k, query] of makeQueries(real, 100, 12).entries()) {
      const options = {
        type: k % 3 === 0 ? ('entity' as const) : ('person' as const),
        threshold: 0.5,
        limitPerSource: 5,
      };
      expect(new Map([...again.search(query, options)].sort())).toEqual(
        new Map([...combined.search(query, options)].sort()),
      );
      expect(alone.search(query, options)).toEqual(parts[0]!.search(query, options));
    }
    expect(() => NameIndex.combine([parts[0]!, { index: combined, sources: [first!] }])).toThrow(
      /sharing a source/,
    );
    expect(() => NameIndex.combine([{ index: parts[0]!, sources: others }])).toThrow(
      /only sources its index holds/,
    );
  });

  it('refuses indexes built on different vocabularies', () => {
    const other = NameIndex.build([...bySource.values()][0]!);
    expect(() => NameIndex.combine([parts[0]!, other])).toThrow(/one shared vocabulary/);
  });
});
