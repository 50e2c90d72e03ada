import { isMergeable, MIN_ANCHOR_SIMILARITY } from './anchors.js';
import { jaroWinklerCodes } from './jaro-winkler.js';
import { withinOneEdit } from './one-edit.js';
import { MAX_TOKENS } from './prepare.js';
import type { PreparedToken } from './prepared.js';
import { rescaleFuzzy, skeletonFactor } from './token-similarity.js';

/**
 * One-to-one token alignment: every query token is paired with at most one candidate token (or
 * with two adjacent candidate tokens written apart, and vice versa), best pairs first. The pairs'
 * similarities are averaged, weighted by the tokens' weights; unpaired tokens count in the
 * denominator: query tokens fully (the query asked for them); candidate initials, particles,
 * patronymics and legal forms lightly (lists carry them where a query leaves them out); other
 * candidate words more (`JOHN SMITH` is not shown to be `JOHN PRIDMORE SMITH` by two words of
 * three); and every candidate token more again when the query also has an unpaired token, since
 * then the two names disagree instead of one being a shorter form of the other.
 */

export const UNMATCHED_QUERY_WEIGHT = 1;
/** The least an unpaired candidate token weighs: the bounds of the index assume no less. */
export const UNMATCHED_CANDIDATE_WEIGHT = 0.3;
/** An unpaired candidate word that is not a patronymic (see `isLightExtra`). */
export const EXTRA_WORD_WEIGHT = 0.7;
export const CONFLICT_CANDIDATE_WEIGHT = 2;
/** Patronymic endings (Slavic -OVICH/-EVNA, Turkic -OGLU/-KYZY): middle names lists add. */
const PATRONYMIC = /(?:OVICH|EVICH|ICH|OVNA|EVNA|ICHNA|INICHNA|OGLU|OGLY|OGHLU|ULY|KYZY|KIZI|QIZI)$/;
/** Particles after which a word names a father or an ancestor (`BIN LADIN`, `OULD ABDALLAH`). */
const LINEAGE_PARTICLES: ReadonlySet<string> = new Set([
  'BIN',
  'IBN',
  'BEN',
  'BINT',
  'BENT',
  'BINTI',
  'BN',
  'OULD',
]);

/** Whether an unpaired candidate token only adds what lists add to a name (see the module comment). */
export function isLightExtra(c: readonly PreparedToken[], j: number): boolean {
  const token = c[j]!;
  if (token.cls !== 'word') return true;
  if (PATRONYMIC.test(token.text)) return true;
  const before = c[j - 1];
  return before !== undefined && before.cls === 'particle' && LINEAGE_PARTICLES.has(before.text);
}
/** A merged pair (`SERGEILAVROV` / `SERGEI LAVROV`) scores a little below the separate tokens. */
export const MERGE_FACTOR = 0.97;
/** Pairs below this similarity are not pairs: the tokens count as unmatched (and are no anchor, anchors.ts). */
export const MIN_PAIR_SIMILARITY = MIN_ANCHOR_SIMILARITY;

export type PairSimilarity = (queryIndex: number, candidateIndex: number) => number;

export interface AlignedPair {
  query: number;
  queryLength: 1 | 2;
  candidate: number;
  candidateLength: 1 | 2;
  similarity: number;
}

export interface Alignment {
  /** Weighted similarity before penalties, in [0, 1]. */
  score: number;
  pairs: AlignedPair[];
  unmatchedQuery: number[];
  unmatchedCandidate: number[];
  /** Some paired tokens appear in a different order in the two names. */
  reordered: boolean;
  merged: boolean;
}

const MAX_PAIRS = MAX_TOKENS * MAX_TOKENS * 3;
const pairSim = new Float64Array(MAX_PAIRS);
const pairQ = new Int32Array(MAX_PAIRS);
const pairQLen = new Int32Array(MAX_PAIRS);
const pairC = new Int32Array(MAX_PAIRS);
const pairCLen = new Int32Array(MAX_PAIRS);
let mergeBuffer = new Int32Array(128);
/** Which tokens a pair took (scratch of `alignTokens`; names have at most MAX_TOKENS tokens). */
const queryUsed = new Uint8Array(MAX_TOKENS);
const candidateUsed = new Uint8Array(MAX_TOKENS);

