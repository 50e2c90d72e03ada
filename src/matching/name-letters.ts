import { isMergeable } from './anchors.js';
import type { PreparedToken } from './prepared.js';

/**
 * Per name, what the name ceiling (name-ceiling.ts) reads: what its tokens can pair with without an
 * anchor, as bit masks, and its weight. Every relation without an anchor needs a shared first
 * letter (an initial and the word it begins, an identical particle or number) and, for a merge
 * (`BINLADEN` / `BIN LADIN`), lengths at most one apart (see `mergePossible`). Letters are one bit
 * each (A-Z, bit 26 for anything else); lengths one bit each (31 and more share bit 31). A merge is
 * compared on consonant skeletons when a token comes from an abjad script (a name's tokens, like a
 * query's, are all abjad or none), so merge masks exist in both forms. The masks over-approximate:
 * the ceiling only needs them never to miss a relation.
 *
 * One record of RECORD_SIZE integers per name, side by side, because the ceiling reads all of it
 * for thousands of names: 32 bytes, so that two names share a cache line (names that share words
 * are stored side by side, name-order.ts). The merge masks of consonant skeletons, needed only
 * when the query or the name comes from an abjad script, are in a table of their own
 * (`recordSkeletonMerges`, MERGE_MASKS per name).
 */
export const RECORD_SIZE = 8;
/** First letters of the name's initials (identical initials; initials against query words). */
export const INITIALS = 0;
/** First letters of its particles (identical particles). */
export const PARTICLES = 1;
/** First letters of its words and particles (query initials pair with them). */
export const WORD_LIKE = 2;
/**
 * Flags in the low bits: transliterated from an abjad script, has a number, has a legal form, is
 * a weak alias; then the script of the name's original-script form (`recordScript`) and twice its
 * summed token weight (`recordWeight`).
 */
export const FLAGS = 3;
export const ABJAD_FLAG = 1;
export const NUMBER_FLAG = 2;
export const LEGAL_FLAG = 4;
export const WEAK_FLAG = 8;
const SCRIPT_SHIFT = 4;
const WEIGHT_SHIFT = 8;
/**
 * Merge masks, of the text at MERGE (of the skeleton in their own table, MERGE_MASKS per name):
 * the first letters and lengths (within one) of its words, which may be two query tokens joined,
 * then the first letters and joined lengths (within one) of its mergeable adjacent pairs, which
 * one query word may be.
 */
export const MERGE = 4;
export const MERGE_MASKS = 4;
export const WORDS = 0;
export const WORD_LENGTHS = 1;
export const PAIRS = 2;
export const PAIR_LENGTHS = 3;

/** One bit per letter A-Z, bit 26 for anything else: a cheap test that two tokens may share a first letter. */
export function letterBit(code: number): number {
  return code >= 65 && code <= 90 ? 1 << (code - 65) : 1 << 26;
}

export function lengthBit(length: number): number {
  return 1 << (length < 31 ? length : 31);
}

/** Length bits of `length` and its two neighbours: lengths at most one apart. */
function nearLengthBits(length: number): number {
  return lengthBit(length) | lengthBit(length + 1) | (length > 0 ? lengthBit(length - 1) : 0);
}

function letterIndex(code: number): number {
  return code >= 65 && code <= 90 ? code - 65 : 26;
}

/**
 * A token's merge key, or two adjacent tokens' joined: its first, second, third, last and
 * second-to-last letters and its length packed in one non-negative integer (-1 when empty). Two
 * keys that `mergeKeysMayMatch` rejects belong to forms more than one edit apart or with different
 * first letters: no merge.
 */
export function mergeKey(a: Int32Array, b?: Int32Array): number {
  const length = a.length + (b ? b.length : 0);
  if (a.length === 0) return -1;
  const at = (k: number) => (k < a.length ? a[k]! : b![k - a.length]!);
  const letter = (k: number) => (k >= 0 && k < length ? letterIndex(at(k)) : 31);
  return (
    letterIndex(a[0]!) |
    (letter(1) << 5) |
    (letter(2) << 10) |
    (letter(length - 1) << 15) |
    (letter(length - 2) << 20) |
    (Math.min(length, 63) << 25)
  );
}

const LETTER = 31;

/**
 * Whether two forms with these merge keys may be within one edit with the same first letter
 * (`mergePossible`; an edit inserts, deletes or replaces one letter, or swaps two adjacent ones):
 * same first letter and lengths at most one apart; then, as an edit leaves the letters before it in
 * place counted from the start and those after it counted from the end, and touches at most two
 * adjacent positions: when the longer form has six letters or more, the same first three letters
 * or the same last two; with four or five, the same second letter or the same last.
 */
