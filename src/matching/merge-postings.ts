import { isMergeable } from './anchors.js';
import type { PreparedName, PreparedToken } from './prepared.js';
import { grown } from './typed-arrays.js';

/**
 * The names holding a form that may be a merge of a query's words: a name word that may be two
 * adjacent query tokens written together, or two adjacent name tokens that one query word may be
 * written together (`BINLADEN` / `BIN LADIN`). The name ceiling needs, for each retrieved name,
 * which query tokens such a merge relates to it without an anchor; testing every retrieved name's
 * merge keys cost a few cache misses per name, thousands of names per query, and found a merge
 * for one name in twenty. Looking the query's forms up here finds the same merges for a few dozen
 * lookups per query.
 *
 * A merge needs the two forms within one edit with the same first letter (`mergePossible`; an edit
 * inserts, deletes or replaces one letter, or swaps two adjacent ones). An edit leaves the letters
 * before it in place counted from the start and those after it counted from the end, and touches
 * at most two adjacent positions, so two such forms have the same first letter, lengths at most
 * one apart and, when the longer has six letters or more, the same first three or the same last
 * two letters; with four or five, the same second or the same last letter; with three or fewer,
 * nothing more (two forms of three letters can be one swap apart: ACE / AEC). Each form is posted
 * under a key of each kind its length can take part in (first letter and length, plus those
 * letters); a query form probes, for each length one apart from its own, the kind that pair of
 * lengths calls for, so every form within one edit of it is found (test: one-edit.test.ts), along
 * with some that are not, which only makes the ceiling looser.
 *
 * Names compare merges on consonant skeletons when the query or the name is from an abjad script,
 * else on the text (name-ceiling.ts): text forms are posted for the other names, skeleton forms for
 * every name, in two spaces (abjad names, which every query probes, and the others, which only an
 * abjad query probes).
 */

/** Which forms: a name's mergeable adjacent pairs (a query word may be one) or its words (two query tokens may be one). */
export const PAIR_FORMS = 0;
export const WORD_FORMS = 1;
/** Where: the text of non-abjad names, the skeletons of abjad names, the skeletons of the others. */
export const TEXT_SPACE = 0;
export const ABJAD_SKELETON_SPACE = 1;
export const PLAIN_SKELETON_SPACE = 2;

/** Key kinds: first letter and length; with the second letter; with the last; with the first three; with the last two. */
const FIRST = 0;
const SECOND = 1;
const LAST = 2;
const FIRST_THREE = 3;
const LAST_TWO = 4;
const LETTER = 31;

/** Up to six keys per query form (three lengths, two kinds each); at most five per posted form. */
export const MAX_PROBES = 6;

function letterIndex(code: number): number {
  return code >= 65 && code <= 90 ? code - 65 : 26;
}

/**
 * A form's merge key (a token's, or two adjacent tokens' joined): its first, second, third, last
 * and second-to-last letters (A-Z as 0-25, anything else 26, none 31) and its length (at most 63)
 * packed in one non-negative integer, or -1 when empty: what the posting keys are made of.
 */
export function mergeKey(a: Int32Array, b?: Int32Array): number {
  const length = a.length + (b ? b.length : 0);
  if (a.length === 0) return -1;
  return (
    letterIndex(a[0]!) |
    (letterAt(a, b, 1, length) << 5) |
    (letterAt(a, b, 2, length) << 10) |
    (letterAt(a, b, length - 1, length) << 15) |
    (letterAt(a, b, length - 2, length) << 20) |
    (Math.min(length, 63) << 25)
  );
}

/** Letter `k` of `a` and `b` written together (31 when there is none). */
function letterAt(a: Int32Array, b: Int32Array | undefined, k: number, length: number): number {
  if (k < 0 || k >= length) return 31;
  return letterIndex(k < a.length ? a[k]! : b![k - a.length]!);
}

function key(kind: number, first: number, length: number, a: number, b: number): number {
  return kind | (first << 3) | (length << 8) | (a << 14) | (b << 19);
}

function family(forms: number, space: number): number {
  return (forms | (space << 1)) << 24;
}

