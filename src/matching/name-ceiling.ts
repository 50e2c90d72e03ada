import { CONFLICT_CANDIDATE_WEIGHT, UNMATCHED_CANDIDATE_WEIGHT } from './alignment.js';
import { type BoundQuery, INITIAL, LEGAL, NUMBER, PARTICLE, WORD } from './bound-query.js';
import type { CandidateCollector } from './candidates.js';
import { WEAK_ALIAS_FACTOR } from './entity-score.js';
import {
  FLAGS,
  INITIALS,
  LEGAL_FLAG,
  letterBit,
  NUMBER_FLAG,
  PARTICLES,
  RECORD_SIZE,
  recordScript,
  recordWeight,
  WEAK_FLAG,
  WORD_LIKE,
} from './name-letters.js';
import type { NameTable, TokenTable } from './name-table.js';
import { INITIAL_WEIGHT, LEGAL_FORM_WEIGHT, MAX_TOKENS, NUMBER_WEIGHT, PARTICLE_WEIGHT } from './prepare.js';
import type { QuerySimilarityCache } from './query-cache.js';

/** Queries of up to this many tokens get a table of their token sets' weights (2^n entries). */
const TABLED_TOKENS = 10;

/** Floating-point slack: the ceiling is computed in another order than the score it bounds. */
const SLACK = 1e-9;

/**
 * A ceiling of a candidate's score from a few numbers per name, cheap enough to compute for every
 * retrieved name before the anchor bound (anchor-bound.ts) reads any of its tokens. A query that
 * retrieves thousands of names through a common word (MOHAMMED, AL, COMPANY) pays a few
 * nanoseconds for most of them instead of a token-by-token bound.
 *
 * A pair in an alignment either joins an anchored name token to a query token it is anchored to,
 * or relates tokens without an anchor, which means a shared first letter (an initial and the word
 * it begins, an identical particle or number: NameTable's letter masks), two legal forms, or a
 * merge of two adjacent tokens (marked on the candidate per query, query-merges.ts). Retrieval
 * sums, per name, the mass of its anchored tokens (each occurrence's best similarity times its
 * pair weight, see `tokenMass`) and their weight. With
 *   N = that mass + the weight of the related query tokens + the most the name tokens they can
 *       hold weigh (an initial, particle, number or legal form: its class's weight; for a query
 *       initial or a merge, the name's heaviest tokens, two for a merged name pair),
 *   R = the weight of the query tokens neither anchored nor related (certainly unpaired)
 *       + λ (the name's weight - its anchored weight - that most the related tokens hold),
 * every alignment scores at most N / (N + R): its weighted similarities are at most N, and its
 * denominator holds them, at least their own value, plus at least R. λ is CONFLICT_CANDIDATE_WEIGHT
 * when a certainly unpaired query token is a word, initial or number, else
 * UNMATCHED_CANDIDATE_WEIGHT, its least. Penalties and caps only lower a score.
 */
export class NameCeiling {
  private n = 0;
  private script = -1;
  private readonly cls = new Uint8Array(MAX_TOKENS);
  private readonly weight = new Float64Array(MAX_TOKENS);
  private readonly letters = new Int32Array(MAX_TOKENS);
  /** Query tokens an unpaired one of which makes a conflict: words, initials, numbers. */
  private conflicting = 0;
  /** Every query token's bit, and the bits of the query's initials. */
  private all = 0;
  private initials = 0;
  /**
   * Per query token, the heaviest name token it can pair with through a relation without an
   * anchor other than a merge: a word only with an initial, a particle with an identical particle
   * or an initial, a number with the same number, a legal form with a legal form. (A query
   * initial can pair with any word it begins: not capped.)
   */
  private readonly relationCap = new Float64Array(MAX_TOKENS);
  /** The summed weight of each set of query tokens (bit i: token i), for queries of at most TABLED_TOKENS. */
  private readonly weightOf = new Float64Array(1 << TABLED_TOKENS);
  /** Unions over the query, for a screen that most names fail: no relation without an anchor at all. */
  private wordLetters = 0;
  private particleLetters = 0;
  private initialLetters = 0;
  private hasNumber = false;
  private hasLegal = false;

  constructor(
    private readonly names: NameTable,
    private readonly tokens: TokenTable,
    private readonly anchors: CandidateCollector,
    private readonly cache: QuerySimilarityCache,
  ) {}

  /** Reads the query once per search, after the anchor bound has read it. */
  prepare(q: BoundQuery): void {
    this.n = q.n;
    this.script = q.script;
    this.conflicting = 0;
    this.wordLetters = 0;
    this.particleLetters = 0;
    this.initialLetters = 0;
    this.hasNumber = false;
    this.hasLegal = false;
    this.initials = 0;
    for (let i = 0; i < q.n; i++) {
      const cls = q.cls[i]!;
      const letter = letterBit(q.first[i]!);
      this.cls[i] = cls;
      this.weight[i] = q.weight[i]!;
      this.letters[i] = letter;
      if (cls === WORD || cls === INITIAL || cls === NUMBER) this.conflicting |= 1 << i;
      if (cls === INITIAL) this.initials |= 1 << i;
      this.relationCap[i] =
        cls === WORD
          ? INITIAL_WEIGHT
          : cls === PARTICLE
            ? Math.max(PARTICLE_WEIGHT, INITIAL_WEIGHT)
            : cls === NUMBER
              ? NUMBER_WEIGHT
              : cls === LEGAL
                ? LEGAL_FORM_WEIGHT
                : 0;
      if (cls === WORD) this.wordLetters |= letter;
      else if (cls === PARTICLE) this.particleLetters |= letter;
      else if (cls === INITIAL) this.initialLetters |= letter;
      else if (cls === NUMBER) this.hasNumber = true;
      else this.hasLegal = true;
    }
    this.all = (1 << q.n) - 1;
    if (q.n <= TABLED_TOKENS) {
      // Each set's weight is a smaller set's plus its highest token's.
      for (let set = 1; set < 1 << q.n; set++) {
        const high = 31 - Math.clz32(set);
        this.weightOf[set] = this.weightOf[set & ~(1 << high)]! + this.weight[high]!;
      }
    }
  }

