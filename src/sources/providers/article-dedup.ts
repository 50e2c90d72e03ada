import { titleWords } from './title-match.js';

/**
 * Two headlines sharing at least this share of their words (Jaccard, over distinct lower-case
 * words) are one story told twice: syndicated copies differ by a source suffix or a word.
 */
export const NEAR_IDENTICAL_TITLE_SIMILARITY = 0.8;
/**
 * GDELT cuts long headlines short; a headline that is the start of another, over at least this
 * many words, is the same story.
 */
export const TITLE_PREFIX_MIN_WORDS = 5;

/**
 * The items with distinct stories, in their order (the caller puts the best first), at most `max`:
 * an item is dropped when its address, read without tracking parameters, fragment or trailing
 * slash, was seen already, or when its headline is near-identical to one kept.
 */
export function distinctStories<T>(
  items: readonly T[],
  read: (item: T) => { url: string; title: string },
  max: number,
): T[] {
  const kept: T[] = [];
  const urls = new Set<string>();
  const titles: string[][] = [];
  for (const item of items) {
    if (kept.length >= max) break;
    const { url, title } = read(item);
    const address = comparableUrl(url);
    const words = titleWords(title).map((w) => w.toLowerCase());
    if (urls.has(address) || titles.some((seen) => sameStory(seen, words))) continue;
    urls.add(address);
    titles.push(words);
    kept.push(item);
  }
  return kept;
}

export function comparableUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return url.trim();
  parsed.hash = '';
  for (const key of [...parsed.searchParams.keys()]) {
    if (/^(utm_|fbclid$|gclid$)/i.test(key)) parsed.searchParams.delete(key);
  }
  parsed.pathname = parsed.pathname.replace(/\/+$/, '') || '/';
  // The scheme and host are case-insensitive and http/https copies are the same page.
  return `${parsed.host.toLowerCase().replace(/^www\./, '')}${parsed.pathname}${parsed.search}`;
}

export function sameStory(a: readonly string[], b: readonly string[]): boolean {
  const setA = new Set(a);
  const setB = new Set(b);
  const shared = [...setA].filter((w) => setB.has(w)).length;
  const union = new Set([...setA, ...setB]).size;
  if (union > 0 && shared / union >= NEAR_IDENTICAL_TITLE_SIMILARITY) return true;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  // The last word of a cut headline may itself be cut ("Dema" for "Demands").
  const last = shorter.length - 1;
  return (
    shorter.length >= TITLE_PREFIX_MIN_WORDS &&
    shorter.every((w, i) => (i === last ? longer[i]!.startsWith(w) : longer[i] === w))
  );
}
