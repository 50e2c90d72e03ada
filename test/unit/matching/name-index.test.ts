import { describe, expect, it } from 'vitest';
import { NameIndex } from '../../../src/matching/name-index.js';
import { SharedVocabulary } from '../../../src/matching/shared-vocabulary.js';
import type { MatchableEntity, SearchOptions } from '../../../src/matching/types.js';
import { BruteForce } from './brute-force.js';

const entities: MatchableEntity[] = [
  {
    key: 'a:1',
    source: 'a',
    kind: 'person',
    names: [{ full: 'PUTIN, Vladimir Vladimirovich', type: 'primary' }],
  },
  { key: 'a:2', source: 'a', kind: 'person', names: [{ full: 'PUTINA, Maria', type: 'primary' }] },
  {
    key: 'b:1',
    source: 'b',
    kind: 'person',
    names: [
      { full: 'Vladimir Putin', type: 'primary' },
      { full: 'Владимир Путин', type: 'original_script' },
    ],
  },
  { key: 'b:2', source: 'b', kind: 'vessel', names: [{ full: 'VLADIMIR PUTIN 2', type: 'primary' }] },
  {
    key: 'c:1',
    source: 'c',
    kind: 'person',
    names: [
      { full: 'Osama bin Laden', type: 'primary' },
      { full: 'Vladimir Putin', type: 'weak_aka' },
      { full: 'Vladimir Puttin', type: 'weak_aka' },
    ],
  },
  { key: 'c:2', source: 'c', kind: 'organization', names: [{ full: 'AL QAIDA', type: 'primary' }] },
];
const index = NameIndex.build(entities);

/** An organisation of `source` with one primary name. */
const organisation = (source: string, name: string, key: string): MatchableEntity => ({
  key,
  source,
  kind: 'organization',
  names: [{ full: name, type: 'primary' }],
});
const options: SearchOptions = { type: 'person', threshold: 0.5, limitPerSource: 10 };

