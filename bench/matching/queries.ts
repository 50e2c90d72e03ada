import type { MatchableEntity } from '../../src/matching/types.js';

/** Deterministic query generators for property tests: variants of listed names and unrelated names. */

export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const CYRILLIC: Record<string, string> = {
  A: 'А',
  B: 'Б',
  V: 'В',
  G: 'Г',
  D: 'Д',
  E: 'Е',
  Z: 'З',
  I: 'И',
  Y: 'Й',
  K: 'К',
  L: 'Л',
  M: 'М',
  N: 'Н',
  O: 'О',
  P: 'П',
  R: 'Р',
  S: 'С',
  T: 'Т',
  U: 'У',
  F: 'Ф',
  H: 'Х',
  C: 'Ц',
  W: 'В',
  X: 'КС',
  J: 'Дж',
  Q: 'К',
};

export function typo(name: string, random: () => number): string {
  const chars = [...name];
  const at = Math.floor(random() * chars.length);
  const kind = Math.floor(random() * 3);
  if (kind === 0) chars.splice(at, 1);
  else if (kind === 1) chars[at] = LETTERS[Math.floor(random() * 26)]!;
  else if (at + 1 < chars.length) [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
  return chars.join('');
}

export function reorder(name: string): string {
  const words = name.replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  return [...words.slice(1), words[0]].join(' ');
}

export function toCyrillic(name: string): string {
  return [...name.toUpperCase()].map((ch) => CYRILLIC[ch] ?? ch).join('');
}

/** A mix of misspelt, reordered, merged and transliterated listed names and unrelated names. */
export function makeQueries(entities: readonly MatchableEntity[], count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const pick = () => {
    const entity = entities[Math.floor(random() * entities.length)]!;
    return entity.names[Math.floor(random() * entity.names.length)]!.full;
  };
  const word = () =>
    pick()
      .split(/[\s,]+/)
      .filter(Boolean)[0] ?? 'X';
  const makers = [
    () => typo(pick(), random),
    () => reorder(pick()),
    () => toCyrillic(pick()),
    () => pick().replace(/ /, ''),
    () => typo(typo(pick(), random), random),
    () => `${word()} ${word()}`,
    () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => typo(word(), random)).join(' '),
  ];
  return Array.from({ length: count }, (_, k) => makers[k % makers.length]!());
}
