import {
  CONFLICT_CANDIDATE_WEIGHT,
  MERGE_FACTOR,
  MIN_PAIR_SIMILARITY,
  mergePossible,
  UNMATCHED_CANDIDATE_WEIGHT,
} from './alignment.js';
import { BoundQuery, INITIAL, MASK_COUNT, NUMBER, WORD } from './bound-query.js';
import type { CandidateCollector } from './candidates.js';
import { WEAK_ALIAS_FACTOR } from './entity-score.js';
import { MergeFilter } from './merge-filter.js';
import { FLAGS, RECORD_SIZE, recordScript, WEAK_FLAG } from './name-letters.js';
import { NUMBER_CONFLICT_CAP } from './name-score.js';
import { type NameTable, originalScriptCode, type TokenTable } from './name-table.js';
import { MAX_TOKENS } from './prepare.js';
import type { PreparedName } from './prepared.js';
import type { QuerySimilarityCache } from './query-cache.js';
import { TokenCeilings } from './token-ceilings.js';
import { INITIAL_SIMILARITY } from './token-similarity.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * An upper bound of a candidate's score from its anchors: Jaro-Winkler only for the token pairs
 * that are anchored (a few hundred distinct pairs per query, cached), and for merges that pass the
 * cheap plausibility test; every other pair is bounded by a ceiling fixed by the token classes
 * (unanchored words UNANCHORED_CEILING, an initial 0.8 against a word with its first letter, two
 * legal forms 0.6, different numbers 0). The index sorts candidates by this bound and never scores
 * one whose bound is below its source's current k-th best score.
 *
 * The alignment's weighted ratio is bounded in two cases, and the bound is the larger: every query
 * word paired (unpaired candidate tokens weigh UNMATCHED_CANDIDATE_WEIGHT; candidate tokens are
 * paired best first while that raises the ratio: worth it while its ceiling is high enough), or some query word unpaired
 * (the cheapest one is dropped and unpaired candidate tokens weigh CONFLICT_CANDIDATE_WEIGHT). A
 * number left unpaired caps the bound as the scorer caps the score, and a weak alias is scaled as
 * the entity score is.
 */

/** Floating-point slack: the bound is computed in another order than the score it bounds. */
const SLACK = 1e-9;

export class AnchorBound {
  private readonly q: BoundQuery;
  private readonly ceiling = new Float64Array(MAX_TOKENS);
  private readonly classCeiling = new Float64Array(MAX_TOKENS);
  private readonly anchoredBest = new Float64Array(MAX_TOKENS);
  private readonly anchoredBits = new Int32Array(MAX_TOKENS);
  private readonly weight = new Float64Array(MAX_TOKENS);
  private readonly order = new Int32Array(MAX_TOKENS);
  private readonly queryBest = new Float64Array(MAX_TOKENS);
  private merges = 0;
  private readonly mergeFilter = new MergeFilter();
  private readonly perToken: TokenCeilings;

  constructor(
    private readonly tokens: TokenTable,
    private readonly names: NameTable,
    private readonly vocabulary: Vocabulary,
    private readonly anchors: CandidateCollector,
    private readonly cache: QuerySimilarityCache,
  ) {
    this.q = new BoundQuery(vocabulary);
    this.perToken = new TokenCeilings(tokens, vocabulary, anchors, cache, this.q);
  }

  /** Reads the query once per search; call after the collector and the cache are set for it. */
  prepare(query: PreparedName): BoundQuery {
    this.q.read(query, originalScriptCode(query));
    this.mergeFilter.read(this.q);
    this.perToken.reset();
    return this.q;
  }

