import { doubleMetaphone } from 'double-metaphone';
import { KEY_HASH_SEED, type KeyPostings, nextKeyHash, type PackedKeys } from './key-postings.js';
import type { PreparedName, PreparedToken } from './prepared.js';
import { grown } from './typed-arrays.js';

/**
 * Anchors. A name can only score above {@link ANCHOR_FREE_CAP} (just below the API's default
 * threshold 0.5) if at least one of its distinctive tokens is anchored to a query token: identical, in the same equivalence
 * group, within one deletion of each other (two for tokens of five letters or more), with the same Double Metaphone
 * code, with the same consonant skeleton across an abjad script, or equal to two adjacent tokens of
 * the other name written together. This is both a matching rule (two names that share nothing
 * nearly identical are not the same name) and the contract the index relies on: every anchor
 * relation is a shared key, so looking the query's keys up finds every name that can score that
 * high, and the index provably loses nothing a brute-force scan would find.
 *
 * Two tokens that share a key anchor only if they are also similar enough to be paired
 * ({@link MIN_ANCHOR_SIMILARITY}): a double deletion or a sound code can join words as unlike as
 * any (Jaro-Winkler 0.6 or less, similarity 0), and such a pair adds nothing to a score.
 */
export const ANCHOR_FREE_CAP = 0.49;

/**
 * The least token similarity of an anchor, and of any pair the alignment makes (alignment.ts):
 * a pair too unlike to be paired is no anchor either.
 */
export const MIN_ANCHOR_SIMILARITY = 0.05;

/** Deletion-neighbourhood keys are the remaining letters after this prefix. */
const DELETION_PREFIX = 'D:';
/**
 * A three-letter word is posted under itself as a deletion key, so that a four-letter word one
 * deletion away meets it (`JON` / `JONG`, `NOO` / `NOOH`); its own deletions would be two-letter
 * keys that half the vocabulary shares.
 */
const MIN_NEIGHBOURHOOD_LENGTH = 3;
const MIN_DELETION_LENGTH = 4;
const MIN_DOUBLE_DELETION_LENGTH = 5;
const MIN_PHONETIC_LENGTH = 3;
/**
 * Three-letter words are also posted under their letters in order, so that two letters swapped
 * (`SNO` / `SON`, `PKA` / `PAK`) anchor: no deletion key relates them at that length.
 */
const SWAP_KEY_LENGTH = 3;
const MIN_KEY_LENGTH = 2;

/** Keys a token is stored under (`post`) and looked up by (`probe`); anchored iff they intersect. */
export interface AnchorKeys {
  post: string[];
  probe: string[];
}

/**
 * Ordinary words of two letters or more anchor, and numbers (tokens with a digit: `11420`,
 * `SOURCE1HERBS`) of two characters or more, by identity only: a number pairs with nothing but
 * itself (token-similarity.ts), and without it a name made of numbers and legal forms (`11420
 * CORP.`) could not be found even by itself. Particles, legal forms and initials cannot anchor.
 */
export function canAnchor(token: PreparedToken): boolean {
  return (token.cls === 'word' || token.cls === 'number') && token.text.length >= MIN_KEY_LENGTH;
}

/**
 * Calls `visit` once per member of the deletion neighbourhood of `text` (tokens of three letters or
 * more): the text itself, from four letters each single deletion and, from five letters, each
 * double deletion, given as the positions left out (-1: none). A member can come twice (AAB
 * without either A is AB).
 */
function forEachDeletion(text: string, visit: (skip1: number, skip2: number) => void): void {
  if (text.length < MIN_NEIGHBOURHOOD_LENGTH) return;
  visit(-1, -1);
  if (text.length < MIN_DELETION_LENGTH) return;
  const double = text.length >= MIN_DOUBLE_DELETION_LENGTH;
  for (let i = 0; i < text.length; i++) {
    visit(i, -1);
    if (double) for (let j = i + 1; j < text.length; j++) visit(i, j);
  }
}

function without(text: string, skip1: number, skip2: number): string {
  if (skip1 < 0) return text;
  if (skip2 < 0) return text.slice(0, skip1) + text.slice(skip1 + 1);
  return text.slice(0, skip1) + text.slice(skip1 + 1, skip2) + text.slice(skip2 + 1);
}

/**
 * Whether a token of this length can share a deletion-neighbourhood key with a token no longer than
 * `longest`: its keys keep at least all but two of its letters, the other's at most all of them.
 * The neighbourhood of a token of n letters has n²/2 keys of up to n letters, so a long query token
 * (500 letters is a valid query) would otherwise cost seconds to probe for keys nothing is posted under.
 */
export function deletionsCanMeet(length: number, longest: number): boolean {
  return length <= longest + 2;
}

/**
 * The keys a token is both posted and looked up under, in order: identity, equivalence groups,
 * the deletion neighbourhood (given to `deletion` as positions left out, see forEachDeletion; left
 * out when `withDeletions` is false) and Double Metaphone codes.
 */
function eachSymmetricKey(
  token: PreparedToken,
  key: (key: string) => void,
  deletion: (skip1: number, skip2: number) => void,
  withDeletions = true,
): void {
  const text = token.text;
  key(`E:${text}`);
  if (token.cls === 'number') return;
  for (const group of token.groups) key(`G:${group}`);
  if (withDeletions) forEachDeletion(text, deletion);
  if (text.length === SWAP_KEY_LENGTH) key(`T:${[...text].sort().join('')}`);
  if (text.length >= MIN_PHONETIC_LENGTH && !token.abjad) {
    for (const code of doubleMetaphone(text)) if (code.length >= MIN_KEY_LENGTH) key(`P:${code}`);
  }
}

