import { grown } from './typed-arrays.js';

/**
 * Anchor key -> ids of the tokens posted under it, in the order they were added.
 *
 * A vocabulary posts every token under its deletion neighbourhood, phonetic codes and skeletons:
 * about ten keys per token, nine in ten of them held by one token only. A `Map<string, number[]>`
 * pays a string, a map entry and an array per key; here the keys' characters sit in one array, and
 * keys, slots and posted ids in typed arrays: a third of the memory, and nothing for the garbage
 * collector to trace. Lookups compare the stored characters, so the result is exact: the same ids
 * as the map would give.
 */
export class KeyPostings {
  /** Open addressing with linear probing: slot -> key number + 1 (0: empty). */
  private slots = new Int32Array(1 << 12);
  private keyHash = new Int32Array(1 << 10);
  private keyStart = new Int32Array(1 << 10);
  /** First and last entry of each key's chain. */
  private keyHead = new Int32Array(1 << 10);
  private keyTail = new Int32Array(1 << 10);
  private keyCount = 0;
  /** The characters of every key, one after the other; key k spans keyStart[k]..keyStart[k + 1]. */
  private chars = new Uint16Array(1 << 14);
  private charCount = 0;
  private entryId = new Int32Array(1 << 12);
  private entryNext = new Int32Array(1 << 12);
  private entryCount = 0;
  /** `entryCount` when `compact` last laid the entries out. */
  private compactedEntries = 0;
  /** The key being added or looked up, as UTF-16 code units. */
  private scratch = new Uint16Array(64);

  /** The number of distinct keys. */
  get size(): number {
    return this.keyCount;
  }

  /** Posts `id` under `key`, after the ids already posted there; posting the last id again does nothing. */
  add(key: string, id: number): void {
    const scratch = this.scratchFor(key.length);
    for (let i = 0; i < key.length; i++) scratch[i] = key.charCodeAt(i);
    this.addScratch(key.length, id);
  }

  /**
   * `add(prefix + text without its characters at positions skip1 and skip2 (-1: none), id)`
   * without building that string: a token's deletion neighbourhood is 30 to 60 keys.
   */
  addWithout(prefix: string, text: string, skip1: number, skip2: number, id: number): void {
    const scratch = this.scratchFor(prefix.length + text.length);
    let length = 0;
    for (let i = 0; i < prefix.length; i++) scratch[length++] = prefix.charCodeAt(i);
    for (let i = 0; i < text.length; i++)
      if (i !== skip1 && i !== skip2) scratch[length++] = text.charCodeAt(i);
    this.addScratch(length, id);
  }

  private addScratch(length: number, id: number): void {
    const hash = this.hashScratch(length);
    let k = this.find(this.scratch, 0, length, hash);
    if (k < 0) k = this.insertKey(length, hash);
    const tail = this.keyTail[k]!;
    if (tail >= 0 && this.entryId[tail] === id) return;
    const entry = this.newEntry(id);
    if (tail < 0) this.keyHead[k] = entry;
    else this.entryNext[tail] = entry;
    this.keyTail[k] = entry;
  }

  /** The first entry posted under `key`, or -1; walk on with `next` and read ids with `idAt`. */
  first(key: string): number {
    const scratch = this.scratchFor(key.length);
    for (let i = 0; i < key.length; i++) scratch[i] = key.charCodeAt(i);
    const k = this.find(scratch, 0, key.length, this.hashScratch(key.length));
    return k < 0 ? -1 : this.keyHead[k]!;
  }

  /**
   * `first` for key `k` of a packed key list, whose characters and hash are read as they are: a
   * query's probe keys are packed and hashed once and looked up in every index.
   */
  firstPacked(keys: PackedKeys, k: number): number {
    const start = k === 0 ? 0 : keys.ends[k - 1]!;
    const found = this.find(keys.chars, start, keys.ends[k]! - start, keys.hashes[k]!);
    return found < 0 ? -1 : this.keyHead[found]!;
  }

  next(entry: number): number {
    return this.entryNext[entry]!;
  }

  idAt(entry: number): number {
    return this.entryId[entry]!;
  }

  /** The ids posted under `key` (a copy: for tests and tools, not for the search path). */
  ids(key: string): number[] {
    const out: number[] = [];
    for (let e = this.first(key); e >= 0; e = this.next(e)) out.push(this.idAt(e));
    return out;
  }