/** The keys form `x` (its merge key) is posted under; returns how many were written to `out`. */
export function postedKeys(x: number, out: Int32Array): number {
  const length = x >>> 25;
  const first = x & LETTER;
  const second = (x >> 5) & LETTER;
  const last = (x >> 15) & LETTER;
  let n = 0;
  if (length <= 4) out[n++] = key(FIRST, first, length, 0, 0);
  if (length >= 3 && length <= 5) {
    out[n++] = key(SECOND, first, length, second, 0);
    out[n++] = key(LAST, first, length, last, 0);
  }
  if (length >= 5) {
    out[n++] = key(FIRST_THREE, first, length, second, (x >> 10) & LETTER);
    out[n++] = key(LAST_TWO, first, length, last, (x >> 20) & LETTER);
  }
  return n;
}

/** The keys a form within one edit of `y` is posted under, some of them (see above); returns how many. */
export function probedKeys(y: number, out: Int32Array): number {
  if (y < 0) return 0;
  const ly = y >>> 25;
  const first = y & LETTER;
  const second = (y >> 5) & LETTER;
  const last = (y >> 15) & LETTER;
  let n = 0;
  for (let length = ly - 1; length <= ly + 1; length++) {
    if (length < 1 || length > 63) continue;
    if (length < 3 || ly < 3 || (length === 3 && ly === 3)) out[n++] = key(FIRST, first, length, 0, 0);
    else if (length < 6 && ly < 6) {
      out[n++] = key(SECOND, first, length, second, 0);
      out[n++] = key(LAST, first, length, last, 0);
    } else {
      out[n++] = key(FIRST_THREE, first, length, second, (y >> 10) & LETTER);
      out[n++] = key(LAST_TWO, first, length, last, (y >> 20) & LETTER);
    }
  }
  return n;
}

/** Slots at most half full: a lookup ends after a slot or two. */
const SLOTS_PER_KEY = 2;

export class MergePostings {
  private constructor(
    /** Open addressing with linear probing: slot -> key number + 1 (0: empty). */
    private readonly slots: Int32Array,
    private readonly keys: Int32Array,
    /** Key k's names are names[start[k] .. start[k + 1]), ascending, once per posted form. */
    private readonly start: Int32Array,
    readonly names: Int32Array,
  ) {}

  /** Posts the pair and word forms, in name order, of the names `posted` accepts (an index posts one name per form, name-forms.ts). */
  static build(
    prepared: readonly PreparedName[],
    posted: (name: number) => boolean = () => true,
  ): MergePostings {
    // Two passes over the same keys: count per key, then place each name; no list of pairs kept.
    const table = new KeyTable();
    const wordKeys = new WordKeys();
    forEachPosting(prepared, posted, wordKeys, (k) => table.count(k));
    const { slots, keys, counts } = table;
    const start = new Int32Array(table.size + 1);
    for (let k = 0; k < table.size; k++) start[k + 1] = start[k]! + counts[k]!;
    const filled = start.slice(0, table.size);
    const names = new Int32Array(start[table.size]!);
    const mask = slots.length - 1;
    forEachPosting(prepared, posted, wordKeys, (k, name) => {
      names[filled[findKey(slots, keys, mask, k)]!++] = name;
    });
    return new MergePostings(slots, keys.slice(0, table.size), start, names);
  }

  /** The number of key `k`, or -1 when no form is posted under it. */
  find(forms: number, space: number, k: number): number {
    return findKey(this.slots, this.keys, this.slots.length - 1, family(forms, space) | k);
  }

  startOf(k: number): number {
    return this.start[k]!;
  }

  endOf(k: number): number {
    return this.start[k + 1]!;
  }
}

function hashKey(k: number): number {
  return Math.imul(k, 0x9e3779b1) >>> 7;
}

/** The slot holding key `k` (slots hold key number + 1), or the empty slot where it would go. */
function slotOf(slots: Int32Array, keys: Int32Array, mask: number, k: number): number {
  let slot = hashKey(k) & mask;
  for (let held = slots[slot]!; held !== 0 && keys[held - 1] !== k; held = slots[slot]!)
    slot = (slot + 1) & mask;
  return slot;
}

