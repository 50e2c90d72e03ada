import { type BoundQuery, INITIAL, NUMBER, PARTICLE, WORD } from './bound-query.js';
import type { CandidateCollector } from './candidates.js';
import type { TokenTable } from './name-table.js';
import type { QuerySimilarityCache } from './query-cache.js';
import { INITIAL_SIMILARITY } from './token-similarity.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * What the anchor bound needs to know about one index token against the current query, computed
 * the first time a candidate holding the token is bounded and reused for every other candidate
 * holding it (thousands of names share MOHAMMED, and most share their other tokens with some other
 * candidate too). Stamped with a per-search generation, so nothing is cleared between searches.
 */
export class TokenCeilings {
  private generation = 0;
  private readonly stamp: Int32Array;
  /** Query tokens the token is anchored to or identical with. */
  readonly bits: Int32Array;
  /** Its best similarity over `bits` (0 when none). */
  readonly best: Float64Array;
  /** The most it scores against any query token it is not anchored to: its class ceiling, or an initial's. */
  readonly classCeiling: Float64Array;
  /** Query tokens it pairs with as initial and word (INITIAL_SIMILARITY). */
  readonly initialBits: Int32Array;

  constructor(
    private readonly tokens: TokenTable,
    vocabulary: Vocabulary,
    private readonly anchors: CandidateCollector,
    private readonly cache: QuerySimilarityCache,
    private readonly q: BoundQuery,
  ) {
    const size = vocabulary.tokens.length;
    this.stamp = new Int32Array(size);
    this.bits = new Int32Array(size);
    this.best = new Float64Array(size);
    this.classCeiling = new Float64Array(size);
    this.initialBits = new Int32Array(size);
  }

  /** Forgets every token's values: call once per search, after the query is read. */
  reset(): void {
    this.generation++;
  }

  /** Makes sure token `id`'s values are those of the current query. */
  load(id: number): void {
    if (this.stamp[id] === this.generation) return;
    this.stamp[id] = this.generation;
    const bits = this.anchors.bits(id) | this.q.identical(id);
    let best = 0;
    if (bits !== 0) {
      for (let rest = bits; rest !== 0; rest &= rest - 1) {
        const s = this.cache.similarity(31 - Math.clz32(rest & -rest), id, this.anchors);
        if (s > best) best = s;
      }
    }
    const cls = this.tokens.cls[id]!;
    const initialBits = this.initialPartners(id, cls);
    this.bits[id] = bits;
    this.best[id] = best;
    this.initialBits[id] = initialBits;
    this.classCeiling[id] = Math.max(
      this.q.candidateCeiling[cls]!,
      initialBits !== 0 ? INITIAL_SIMILARITY : 0,
    );
  }

  /** Query tokens an initial pairs with: a candidate initial with query words of its letter, or the reverse. */
  private initialPartners(id: number, cls: number): number {
    const { q } = this;
    const candidateInitial = cls === INITIAL;
    if (!candidateInitial && !(q.hasInitial && (cls === WORD || cls === PARTICLE))) return 0;
    const first = this.tokens.first[id]!;
    let bits = 0;
    for (let i = 0; i < q.n; i++) {
      const other = q.cls[i]!;
      const pairs = candidateInitial ? other === WORD || other === PARTICLE : other === INITIAL;
      if (pairs && q.first[i] === first) bits |= 1 << i;
    }
    return bits;
  }

  /** A number of the candidate without an equal number in the query. */
  numberConflict(id: number): boolean {
    return this.tokens.cls[id] === NUMBER && this.best[id]! < 1;
  }
}