  /** Upper bound of the (name-type adjusted) score of name `name` against the prepared query. */
  bound(name: number): number {
    const { names, q } = this;
    const flags = names.letters[name * RECORD_SIZE + FLAGS]!;
    // Same-script names are scored on their original form, which this bound does not cover.
    if (q.script >= 0 && recordScript(flags) === q.script) return 1;
    const start = names.tokenStart[name]!;
    const m = names.tokenStart[name + 1]! - start;
    for (let i = 0; i < q.n; i++) this.queryBest[i] = 0;
    let conflict = this.candidateCeilings(start, m);
    this.keepOnePerPartner(m);
    this.merges = 0;
    // Retrieval marked the query tokens a merge may relate to this name (query-merges.ts): most
    // names have none, and their adjacent pairs need no test.
    const merging = this.anchors.mergingOf(name);
    const joined = this.anchors.joinedOf(name);
    if ((merging | joined) !== 0) this.mergeCeilings(start, m, merging, joined);
    const mask = names.classMask[name]!;
    let numerator = 0;
    let denominator = 0;
    let cheapest = Number.POSITIVE_INFINITY;
    let unpairable = false;
    for (let i = 0; i < q.n; i++) {
      const w = q.weight[i]!;
      const best = Math.max(this.queryBest[i]!, q.queryCeiling[i * MASK_COUNT + mask]!);
      numerator += best * w;
      denominator += w;
      const cls = q.cls[i]!;
      if (cls === NUMBER && best < 1) conflict = true;
      if (cls === WORD || cls === INITIAL || cls === NUMBER) {
        if (best < MIN_PAIR_SIMILARITY) unpairable = true;
        if (best * w < cheapest) cheapest = best * w;
      }
    }
    const allPairable = !unpairable && (q.conflictCount <= m || this.merges > 0);
    let bound = allPairable ? this.allPaired(numerator, denominator, m) : 0;
    if (q.conflictCount > 0) {
      const dropped = unpairable ? 0 : cheapest;
      bound = Math.max(bound, this.someUnpaired(numerator - dropped, denominator, m));
    }
    if (conflict && bound > NUMBER_CONFLICT_CAP) bound = NUMBER_CONFLICT_CAP;
    if ((flags & WEAK_FLAG) !== 0 && bound < 1) bound *= WEAK_ALIAS_FACTOR;
    return bound + SLACK;
  }

  /**
   * Each candidate token's ceiling: its exact similarity to the query tokens it is anchored to or
   * identical with, an initial's 0.8, else its class ceiling (per token, see TokenCeilings). Returns
   * whether a number of the candidate has no equal in the query.
   */
  private candidateCeilings(start: number, m: number): boolean {
    const { names, tokens, q, perToken, queryBest } = this;
    let conflict = false;
    for (let k = 0; k < m; k++) {
      const id = names.tokenIds[start + k]!;
      perToken.load(id);
      const bits = perToken.bits[id]!;
      const best = perToken.best[id]!;
      if (bits !== 0) {
        if ((bits & (bits - 1)) === 0) {
          const i = 31 - Math.clz32(bits);
          if (best > queryBest[i]!) queryBest[i] = best;
        } else {
          for (let rest = bits; rest !== 0; rest &= rest - 1) {
            const i = 31 - Math.clz32(rest & -rest);
            const s = this.cache.similarity(i, id, this.anchors);
            if (s > queryBest[i]!) queryBest[i] = s;
          }
        }
      }
      for (let rest = perToken.initialBits[id]!; rest !== 0; rest &= rest - 1) {
        const i = 31 - Math.clz32(rest & -rest);
        if (queryBest[i]! < INITIAL_SIMILARITY) queryBest[i] = INITIAL_SIMILARITY;
      }
      if (perToken.numberConflict(id)) conflict = true;
      const anchored = best > q.candidateCeiling[tokens.cls[id]!]!;
      this.anchoredBest[k] = anchored ? best : 0;
      this.anchoredBits[k] = anchored ? bits : 0;
      this.classCeiling[k] = perToken.classCeiling[id]!;
      this.ceiling[k] = Math.max(perToken.classCeiling[id]!, best);
      this.weight[k] = tokens.weight[id]!;
    }
    return conflict;
  }

