import type { PreparedToken } from './prepared.js';

/**
 * Per name, what the name ceiling (name-ceiling.ts) reads: what its tokens can pair with without an
 * anchor, as bit masks, and its weight. Every relation without an anchor but a merge needs a shared
 * first letter (an initial and the word it begins, an identical particle or number); letters are
 * one bit each (A-Z, bit 26 for anything else). Merges are looked up per query instead
 * (merge-postings.ts). The masks over-approximate: the ceiling only needs them never to miss a
 * relation.
 *
 * One record of RECORD_SIZE integers per name, side by side, because the ceiling reads all of it
 * for thousands of names: 16 bytes, so that four names share a cache line (names that share words
 * are stored side by side, name-order.ts).
 */
export const RECORD_SIZE = 4;
/** First letters of the name's initials (identical initials; initials against query words). */
export const INITIALS = 0;
/** First letters of its particles (identical particles). */
export const PARTICLES = 1;
/** First letters of its words and particles (query initials pair with them). */
export const WORD_LIKE = 2;
/**
 * Flags in the low bits (bit 0 unused): has a number, has a legal form, is a weak alias; then the
 * script of the name's original-script form (`recordScript`) and twice its summed token weight
 * (`recordWeight`).
 */
export const FLAGS = 3;
export const NUMBER_FLAG = 2;
export const LEGAL_FLAG = 4;
export const WEAK_FLAG = 8;
const SCRIPT_SHIFT = 4;
const WEIGHT_SHIFT = 8;
/** One bit per letter A-Z, bit 26 for anything else: a cheap test that two tokens may share a first letter. */
export function letterBit(code: number): number {
  return code >= 65 && code <= 90 ? 1 << (code - 65) : 1 << 26;
}

function firstLetter(codes: Int32Array): number {
  return letterBit(codes.length > 0 ? codes[0]! : -1);
}

/** The script index of the original-script form of the name whose FLAGS field is `flags`, or -1 (see originalScriptCode). */
export function recordScript(flags: number): number {
  return ((flags >> SCRIPT_SHIFT) & 15) - 1;
}

/** The summed token weight of the name whose FLAGS field is `flags` (weights are multiples of 0.5). */
export function recordWeight(flags: number): number {
  return (flags >>> WEIGHT_SHIFT) / 2;
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
    if (t.cls === 'number') out[at + FLAGS]! |= NUMBER_FLAG;
    if (t.cls === 'legal') out[at + FLAGS]! |= LEGAL_FLAG;
    weight += t.weight;
  }
  out[at + FLAGS]! |= Math.round(weight * 2) << WEIGHT_SHIFT;
}