  /** The most one occurrence of token `id`, anchored to the query tokens in `bits`, adds to an alignment. */
  tokenMass(id: number, bits: number): number {
    const w = this.tokens.weight[id]!;
    let best = 0;
    for (let rest = bits; rest !== 0; rest &= rest - 1) {
      const i = 31 - Math.clz32(rest & -rest);
      const mass = this.cache.similarity(i, id, this.anchors) * (this.weight[i]! + w);
      if (mass > best) best = mass;
    }
    return best;
  }

  /**
   * Whether candidate `name`'s (name-type adjusted) score may reach `threshold`, by an upper bound
   * of it from what retrieval summed for it: the query tokens anchored to it, and its anchored
   * tokens' mass and weight. (A yes or no rather than the bound: a number returned from a call
   * that is not inlined is boxed, thousands of allocations per query.)
   */
  mayReach(name: number, threshold: number): boolean {
    const r = this.names.letters;
    const at = name * RECORD_SIZE;
    const flags = r[at + FLAGS]!;
    if (this.script >= 0 && recordScript(flags) === this.script) return true;
    const anchors = this.anchors;
    const anchored = anchors.anchoredToName(name);
    const initials = r[at + INITIALS]!;
    const merging = anchors.mergingOf(name);
    const joined = anchors.joinedOf(name);
    const mayRelate =
      (this.wordLetters & initials) !== 0 ||
      (this.particleLetters & (initials | r[at + PARTICLES]!)) !== 0 ||
      (this.initialLetters & (initials | r[at + WORD_LIKE]!)) !== 0 ||
      (this.hasNumber && (flags & NUMBER_FLAG) !== 0) ||
      (this.hasLegal && (flags & LEGAL_FLAG) !== 0);
    const related = (mayRelate ? this.relatedTokens(r, at) : 0) | merging | joined;
    let unpaired: number;
    let relatedWeight = 0;
    let conflict: boolean;
    let heaviest = 0;
    const unrelated = this.all & ~related & ~anchored;
    if (related === 0 && this.n <= TABLED_TOKENS) {
      // Most names relate to no query token without an anchor: the unpaired weight is a table read.
      unpaired = this.weightOf[unrelated]!;
      conflict = (unrelated & this.conflicting) !== 0;
    } else {
      unpaired = 0;
      conflict = false;
      // The name tokens the related query tokens can hold: an initial, particle, number or legal
      // form (at most its class's weight) for a relation by first letter or identity, else any
      // token, two when it may be a merged name pair (the name's heaviest).
      const open = merging | joined | (related & this.initials);
      let reach = 0;
      for (let i = 0; i < this.n; i++) {
        if (((related >> i) & 1) === 1) {
          relatedWeight += this.weight[i]!;
          if (((open >> i) & 1) === 0) heaviest += this.relationCap[i]!;
          else reach += ((merging >> i) & 1) === 1 ? 2 : 1;
        } else if (((anchored >> i) & 1) === 0) {
          unpaired += this.weight[i]!;
          if (((this.conflicting >> i) & 1) === 1) conflict = true;
        }
      }
      if (reach > 0) {
        const start = this.names.tokenStart[name]!;
        const m = this.names.tokenStart[name + 1]! - start;
        heaviest += this.names.weightTop[start + (reach < m ? reach : m) - 1]!;
      }
    }
    const nameWeight = recordWeight(flags);
    const numerator = anchors.anchoredMass(name) + relatedWeight + heaviest;
    const unpairedName = nameWeight - anchors.anchoredWeight(name) - heaviest;
    const lambda = conflict ? CONFLICT_CANDIDATE_WEIGHT : UNMATCHED_CANDIDATE_WEIGHT;
    const rest = unpaired + (unpairedName > 0 ? lambda * unpairedName : 0);
    let ceiling = numerator === 0 ? 0 : numerator / (numerator + rest);
    if ((flags & WEAK_FLAG) !== 0 && ceiling < 1) ceiling *= WEAK_ALIAS_FACTOR;
    return ceiling + SLACK >= threshold;
  }

  /** Query tokens related to the name without an anchor by a shared first letter or as legal forms. */
  private relatedTokens(r: Int32Array, at: number): number {
    const initials = r[at + INITIALS]!;
    const particles = r[at + PARTICLES]!;
    const wordLike = r[at + WORD_LIKE]!;
    const flags = r[at + FLAGS]!;
    let related = 0;
    for (let i = 0; i < this.n; i++) {
      const first = this.letters[i]!;
      const cls = this.cls[i]!;
      let relates: boolean;
      if (cls === WORD) relates = (first & initials) !== 0;
      else if (cls === PARTICLE) relates = (first & (initials | particles)) !== 0;
      else if (cls === INITIAL) relates = (first & (initials | wordLike)) !== 0;
      else if (cls === NUMBER) relates = (flags & NUMBER_FLAG) !== 0;
      else relates = cls === LEGAL && (flags & LEGAL_FLAG) !== 0;
      if (relates) related |= 1 << i;
    }
    return related;
  }
}
