import { canAnchor, isMergeable, postAnchorKeys } from './anchors.js';
import { KeyPostings } from './key-postings.js';
import { makeToken, type OriginalTokenFactory, type TokenFactory } from './prepare.js';
import type { PreparedToken, TokenClass } from './prepared.js';
import { TokenCodes } from './token-codes.js';

/**
 * The distinct tokens of an index. Every name refers to shared token objects, so a corpus of a
 * million names built from a hundred thousand distinct words stores each word, its code points and
 * its anchor keys once, and per-query similarity caches are indexed by token id.
 */
export class Vocabulary {
  readonly tokens: PreparedToken[] = [];
  private readonly byIdentity = new Map<string, number>();
  /** Anchor key -> ids of the tokens posted under it. */
  readonly postings = new KeyPostings();
  /** Text -> ids of mergeable tokens with that text (for merged-token retrieval). */
  readonly mergeableByText = new Map<string, number[]>();
  /** Text -> ids of every token with that text (identical tokens score 1 whatever their class). */
  readonly idsByText = new Map<string, number[]>();
  /** Every token's code points and skeleton, flat (token-codes.ts). */
  readonly codes = new TokenCodes();
  /** The length of the longest token posted under anchor keys (see `QueryTokenProbes.keysFor`). */
  longestAnchoring = 0;

  readonly factory: TokenFactory = (text: string, cls: TokenClass, abjad: boolean) => {
    const identity = `${cls}|${abjad ? 1 : 0}|${text}`;
    const known = this.byIdentity.get(identity);
    if (known !== undefined) return this.tokens[known]!;
    const token = makeToken(text, cls, abjad, this.tokens.length);
    this.byIdentity.set(identity, token.id);
    this.tokens.push(token);
    this.register(token);
    return token;
  };

  private register(token: PreparedToken): void {
    this.codes.add(token);
    const same = this.idsByText.get(token.text);
    if (same) same.push(token.id);
    else this.idsByText.set(token.text, [token.id]);
    if (canAnchor(token)) {
      postAnchorKeys(token, this.postings);
      this.longestAnchoring = Math.max(this.longestAnchoring, token.text.length);
    }
    if (isMergeable(token)) {
      const ids = this.mergeableByText.get(token.text);
      if (ids) ids.push(token.id);
      else this.mergeableByText.set(token.text, [token.id]);
    }
  }
}

/**
 * The distinct words of names' original-script forms (`محمد`, `Иван`), apart from the
 * transliterated vocabulary: they are no anchors, but two names in the same script are scored on
 * them, and with ids a search computes each query word's similarity to each of them once
 * (query-cache.ts) however many names hold it.
 */
export class OriginalVocabulary {
  readonly tokens: PreparedToken[] = [];
  private readonly byText = new Map<string, number>();

  readonly factory: OriginalTokenFactory = (text: string) => {
    const known = this.byText.get(text);
    if (known !== undefined) return this.tokens[known]!;
    const token = makeToken(text, 'word', false, this.tokens.length);
    this.byText.set(text, token.id);
    this.tokens.push(token);
    return token;
  };
}