function concatInto(a: Int32Array, b: Int32Array): number {
  const length = a.length + b.length;
  if (mergeBuffer.length < length) mergeBuffer = new Int32Array(length * 2);
  mergeBuffer.set(a, 0);
  mergeBuffer.set(b, a.length);
  return length;
}

/**
 * Whether one token may be two adjacent tokens of the other name written together: same first
 * letter and at most one edit apart (on consonant skeletons when a token comes from an abjad
 * script). Only such triples are compared as merges.
 */
export function mergePossible(single: PreparedToken, first: PreparedToken, second: PreparedToken): boolean {
  if (single.cls !== 'word' || !isMergeable(first) || !isMergeable(second)) return false;
  const abjad = single.abjad || first.abjad || second.abjad;
  const s = abjad ? single.skeleton : single.codes;
  const a = abjad ? first.skeleton : first.codes;
  if (s.length === 0 || a.length === 0 || s[0] !== a[0]) return false;
  return withinOneEdit(s, a, abjad ? second.skeleton : second.codes);
}

/** Similarity of one token and two adjacent tokens of the other name, or 0 when not plausible. */
export function mergedSimilarity(single: PreparedToken, first: PreparedToken, second: PreparedToken): number {
  if (!mergePossible(single, first, second)) return 0;
  const abjad = single.abjad || first.abjad || second.abjad;
  const s = abjad ? single.skeleton : single.codes;
  const length = concatInto(abjad ? first.skeleton : first.codes, abjad ? second.skeleton : second.codes);
  const jw = jaroWinklerCodes(s, 0, s.length, mergeBuffer, 0, length);
  const similarity = jw === 1 ? 1 : rescaleFuzzy(jw, false);
  // On skeletons, as for a token pair: the vowels that would tell the words apart are missing.
  return (abjad ? similarity * skeletonFactor(Math.min(s.length, length)) : similarity) * MERGE_FACTOR;
}

/** Adds a candidate pair at `count` when it is one (see MIN_PAIR_SIMILARITY); returns the new count. */
function addPair(count: number, s: number, qi: number, ql: number, cj: number, cl: number): number {
  if (s < MIN_PAIR_SIMILARITY) return count;
  pairSim[count] = s;
  pairQ[count] = qi;
  pairQLen[count] = ql;
  pairC[count] = cj;
  pairCLen[count] = cl;
  return count + 1;
}

/** Every query token may take part in a merge (see `alignTokens`). */
export const ANY_MERGE = -1;

function collectPairs(
  q: readonly PreparedToken[],
  c: readonly PreparedToken[],
  sim: PairSimilarity,
  mergedWords: number,
  mergedPairs: number,
): number {
  let count = 0;
  for (let i = 0; i < q.length; i++) {
    for (let j = 0; j < c.length; j++) count = addPair(count, sim(i, j), i, 1, j, 1);
  }
  for (let i = 0; i < q.length; i++) {
    if (((mergedWords >> i) & 1) === 0) continue;
    for (let j = 0; j + 1 < c.length; j++)
      count = addPair(count, mergedSimilarity(q[i]!, c[j]!, c[j + 1]!), i, 1, j, 2);
  }
  for (let i = 0; i + 1 < q.length; i++) {
    if (((mergedPairs >> i) & 1) === 0) continue;
    for (let j = 0; j < c.length; j++)
      count = addPair(count, mergedSimilarity(c[j]!, q[i]!, q[i + 1]!), i, 2, j, 1);
  }
  return count;
}

/** Picks pairs greedily, best first (ties: first collected), each token used at most once. */
function pickPairs(count: number, qUsed: Uint8Array, cUsed: Uint8Array): AlignedPair[] {
  const pairs: AlignedPair[] = [];
  for (;;) {
    let best = -1;
    for (let k = 0; k < count; k++) {
      if (pairSim[k]! < 0) continue;
      const free =
        qUsed[pairQ[k]!] === 0 &&
        (pairQLen[k] === 1 || qUsed[pairQ[k]! + 1] === 0) &&
        cUsed[pairC[k]!] === 0 &&
        (pairCLen[k] === 1 || cUsed[pairC[k]! + 1] === 0);
      if (!free) pairSim[k] = -1;
      else if (best < 0 || pairSim[k]! > pairSim[best]!) best = k;
    }
    if (best < 0) return pairs;
    const p: AlignedPair = {
      query: pairQ[best]!,
      queryLength: pairQLen[best] as 1 | 2,
      candidate: pairC[best]!,
      candidateLength: pairCLen[best] as 1 | 2,
      similarity: pairSim[best]!,
    };
    for (let t = 0; t < p.queryLength; t++) qUsed[p.query + t] = 1;
    for (let t = 0; t < p.candidateLength; t++) cUsed[p.candidate + t] = 1;
    pairSim[best] = -1;
    pairs.push(p);
  }
}

