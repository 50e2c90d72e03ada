import { letterBit } from './name-letters.js';
import { CLASS_CODE } from './name-table.js';
import { MAX_TOKENS } from './prepare.js';
import type { PreparedName } from './prepared.js';
import { LEGAL_CROSS_CLASS_SIMILARITY, UNANCHORED_CEILING } from './token-similarity.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * The query as the anchor bound reads it, once per search: its tokens' weights, classes, first
 * letters and lengths in typed arrays, and which index tokens are identical to which query tokens.
 */

export const WORD = CLASS_CODE.word;
export const PARTICLE = CLASS_CODE.particle;
export const LEGAL = CLASS_CODE.legal;
export const NUMBER = CLASS_CODE.number;
export const INITIAL = CLASS_CODE.initial;
/** Class masks have one bit per token class. */
export const MASK_COUNT = 32;

/**
 * Highest similarity a non-identical, unanchored token of each class reaches against a name whose
 * tokens have the classes in `mask` (see tokenSimilarity). Initials are left at 0: their 0.8
 * against a word with the same first letter is checked letter by letter.
 */
function ceilingsAgainst(mask: number): number[] {
  const has = (cls: number) => ((mask >> cls) & 1) === 1;
  const wordLike = has(WORD) || has(PARTICLE) ? UNANCHORED_CEILING : 0;
  const out = [0, 0, 0, 0, 0];
  out[WORD] = wordLike;
  out[PARTICLE] = wordLike;
  out[LEGAL] = has(LEGAL) ? LEGAL_CROSS_CLASS_SIMILARITY : 0;
  return out;
}

export const CEILINGS: readonly (readonly number[])[] = Array.from({ length: MASK_COUNT }, (_, mask) =>
  ceilingsAgainst(mask),
);

export class BoundQuery {
  query: PreparedName | null = null;
  n = 0;
  /** Script index of the query's original form, or -1. */
  script = -1;
  hasInitial = false;
  /** First letters (and skeleton first letters) of query words, and of query tokens that start a mergeable pair. */
  wordFirsts = 0;
  pairFirsts = 0;
  /** Query tokens that a conflict (an unpaired query token) can come from: words, initials, numbers. */
  conflictCount = 0;
  readonly weight = new Float64Array(MAX_TOKENS);
  readonly cls = new Uint8Array(MAX_TOKENS);
  readonly first = new Int32Array(MAX_TOKENS);
  readonly length = new Int32Array(MAX_TOKENS);
  readonly skeletonFirst = new Int32Array(MAX_TOKENS);
  readonly skeletonLength = new Int32Array(MAX_TOKENS);
  readonly abjad = new Uint8Array(MAX_TOKENS);
  readonly mergeable = new Uint8Array(MAX_TOKENS);
  /** Ceiling of an unanchored candidate token of each class against this query. */
  readonly candidateCeiling = new Float64Array(5);
  /** Ceiling of query token i against a candidate with class mask `mask`: [i * MASK_COUNT + mask]. */
  readonly queryCeiling = new Float64Array(MAX_TOKENS * MASK_COUNT);
  private generation = 0;
  private readonly identStamp: Int32Array;
  private readonly identBits: Int32Array;

  constructor(private readonly vocabulary: Vocabulary) {
    this.identStamp = new Int32Array(vocabulary.tokens.length);
    this.identBits = new Int32Array(vocabulary.tokens.length);
  }

  /** Bit i set: index token `id` has the same text as query token i. */
  identical(id: number): number {
    return this.identStamp[id] === this.generation ? this.identBits[id]! : 0;
  }

  read(q: PreparedName, script: number): void {
    this.generation++;
    this.query = q;
    this.n = q.tokens.length;
    this.script = script;
    this.hasInitial = false;
    this.conflictCount = 0;
    this.wordFirsts = 0;
    this.pairFirsts = 0;
    let classMask = 0;
    q.tokens.forEach((t, i) => {
      const cls = CLASS_CODE[t.cls];
      this.weight[i] = t.weight;
      this.cls[i] = cls;
      this.first[i] = t.codes.length > 0 ? t.codes[0]! : -1;
      this.length[i] = t.codes.length;
      this.skeletonFirst[i] = t.skeleton.length > 0 ? t.skeleton[0]! : -1;
      this.skeletonLength[i] = t.skeleton.length;
      this.abjad[i] = t.abjad ? 1 : 0;
      this.mergeable[i] = cls === WORD || cls === PARTICLE || cls === INITIAL ? 1 : 0;
      if (cls === INITIAL) this.hasInitial = true;
      if (cls === WORD || cls === INITIAL || cls === NUMBER) this.conflictCount++;
      classMask |= 1 << cls;
      this.markIdentical(t.text, i);
    });
    for (let i = 0; i < this.n; i++) {
      const firsts = letterBit(this.first[i]!) | letterBit(this.skeletonFirst[i]!);
      if (this.cls[i] === WORD) this.wordFirsts |= firsts;
      if (i + 1 < this.n && this.mergeable[i] === 1 && this.mergeable[i + 1] === 1) this.pairFirsts |= firsts;
    }
    this.candidateCeiling.set(CEILINGS[classMask]!);
    for (let i = 0; i < this.n; i++) {
      for (let mask = 0; mask < MASK_COUNT; mask++)
        this.queryCeiling[i * MASK_COUNT + mask] = CEILINGS[mask]![this.cls[i]!]!;
    }
  }

  private markIdentical(text: string, i: number): void {
    for (const id of this.vocabulary.idsByText.get(text) ?? []) {
      // Joined the shared vocabulary after this index was built: in none of its names.
      if (id >= this.identStamp.length) continue;
      if (this.identStamp[id] !== this.generation) {
        this.identStamp[id] = this.generation;
        this.identBits[id] = 0;
      }
      this.identBits[id]! |= 1 << i;
    }
  }
}
