import { QuerySimilarityCache } from './query-cache.js';
import { CACHED_TOKENS, TokenExpansions } from './token-expansions.js';
import { OriginalVocabulary, Vocabulary } from './vocabulary.js';

/**
 * One vocabulary for several indexes (the service's one index per list), with the work a search
 * does per query token rather than per name: the index tokens anchored to it and their
 * similarities (`expansions`) and the per-search similarity cache. The seven lists' indexes hold
 * mostly the same words (MOHAMMED, ALI, TRADING), so a screening expands each query token once
 * for all of them instead of once per index, and each word's anchor keys are posted once.
 *
 * The vocabulary only grows: an index built later adds its new tokens, and indexes built before
 * skip ids beyond the vocabulary they were built with (none of their names holds them). A growth
 * empties the expansion cache, since a cached expansion would lack the new tokens. Tokens of list
 * versions no longer in service stay (each update adds only the words new to it); a restart
 * starts afresh.
 */
export class SharedVocabulary {
  readonly vocabulary = new Vocabulary();
  readonly expansions: TokenExpansions;
  readonly similarities = new QuerySimilarityCache(this.vocabulary.tokens, 'transliterated');
  /** Original-script words, and their similarities to the query's (same-script names are scored on them). */
  readonly originals = new OriginalVocabulary();
  readonly originalSimilarities = new QuerySimilarityCache(this.originals.tokens, 'original');

  /**
   * `cachedExpansions`: the query tokens whose expansions are kept (the most recently used). An
   * index searched with many more distinct words than its own (a list change's few records against
   * every monitored name) keeps more: each word is then expanded once.
   */
  constructor(cachedExpansions = CACHED_TOKENS) {
    this.expansions = new TokenExpansions(this.vocabulary, cachedExpansions);
  }
}
