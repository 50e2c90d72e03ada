import { MIN_ANCHOR_SIMILARITY } from './anchors.js';
import type { PreparedToken } from './prepared.js';
import type { QueryTokenProbes } from './prepared-query.js';
import { anchoredWordSimilarity } from './token-similarity.js';
import type { Vocabulary } from './vocabulary.js';

/** The index tokens anchored to one query token, in the order its probes find them, with their similarity to it. */
export interface TokenExpansion {
  readonly ids: Int32Array;
  readonly similarities: Float64Array;
}

/**
 * Expansions of the most recently searched query tokens. Finding the index tokens anchored to a
 * query token (its 30-90 probe keys) and their Jaro-Winkler similarities costs more than walking
 * the names they lead to for most searches, and the same words come back query after query
 * (MOHAMMED, ALI, TRADING): at 2,048 tokens per index the cache holds at most a few MB.
 */
export const CACHED_TOKENS = 2048;

export class TokenExpansions {
  private readonly cache = new Map<string, TokenExpansion>();
  private generation = 0;
  /** Per index token: the generation of the expansion that last found it (deduplicates across probes). */
  private seen = new Int32Array(0);
  /** The vocabulary's size when the cache was last emptied: tokens added since are in no cached expansion. */
  private cachedFor = 0;
  private readonly found: number[] = [];
  /** The similarities of the found tokens kept, in order (reused between expansions). */
  private readonly kept: number[] = [];

  /** `cachedTokens`: how many query tokens' expansions are kept, the most recently used. */
  constructor(
    private readonly vocabulary: Vocabulary,
    private readonly cachedTokens = CACHED_TOKENS,
  ) {}

  /** The expansion of query token `token`, whose anchor probe keys are `probes`. */
  of(token: PreparedToken, probes: QueryTokenProbes): TokenExpansion {
    const size = this.vocabulary.tokens.length;
    if (size !== this.cachedFor) {
      this.cache.clear();
      this.cachedFor = size;
      if (this.seen.length < size) this.seen = new Int32Array(size + (size >> 2));
    }
    // Everything an expansion depends on follows from these three (see makeToken).
    const key = `${token.cls}|${token.abjad ? 1 : 0}|${token.text}`;
    const known = this.cache.get(key);
    if (known) {
      this.cache.delete(key);
      this.cache.set(key, known);
      return known;
    }
    const expansion = this.expand(token, probes);
    this.cache.set(key, expansion);
    if (this.cache.size > this.cachedTokens) this.cache.delete(this.cache.keys().next().value!);
    return expansion;
  }

  private expand(token: PreparedToken, probes: QueryTokenProbes): TokenExpansion {
    const { seen, found } = this;
    const { postings, tokens, codes } = this.vocabulary;
    const generation = ++this.generation;
    found.length = 0;
    const keys = probes.keysFor(this.vocabulary.longestAnchoring);
    for (let k = 0; k < keys.ends.length; k++) {
      for (let entry = postings.firstPacked(keys, k); entry >= 0; entry = postings.next(entry)) {
        const id = postings.idAt(entry);
        if (seen[id] === generation) continue;
        seen[id] = generation;
        found.push(id);
      }
    }
    // Tokens that share a key but are too unlike to be paired are no anchor (anchors.ts).
    const kept = this.kept;
    kept.length = 0;
    for (const id of found) {
      const similarity = anchoredWordSimilarity(token, codes, tokens, id);
      if (similarity < MIN_ANCHOR_SIMILARITY) continue;
      found[kept.length] = id;
      kept.push(similarity);
    }
    found.length = kept.length;
    return { ids: Int32Array.from(found), similarities: Float64Array.from(kept) };
  }
}