  /**
   * Candidate tokens anchored to one and the same query token only (`MOHAMMAD ... MOHAMMAD` for
   * `MUHAMMAD`) cannot all pair with it: the alignment is one-to-one. When they reach the same
   * ceiling against every other query token (their class ceiling), the heaviest of them keeps the
   * best similarity of the group (or that class ceiling, when higher: a word weakly anchored to one
   * query word may pair with a query initial at 0.8) and the others fall back to the class
   * ceiling: swapping a pair's
   * similarity onto a heavier token never lowers the bounded ratio, so this still bounds every
   * one-to-one alignment. When their class ceilings differ (one of them may also pair with a query
   * initial at 0.8: `J SAID` / `JAWID SAID`, JAWID weakly anchored to SAID), no single token can
   * stand for the group, and each keeps its own ceiling.
   */
  private keepOnePerPartner(m: number): void {
    for (let k = 0; k < m; k++) {
      const bits = this.anchoredBits[k]!;
      if (bits === 0 || (bits & (bits - 1)) !== 0) continue;
      let heaviest = k;
      let best = this.anchoredBest[k]!;
      let sameClassCeiling = true;
      for (let l = k + 1; l < m; l++) {
        if (this.anchoredBits[l] !== bits) continue;
        if (this.anchoredBest[l]! > best) best = this.anchoredBest[l]!;
        if (this.weight[l]! > this.weight[heaviest]!) heaviest = l;
        if (this.classCeiling[l] !== this.classCeiling[k]) sameClassCeiling = false;
      }
      for (let l = k; l < m; l++) {
        if (this.anchoredBits[l] !== bits) continue;
        this.anchoredBits[l] = 0;
        const classCeiling = this.classCeiling[l]!;
        if (sameClassCeiling) this.ceiling[l] = l === heaviest && best > classCeiling ? best : classCeiling;
      }
    }
  }

  /**
   * Raises the ceilings of tokens in a possible merged pair to MERGE_FACTOR, the most a merged pair
   * scores. Of the query words retrieval marked as possibly a merged pair of this name's (`merging`)
   * and the query pairs marked as possibly one of its words (`joined`, bit i for the pair i, i + 1),
   * the merge filter names the few whose first letter and length fit each pair or word; those go
   * through the scorer's own `mergePossible`, a linear scan.
   */
  private mergeCeilings(start: number, m: number, merging: number, joined: number): void {
    const { names, tokens: t, mergeFilter } = this;
    for (let k = 0; k < m; k++) {
      const id = names.tokenIds[start + k]!;
      if (k + 1 < m) {
        const next = names.tokenIds[start + k + 1]!;
        const abjad = t.abjad[id] === 1 || t.abjad[next] === 1;
        let bits =
          mergeFilter.wordsForPair(
            abjad,
            t.first[id]!,
            t.length[id]! + t.length[next]!,
            t.skeletonFirst[id]!,
            t.skeletonLength[id]! + t.skeletonLength[next]!,
          ) & merging;
        for (; bits !== 0; bits &= bits - 1) {
          const i = 31 - Math.clz32(bits & -bits);
          if (!this.wordIsPair(i, id, next)) continue;
          this.raise(k);
          this.raise(k + 1);
          this.raiseQuery(i);
        }
      }
      if (t.cls[id] !== WORD) continue;
      let bits =
        mergeFilter.pairsForWord(
          t.abjad[id] === 1,
          t.first[id]!,
          t.length[id]!,
          t.skeletonFirst[id]!,
          t.skeletonLength[id]!,
        ) & joined;
      for (; bits !== 0; bits &= bits - 1) {
        const i = 31 - Math.clz32(bits & -bits);
        if (!this.pairIsWord(i, id)) continue;
        this.raise(k);
        this.raiseQuery(i);
        this.raiseQuery(i + 1);
      }
    }
  }