function weightOf(tokens: readonly PreparedToken[], start: number, length: number): number {
  return length === 1 ? tokens[start]!.weight : tokens[start]!.weight + tokens[start + 1]!.weight;
}

function isReordered(pairs: readonly AlignedPair[]): boolean {
  for (let a = 0; a < pairs.length; a++) {
    for (let b = a + 1; b < pairs.length; b++) {
      if (pairs[a]!.query < pairs[b]!.query !== pairs[a]!.candidate < pairs[b]!.candidate) return true;
    }
  }
  return false;
}

/**
 * `mergedWords` (bit i: query token i may be two adjacent tokens of `c` written together) and
 * `mergedPairs` (bit i: query tokens i and i + 1 may be one token of `c`) let a caller that knows
 * which merges are possible (the index, from retrieval: query-merges.ts) skip testing the others;
 * a bit set where no merge is possible only costs that test.
 */
export function alignTokens(
  q: readonly PreparedToken[],
  c: readonly PreparedToken[],
  sim: PairSimilarity,
  mergedWords = ANY_MERGE,
  mergedPairs = ANY_MERGE,
): Alignment {
  if (q.length > MAX_TOKENS || c.length > MAX_TOKENS)
    throw new RangeError('names have at most MAX_TOKENS tokens');
  const qUsed = queryUsed.fill(0, 0, q.length);
  const cUsed = candidateUsed.fill(0, 0, c.length);
  const pairs = pickPairs(collectPairs(q, c, sim, mergedWords, mergedPairs), qUsed, cUsed);
  let numerator = 0;
  let denominator = 0;
  let legalNumerator = 0;
  let legalDenominator = 0;
  for (const p of pairs) {
    const w = weightOf(q, p.query, p.queryLength) + weightOf(c, p.candidate, p.candidateLength);
    if (q[p.query]!.cls === 'legal') {
      legalNumerator += p.similarity * w;
      legalDenominator += w;
    } else {
      numerator += p.similarity * w;
      denominator += w;
    }
  }
  const unmatchedQuery: number[] = [];
  const unmatchedCandidate: number[] = [];
  for (let i = 0; i < q.length; i++) if (qUsed[i] === 0) unmatchedQuery.push(i);
  for (let j = 0; j < c.length; j++) if (cUsed[j] === 0) unmatchedCandidate.push(j);
  const conflict = unmatchedQuery.some((i) => q[i]!.cls !== 'particle' && q[i]!.cls !== 'legal');
  for (const i of unmatchedQuery) denominator += q[i]!.weight * UNMATCHED_QUERY_WEIGHT;
  for (const j of unmatchedCandidate) {
    const weight = conflict
      ? CONFLICT_CANDIDATE_WEIGHT
      : isLightExtra(c, j)
        ? UNMATCHED_CANDIDATE_WEIGHT
        : EXTRA_WORD_WEIGHT;
    denominator += c[j]!.weight * weight;
  }
  // Paired legal forms can only lower a score (`ALPHA LLC` / `ALPHA INC`): that two companies are
  // both an LLC is no evidence that they are one, and would lift a weak match on the name itself.
  if (
    legalDenominator > 0 &&
    (denominator === 0 ||
      (numerator + legalNumerator) / (denominator + legalDenominator) < numerator / denominator)
  ) {
    numerator += legalNumerator;
    denominator += legalDenominator;
  }
  return {
    score: denominator === 0 ? 0 : numerator / denominator,
    pairs,
    unmatchedQuery,
    unmatchedCandidate,
    reordered: isReordered(pairs),
    merged: pairs.some((p) => p.queryLength === 2 || p.candidateLength === 2),
  };
}
