import { jaroWinklerCodes } from './jaro-winkler.js';
import type { PreparedToken } from './prepared.js';
import type { TokenCodes } from './token-codes.js';

/** Score of two tokens of the same equivalence group (BILL/WILLIAM, MUHAMMAD/MOHAMMED). */
export const EQUIVALENT_SIMILARITY = 0.95;
/** An initial against a word it begins (`J` / `JOHN`): a plausible but weaker match. */
export const INITIAL_SIMILARITY = 0.8;
/** Two different legal-form classes (`<LLC>` / `<JSC>`): both say "a company", little else. */
export const LEGAL_CROSS_CLASS_SIMILARITY = 0.6;
/**
 * Jaro-Winkler is rescaled from [FUZZY_FLOOR, 1] to [0, 1]: unrelated tokens reach JW 0.5-0.7 by
 * chance (shared common letters), and letting that count would lift every name a little.
 */
export const FUZZY_FLOOR = 0.6;
/**
 * A merged pair that is not identical (`BINLADEN` / `BIN LADIN`) has its JW damped first: a
 * spelling difference on top of a split is weaker evidence than either alone.
 */
export const UNANCHORED_FACTOR = 0.88;
/**
 * An unanchored pair of words (not within the anchor relation: one or two edits, a shared sound, a
 * shared skeleton, an equivalence group) counts for nothing: a word that is only roughly like
 * another is no evidence of the same name, and with it the score of `MOHAMMED KHAN` against
 * `MOHAMMED ALI` would depend on how KHAN happens to resemble ALI. It is also what lets the index
 * bound a candidate's score from its anchors alone (anchor-bound.ts). With the wider anchor
 * relation and the heavier conflict weight it raised the F1 of the development pairs
 * (docs/matching.md).
 */
export const UNANCHORED_CEILING = 0;

/**
 * A pair that agrees only through the consonant skeleton of a word from an abjad script (Arabic,
 * Hebrew, written without most vowels) is weaker evidence than the same agreement of spelled-out
 * words: the vowels that would tell `SL` from `ISIL` or `SOL` are missing. Skeletons of one or two
 * consonants are shared by so many words that they say less still.
 */
export const SKELETON_FACTOR = 0.9;
export const SHORT_SKELETON_FACTOR = 0.7;
const SHORT_SKELETON = 2;

/** How much a skeleton agreement counts, by the consonants of the shorter skeleton. */
export function skeletonFactor(shortest: number): number {
  return shortest <= SHORT_SKELETON ? SHORT_SKELETON_FACTOR : SKELETON_FACTOR;
}

function skeletonSimilarity(jw: number, shortest: number): number {
  return rescaleFuzzy(jw, true) * skeletonFactor(shortest);
}

/**
 * Two adjacent letters swapped in a three-letter word (`SNO` / `SON`): a typo that Jaro-Winkler
 * cannot see at that length (its matching window is empty), scored like one edit in a longer word.
 */
export const SHORT_SWAP_SIMILARITY = 0.8;

function isShortSwap(a: Int32Array, aStart: number, b: Int32Array, bStart: number, length: number): boolean {
  if (length !== 3) return false;
  const [a0, a1, a2] = [a[aStart]!, a[aStart + 1]!, a[aStart + 2]!];
  const [b0, b1, b2] = [b[bStart]!, b[bStart + 1]!, b[bStart + 2]!];
  return (
    (a0 === b1 && a1 === b0 && a2 === b2 && a0 !== a1) || (a0 === b0 && a1 === b2 && a2 === b1 && a1 !== a2)
  );
}

export type PairKind = 'identical' | 'equivalent' | 'fuzzy' | 'initial' | 'number' | 'legal_form';

function sharesGroup(a: readonly number[], b: readonly number[]): boolean {
  for (const g of a) if (b.includes(g)) return true;
  return false;
}

export function rescaleFuzzy(jw: number, anchored: boolean): number {
  const damped = anchored ? jw : jw * UNANCHORED_FACTOR;
  return damped <= FUZZY_FLOOR ? 0 : (damped - FUZZY_FLOOR) / (1 - FUZZY_FLOOR);
}

function initialScore(a: PreparedToken, b: PreparedToken): number {
  const [initial, word] = a.cls === 'initial' ? [a, b] : [b, a];
  if (word.cls !== 'word' && word.cls !== 'particle') return 0;
  return word.codes[0] === initial.codes[0] ? INITIAL_SIMILARITY : 0;
}

