import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/matching/queries.js';
import { NameIndex } from '../../../src/matching/name-index.js';
import { prepareQuery } from '../../../src/matching/prepared-query.js';
import type { MatchableEntity, QueryType } from '../../../src/matching/types.js';
import { BruteForce } from './brute-force.js';

/** A brute-force scan of every listed name per query: minutes on a loaded 2-core machine. */
const SCAN_TIMEOUT_MS = 180_000;

/**
 * The index against a brute-force scan on generated names full of what the scorer weighs lightly
 * or leaves out when unpaired (initials, particles, patronymics, a word after BIN, legal forms) and
 * of plain extra words, which weigh more: the bounds that read which of a name's tokens are light
 * extras must never undercut a score. Few distinct words, so that many names share them and
 * scores crowd around the thresholds.
 */

const WORDS = [
  'AHMED',
  'HASSAN',
  'KARIMOV',
  'PETROV',
  'SALIM',
  'ORLOV',
  'NADIR',
  'FARID',
  'MARKOV',
  'SOKOL',
  'TARIQ',
  'VOLKOV',
];
const PARTICLES = ['AL', 'BIN', 'IBN', 'OULD', 'VAN', 'DE'];
const PATRONYMICS = ['IVANOVICH', 'PETROVNA', 'SERGEEVICH', 'ALIOGLU', 'MAMEDOGLY', 'KARIMKYZY'];
const BUSINESS = ['TRADING', 'SHIPPING', 'GLOBAL', 'METAL', 'ENERGY', 'NOVA'];
const LEGAL_FORMS = ['LLC', 'LTD', 'INC', 'CO', 'JSC', 'GMBH', 'LIMITED'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function personName(random: () => number): string {
  const words: string[] = [pick(random, WORDS)];
  const parts = 1 + Math.floor(random() * 3);
  for (let k = 0; k < parts; k++) {
    const r = random();
    if (r < 0.2) words.push(pick(random, PATRONYMICS));
    else if (r < 0.4) words.push(pick(random, PARTICLES), pick(random, WORDS));
    else if (r < 0.55) words.push(pick(random, WORDS).slice(0, 1));
    else words.push(pick(random, WORDS));
  }
  return words.join(' ');
}

function organisationName(random: () => number): string {
  const words: string[] = [pick(random, random() < 0.5 ? WORDS : BUSINESS)];
  const parts = Math.floor(random() * 3);
  for (let k = 0; k < parts; k++) words.push(pick(random, random() < 0.3 ? PARTICLES : BUSINESS));
  if (random() < 0.7) words.push(pick(random, LEGAL_FORMS));
  if (random() < 0.2) words.push(pick(random, LEGAL_FORMS));
  return words.join(' ');
}

function generatedEntities(count: number, random: () => number): MatchableEntity[] {
  return Array.from({ length: count }, (_, k) => {
    const person = random() < 0.6;
    const name = () => (person ? personName(random) : organisationName(random));
    const names: MatchableEntity['names'] = [{ full: name(), type: 'primary' }];
    if (random() < 0.3) names.push({ full: name(), type: random() < 0.5 ? 'weak_aka' : 'aka' });
    return { key: `e${k}`, source: `list${k % 3}`, kind: person ? 'person' : 'organization', names };
  });
}

/** A listed name with a token dropped, cut to its initial, misspelt, or one added (light or not). */
function variant(random: () => number, name: string): string {
  const words = name.split(' ');
  const at = Math.floor(random() * words.length);
  const r = random();
  if (r < 0.2 && words.length > 1) words.splice(at, 1);
  else if (r < 0.35) words[at] = words[at]!.slice(0, 1);
  else if (r < 0.5) words[at] = `${words[at]!.slice(0, -1)}X`;
  else if (r < 0.6) words.splice(at, 0, pick(random, PATRONYMICS));
  else if (r < 0.7) words.splice(at, 0, pick(random, LEGAL_FORMS));
  else if (r < 0.8) words.splice(at, 0, pick(random, WORDS));
  else if (r < 0.9) words.push('BIN', pick(random, WORDS));
  return words.join(' ');
}

describe('name index against a brute-force scan of generated names with light extras', () => {
  const random = seededRandom(36);
  const entities = generatedEntities(1500, random);
  const index = NameIndex.build(entities);
  const bruteForce = new BruteForce(entities);
  const listed = entities.flatMap((e) => e.names.map((n) => n.full));
  const queries = [
    ...Array.from({ length: 60 }, () => variant(random, pick(random, listed))),
    ...Array.from({ length: 20 }, () => personName(random)),
    ...Array.from({ length: 20 }, () => organisationName(random)),
  ];

  for (const type of ['person', 'entity'] as const satisfies readonly QueryType[]) {
    it(
      `finds each entity with its own score as the threshold on ${type} queries`,
      () => {
        let checked = 0;
        for (const query of queries) {
          const reference = bruteForce.search(query, type, 0.5);
          for (const [key, score] of reference) {
            const found = new Map<string, number>();
            const prepared = prepareQuery(query, type);
            for (const matches of index
              .searchPrepared(prepared, { threshold: score, limitPerSource: 1e9 })
              .values())
              for (const m of matches) found.set(m.key, m.score);
            expect({ query, key, score: found.get(key) }).toEqual({ query, key, score });
            checked++;
          }
        }
        // Guards against a vacuous pass: the queries must find many generated names.
        expect(checked).toBeGreaterThan(500);
      },
      SCAN_TIMEOUT_MS,
    );
  }
});
