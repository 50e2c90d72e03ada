import { canAnchor } from './anchors.js';
import type { IndexData } from './index-data.js';
import type { PreparedQuery } from './prepared-query.js';
import type { QuerySimilarityCache } from './query-cache.js';
import type { TokenExpansions } from './token-expansions.js';
import { grown } from './typed-arrays.js';

/**
 * Per name, 32 bytes side by side (one cache line holds two names: candidates arrive in no
 * particular order), as four integers then two doubles: the search generation that last saw it,
 * the query tokens anchored to it (bit i: to query token i), the query words that may be a merged
 * pair of it and the query tokens that may be joined into one of its words (marked by
 * `markMerging` and `markJoined`, from query-merges.ts), then the summed mass (see TokenMass) and
 * weight of its anchored tokens.
 */
const INTS_PER_NAME = 8;
const DOUBLES_PER_NAME = 4;
const STAMP = 0;
const BITS = 1;
const MERGING = 2;
const JOINED = 3;
const MASS = 2;
const WEIGHT = 3;

/**
 * The most one occurrence of index token `id`, anchored to the query tokens in `bits`, adds to an
 * alignment's weighted similarities: its best similarity times the pair's weight.
 */
export type TokenMass = (id: number, bits: number) => number;

/**
 * Candidate retrieval: the names that share an anchor with the query (see anchors.ts). Because a
 * name without an anchor cannot score above ANCHOR_FREE_CAP, scoring only these candidates finds
 * every name a brute-force scan would find at thresholds above that cap.
 *
 * Scratch arrays are stamped with a per-search generation instead of being cleared, so a search
 * costs time proportional to what it touches, not to the corpus size.
 */
export class CandidateCollector {
  private generation = 0;
  private readonly tokenStamp: Int32Array;
  /** Bit i set: the token is anchored to query token i (valid when its stamp is current). */
  readonly anchoredBits: Int32Array;
  /** The per-name scratch (see INTS_PER_NAME), as integers and as doubles. */
  private readonly nameInts: Int32Array;
  private readonly nameDoubles: Float64Array;
  /** The names `collect` retrieved, in the order it found them: the first `collect()` of them. */
  candidates = new Int32Array(1024);
  private candidateCount = 0;
  /** The index tokens anchored to some query token in this search (the first `hitCount`). */
  private hitTokens = new Int32Array(256);

  /** Tokens with ids from here on joined the shared vocabulary after this index was built: in none of its names. */
  private readonly tokenLimit: number;

  constructor(
    private readonly data: IndexData,
    private readonly cache: QuerySimilarityCache,
    private readonly expansions: TokenExpansions,
  ) {
    this.tokenLimit = data.tokenNames.start.length - 1;
    this.tokenStamp = new Int32Array(this.tokenLimit);
    this.anchoredBits = new Int32Array(this.tokenLimit);
    const scratch = new ArrayBuffer(data.prepared.length * INTS_PER_NAME * 4);
    this.nameInts = new Int32Array(scratch);
    this.nameDoubles = new Float64Array(scratch);
  }

  /** Query tokens anchored to some token of candidate `name` (valid for the names `collect` returned). */
  anchoredToName(name: number): number {
    return this.nameInts[name * INTS_PER_NAME + BITS]!;
  }

  /** The summed mass of candidate `name`'s anchored tokens, one term per occurrence. */
  anchoredMass(name: number): number {
    return this.nameDoubles[name * DOUBLES_PER_NAME + MASS]!;
  }

  /** The summed weight of candidate `name`'s anchored tokens, one term per occurrence. */
  anchoredWeight(name: number): number {
    return this.nameDoubles[name * DOUBLES_PER_NAME + WEIGHT]!;
  }

  /** Query words that may be a merged pair of adjacent tokens of candidate `name` (see markMerging). */
  mergingOf(name: number): number {
    return this.nameInts[name * INTS_PER_NAME + MERGING]!;
  }

  /** Query tokens that may be joined, with the next one, into a word of candidate `name` (see markJoined). */
  joinedOf(name: number): number {
    return this.nameInts[name * INTS_PER_NAME + JOINED]!;
  }

  /** Records that query words `bits` may be a merged pair of `name`'s, when `name` is a candidate of this search. */
  markMerging(name: number, bits: number): void {
    const at = name * INTS_PER_NAME;
    if (this.nameInts[at + STAMP] === this.generation) this.nameInts[at + MERGING]! |= bits;
  }

