import type { EntityKind, MatchableEntity } from '../../src/matching/index.js';
import { seededRandom } from './queries.js';

/**
 * A deterministic synthetic corpus built from real name tokens: person names recombine given names
 * and surnames seen in the lists, organisation names recombine organisation words. Token
 * frequencies follow the lists', so common tokens (MOHAMMED, TRADING) stay common at scale.
 */
export function syntheticCorpus(
  real: readonly MatchableEntity[],
  nameCount: number,
  seed = 1,
): MatchableEntity[] {
  const random = seededRandom(seed);
  const personWords: string[] = [];
  const orgWords: string[] = [];
  for (const entity of real) {
    for (const name of entity.names) {
      const words = name.full
        .replace(/[,]/g, ' ')
        .split(/\s+/)
        .filter((w) => /^[A-Za-z'-]{2,}$/.test(w));
      (entity.kind === 'person' ? personWords : orgWords).push(...words);
    }
  }
  const pick = (words: string[]) => words[Math.floor(random() * words.length)]!;
  const out: MatchableEntity[] = [];
  let names = 0;
  for (let e = 0; names < nameCount; e++) {
    const kind: EntityKind = random() < 0.6 ? 'person' : 'organization';
    const words = kind === 'person' ? personWords : orgWords;
    const count = 1 + Math.floor(random() * 3);
    const entityNames = Array.from({ length: Math.min(count, nameCount - names) }, () => ({
      full: Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(words)).join(' '),
      type: 'aka' as const,
    }));
    names += entityNames.length;
    out.push({ key: `synthetic:${e}`, source: `synthetic_${e % 4}`, kind, names: entityNames });
  }
  return out;
}
