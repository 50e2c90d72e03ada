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
 * bound a candidate's score from its anchors alone (anchor-bound.ts). Measured on the development
 * pairs together with the wider anchor relation and the heavier conflict weight: best-threshold F1
 * 0.848 -> 0.858 with recall at 0.5 96.1% (see docs/matching.md).
 */
export const UNANCHORED_CEILING = 0;

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

/** Jaro-Winkler of two tokens, through the consonant skeleton when one comes from an abjad script. */
export function tokenJaroWinkler(a: PreparedToken, b: PreparedToken): number {
  const direct = jaroWinklerCodes(a.codes, 0, a.codes.length, b.codes, 0, b.codes.length);
  if (!a.abjad && !b.abjad) return direct;
  const sa = a.skeleton;
  const sb = b.skeleton;
  if (sa.length === 0 || sb.length === 0) return direct;
  return Math.max(direct, jaroWinklerCodes(sa, 0, sa.length, sb, 0, sb.length));
}

/** Similarity in [0, 1] of a query token and a candidate token; `anchored` from the anchor keys. */
export function tokenSimilarity(a: PreparedToken, b: PreparedToken, anchored: boolean): number {
  if (a === b || a.text === b.text) return 1;
  if (a.cls === 'number' || b.cls === 'number') return 0;
  if (a.cls === 'legal' || b.cls === 'legal') return a.cls === b.cls ? LEGAL_CROSS_CLASS_SIMILARITY : 0;
  if (a.cls === 'initial' || b.cls === 'initial') return initialScore(a, b);
  if (a.groups.length > 0 && b.groups.length > 0 && sharesGroup(a.groups, b.groups))
    return EQUIVALENT_SIMILARITY;
  return anchored ? rescaleFuzzy(tokenJaroWinkler(a, b), true) : UNANCHORED_CEILING;
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
  let jw = direct;
  if (word.abjad || codes.isAbjad(id)) {
    const skeletonStart = codes.skeletonStart[id]!;
    const skeletonLength = codes.skeletonStart[id + 1]! - skeletonStart;
    const own = word.skeleton;
    if (own.length > 0 && skeletonLength > 0)
      jw = Math.max(
        direct,
        jaroWinklerCodes(own, 0, own.length, codes.skeletons, skeletonStart, skeletonLength),
      );
  }
  return rescaleFuzzy(jw, true);
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
