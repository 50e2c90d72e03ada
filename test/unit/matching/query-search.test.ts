import { describe, expect, it } from 'vitest';
import { KIND_MISMATCH_BAR, KIND_MISMATCH_FACTOR } from '../../../src/matching/kind-mismatch.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import { prepareQuery } from '../../../src/matching/prepared-query.js';
import type { EntityKind, EntityMatch, QueryType } from '../../../src/matching/types.js';

const entity = (key: string, kind: EntityKind, name: string) => ({
  key: `a:${key}`,
  source: 'a',
  kind,
  names: [{ full: name, type: 'primary' as const }],
});
const index = NameIndex.build([
  entity('mugabe', 'person', 'MUGABE, Robert Gabriel'),
  entity('melli', 'organization', 'BANK MELLI IRAN'),
  entity('azul', 'vessel', 'MAR AZUL'),
  entity('lazarus', 'organization', 'LAZARUS GROUP'),
  entity('tolkien', 'person', 'TOLKIEN, John Ronald Reuel'),
]);

const search = (query: string, type: QueryType, threshold = 0.5): EntityMatch[] =>
  index.search(query, { type, threshold, limitPerSource: 10 }).get('a') ?? [];
const found = (query: string, type: QueryType, key: string) =>
  search(query, type).find((m) => m.key === `a:${key}`);

describe('a typed query and records of another kind', () => {
  it('reports a record of another kind whose name matches strongly, marked and scaled, the penalty explained', () => {
    for (const [query, type, key] of [
      ['Robert Gabriel Mugabe', 'organization', 'mugabe'],
      ['Bank Melli Iran', 'person', 'melli'],
      ['Bank Melli Iran', 'vessel', 'melli'],
      ['Mar Azul', 'aircraft', 'azul'],
    ] as const) {
      const match = found(query, type, key)!;
      expect(match, `${query} as ${type}`).toBeDefined();
      expect(match.kindMismatch).toBe(true);
      expect(match.score).toBe(KIND_MISMATCH_FACTOR);
      expect(match.explanation.score).toBe(match.score);
      expect(match.explanation.penalties).toContainEqual({
        reason: `the record is of another kind than the query's type (${type})`,
        factor: KIND_MISMATCH_FACTOR,
      });
    }
  });

  it("reads the name by the rules of the record's kind: a person listed surname first is an exact name", () => {
    expect(found('Mugabe, Robert Gabriel', 'organization', 'mugabe')!.score).toBe(KIND_MISMATCH_FACTOR);
  });

  it('keeps weaker matches of other kinds away, which the right type finds', () => {
    expect(found('Robert Mugabe', 'person', 'mugabe')!.score).toBeLessThan(KIND_MISMATCH_BAR);
    expect(found('Robert Mugabe', 'organization', 'mugabe')).toBeUndefined();
  });

  it('leaves matches of the query’s own kind and of an untyped query unmarked and unscaled', () => {
    expect(found('Robert Gabriel Mugabe', 'person', 'mugabe')).toMatchObject({ score: 1 });
    expect(found('Robert Gabriel Mugabe', 'person', 'mugabe')!.kindMismatch).toBeUndefined();
    expect(found('Bank Melli Iran', 'entity', 'melli')!.kindMismatch).toBeUndefined();
    expect(found('Bank Melli Iran', 'entity', 'melli')!.score).toBe(1);
  });

  it('reports a record of another kind only when its lowered score reaches the threshold', () => {
    expect(search('Bank Melli Iran', 'person', KIND_MISMATCH_FACTOR)).toHaveLength(1);
    expect(search('Bank Melli Iran', 'person', KIND_MISMATCH_FACTOR + 0.01)).toEqual([]);
  });
});

describe('a query written letter by letter or repeated', () => {
  it('matches the name it spells', () => {
    for (const query of [
      'L-a-z-a-r-u-s G-r-o-u-p',
      'L.a.z.a.r.u.s G.r.o.u.p',
      'Lazarus Group Lazarus Group Lazarus Group',
    ])
      expect(found(query, 'organization', 'lazarus'), query).toMatchObject({ score: 1 });
    expect(found('L a z a r u s G r o u p', 'organization', 'lazarus')!.score).toBeGreaterThanOrEqual(0.9);
  });

  it('still reads a run of initials as initials', () => {
    const asWritten = index
      .searchPrepared(prepareQuery('J. R. R. Tolkien', 'person'), { threshold: 0.5, limitPerSource: 10 })
      .get('a')![0]!;
    const match = found('J. R. R. Tolkien', 'person', 'tolkien')!;
    expect(match.score).toBe(asWritten.score);
    expect(match.score).toBeGreaterThanOrEqual(0.8);
    expect(match.explanation.preparedQuery).toBe('J R R TOLKIEN');
  });
});
