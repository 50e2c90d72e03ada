import { describe, expect, it } from 'vitest';
import { loadListEntities } from '../../../bench/matching/list-names.js';
import { makeQueries, seededRandom } from '../../../bench/matching/queries.js';
import { ANCHOR_FREE_CAP } from '../../../src/matching/anchors.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import type { MatchableEntity, QueryType } from '../../../src/matching/types.js';
import { BruteForce } from './brute-force.js';

// A deterministic sample of the real lists keeps the brute-force reference affordable.
function sampleEntities(count: number): MatchableEntity[] {
  const all = loadListEntities();
  const random = seededRandom(42);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(random() * all.length));
  return [...chosen].sort((a, b) => a - b).map((i) => all[i]!);
}

const entities = sampleEntities(4000);
const index = NameIndex.build(entities);
const bruteForce = new BruteForce(entities);
const LOWEST = 0.5;

function indexScores(query: string, type: QueryType, threshold: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const matches of index.search(query, { type, threshold, limitPerSource: 1e9 }).values()) {
    for (const m of matches) out.set(m.key, m.score);
  }
  return out;
}

function above(scores: Map<string, number>, threshold: number): Map<string, number> {
  return new Map([...scores].filter(([, s]) => s >= threshold));
}

describe('name index against a brute-force scan of every name', () => {
  it('the anchor rule keeps every name it does not retrieve below the default threshold', () => {
    expect(ANCHOR_FREE_CAP).toBeLessThan(LOWEST);
  });

  for (const [label, type, seed] of [
    ['person', 'person', 7],
    ['entity', 'entity', 11],
  ] as const) {
    it(`loses no entity at thresholds 0.5 to 0.9 on ${label} queries, and scores each exactly as the scan does`, () => {
      let expected = 0;
      for (const query of makeQueries(entities, 35, seed)) {
        const reference = bruteForce.search(query, type, LOWEST);
        const found = indexScores(query, type, LOWEST);
        expected += reference.size;
        for (const threshold of [0.5, 0.7, 0.8, 0.9]) {
          expect({ query, threshold, found: above(found, threshold) }).toEqual({
            query,
            threshold,
            found: above(reference, threshold),
          });
        }
      }
      // Guards against a vacuous pass: the queries must actually find listed names.
      expect(expected).toBeGreaterThan(35);
    });
  }
});