describe('name index', () => {
  it('counts entities and names', () => {
    expect(index.size).toEqual({ entities: 6, names: 9 });
  });

  it('returns per source the matches at or above the threshold, best first, with the matched name', () => {
    const result = index.search('Vladimir Putin', options);
    const a = result.get('a')!;
    expect(a[0]).toMatchObject({
      key: 'a:1',
      score: expect.any(Number),
      matchedName: { full: 'PUTIN, Vladimir Vladimirovich' },
    });
    expect(result.get('b')![0]).toMatchObject({ key: 'b:1', score: 1 });
    for (const matches of result.values()) {
      for (let k = 1; k < matches.length; k++)
        expect(matches[k]!.score).toBeLessThanOrEqual(matches[k - 1]!.score);
      for (const m of matches) expect(m.score).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('scores an entity by its best name and gives one result per entity', () => {
    const b = index.search('Владимир Путин', options).get('b')!;
    expect(b.filter((m) => m.key === 'b:1')).toHaveLength(1);
    expect(b[0]).toMatchObject({ key: 'b:1', score: 1, matchedName: { type: 'original_script' } });
  });

  it('scores an exact weak alias 1.0 but a fuzzy weak alias below the same fuzzy match on a strong name', () => {
    expect(index.search('Vladimir Putin', options).get('c')![0]!.score).toBe(1);
    const weak = index.search('Vladimir Puttin Jr', options).get('c')![0]!;
    expect(weak.matchedName.full).toBe('Vladimir Puttin');
    expect(weak.score).toBe(1); // the honorific is dropped: the prepared forms are equal
    const fuzzyWeak = index.search('Wladimir Putin', options).get('c')![0]!.score;
    const fuzzyStrong = index.search('Wladimir Putin', options).get('b')![0]!.score;
    expect(fuzzyWeak).toBeLessThan(fuzzyStrong);
  });

  it('filters by source and by kind', () => {
    expect([...index.search('Vladimir Putin', { ...options, sources: ['b'] }).keys()]).toEqual(['b']);
    const vessels = index.search('Vladimir Putin 2', { ...options, type: 'entity', kinds: ['vessel'] });
    expect([...vessels.values()].flat().map((m) => m.key)).toEqual(['b:2']);
  });

  it('returns at most limitPerSource matches per source', () => {
    expect(index.search('Vladimir Putin', { ...options, limitPerSource: 1 }).get('a')).toHaveLength(1);
  });

  it('finds a name written as one word and explains the match', () => {
    const match = index.search('ALQAIDA', { ...options, type: 'entity' }).get('c')![0]!;
    expect(match.key).toBe('c:2');
    expect(match.explanation.pairs[0]).toMatchObject({
      query: 'ALQAIDA',
      candidate: 'AL QAIDA',
      how: 'merged',
    });
    expect(JSON.parse(JSON.stringify(match.explanation))).toEqual(match.explanation);
  });

  it('gives the same answer to the same query every time', () => {
    const first = JSON.stringify([...index.search('Vladmir Putin', options)]);
    index.search('Osama bin Laden', options);
    expect(JSON.stringify([...index.search('Vladmir Putin', options)])).toBe(first);
  });

  // A query word longer than every indexed word by more than two letters shares no deletion key
  // with any of them, so its (quadratic) deletion neighbourhood is not probed; up to two letters
  // longer it is, and a vocabulary that later grows a longer word is probed with it again.
  it('finds a name by a query word up to two letters longer than any indexed word, as a full scan does', () => {
    const word = (name: string, key: string) => organisation('w', name, key);
    const words = [word('KALASHNIKOVA', 'w:1'), word('KALASH', 'w:2'), word('NIKOV TRADING', 'w:3')];
    const shared = new SharedVocabulary();
    const short = NameIndex.build(words, shared);
    const entity = { ...options, type: 'entity' as const, threshold: 0.7 };
    const scan = new BruteForce(words);
    const found = (index: NameIndex, query: string) =>
      new Map([...(index.search(query, entity).get('w') ?? [])].map((m) => [m.key, m.score]));
    for (const query of ['KALASHNIKOVAX', 'KALASHNIKOVAXY', 'KALASHNIKOVAXYZ', 'K'.repeat(500)]) {
      expect(found(short, query)).toEqual(scan.search(query, 'entity', 0.7));
    }
    expect(found(short, 'KALASHNIKOVAXY').has('w:1')).toBe(true);
    const longer = [word('KALASHNIKOVAXYZWQ', 'w:4')];
    const grown = NameIndex.build(longer, shared);
    expect(found(grown, 'KALASHNIKOVAXYZWQRS')).toEqual(
      new BruteForce(longer).search('KALASHNIKOVAXYZWQRS', 'entity', 0.7),
    );
    expect(found(grown, 'KALASHNIKOVAXYZWQRS').has('w:4')).toBe(true);
  });

  it('finds names made of numbers and legal forms by themselves, exactly as a full scan does', () => {
    const party = (name: string, key: string) => organisation('n', name, key);
    // Listed on OFAC's SDN as written: a name with no ordinary word to anchor it.
    const parties = [party('SOURCE1HERBS', 'n:1'), party('11420 CORP.', 'n:2'), party('A1 TRADING', 'n:3')];
    const numbered = NameIndex.build(parties);
    const scan = new BruteForce(parties);
    const entity = { ...options, type: 'entity' as const };
    for (const query of ['Source1Herbs', '11420 Corp.', '11420 Corporation', 'A1 Trading', '11421 Corp.']) {
      const found = new Map(
        [...(numbered.search(query, entity).get('n') ?? [])].map((m) => [m.key, m.score]),
      );
      expect(found).toEqual(scan.search(query, 'entity', 0.5));
    }
    expect(numbered.search('Source1Herbs', entity).get('n')?.[0]).toMatchObject({ key: 'n:1', score: 1 });
    expect(numbered.search('11420 Corp.', entity).get('n')?.[0]).toMatchObject({ key: 'n:2', score: 1 });
    // Another number is another party.
    expect(numbered.search('11421 Corp.', entity).get('n') ?? []).toEqual([]);
  });

  it('names as matched the name its entity lists first when two of its names score the same', () => {
    // OMEGA is the commoner word here, so the index stores the second name first (name-order.ts).
    const listed: MatchableEntity[] = [
      {
        key: 't:1',
        source: 't',
        kind: 'person',
        names: [
          { full: 'JOHN SMITH ALPHA', type: 'primary' },
          { full: 'JOHN SMITH OMEGA', type: 'aka' },
        ],
      },
      { key: 't:2', source: 't', kind: 'person', names: [{ full: 'OMEGA KOWALSKI', type: 'primary' }] },
    ];
    const [match] = NameIndex.build(listed).search('JOHN SMITH', options).get('t')!;
    expect(match).toMatchObject({ key: 't:1', matchedName: { full: 'JOHN SMITH ALPHA' } });
    expect(match!.explanation.unmatchedName).toEqual(['ALPHA']);
  });

  it('finds merged and split names across abjad and Latin spellings exactly as a full scan does', () => {
    const listed: MatchableEntity[] = [
      ['m:1', 'Osama BIN LADEN'],
      ['m:2', 'أسامة بن لادن'],
      ['m:3', 'ABD AL RAHMAN YASIN'],
      ['m:4', 'عبدالرحمن ياسين'],
      ['m:5', 'אוסאמה בן לאדן'],
      ['m:6', 'ABDULRAHMAN YASEEN'],
    ].map(([key, full]) => ({
      key: key!,
      source: 'm',
      kind: 'person',
      names: [{ full: full!, type: 'primary' }],
    }));
    const index = NameIndex.build(listed);
    const scan = new BruteForce(listed);
    const queries = [
      'Osama BINLADEN',
      'أسامة بنلادن',
      'ABDALRAHMAN YASIN',
      'عبد الرحمن ياسين',
      'Abd al-Rahman Yasin',
    ];
    for (const query of [...queries, 'אוסאמה בנלאדן', 'BIN LADEN OSAMA']) {
      for (const threshold of [0.5, 0.7, 0.9]) {
        const found = new Map(
          (index.search(query, { ...options, threshold }).get('m') ?? []).map((m) => [m.key, m.score]),
        );
        expect(found).toEqual(scan.search(query, 'person', threshold));
      }
    }
    const merged = index.search('Osama BINLADEN', options).get('m')!;
    expect(merged.find((m) => m.key === 'm:1')!.explanation.pairs).toContainEqual(
      expect.objectContaining({ query: 'BINLADEN', candidate: 'BIN LADEN', how: 'merged' }),
    );
  });

  it('retrieves no name through a word that shares a key with a query word but is too unlike to be paired', () => {
    const listed: MatchableEntity[] = [
      { key: 'u:1', source: 'u', kind: 'person', names: [{ full: 'SAHNA A B C D E F', type: 'primary' }] },
      { key: 'u:2', source: 'u', kind: 'person', names: [{ full: 'SALEH A B C D E F X', type: 'primary' }] },
    ];
    const query = 'SALEH A B C D E F';
    const found = NameIndex.build(listed).search(query, options).get('u')!;
    expect(found.map((m) => m.key)).toEqual(['u:2']);
    expect(new BruteForce(listed).search(query, 'person', 0.5)).toEqual(new Map([['u:2', found[0]!.score]]));
  });
});
