import { randomFor } from './random.js';
import type { Cluster } from './synthetic-entities.js';

/**
 * A planted target: a target of the export that a recall run screens, by a customer-typed
 * variant of its name (one letter wrong, or the words in another order), and expects to find.
 */
export interface PlantedTarget {
  id: string;
  schema: string;
  /** What the target is, from its topics: `sanctions` (topic `sanction`), `pep` (`role.pep`, `role.rca`), else `watchlist`. */
  category: 'sanctions' | 'pep' | 'watchlist';
  /** The flag type the service gives an OpenSanctions match (src/sources/watchlist-flag.ts). */
  expected_flag: 'pep' | 'watchlist';
  topics: string[];
  datasets: string[];
  /** The exact name: the target's caption, which is its first `name`. */
  name: string;
  /** What to screen. */
  variant: string;
  variant_kind: 'typo' | 'reorder';
  birth_date?: string;
  country?: string;
  /** The version that listed it (0 for the base export; a delta's newly listed targets have theirs). */
  version: number;
}

const PEP_TOPICS = ['role.pep', 'role.rca'];

export function plantedTarget(cluster: Cluster, seed: number, version: number): PlantedTarget {
  const { target } = cluster;
  const topics = target.properties.topics ?? [];
  const pep = topics.some((topic) => PEP_TOPICS.includes(topic));
  const person = target.schema === 'Person';
  const holdsPosition = [...cluster.before, ...cluster.after].some((line) => line.schema === 'Occupancy');
  const random = randomFor(seed, cluster.index, 0x91a);
  const name = target.caption;
  const reordered = random.chance(0.4) ? reorder(name) : undefined;
  const country = target.properties.nationality?.[0] ?? target.properties.country?.[0];
  const birthDate = target.properties.birthDate?.[0];
  return {
    id: target.id,
    schema: target.schema,
    category: topics.includes('sanction') ? 'sanctions' : pep ? 'pep' : 'watchlist',
    expected_flag: person && (pep || holdsPosition) ? 'pep' : 'watchlist',
    topics,
    datasets: target.datasets,
    name,
    variant: reordered ?? typo(name, random.next()),
    variant_kind: reordered ? 'reorder' : 'typo',
    ...(birthDate && { birth_date: birthDate }),
    ...(country && { country }),
    version,
  };
}

/** The words of the name with the last one first, or undefined when that changes nothing. */
export function reorder(name: string): string | undefined {
  const words = name.split(' ').filter(Boolean);
  const out = [words.at(-1)!, ...words.slice(0, -1)].join(' ');
  return words.length > 1 && out !== words.join(' ') ? out : undefined;
}

const VOWELS = 'aeiou';
const CONSONANTS = 'nrstlkmh';

/**
 * One letter replaced by another (never the first letter of the name, where customers rarely
 * slip): a vowel by another vowel, a consonant by another consonant, in the letter's case.
 */
export function typo(name: string, u: number): string {
  const chars = [...name];
  const candidates = chars.map((_, i) => i).filter((i) => i > 0 && /\p{L}/u.test(chars[i]!));
  if (candidates.length === 0) return `${name}${name.at(-1) ?? 'a'}`;
  const at = candidates[Math.floor(u * candidates.length)]!;
  const original = chars[at]!;
  const lower = original.toLowerCase();
  const pool = VOWELS.includes(lower) ? VOWELS : /[a-z]/.test(lower) ? CONSONANTS : undefined;
  let replacement: string;
  if (pool) {
    const others = pool.replace(lower, '');
    replacement = others[Math.floor(u * 997) % others.length]!;
    if (original !== lower) replacement = replacement.toUpperCase();
  } else {
    // Another script: the neighbouring code point, which is a letter of the same script in
    // Cyrillic, Arabic and Han alike.
    replacement = String.fromCodePoint(original.codePointAt(0)! + 1);
  }
  chars[at] = replacement;
  return chars.join('');
}