  /**
   * Lays every key's entries out side by side, in key order. Entries are appended as tokens come,
   * so a key's chain is scattered across the whole entry table and walking it costs a cache miss
   * per entry (a query word's expansion walks hundreds of entries: a token close to it shares most
   * of its deletion keys); after this, a chain is read in one run. Ids and their order under each
   * key are unchanged; entries added later are appended and linked as before. Does nothing when
   * nothing was added since the last call.
   */
  compact(): void {
    if (this.entryCount === this.compactedEntries) return;
    const entryId = new Int32Array(this.entryId.length);
    const entryNext = new Int32Array(this.entryNext.length);
    let at = 0;
    for (let k = 0; k < this.keyCount; k++) {
      let entry = this.keyHead[k]!;
      if (entry < 0) continue;
      this.keyHead[k] = at;
      for (; entry >= 0; entry = this.entryNext[entry]!) {
        entryId[at] = this.entryId[entry]!;
        entryNext[at] = at + 1;
        at++;
      }
      entryNext[at - 1] = -1;
      this.keyTail[k] = at - 1;
    }
    this.entryId = entryId;
    this.entryNext = entryNext;
    this.compactedEntries = this.entryCount;
  }

  /** The key number of the key at `source[from .. from + length)` with hash `hash`, or -1. */
  private find(source: Uint16Array, from: number, length: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === 0) return -1;
      const k = held - 1;
      if (this.keyHash[k] === hash && this.keyEquals(k, source, from, length)) return k;
    }
  }

  private keyEquals(k: number, source: Uint16Array, from: number, length: number): boolean {
    const start = this.keyStart[k]!;
    const end = k + 1 < this.keyCount ? this.keyStart[k + 1]! : this.charCount;
    if (end - start !== length) return false;
    const chars = this.chars;
    for (let i = 0; i < length; i++) if (chars[start + i] !== source[from + i]) return false;
    return true;
  }

  private hashScratch(length: number): number {
    let hash = KEY_HASH_SEED;
    for (let i = 0; i < length; i++) hash = nextKeyHash(hash, this.scratch[i]!);
    return hash | 0;
  }

  private scratchFor(length: number): Uint16Array {
    if (this.scratch.length < length) this.scratch = new Uint16Array(length * 2);
    return this.scratch;
  }

  private insertKey(length: number, hash: number): number {
    const k = this.keyCount;
    if (k === this.keyHash.length) this.growKeys();
    if ((k + 1) * LOAD_DENOMINATOR > this.slots.length * LOAD_NUMERATOR) this.growSlots();
    if (this.charCount + length > this.chars.length) this.chars = grown(this.chars, this.charCount + length);
    this.keyHash[k] = hash;
    this.keyStart[k] = this.charCount;
    for (let i = 0; i < length; i++) this.chars[this.charCount + i] = this.scratch[i]!;
    this.charCount += length;
    this.keyHead[k] = -1;
    this.keyTail[k] = -1;
    this.keyCount++;
    this.place(k);
    return k;
  }

  private place(k: number): void {
    const mask = this.slots.length - 1;
    let slot = this.keyHash[k]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = k + 1;
  }

  private newEntry(id: number): number {
    const entry = this.entryCount++;
    if (entry === this.entryId.length) {
      this.entryId = grown(this.entryId, entry + 1);
      this.entryNext = grown(this.entryNext, entry + 1);
    }
    this.entryId[entry] = id;
    this.entryNext[entry] = -1;
    return entry;
  }

  private growKeys(): void {
    const need = this.keyCount + 1;
    this.keyHash = grown(this.keyHash, need);
    this.keyStart = grown(this.keyStart, need);
    this.keyHead = grown(this.keyHead, need);
    this.keyTail = grown(this.keyTail, need);
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let k = 0; k < this.keyCount; k++) this.place(k);
  }
}

/** Keys are hashed with FNV-1a over their UTF-16 code units: start from the seed, add each unit, end with `| 0`. */
export const KEY_HASH_SEED = 0x811c9dc5;

export function nextKeyHash(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, 0x01000193);
}

/** Keys packed one after the other (key k ends at `ends[k]`), each with its finished hash. */
export interface PackedKeys {
  readonly chars: Uint16Array;
  readonly ends: Int32Array;
  readonly hashes: Int32Array;
}

/** Slots are at most three quarters full, so that a probe ends after a few slots. */
const LOAD_NUMERATOR = 3;
const LOAD_DENOMINATOR = 4;