function findKey(slots: Int32Array, keys: Int32Array, mask: number, k: number): number {
  return slots[slotOf(slots, keys, mask, k)]! - 1;
}

const scratch = new Int32Array(MAX_PROBES);

/** A word's merge keys (text and skeleton) by token id: a word is in many names, its keys are computed once. */
class WordKeys {
  private text = new Int32Array(0);
  private skeleton = new Int32Array(0);
  private known = new Uint8Array(0);

  /** Token `token`'s key, of its skeleton when `skeleton` (an index's tokens are interned: ids from 0). */
  of(token: PreparedToken, skeleton: boolean): number {
    const id = token.id;
    if (id >= this.known.length) this.grow(id);
    if (this.known[id] === 0) {
      this.text[id] = mergeKey(token.codes);
      this.skeleton[id] = mergeKey(token.skeleton);
      this.known[id] = 1;
    }
    return skeleton ? this.skeleton[id]! : this.text[id]!;
  }

  private grow(id: number): void {
    const length = Math.max(1024, (id + 1) * 2);
    this.known = grown(this.known, length);
    this.text = grown(this.text, length);
    this.skeleton = grown(this.skeleton, length);
  }
}

/** Calls `post(key, name)` for every key a form of every name is posted under (with its family). */
function forEachPosting(
  prepared: readonly PreparedName[],
  posted: (name: number) => boolean,
  wordKeys: WordKeys,
  post: (k: number, name: number) => void,
): void {
  prepared.forEach((p, name) => {
    if (!posted(name)) return;
    // A name's tokens are all abjad or none; abjad names compare merges on skeletons only.
    const abjad = p.tokens.some((t) => t.abjad);
    const skeletonSpace = abjad ? ABJAD_SKELETON_SPACE : PLAIN_SKELETON_SPACE;
    p.tokens.forEach((t, k) => {
      const next = p.tokens[k + 1];
      const pair = next !== undefined && isMergeable(t) && isMergeable(next);
      if (t.cls === 'word') {
        postKeys(WORD_FORMS, skeletonSpace, wordKeys.of(t, true), name, post);
        if (!abjad) postKeys(WORD_FORMS, TEXT_SPACE, wordKeys.of(t, false), name, post);
      }
      if (pair) {
        postKeys(PAIR_FORMS, skeletonSpace, mergeKey(t.skeleton, next.skeleton), name, post);
        if (!abjad) postKeys(PAIR_FORMS, TEXT_SPACE, mergeKey(t.codes, next.codes), name, post);
      }
    });
  });
}

function postKeys(
  forms: number,
  space: number,
  x: number,
  name: number,
  post: (k: number, name: number) => void,
): void {
  if (x < 0) return;
  const n = postedKeys(x, scratch);
  for (let k = 0; k < n; k++) post(family(forms, space) | scratch[k]!, name);
}

/** Distinct keys with their number of postings: open addressing over typed arrays (tens of millions of counts). */
class KeyTable {
  slots = new Int32Array(1 << 12);
  keys = new Int32Array(1 << 10);
  counts = new Int32Array(1 << 10);
  size = 0;

  count(k: number): void {
    const slot = slotOf(this.slots, this.keys, this.slots.length - 1, k);
    const held = this.slots[slot]!;
    if (held !== 0) {
      this.counts[held - 1]!++;
      return;
    }
    if (this.size === this.keys.length) {
      this.keys = grown(this.keys, this.size + 1);
      this.counts = grown(this.counts, this.size + 1);
    }
    this.keys[this.size] = k;
    this.counts[this.size] = 1;
    this.size++;
    this.slots[slot] = this.size;
    if (this.size * SLOTS_PER_KEY > this.slots.length) this.rehash();
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    // The keys are distinct: each finds an empty slot.
    for (let n = 0; n < this.size; n++) slots[slotOf(slots, this.keys, mask, this.keys[n]!)] = n + 1;
    this.slots = slots;
  }
}
