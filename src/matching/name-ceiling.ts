import { CONFLICT_CANDIDATE_WEIGHT, UNMATCHED_CANDIDATE_WEIGHT } from './alignment.js';
import { type BoundQuery, INITIAL, LEGAL, NUMBER, PARTICLE, WORD } from './bound-query.js';
import type { CandidateCollector } from './candidates.js';
import { WEAK_ALIAS_FACTOR } from './entity-score.js';
import {
  ABJAD_FLAG,
  FLAGS,
  INITIALS,
  LEGAL_FLAG,
  lengthBit,
  letterBit,
  MERGE,
  MERGE_MASKS,
  mergeKey,
  mergeKeysMayMatch,
  NUMBER_FLAG,
  PAIR_LENGTHS,
  PAIRS,
  PARTICLES,
  RECORD_SIZE,
  recordScript,
  recordWeight,
  WEAK_FLAG,
  WORD_LENGTHS,
  WORD_LIKE,
  WORDS,
} from './name-letters.js';
import type { NameTable, TokenTable } from './name-table.js';
import { MAX_TOKENS } from './prepare.js';
import type { QuerySimilarityCache } from './query-cache.js';

/** Floating-point slack: the ceiling is computed in another order than the score it bounds. */
const SLACK = 1e-9;

/**
 * A ceiling of a candidate's score from a few numbers per name, cheap enough to compute for every
 * retrieved name before the anchor bound (anchor-bound.ts) reads any of its tokens. A query that
 * retrieves thousands of names through a common word (MOHAMMED, AL, COMPANY) pays a few
 * nanoseconds for most of them instead of a token-by-token bound.
 *
 * A pair in an alignment either joins an anchored name token to a query token it is anchored to,
 * or relates tokens without an anchor, which always means a shared first letter (an initial and the
 * word it begins, an identical particle or number, a merge of two adjacent tokens: NameTable's
 * letter masks) or two legal forms. Retrieval sums, per name, the mass of its anchored tokens (each
 * occurrence's best similarity times its pair weight, see `tokenMass`) and their weight. With
 *   N = that mass + the weight of the query tokens related by letter + the weight of the heaviest
 *       name tokens they can hold (one each, two when it may be a merged name pair),
 *   R = the weight of the query tokens neither anchored nor related (certainly unpaired)
 *       + λ (the name's weight - its anchored weight - those heaviest tokens' weight),
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
  private abjad = false;
  private readonly letters = new Int32Array(MAX_TOKENS);
  /** Merge tests on the text, and on the consonant skeleton when the query or the name is abjad. */
  private readonly merge = new QueryMergeMasks();
  private readonly skeletonMerge = new QueryMergeMasks();
  /** Query tokens an unpaired one of which makes a conflict: words, initials, numbers. */
  private conflicting = 0;
  /** Set by relatedTokens: related query tokens that may be a merged name pair. */
  private merging = 0;
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
    for (let i = 0; i < q.n; i++) {
      const cls = q.cls[i]!;
      const letter = letterBit(q.first[i]!);
      this.cls[i] = cls;
      this.weight[i] = q.weight[i]!;
      this.letters[i] = letter;
      if (cls === WORD || cls === INITIAL || cls === NUMBER) this.conflicting |= 1 << i;
      if (cls === WORD) this.wordLetters |= letter;
      else if (cls === PARTICLE) this.particleLetters |= letter;
      else if (cls === INITIAL) this.initialLetters |= letter;
      else if (cls === NUMBER) this.hasNumber = true;
      else this.hasLegal = true;
    }
    this.abjad = q.n > 0 && q.abjad[0] === 1;
    const tokens = q.query!.tokens;
    this.merge.read(
      q,
      q.first,
      q.length,
      tokens.map((t) => t.codes),
    );
    this.skeletonMerge.read(
      q,
      q.skeletonFirst,
      q.skeletonLength,
      tokens.map((t) => t.skeleton),
    );
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
   * Upper bound of name `name`'s (name-type adjusted) score, from what retrieval summed for it:
   * the query tokens anchored to it, and its anchored tokens' mass and weight.
   */
  ceiling(name: number, anchored: number, anchoredMass: number, anchoredWeight: number): number {
    const r = this.names.letters;
    const at = name * RECORD_SIZE;
    const flags = r[at + FLAGS]!;
    if (this.script >= 0 && recordScript(flags) === this.script) return 1;
    const initials = r[at + INITIALS]!;
    const skeletons = this.abjad || (flags & ABJAD_FLAG) !== 0;
    const q = skeletons ? this.skeletonMerge : this.merge;
    // The merge masks: in the record for the text, in a table of their own for skeletons.
    const masks = skeletons ? this.names.skeletonMerge : r;
    const merge = skeletons ? name * MERGE_MASKS : at + MERGE;
    const mayRelate =
      (this.wordLetters & initials) !== 0 ||
      (this.particleLetters & (initials | r[at + PARTICLES]!)) !== 0 ||
      (this.initialLetters & (initials | r[at + WORD_LIKE]!)) !== 0 ||
      (this.hasNumber && (flags & NUMBER_FLAG) !== 0) ||
      (this.hasLegal && (flags & LEGAL_FLAG) !== 0) ||
      ((q.firsts & masks[merge + PAIRS]!) !== 0 && (q.lengths & masks[merge + PAIR_LENGTHS]!) !== 0) ||
      ((q.joinedFirsts & masks[merge + WORDS]!) !== 0 &&
        (q.joinedLengths & masks[merge + WORD_LENGTHS]!) !== 0);
    const related = mayRelate ? this.relatedTokens(name, r, at, masks, merge, q) : 0;
    let unpaired = 0;
    let relatedWeight = 0;
    // Name tokens the related query tokens can hold: one each, two when it may be a merged name pair.
    let reach = 0;
    let conflict = false;
    for (let i = 0; i < this.n; i++) {
      if (((related >> i) & 1) === 1) {
        relatedWeight += this.weight[i]!;
        reach += ((this.merging >> i) & 1) === 1 ? 2 : 1;
      } else if (((anchored >> i) & 1) === 0) {
        unpaired += this.weight[i]!;
        if (((this.conflicting >> i) & 1) === 1) conflict = true;
      }
    }
    const nameWeight = recordWeight(flags);
    let heaviest = 0;
    if (reach > 0) {
      const start = this.names.tokenStart[name]!;
      const m = this.names.tokenStart[name + 1]! - start;
      heaviest = this.names.weightTop[start + (reach < m ? reach : m) - 1]!;
    }
    const numerator = anchoredMass + relatedWeight + heaviest;
    const unpairedName = nameWeight - anchoredWeight - heaviest;
    const lambda = conflict ? CONFLICT_CANDIDATE_WEIGHT : UNMATCHED_CANDIDATE_WEIGHT;
    const rest = unpaired + (unpairedName > 0 ? lambda * unpairedName : 0);
    let ceiling = numerator === 0 ? 0 : numerator / (numerator + rest);
    if ((flags & WEAK_FLAG) !== 0 && ceiling < 1) ceiling *= WEAK_ALIAS_FACTOR;
    return ceiling + SLACK;
  }

  /** Query tokens related to the name without an anchor; sets `merging` to those that may hold two name tokens. */
  private relatedTokens(
    name: number,
    r: Int32Array,
    at: number,
    masks: Int32Array,
    merge: number,
    q: QueryMergeMasks,
  ): number {
    const keys = this.names.mergeKeys;
    const skeletons = q === this.skeletonMerge;
    const wordKeys = skeletons ? keys.skeletonWord : keys.word;
    const pairKeys = skeletons ? keys.skeletonPair : keys.pair;
    const initials = r[at + INITIALS]!;
    const particles = r[at + PARTICLES]!;
    const wordLike = r[at + WORD_LIKE]!;
    const flags = r[at + FLAGS]!;
    const words = masks[merge + WORDS]!;
    const wordLengths = masks[merge + WORD_LENGTHS]!;
    const pairs = masks[merge + PAIRS]!;
    const pairLengths = masks[merge + PAIR_LENGTHS]!;
    let related = 0;
    let merging = 0;
    for (let i = 0; i < this.n; i++) {
      const first = this.letters[i]!;
      const cls = this.cls[i]!;
      let relates: boolean;
      if (cls === WORD) {
        relates = (first & initials) !== 0;
        if (
          (q.first[i]! & pairs) !== 0 &&
          (q.length[i]! & pairLengths) !== 0 &&
          this.anyKeyMatches(name, pairKeys, q.key[i]!)
        )
          merging |= 1 << i;
      } else if (cls === PARTICLE) relates = (first & (initials | particles)) !== 0;
      else if (cls === INITIAL) relates = (first & (initials | wordLike)) !== 0;
      else if (cls === NUMBER) relates = (flags & NUMBER_FLAG) !== 0;
      else relates = cls === LEGAL && (flags & LEGAL_FLAG) !== 0;
      if (relates) related |= 1 << i;
      // Query tokens i and i + 1 written together may be one name word with i's first letter.
      if (
        (q.joinedLength[i]! & wordLengths) !== 0 &&
        (q.first[i]! & words) !== 0 &&
        this.anyKeyMatches(name, wordKeys, q.joinedKey[i]!)
      )
        related |= 3 << i;
    }
    this.merging = merging;
    return related | merging;
  }

  /** Whether some token position of the name has, in `keys` (one kind of merge key), a key that may match `key`. */
  private anyKeyMatches(name: number, keys: Int32Array, key: number): boolean {
    const tokenStart = this.names.tokenStart;
    const end = tokenStart[name + 1]!;
    for (let at = tokenStart[name]!; at < end; at++) if (mergeKeysMayMatch(keys[at]!, key)) return true;
    return false;
  }
}

