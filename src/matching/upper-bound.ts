import {
  MERGE_FACTOR,
  mergePossible,
  type PairSimilarity,
  UNMATCHED_CANDIDATE_WEIGHT,
  UNMATCHED_QUERY_WEIGHT,
} from './alignment.js';
import { MAX_TOKENS } from './prepare.js';
import type { PreparedName } from './prepared.js';

/**
 * A cheap upper bound of the score `scoreNames` would give, from the best similarity each token
 * reaches against any token of the other name. The index ranks candidates by this bound and stops
 * scoring a source once the bound falls below the source's current k-th best score, so a query
 * that retrieves thousands of names (MOHAMMED ALI) fully aligns only a few dozen.
 *
 * Why it bounds: in the alignment every pair's similarity is at most the best similarity of each of
 * its tokens, pairs count their tokens' weights in numerator and denominator alike, unpaired query
 * tokens count at least min(1, UNMATCHED_QUERY_WEIGHT) and unpaired candidate tokens at least
 * UNMATCHED_CANDIDATE_WEIGHT in the denominator, and all penalties only lower the score.
 */

const bestQuery = new Float64Array(MAX_TOKENS);
const bestCandidate = new Float64Array(MAX_TOKENS);
const order = new Int32Array(MAX_TOKENS);

function bestPairs(q: PreparedName, c: PreparedName, sim: PairSimilarity): void {
  const [qt, ct] = [q.tokens, c.tokens];
  bestQuery.fill(0, 0, qt.length);
  bestCandidate.fill(0, 0, ct.length);
  for (let i = 0; i < qt.length; i++) {
    for (let j = 0; j < ct.length; j++) {
      const s = sim(i, j);
      if (s > bestQuery[i]!) bestQuery[i] = s;
      if (s > bestCandidate[j]!) bestCandidate[j] = s;
    }
  }
  // A merged pair scores at most MERGE_FACTOR; count it wherever a merge is possible.
  for (let i = 0; i < qt.length; i++) {
    for (let j = 0; j + 1 < ct.length; j++) {
      if (!mergePossible(qt[i]!, ct[j]!, ct[j + 1]!)) continue;
      bestQuery[i] = Math.max(bestQuery[i]!, MERGE_FACTOR);
      bestCandidate[j] = Math.max(bestCandidate[j]!, MERGE_FACTOR);
      bestCandidate[j + 1] = Math.max(bestCandidate[j + 1]!, MERGE_FACTOR);
    }
  }
  for (let i = 0; i + 1 < qt.length; i++) {
    for (let j = 0; j < ct.length; j++) {
      if (!mergePossible(ct[j]!, qt[i]!, qt[i + 1]!)) continue;
      bestQuery[i] = Math.max(bestQuery[i]!, MERGE_FACTOR);
      bestQuery[i + 1] = Math.max(bestQuery[i + 1]!, MERGE_FACTOR);
      bestCandidate[j] = Math.max(bestCandidate[j]!, MERGE_FACTOR);
    }
  }
}

export function scoreUpperBound(q: PreparedName, c: PreparedName, sim: PairSimilarity): number {
  if (q.key === c.key) return 1;
  bestPairs(q, c, sim);
  const [qt, ct] = [q.tokens, c.tokens];
  let numerator = 0;
  let denominator = 0;
  const queryFloor = Math.min(1, UNMATCHED_QUERY_WEIGHT);
  for (let i = 0; i < qt.length; i++) {
    numerator += bestQuery[i]! * qt[i]!.weight;
    denominator += qt[i]!.weight * queryFloor;
  }
  for (let j = 0; j < ct.length; j++) denominator += ct[j]!.weight * UNMATCHED_CANDIDATE_WEIGHT;
  // Pairing a candidate token adds s*w above and (1 - floor)*w below: worth it only while s is
  // high enough, so take tokens best first and stop when the ratio stops rising.
  for (let j = 0; j < ct.length; j++) order[j] = j;
  const sorted = Array.from(order.subarray(0, ct.length)).sort(
    (x, y) => bestCandidate[y]! - bestCandidate[x]!,
  );
  const extra = 1 - UNMATCHED_CANDIDATE_WEIGHT;
  for (const j of sorted) {
    const s = bestCandidate[j]!;
    const w = ct[j]!.weight;
    if (s <= 0 || (numerator + s * w) * denominator <= numerator * (denominator + extra * w)) break;
    numerator += s * w;
    denominator += extra * w;
  }
  return denominator === 0 ? 0 : Math.min(1, numerator / denominator);
}