/**
 * Similarity of two anchored words: their rescaled Jaro-Winkler, or, when one comes from an abjad
 * script, the damped similarity of their consonant skeletons if that is higher.
 */
export function anchoredSimilarity(a: PreparedToken, b: PreparedToken): number {
  let direct = rescaleFuzzy(jaroWinklerCodes(a.codes, 0, a.codes.length, b.codes, 0, b.codes.length), true);
  if (a.codes.length === b.codes.length && isShortSwap(a.codes, 0, b.codes, 0, a.codes.length))
    direct = Math.max(direct, SHORT_SWAP_SIMILARITY);
  if (!a.abjad && !b.abjad) return direct;
  const sa = a.skeleton;
  const sb = b.skeleton;
  if (sa.length === 0 || sb.length === 0) return direct;
  const skeleton = jaroWinklerCodes(sa, 0, sa.length, sb, 0, sb.length);
  return Math.max(direct, skeletonSimilarity(skeleton, Math.min(sa.length, sb.length)));
}

/** Similarity in [0, 1] of a query token and a candidate token; `anchored` from the anchor keys. */
export function tokenSimilarity(a: PreparedToken, b: PreparedToken, anchored: boolean): number {
  if (a === b || a.text === b.text) return 1;
  if (a.cls === 'number' || b.cls === 'number') return 0;
  if (a.cls === 'legal' || b.cls === 'legal') return a.cls === b.cls ? LEGAL_CROSS_CLASS_SIMILARITY : 0;
  if (a.cls === 'initial' || b.cls === 'initial') return initialScore(a, b);
  if (a.groups.length > 0 && b.groups.length > 0 && sharesGroup(a.groups, b.groups))
    return EQUIVALENT_SIMILARITY;
  return anchored ? anchoredSimilarity(a, b) : UNANCHORED_CEILING;
}

/**
 * `tokenSimilarity(word, tokens[id], true)` for a query word and a vocabulary word (both able to
 * anchor, so neither a number, a legal form nor an initial), read from the vocabulary's flat
 * buffers: a query word's expansion computes it for dozens of tokens, and reading their objects
 * would cost more than the comparisons (token-codes.ts).
 */
export function anchoredWordSimilarity(
  word: PreparedToken,
  codes: TokenCodes,
  tokens: readonly PreparedToken[],
  id: number,
): number {
  const start = codes.codeStart[id]!;
  const direct = jaroWinklerCodes(
    word.codes,
    0,
    word.codes.length,
    codes.codes,
    start,
    codes.codeStart[id + 1]! - start,
  );
  // Jaro-Winkler is exactly 1 only for identical code points: the same text.
  if (direct === 1) return 1;
  if (word.groups.length > 0 && codes.isGrouped(id) && sharesGroup(word.groups, tokens[id]!.groups))
    return EQUIVALENT_SIMILARITY;
  let similarity = rescaleFuzzy(direct, true);
  const length = codes.codeStart[id + 1]! - start;
  if (length === word.codes.length && isShortSwap(word.codes, 0, codes.codes, start, length))
    similarity = Math.max(similarity, SHORT_SWAP_SIMILARITY);
  if (word.abjad || codes.isAbjad(id)) {
    const skeletonStart = codes.skeletonStart[id]!;
    const skeletonLength = codes.skeletonStart[id + 1]! - skeletonStart;
    const own = word.skeleton;
    if (own.length > 0 && skeletonLength > 0) {
      const jw = jaroWinklerCodes(own, 0, own.length, codes.skeletons, skeletonStart, skeletonLength);
      return Math.max(similarity, skeletonSimilarity(jw, Math.min(own.length, skeletonLength)));
    }
  }
  return similarity;
}

/** Why two tokens scored what they did, for explanations (not on the hot path). */
export function pairKind(a: PreparedToken, b: PreparedToken): PairKind {
  if (a.text === b.text)
    return a.cls === 'number' ? 'number' : a.cls === 'legal' ? 'legal_form' : 'identical';
  if (a.cls === 'legal' || b.cls === 'legal') return 'legal_form';
  if (a.cls === 'number' || b.cls === 'number') return 'number';
  if (a.cls === 'initial' || b.cls === 'initial') return 'initial';
  if (sharesGroup(a.groups, b.groups)) return 'equivalent';
  return 'fuzzy';
}
