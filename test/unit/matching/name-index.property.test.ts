import { describe, expect, it } from 'vitest';
import { loadListEntities } from '../../../bench/matching/list-names.js';
import { makeQueries, seededRandom } from '../../../bench/matching/queries.js';
import { ANCHOR_FREE_CAP } from '../../../src/matching/anchors.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import { prepareQuery } from '../../../src/matching/prepared-query.js';
import type { MatchableEntity, QueryType } from '../../../src/matching/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';
import { BruteForce } from './brute-force.js';

/** A brute-force scan of every listed name per query: minutes on a loaded 2-core machine. */
const SCAN_TIMEOUT_MS = 180_000;

// A deterministic sample of the real lists keeps the brute-force reference affordable.
function sampleEntities(listsDir: string, count: number): MatchableEntity[] {
  const all = loadListEntities(listsDir);
  const random = seededRandom(42);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(random() * all.length));
  return [...chosen].sort((a, b) => a - b).map((i) => all[i]!);
}

// The index's one search of a prepared reading is held to the scan; the readings and kinds a
// query search adds on top of it are tested in query-search.test.ts.
// Built from the whole lists when the suite runs (see the describe below).
let entities: MatchableEntity[];
let index: NameIndex;
let bruteForce: BruteForce;
let sourceOf: Map<string, string>;
const LOWEST = 0.5;

function indexScores(query: string, type: QueryType, threshold: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const matches of index
    .searchPrepared(prepareQuery(query, type), { threshold, limitPerSource: 1e9 })
    .values()) {
    for (const m of matches) out.set(m.key, m.score);
  }
  return out;
}

function above(scores: Map<string, number>, threshold: number): Map<string, number> {
  return new Map([...scores].filter(([, s]) => s >= threshold));
}

/** Per source, the `limit` best entities of a full scan: score descending, ties by key. */
function referenceTop(scores: Map<string, number>, limit: number): Record<string, [string, number][]> {
  const out: Record<string, [string, number][]> = {};
  const sorted = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [key, score] of sorted) {
    const source = sourceOf.get(key)!;
    const list = out[source] ?? [];
    if (list.length < limit) list.push([key, score]);
    out[source] = list;
  }
  return out;
}

function indexTop(query: string, type: QueryType, limit: number): Record<string, [string, number][]> {
  const out: Record<string, [string, number][]> = {};
  const prepared = prepareQuery(query, type);
  for (const [source, matches] of index.searchPrepared(prepared, {
    threshold: LOWEST,
    limitPerSource: limit,
  }))
    out[source] = matches.map((m) => [m.key, m.score]);
  return out;
}

describe('the anchor rule', () => {
  it('keeps every name it does not retrieve below the default threshold', () => {
    expect(ANCHOR_FREE_CAP).toBeLessThan(LOWEST);
  });
});

describeWithRealLists('name index against a brute-force scan of every name', (listsDir) => {
  entities = sampleEntities(listsDir, 4000);
  index = NameIndex.build(entities);
  bruteForce = new BruteForce(entities);
  sourceOf = new Map(entities.map((e) => [e.key, e.source]));

  for (const [label, type, seed] of [
    ['person', 'person', 7],
    ['entity', 'entity', 11],
  ] as const) {
    it(
      `loses no entity at thresholds 0.5 to 0.9 on ${label} queries, and scores each exactly as the scan does`,
      () => {
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
      },
      SCAN_TIMEOUT_MS,
    );

    it(
      `finds each entity with its own score as the threshold on ${label} queries (no bound below a score)`,
      () => {
        // A bound that undercuts a score by any margin loses that name at a threshold in between;
        // fixed thresholds only catch it when one falls in the gap, the score itself always does.
        const random = seededRandom(seed + 2);
        const listed = entities.flatMap((e) => e.names.map((n) => n.full));
        // Listed names with a word cut to its initial or dropped: relations without an anchor.
        const variants = Array.from({ length: 30 }, () => {
          const words = listed[Math.floor(random() * listed.length)]!.split(/\s+/).filter(Boolean);
          const at = Math.floor(random() * words.length);
          if (random() < 0.5) words[at] = words[at]!.slice(0, 1);
          else if (words.length > 2) words.splice(at, 1);
          return words.join(' ');
        });
        let checked = 0;
        for (const query of [...makeQueries(entities, 30, seed + 2), ...variants]) {
          for (const [key, score] of bruteForce.search(query, type, LOWEST)) {
            expect({ query, key, score: indexScores(query, type, score).get(key) }).toEqual({
              query,
              key,
              score,
            });
            checked++;
          }
        }
        expect(checked).toBeGreaterThan(100);
      },
      SCAN_TIMEOUT_MS,
    );

    it(
      `returns per source exactly the scan's top k (ties by key) for k = 1, 3, 10 on ${label} queries`,
      () => {
        let truncated = 0;
        for (const query of makeQueries(entities, 40, seed + 1)) {
          const reference = bruteForce.search(query, type, LOWEST);
          for (const limit of [1, 3, 10]) {
            const expectedTop = referenceTop(reference, limit);
            expect({ query, limit, top: indexTop(query, type, limit) }).toEqual({
              query,
              limit,
              top: expectedTop,
            });
            truncated += Object.values(expectedTop).filter((list) => list.length === limit).length;
          }
        }
        // The cut must actually bite: many sources have more matches than k.
        expect(truncated).toBeGreaterThan(20);
      },
      SCAN_TIMEOUT_MS,
    );
  }
});
