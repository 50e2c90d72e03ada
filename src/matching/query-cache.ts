import { MAX_TOKENS } from './prepare.js';
import type { PreparedName, PreparedToken } from './prepared.js';
import { tokenSimilarity } from './token-similarity.js';

/** Anchors of the current search, as the candidate collector knows them. */
export interface AnchorLookup {
  isAnchored(tokenId: number, queryIndex: number): boolean;
}

/**
 * Similarity of each query token to each index token, computed once per search: candidates share
 * tokens (thousands of names contain MOHAMMED), so most pair similarities are cache hits. One
 * cache serves the transliterated tokens (their anchors from the search's collector), another the
 * original-script words, which are compared as anchored pairs (name-score.ts).
 */
export class QuerySimilarityCache {
  private generation = 0;
  private stamp = new Int32Array(0);
  private values = new Float64Array(0);
  private query: PreparedName | null = null;

  /**
   * `tokens`: the vocabulary's tokens, which may grow between searches (shared-vocabulary.ts);
   * `form`: which of the query's token lists they are compared with.
   */
  constructor(
    private readonly tokens: readonly PreparedToken[],
    private readonly form: 'transliterated' | 'original',
  ) {}

  /**
   * Starts a search for `query`. The values are the same whichever index of a shared vocabulary
   * asks (a pair's similarity and anchor depend on the two tokens alone), so the searches of one
   * query in every list's index keep them: only another query starts afresh.
   */
  reset(query: PreparedName): void {
    const need = this.tokens.length * MAX_TOKENS;
    if (this.stamp.length < need) {
      // A quarter more than needed, so that a vocabulary growing by a few words does not reallocate each time.
      this.stamp = new Int32Array(need + (need >> 2));
      this.values = new Float64Array(this.stamp.length);
    } else if (query === this.query) return;
    this.generation++;
    this.query = query;
  }

  /** Records a similarity computed elsewhere (token-expansions.ts) for this search. */
  store(queryIndex: number, tokenId: number, value: number): void {
    const slot = tokenId * MAX_TOKENS + queryIndex;
    this.stamp[slot] = this.generation;
    this.values[slot] = value;
  }

  /**
   * By token id: most calls are hits, and a hit then reads no token object. `anchors` says which
   * pairs are anchored; original-script words are compared as anchored pairs (null).
   */
  similarity(queryIndex: number, tokenId: number, anchors: AnchorLookup | null): number {
    const slot = tokenId * MAX_TOKENS + queryIndex;
    if (this.stamp[slot] === this.generation) return this.values[slot]!;
    const query = this.query!;
    const value = tokenSimilarity(
      (this.form === 'original' ? query.original : query.tokens)[queryIndex]!,
      this.tokens[tokenId]!,
      anchors === null || anchors.isAnchored(tokenId, queryIndex),
    );
    this.stamp[slot] = this.generation;
    this.values[slot] = value;
    return value;
  }
}
