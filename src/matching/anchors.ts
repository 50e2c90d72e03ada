import { doubleMetaphone } from 'double-metaphone';
import type { PreparedName, PreparedToken } from './prepared.js';

/**
 * Anchors. A name can only score above {@link ANCHOR_FREE_CAP} (just below the API's default
 * threshold 0.5) if at least one of its distinctive tokens is anchored to a query token: identical, in the same equivalence
 * group, within one deletion of each other (two for tokens of five letters or more), with the same Double Metaphone
 * code, with the same consonant skeleton across an abjad script, or equal to two adjacent tokens of
 * the other name written together. This is both a matching rule (two names that share nothing
 * nearly identical are not the same name) and the contract the index relies on: every anchor
 * relation is a shared key, so looking the query's keys up finds every name that can score that
 * high, and the index provably loses nothing a brute-force scan would find.
 */
export const ANCHOR_FREE_CAP = 0.49;

const MIN_DELETION_LENGTH = 4;
const MIN_DOUBLE_DELETION_LENGTH = 5;
const MIN_PHONETIC_LENGTH = 3;
const MIN_KEY_LENGTH = 2;

/** Keys a token is stored under (`post`) and looked up by (`probe`); anchored iff they intersect. */
export interface AnchorKeys {
  post: string[];
  probe: string[];
}

/** Only ordinary words of two letters or more can anchor: particles, legal forms, numbers, initials cannot. */
export function canAnchor(token: PreparedToken): boolean {
  return token.cls === 'word' && token.text.length >= MIN_KEY_LENGTH;
}

function deletions(text: string, out: Set<string>): void {
  for (let i = 0; i < text.length; i++) out.add(text.slice(0, i) + text.slice(i + 1));
}

function symmetricKeys(token: PreparedToken): Set<string> {
  const keys = new Set<string>([`E:${token.text}`]);
  for (const group of token.groups) keys.add(`G:${group}`);
  const text = token.text;
  if (text.length >= MIN_DELETION_LENGTH) {
    const once = new Set<string>([text]);
    deletions(text, once);
    if (text.length >= MIN_DOUBLE_DELETION_LENGTH)
      for (const d of [...once]) if (d !== text) deletions(d, once);
    for (const d of once) keys.add(`D:${d}`);
  }
  if (text.length >= MIN_PHONETIC_LENGTH && !token.abjad) {
    for (const code of doubleMetaphone(text)) if (code.length >= MIN_KEY_LENGTH) keys.add(`P:${code}`);
  }
  return keys;
}

/** The anchor keys of one token (empty for tokens that cannot anchor). */
export function anchorKeys(token: PreparedToken): AnchorKeys {
  if (!canAnchor(token)) return { post: [], probe: [] };
  const common = symmetricKeys(token);
  const post = [...common];
  const probe = [...common];
  const skeleton = String.fromCodePoint(...token.skeleton);
  // One-consonant skeletons count too: Arabic `علي` transliterates to LY, whose skeleton L is all
  // there is to compare with ALI.
  if (skeleton.length >= 1) {
    // Skeletons only relate an abjad token to another token: two Latin spellings with the same
    // consonants (MOSULI, MASALA) are not an anchor.
    post.push(`S:${skeleton}`);
    if (token.abjad) {
      post.push(`A:${skeleton}`);
      probe.push(`S:${skeleton}`);
    } else {
      probe.push(`A:${skeleton}`);
    }
  }
  return { post, probe };
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