/**
 * Skeleton keys. One-consonant skeletons count too: Arabic `علي` transliterates to LY, whose
 * skeleton L is all there is to compare with ALI. Skeletons only relate an abjad token to another
 * token: two Latin spellings with the same consonants (MOSULI, MASALA) are not an anchor.
 */
function skeletonKeys(token: PreparedToken): AnchorKeys {
  if (token.skeleton.length === 0 || token.cls === 'number') return { post: [], probe: [] };
  const skeleton = String.fromCodePoint(...token.skeleton);
  return token.abjad
    ? { post: [`S:${skeleton}`, `A:${skeleton}`], probe: [`S:${skeleton}`] }
    : { post: [`S:${skeleton}`], probe: [`A:${skeleton}`] };
}

/** The anchor keys of one token (empty for tokens that cannot anchor). */
export function anchorKeys(token: PreparedToken): AnchorKeys {
  if (!canAnchor(token)) return { post: [], probe: [] };
  const common = new Set<string>();
  eachSymmetricKey(
    token,
    (key) => common.add(key),
    (skip1, skip2) => common.add(DELETION_PREFIX + without(token.text, skip1, skip2)),
  );
  const skeleton = skeletonKeys(token);
  return { post: [...common, ...skeleton.post], probe: [...common, ...skeleton.probe] };
}

/**
 * A query token's `anchorKeys(token).probe`, packed and hashed for `KeyPostings.firstPacked`
 * without building the deletion keys as strings; a key may come twice (which finds nothing new).
 * Without the deletion keys when `withDeletions` is false (see `deletionsCanMeet`).
 */
export function packedProbeKeys(token: PreparedToken, withDeletions = true): PackedKeys {
  const packer = probePacker;
  packer.reset();
  if (canAnchor(token)) {
    const text = token.text;
    eachSymmetricKey(
      token,
      (key) => packer.key(key),
      (skip1, skip2) => {
        packer.text(DELETION_PREFIX, -1, -1);
        packer.text(text, skip1, skip2);
        packer.end();
      },
      withDeletions,
    );
    for (const probe of skeletonKeys(token).probe) packer.key(probe);
  }
  return packer.packed();
}

/** Packs keys into reused buffers (a query token has dozens of keys), copied out once at the end. */
class KeyPacker {
  private chars = new Uint16Array(1024);
  private ends = new Int32Array(128);
  private hashes = new Int32Array(128);
  private charCount = 0;
  private keyCount = 0;
  private hash = KEY_HASH_SEED;

  reset(): void {
    this.charCount = 0;
    this.keyCount = 0;
    this.hash = KEY_HASH_SEED;
  }

  /** Adds `text` without its characters at `skip1` and `skip2` (-1: none) to the current key. */
  text(text: string, skip1: number, skip2: number): void {
    if (this.charCount + text.length > this.chars.length)
      this.chars = grown(this.chars, this.charCount + text.length);
    let hash = this.hash;
    for (let i = 0; i < text.length; i++) {
      if (i === skip1 || i === skip2) continue;
      const code = text.charCodeAt(i);
      this.chars[this.charCount++] = code;
      hash = nextKeyHash(hash, code);
    }
    this.hash = hash;
  }

  end(): void {
    if (this.keyCount === this.ends.length) {
      this.ends = grown(this.ends, this.keyCount + 1);
      this.hashes = grown(this.hashes, this.keyCount + 1);
    }
    this.ends[this.keyCount] = this.charCount;
    this.hashes[this.keyCount] = this.hash | 0;
    this.keyCount++;
    this.hash = KEY_HASH_SEED;
  }

  key(text: string): void {
    this.text(text, -1, -1);
    this.end();
  }

  packed(): PackedKeys {
    return {
      chars: this.chars.slice(0, this.charCount),
      ends: this.ends.slice(0, this.keyCount),
      hashes: this.hashes.slice(0, this.keyCount),
    };
  }
}

const probePacker = new KeyPacker();

/** Posts a token under its `anchorKeys(token).post`, without building the deletion keys as strings. */
export function postAnchorKeys(token: PreparedToken, postings: KeyPostings): void {
  if (!canAnchor(token)) return;
  const id = token.id;
  eachSymmetricKey(
    token,
    (key) => postings.add(key, id),
    (skip1, skip2) => postings.addWithout(DELETION_PREFIX, token.text, skip1, skip2, id),
  );
  for (const key of skeletonKeys(token).post) postings.add(key, id);
}

/** Whether two tokens are anchored to each other (symmetric). */
export function tokensAnchored(a: AnchorKeys, b: AnchorKeys): boolean {
  if (a.probe.length === 0 || b.post.length === 0) return false;
  const posted = new Set(b.post);
  return a.probe.some((k) => posted.has(k));
}

/** Concatenations of adjacent mergeable tokens (`AL QAIDA` -> `ALQAIDA`), with their start index. */
export function adjacentConcatenations(tokens: readonly PreparedToken[]): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [a, b] = [tokens[i]!, tokens[i + 1]!];
    if (isMergeable(a) && isMergeable(b)) out.push({ text: a.text + b.text, start: i });
  }
  return out;
}

export function isMergeable(token: PreparedToken): boolean {
  return token.cls === 'word' || token.cls === 'particle' || token.cls === 'initial';
}

/** Whether some token of one name equals two adjacent tokens of the other written together. */
export function mergeAnchored(a: PreparedName, b: PreparedName): boolean {
  const textsOf = (n: PreparedName) => new Set(n.tokens.filter(canAnchor).map((t) => t.text));
  const [aTexts, bTexts] = [textsOf(a), textsOf(b)];
  return (
    adjacentConcatenations(a.tokens).some((c) => bTexts.has(c.text)) ||
    adjacentConcatenations(b.tokens).some((c) => aTexts.has(c.text))
  );
}
