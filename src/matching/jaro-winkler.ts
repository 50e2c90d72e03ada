/**
 * Jaro-Winkler on Unicode code points, written for the hot path of candidate scoring: the inputs are
 * slices of Int32Array code buffers and the match flags live in module-level scratch arrays, so a
 * comparison allocates nothing.
 *
 * Convention (pinned by tests): standard Jaro with match window floor(max(|a|,|b|)/2) - 1,
 * transpositions = half the matched characters out of order; Winkler prefix scale 0.1 over a common
 * prefix of at most 4 code points. The Winkler boost is gated at Jaro > 0.7, as in Winkler's
 * original definition: the prefix bonus is meant to separate near matches, and applying it to
 * dissimilar strings would lift unrelated names that merely share a first letter or two.
 */

const PREFIX_SCALE = 0.1;
const MAX_PREFIX_LENGTH = 4;
const BOOST_THRESHOLD = 0.7;

// Scratch state shared by all comparisons (JavaScript runs one comparison at a time): which
// positions of b are matched, and the matched characters of a in order.
let matchedB = new Uint8Array(64);
let matchedA = new Int32Array(64);

function ensureScratch(length: number): void {
  if (matchedB.length >= length) return;
  const size = Math.max(length, matchedB.length * 2);
  matchedB = new Uint8Array(size);
  matchedA = new Int32Array(size);
}

function comesAfter(
  a: Int32Array,
  aStart: number,
  aLen: number,
  b: Int32Array,
  bStart: number,
  bLen: number,
) {
  if (aLen !== bLen) return aLen > bLen;
  for (let i = 0; i < aLen; i++) {
    const d = a[aStart + i]! - b[bStart + i]!;
    if (d !== 0) return d > 0;
  }
  return false;
}

/** Jaro similarity of a[aStart, aStart+aLen) and b[bStart, bStart+bLen). */
export function jaroCodes(
  a: Int32Array,
  aStart: number,
  aLen: number,
  b: Int32Array,
  bStart: number,
  bLen: number,
): number {
  if (aLen === 0 || bLen === 0) return aLen === bLen ? 1 : 0;
  // Greedy matching can count differently depending on which side drives the loop; a canonical
  // order makes the result symmetric.
  if (comesAfter(a, aStart, aLen, b, bStart, bLen)) return jaroCodes(b, bStart, bLen, a, aStart, aLen);
  ensureScratch(bLen);
  const window = Math.max(0, (Math.max(aLen, bLen) >> 1) - 1);
  const flags = matchedB;
  flags.fill(0, 0, bLen);
  let matches = 0;
  for (let i = 0; i < aLen; i++) {
    const ch = a[aStart + i]!;
    const lo = i > window ? i - window : 0;
    const hi = i + window < bLen ? i + window : bLen - 1;
    for (let j = lo; j <= hi; j++) {
      if (flags[j] === 0 && b[bStart + j] === ch) {
        flags[j] = 1;
        matchedA[matches++] = ch;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let halfTranspositions = 0;
  for (let j = 0, k = 0; k < matches; j++) {
    if (flags[j] === 0) continue;
    if (matchedA[k] !== b[bStart + j]) halfTranspositions++;
    k++;
  }
  const m = matches;
  return (m / aLen + m / bLen + (m - (halfTranspositions >> 1)) / m) / 3;
}

/** Jaro-Winkler similarity of two code-point slices; 1 for identical slices, symmetric, in [0, 1]. */
export function jaroWinklerCodes(
  a: Int32Array,
  aStart: number,
  aLen: number,
  b: Int32Array,
  bStart: number,
  bLen: number,
): number {
  const jaro = jaroCodes(a, aStart, aLen, b, bStart, bLen);
  if (jaro <= BOOST_THRESHOLD) return jaro;
  const limit = Math.min(MAX_PREFIX_LENGTH, aLen, bLen);
  let prefix = 0;
  while (prefix < limit && a[aStart + prefix] === b[bStart + prefix]) prefix++;
  return jaro + prefix * PREFIX_SCALE * (1 - jaro);
}

/** Code points of a string (not UTF-16 units), so astral characters count as one. */
export function toCodePoints(text: string): Int32Array {
  const out = new Int32Array(text.length);
  let n = 0;
  for (const ch of text) out[n++] = ch.codePointAt(0)!;
  return n === out.length ? out : out.slice(0, n);
}

/** Convenience form for callers holding strings; the index uses {@link jaroWinklerCodes} directly. */
export function jaroWinkler(a: string, b: string): number {
  const ca = toCodePoints(a);
  const cb = toCodePoints(b);
  return jaroWinklerCodes(ca, 0, ca.length, cb, 0, cb.length);
}
