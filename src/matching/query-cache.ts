import { MAX_TOKENS } from './prepare.js';
import type { PreparedName, PreparedToken } from './prepared.js';
import { tokenSimilarity } from './token-similarity.js';

/** Anchors of the current search, as the candidate collector knows them. */
export interface AnchorLookup {
  isAnchored(tokenId: number, queryIndex: number): boolean;
}

/**
 * Similarity of each query token to each index token, computed once per search: candidates share
 * tokens (thousands of names contain MOHAMMED), so most pair similarities are cache hits.
 */
export class QuerySimilarityCache {
  private generation = 0;
  private readonly stamp: Int32Array;
  private readonly values: Float64Array;
  private query: PreparedName | null = null;

  constructor(vocabularySize: number) {
    this.stamp = new Int32Array(vocabularySize * MAX_TOKENS);
    this.values = new Float64Array(vocabularySize * MAX_TOKENS);
  }

  reset(query: PreparedName): void {
    this.generation++;
    this.query = query;
  }

  /** Records a similarity computed elsewhere (token-expansions.ts) for this search. */
  store(queryIndex: number, tokenId: number, value: number): void {
    const slot = tokenId * MAX_TOKENS + queryIndex;
    this.stamp[slot] = this.generation;
    this.values[slot] = value;
  }

  similarity(queryIndex: number, token: PreparedToken, anchors: AnchorLookup): number {
    const slot = token.id * MAX_TOKENS + queryIndex;
    if (this.stamp[slot] === this.generation) return this.values[slot]!;
    const value = tokenSimilarity(
      this.query!.tokens[queryIndex]!,
      token,
      anchors.isAnchored(token.id, queryIndex),
    );
    this.stamp[slot] = this.generation;
    this.values[slot] = value;
    return value;
  }
}
