import { describe, expect, it } from 'vitest';
import { NameIndex } from '../../../src/matching/name-index.js';
import { prepareQuery, prepareQueryUncached } from '../../../src/matching/prepared-query.js';
import type { MatchableEntity } from '../../../src/matching/types.js';

const listA: MatchableEntity[] = [
  {
    key: 'a:1',
    source: 'a',
    kind: 'person',
    names: [{ full: 'PUTIN, Vladimir Vladimirovich', type: 'primary' }],
  },
  { key: 'a:2', source: 'a', kind: 'organization', names: [{ full: 'AL QAIDA', type: 'primary' }] },
];
const listB: MatchableEntity[] = [
  {
    key: 'b:1',
    source: 'b',
    kind: 'person',
    names: [
      { full: 'Vladimir Putin', type: 'primary' },
      { full: 'Владимир Путин', type: 'original_script' },
    ],
  },
  { key: 'b:2', source: 'b', kind: 'organization', names: [{ full: 'ALQAIDA', type: 'weak_aka' }] },
];
const indexes = [NameIndex.build(listA), NameIndex.build(listB)];

describe('prepared queries', () => {
  it('one prepared query searched in several indexes gives exactly what search gives in each', () => {
    for (const [query, type] of [
      ['Vladimir Putin', 'person'],
      ['Владимир Путин', 'person'],
      ['Al Qaida', 'entity'],
    ] as const) {
      const prepared = prepareQueryUncached(query, type);
      for (const index of indexes) {
        const options = { threshold: 0.5, limitPerSource: 10 };
        expect(index.searchPrepared(prepared, options)).toEqual(index.search(query, { ...options, type }));
      }
    }
  });

  it('a repeated query is prepared once, and the same text as another type is prepared apart', () => {
    const first = prepareQuery('Osama bin Laden', 'person');
    expect(prepareQuery('Osama bin Laden', 'person')).toBe(first);
    expect(prepareQuery('Osama bin Laden', 'entity')).not.toBe(first);
    expect(prepareQuery('Osama bin Laden', 'entity').type).toBe('entity');
  });

  it('the memo of prepared queries stays bounded: old queries are prepared again, equal to before', () => {
    const first = prepareQuery('Bounded Memo Query', 'person');
    for (let k = 0; k < 100; k++) prepareQuery(`Other Query ${k}`, 'person');
    const again = prepareQuery('Bounded Memo Query', 'person');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