  /** Query word `i` may be candidate tokens `id` and `next` written together. */
  private wordIsPair(i: number, id: number, next: number): boolean {
    const { q, tokens: t } = this;
    const fits =
      q.abjad[i] === 1 || t.abjad[id] === 1 || t.abjad[next] === 1
        ? lengthsFit(
            q.skeletonFirst[i]!,
            q.skeletonLength[i]!,
            t.skeletonFirst[id]!,
            t.skeletonLength[id]! + t.skeletonLength[next]!,
          )
        : lengthsFit(q.first[i]!, q.length[i]!, t.first[id]!, t.length[id]! + t.length[next]!);
    const vocabulary = this.vocabulary.tokens;
    return fits && mergePossible(q.query!.tokens[i]!, vocabulary[id]!, vocabulary[next]!);
  }

  /** Candidate word `id` may be query tokens `i` and `i + 1` written together. */
  private pairIsWord(i: number, id: number): boolean {
    const { q, tokens: t } = this;
    const fits =
      t.abjad[id] === 1 || q.abjad[i] === 1 || q.abjad[i + 1] === 1
        ? lengthsFit(
            t.skeletonFirst[id]!,
            t.skeletonLength[id]!,
            q.skeletonFirst[i]!,
            q.skeletonLength[i]! + q.skeletonLength[i + 1]!,
          )
        : lengthsFit(t.first[id]!, t.length[id]!, q.first[i]!, q.length[i]! + q.length[i + 1]!);
    const queryTokens = q.query!.tokens;
    return fits && mergePossible(this.vocabulary.tokens[id]!, queryTokens[i]!, queryTokens[i + 1]!);
  }

  private raise(k: number): void {
    this.merges++;
    if (this.ceiling[k]! < MERGE_FACTOR) this.ceiling[k] = MERGE_FACTOR;
  }

  private raiseQuery(i: number): void {
    if (this.queryBest[i]! < MERGE_FACTOR) this.queryBest[i] = MERGE_FACTOR;
  }

  /** Every query word paired: candidate tokens paired best first while that raises the ratio. */
  private allPaired(numerator: number, denominator: number, m: number): number {
    const { order, ceiling, weight } = this;
    for (let k = 0; k < m; k++) {
      denominator += weight[k]! * UNMATCHED_CANDIDATE_WEIGHT;
      let at = k;
      while (at > 0 && ceiling[order[at - 1]!]! < ceiling[k]!) {
        order[at] = order[at - 1]!;
        at--;
      }
      order[at] = k;
    }
    const extra = 1 - UNMATCHED_CANDIDATE_WEIGHT;
    for (let r = 0; r < m; r++) {
      const s = ceiling[order[r]!]!;
      const w = weight[order[r]!]!;
      if (s <= 0 || (numerator + s * w) * denominator <= numerator * (denominator + extra * w)) break;
      numerator += s * w;
      denominator += extra * w;
    }
    return denominator === 0 ? 0 : Math.min(1, numerator / denominator);
  }

  /** Some query word unpaired: unpaired candidate tokens weigh more, so pairing any token helps. */
  private someUnpaired(numerator: number, denominator: number, m: number): number {
    for (let k = 0; k < m; k++) {
      const s = this.ceiling[k]!;
      const w = this.weight[k]!;
      if (s >= MIN_PAIR_SIMILARITY) {
        numerator += s * w;
        denominator += w;
      } else {
        denominator += w * CONFLICT_CANDIDATE_WEIGHT;
      }
    }
    return denominator === 0 ? 0 : Math.min(1, numerator / denominator);
  }
}

/** Same first letter and lengths at most one apart: the cheap part of `mergePossible`. */
function lengthsFit(singleFirst: number, singleLength: number, first: number, joinedLength: number): boolean {
  return singleLength > 0 && singleFirst === first && Math.abs(singleLength - joinedLength) <= 1;
}