  /** Records that query tokens `bits` (pairs i, i + 1) may be one word of `name`, when `name` is a candidate. */
  markJoined(name: number, bits: number): void {
    const at = name * INTS_PER_NAME;
    if (this.nameInts[at + STAMP] === this.generation) this.nameInts[at + JOINED]! |= bits;
  }

  /** Bit i set: token `id` is anchored to query token i in the current search. */
  bits(id: number): number {
    return this.tokenStamp[id] === this.generation ? this.anchoredBits[id]! : 0;
  }

  /** Whether token `id` is anchored to query token `i` in the current search. */
  isAnchored(id: number, i: number): boolean {
    return this.tokenStamp[id] === this.generation && ((this.anchoredBits[id]! >> i) & 1) === 1;
  }

  /** Retrieves the query's candidates into `candidates`; returns how many. */
  collect(query: PreparedQuery, mass: TokenMass): number {
    this.generation++;
    this.candidateCount = 0;
    let hitCount = 0;
    const tokenNames = this.data.tokenNames;
    for (let i = 0; i < query.probes.length; i++) {
      const probes = query.probes[i];
      if (!probes) continue;
      const { ids, similarities } = this.expansions.of(query.name.tokens[i]!, probes);
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]!;
        // Tokens in none of this index's names (other lists' words, in a shared vocabulary) lead nowhere.
        if (id >= this.tokenLimit || tokenNames.start[id] === tokenNames.start[id + 1]) continue;
        if (this.tokenStamp[id] !== this.generation) {
          this.tokenStamp[id] = this.generation;
          this.anchoredBits[id] = 0;
          if (hitCount === this.hitTokens.length) this.hitTokens = grown(this.hitTokens, hitCount + 1);
          this.hitTokens[hitCount++] = id;
        }
        this.anchoredBits[id]! |= 1 << i;
        this.cache.store(i, id, similarities[k]!);
      }
    }
    const weights = this.data.tokenTable.weight;
    for (let k = 0; k < hitCount; k++) {
      const id = this.hitTokens[k]!;
      const bits = this.anchoredBits[id]!;
      this.addNames(id, bits, mass(id, bits), weights[id]!);
    }
    this.collectMerged(query);
    return this.candidateCount;
  }

  /** Adds the names holding token `id`. */
  private addNames(id: number, bits: number, mass: number, weight: number): void {
    const { start, names } = this.data.tokenNames;
    for (let k = start[id]!, end = start[id + 1]!; k < end; k++) this.addName(names[k]!, bits, mass, weight);
  }

  private addName(name: number, bits: number, mass: number, weight: number): void {
    const ints = this.nameInts;
    const doubles = this.nameDoubles;
    const at = name * INTS_PER_NAME;
    const d = name * DOUBLES_PER_NAME;
    if (ints[at + STAMP] === this.generation) {
      ints[at + BITS]! |= bits;
      doubles[d + MASS]! += mass;
      doubles[d + WEIGHT]! += weight;
      return;
    }
    ints[at + STAMP] = this.generation;
    ints[at + BITS] = bits;
    ints[at + MERGING] = 0;
    ints[at + JOINED] = 0;
    doubles[d + MASS] = mass;
    doubles[d + WEIGHT] = weight;
    if (this.candidateCount === this.candidates.length)
      this.candidates = grown(this.candidates, this.candidateCount + 1);
    this.candidates[this.candidateCount++] = name;
  }

  /** Names where a query token is two adjacent name tokens written together, or the reverse. */
  private collectMerged(query: PreparedQuery): void {
    const { vocabulary, adjacentJoins } = this.data;
    for (const { text } of query.joined) {
      for (const id of vocabulary.mergeableByText.get(text) ?? []) {
        if (id < this.tokenLimit && canAnchor(vocabulary.tokens[id]!)) this.addNames(id, 0, 0, 0);
      }
    }
    // One lookup per query word finds every split of it (`ALQAIDA` = `AL` + `QAIDA`, ...) that
    // some name holds as two adjacent tokens.
    for (const token of query.name.tokens) {
      if (!canAnchor(token)) continue;
      for (let entry = adjacentJoins.first(token.text); entry >= 0; entry = adjacentJoins.next(entry))
        this.addName(adjacentJoins.idAt(entry), 0, 0, 0);
    }
  }
}