/** A query's tokens for the merge tests, in one form (text or skeleton): first letters and lengths as bits. */
class QueryMergeMasks {
  readonly first = new Int32Array(MAX_TOKENS);
  readonly length = new Int32Array(MAX_TOKENS);
  /** When query tokens i and i + 1 may be one name word written together: their joined length's bit, else 0. */
  readonly joinedLength = new Int32Array(MAX_TOKENS);
  /** Merge keys (name-letters.ts) of each query word, and of each joinable pair (i, i + 1). */
  readonly key = new Int32Array(MAX_TOKENS);
  readonly joinedKey = new Int32Array(MAX_TOKENS);
  /** Unions: first letters and lengths of the query words, and of the query pairs that may be joined. */
  firsts = 0;
  lengths = 0;
  joinedFirsts = 0;
  joinedLengths = 0;

  read(q: BoundQuery, first: Int32Array, length: Int32Array, forms: readonly Int32Array[]): void {
    this.firsts = 0;
    this.lengths = 0;
    this.joinedFirsts = 0;
    this.joinedLengths = 0;
    for (let i = 0; i < q.n; i++) {
      this.first[i] = letterBit(first[i]!);
      this.length[i] = lengthBit(length[i]!);
      const joins = i + 1 < q.n && q.mergeable[i] === 1 && q.mergeable[i + 1] === 1;
      this.joinedLength[i] = joins ? lengthBit(length[i]! + length[i + 1]!) : 0;
      this.key[i] = mergeKey(forms[i]!);
      this.joinedKey[i] = joins ? mergeKey(forms[i]!, forms[i + 1]!) : -1;
      if (q.cls[i] === WORD) {
        this.firsts |= this.first[i]!;
        this.lengths |= this.length[i]!;
      }
      if (joins) {
        this.joinedFirsts |= this.first[i]!;
        this.joinedLengths |= this.joinedLength[i]!;
      }
    }
  }
}