export function mergeKeysMayMatch(x: number, y: number): boolean {
  if (x < 0 || y < 0 || (x & LETTER) !== (y & LETTER)) return false;
  const lx = x >>> 25;
  const ly = y >>> 25;
  if (lx - ly > 1 || ly - lx > 1) return false;
  // Two forms of three letters can be one swap of their last two apart (ACE / AEC).
  if (lx < 3 || ly < 3 || (lx === 3 && ly === 3)) return true;
  const sameSecond = ((x >> 5) & LETTER) === ((y >> 5) & LETTER);
  const sameLast = ((x >> 15) & LETTER) === ((y >> 15) & LETTER);
  if (lx < 6 && ly < 6) return sameSecond || sameLast;
  return (
    (sameSecond && ((x >> 10) & LETTER) === ((y >> 10) & LETTER)) ||
    (sameLast && ((x >> 20) & LETTER) === ((y >> 20) & LETTER))
  );
}

/**
 * Merge keys per token position, aligned with the name table's tokenIds, one table per kind (a
 * test scans one kind over a name's tokens: four bytes per token, not sixteen): the word's key (-1
 * for other classes) and the key of the mergeable pair it starts (or -1), of the text and of the
 * consonant skeleton.
 */
export interface MergeKeys {
  readonly word: Int32Array;
  readonly pair: Int32Array;
  readonly skeletonWord: Int32Array;
  readonly skeletonPair: Int32Array;
}

export function mergeKeyTables(tokenCount: number): MergeKeys {
  const table = () => new Int32Array(tokenCount);
  return { word: table(), pair: table(), skeletonWord: table(), skeletonPair: table() };
}

/** Writes the merge keys of a name's tokens, whose first token position is `start`. */
export function recordMergeKeys(out: MergeKeys, start: number, tokens: readonly PreparedToken[]): void {
  tokens.forEach((t, k) => {
    const at = start + k;
    const next = tokens[k + 1];
    const pair = next !== undefined && isMergeable(t) && isMergeable(next);
    out.word[at] = t.cls === 'word' ? mergeKey(t.codes) : -1;
    out.pair[at] = pair ? mergeKey(t.codes, next.codes) : -1;
    out.skeletonWord[at] = t.cls === 'word' ? mergeKey(t.skeleton) : -1;
    out.skeletonPair[at] = pair ? mergeKey(t.skeleton, next.skeleton) : -1;
  });
}

function firstLetter(codes: Int32Array): number {
  return letterBit(codes.length > 0 ? codes[0]! : -1);
}

function recordMerges(
  out: Int32Array,
  at: number,
  tokens: readonly PreparedToken[],
  form: (t: PreparedToken) => Int32Array,
): void {
  tokens.forEach((t, k) => {
    const codes = form(t);
    if (t.cls === 'word') {
      out[at + WORDS]! |= firstLetter(codes);
      out[at + WORD_LENGTHS]! |= nearLengthBits(codes.length);
    }
    const next = tokens[k + 1];
    if (next && isMergeable(t) && isMergeable(next)) {
      out[at + PAIRS]! |= firstLetter(codes);
      out[at + PAIR_LENGTHS]! |= nearLengthBits(codes.length + form(next).length);
    }
  });
}

/** The script index of the original-script form of the name whose FLAGS field is `flags`, or -1 (see originalScriptCode). */
export function recordScript(flags: number): number {
  return ((flags >> SCRIPT_SHIFT) & 15) - 1;
}

/** The summed token weight of the name whose FLAGS field is `flags` (weights are multiples of 0.5). */
export function recordWeight(flags: number): number {
  return (flags >>> WEIGHT_SHIFT) / 2;
}

/** Writes name `n`'s skeleton merge masks into `out` (zero-filled, MERGE_MASKS per name). */
export function recordSkeletonMerges(out: Int32Array, n: number, tokens: readonly PreparedToken[]): void {
  recordMerges(out, n * MERGE_MASKS, tokens, (t) => t.skeleton);
}

/** Writes name `n`'s record into `out` (zero-filled). */
export function recordNameLetters(
  out: Int32Array,
  n: number,
  tokens: readonly PreparedToken[],
  weak: boolean,
  originalScript: number,
): void {
  const at = n * RECORD_SIZE;
  let weight = 0;
  if (weak) out[at + FLAGS]! |= WEAK_FLAG;
  // Four bits hold the script (0: none), below the weight: a wider value would corrupt the weight.
  if (originalScript + 1 > 15) throw new Error(`script index ${originalScript} does not fit the name record`);
  out[at + FLAGS]! |= (originalScript + 1) << SCRIPT_SHIFT;
  for (const t of tokens) {
    const letter = firstLetter(t.codes);
    if (t.cls === 'initial') out[at + INITIALS]! |= letter;
    if (t.cls === 'particle') out[at + PARTICLES]! |= letter;
    if (t.cls === 'word' || t.cls === 'particle') out[at + WORD_LIKE]! |= letter;
    if (t.abjad) out[at + FLAGS]! |= ABJAD_FLAG;
    if (t.cls === 'number') out[at + FLAGS]! |= NUMBER_FLAG;
    if (t.cls === 'legal') out[at + FLAGS]! |= LEGAL_FLAG;
    weight += t.weight;
  }
  out[at + FLAGS]! |= Math.round(weight * 2) << WEIGHT_SHIFT;
  recordMerges(out, at + MERGE, tokens, (t) => t.codes);
}
