import { type BoundQuery, WORD } from './bound-query.js';

/**
 * Which query tokens a candidate's tokens could merge with, by table lookup instead of a loop over
 * the query. A merge needs the single token and the two joined ones to share their first letter and
 * to differ in length by at most one (the cheap part of `mergePossible`), on the consonant skeleton
 * when any of the three comes from an abjad script. Per query, every (first letter, length) a
 * partner could have is posted with the query tokens it fits; a candidate then reads one slot per
 * adjacent pair and one per word. The slots over-approximate (long lengths share the last slot), so
 * the caller still applies the exact test to each token the lookup returns.
 */

const LENGTH_SLOTS = 64;
const KEYS = 128 * LENGTH_SLOTS;

function key(first: number, length: number): number {
  return (first & 127) * LENGTH_SLOTS + (length < LENGTH_SLOTS ? length : LENGTH_SLOTS - 1);
}

/** One table: key -> bits of the query tokens posted under it, cleared by the keys it touched. */
class BitTable {
  readonly bits = new Int32Array(KEYS);
  private readonly touched: number[] = [];

  clear(): void {
    for (const k of this.touched) this.bits[k] = 0;
    this.touched.length = 0;
  }

  /** Posts query token `i` under every length within one of `length`. */
  post(first: number, length: number, i: number): void {
    if (length <= 0) return;
    for (let d = -1; d <= 1; d++) {
      if (length + d < 0) continue;
      const k = key(first, length + d);
      if (this.bits[k] === 0) this.touched.push(k);
      this.bits[k]! |= 1 << i;
    }
  }

  get(first: number, length: number): number {
    return this.bits[key(first, length)]!;
  }
}

export class MergeFilter {
  /** Query words as the single side of a merge: by letters, by skeleton (all), by skeleton (abjad words only). */
  private readonly single = new BitTable();
  private readonly singleSkeleton = new BitTable();
  private readonly singleSkeletonAbjad = new BitTable();
  /** Adjacent query tokens as the joined side, keyed the same three ways. */
  private readonly pair = new BitTable();
  private readonly pairSkeleton = new BitTable();
  private readonly pairSkeletonAbjad = new BitTable();

  read(q: BoundQuery): void {
    for (const table of this.tables()) table.clear();
    for (let i = 0; i < q.n; i++) {
      if (q.cls[i] === WORD) {
        if (q.abjad[i] === 0) this.single.post(q.first[i]!, q.length[i]!, i);
        this.singleSkeleton.post(q.skeletonFirst[i]!, q.skeletonLength[i]!, i);
        if (q.abjad[i] === 1) this.singleSkeletonAbjad.post(q.skeletonFirst[i]!, q.skeletonLength[i]!, i);
      }
      if (i + 1 >= q.n) continue;
      const abjad = q.abjad[i] === 1 || q.abjad[i + 1] === 1;
      const skeletonLength = q.skeletonLength[i]! + q.skeletonLength[i + 1]!;
      if (!abjad) this.pair.post(q.first[i]!, q.length[i]! + q.length[i + 1]!, i);
      this.pairSkeleton.post(q.skeletonFirst[i]!, skeletonLength, i);
      if (abjad) this.pairSkeletonAbjad.post(q.skeletonFirst[i]!, skeletonLength, i);
    }
  }

  private tables(): BitTable[] {
    return [
      this.single,
      this.singleSkeleton,
      this.singleSkeletonAbjad,
      this.pair,
      this.pairSkeleton,
      this.pairSkeletonAbjad,
    ];
  }

  /** Query words that two adjacent candidate tokens written together may be (superset). */
  wordsForPair(
    abjad: boolean,
    first: number,
    length: number,
    skeletonFirst: number,
    skeletonLength: number,
  ): number {
    if (abjad) return this.singleSkeleton.get(skeletonFirst, skeletonLength);
    return this.single.get(first, length) | this.singleSkeletonAbjad.get(skeletonFirst, skeletonLength);
  }

  /** Starts of adjacent query pairs that one candidate word may be written together (superset). */
  pairsForWord(
    abjad: boolean,
    first: number,
    length: number,
    skeletonFirst: number,
    skeletonLength: number,
  ): number {
    if (abjad) return skeletonLength > 0 ? this.pairSkeleton.get(skeletonFirst, skeletonLength) : 0;
    const byLetters = length > 0 ? this.pair.get(first, length) : 0;
    return byLetters | (skeletonLength > 0 ? this.pairSkeletonAbjad.get(skeletonFirst, skeletonLength) : 0);
  }
}
