import { expect, it } from 'vitest';
import { loadListEntities } from '../../../bench/matching/list-names.js';
import { makeQueries, seededRandom } from '../../../bench/matching/queries.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import { prepareQuery } from '../../../src/matching/prepared-query.js';
import { SharedVocabulary } from '../../../src/matching/shared-vocabulary.js';
import type { MatchableEntity, QueryType } from '../../../src/matching/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';

/** A deterministic sample of each list of the real lists, as the service holds them: one index per list. */
function listsSample(listsDir: string, perList: number): Map<string, MatchableEntity[]> {
  const random = seededRandom(7);
  const lists = new Map<string, MatchableEntity[]>();
  for (const entity of loadListEntities(listsDir)) {
    const list = lists.get(entity.source) ?? [];
    if (list.length < perList && random() < 0.5) list.push(entity);
    lists.set(entity.source, list);
  }
  return lists;
}

type Results = ReturnType<NameIndex['search']>;

/** Everything a search returns, explanations included, as comparable text. */
function text(results: Results): string {
  return JSON.stringify([...results.entries()]);
}

describeWithRealLists('indexes sharing one vocabulary', (listsDir) => {
  const lists = listsSample(listsDir, 1500);
  const all = [...lists.values()].flat();
  const queries = makeQueries(all, 400, 11);
  const settings = [
    { threshold: 0.5, limitPerSource: 10 },
    { threshold: 0.7, limitPerSource: 3 },
    { threshold: 0.85, limitPerSource: 1e9 },
  ];

  function searchAll(indexes: readonly NameIndex[]): string[] {
    const out: string[] = [];
    queries.forEach((query, k) => {
      const type: QueryType = k % 3 === 0 ? 'entity' : 'person';
      // As a screening does: one prepared query searched in every list's index in turn.
      const prepared = prepareQuery(query, type);
      for (const options of settings)
        for (const index of indexes) out.push(text(index.searchPrepared(prepared, options)));
    });
    return out;
  }

  it('find exactly what indexes with vocabularies of their own find, explanations included', () => {
    const separate = [...lists.values()].map((list) => NameIndex.build(list));
    const shared = new SharedVocabulary();
    const together = [...lists.values()].map((list) => NameIndex.build(list, shared));
    const expected = searchAll(separate);
    expect(expected.some((r) => r !== '[]')).toBe(true);
    expect(searchAll(together)).toEqual(expected);
  });

  it('still do after a new version of one list adds words to the vocabulary', () => {
    const shared = new SharedVocabulary();
    const ids = [...lists.keys()];
    const together = ids.map((id) => NameIndex.build(lists.get(id)!, shared));
    // Warm the shared caches with every query, then build a new version of the first list with
    // names made of new words, some of them one edit from the queries' words.
    searchAll(together);
    const before = shared.vocabulary.tokens.length;
    const first = lists.get(ids[0]!)!;
    const added: MatchableEntity[] = queries.slice(0, 50).map((query, k) => ({
      key: `${ids[0]}:new-${k}`,
      source: ids[0]!,
      kind: 'person',
      names: [{ full: `${query.replace(/[AEIOU]/, 'Q')} ZZYZX${k}`, type: 'primary' }],
    }));
    together[0] = NameIndex.build([...first, ...added], shared);
    expect(shared.vocabulary.tokens.length).toBeGreaterThan(before);
    const separate = ids.map((id, k) => NameIndex.build(k === 0 ? [...first, ...added] : lists.get(id)!));
    expect(searchAll(together)).toEqual(searchAll(separate));
  });
});
