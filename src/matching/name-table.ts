import { isMergeable } from './anchors.js';
import { RECORD_SIZE, recordNameLetters } from './name-letters.js';
import type { PreparedName, PreparedToken, TokenClass } from './prepared.js';
import type { Script } from './script.js';
import type { NameType } from './types.js';

/**
 * Flat, typed-array views of the index's names and tokens for the search hot loop. Reading a
 * candidate's token ids, weights and classes from these arrays costs a few nanoseconds per token,
 * where walking the `PreparedName` objects costs pointer chasing and cache misses; a query that
 * retrieves ten thousand candidates reads each of them this way before scoring any.
 */

/** Token classes as small integers, and one bit per class for a name's class mask. */
export const CLASS_CODE: Readonly<Record<TokenClass, number>> = {
  word: 0,
  particle: 1,
  legal: 2,
  number: 3,
  initial: 4,
};

export interface TokenTable {
  readonly weight: Float64Array;
  readonly cls: Uint8Array;
  /** 1 when the token may be half of a split/merged pair (`AL QAIDA`). */
  readonly mergeable: Uint8Array;
  readonly abjad: Uint8Array;
  /** First code point and length, of the text and of the consonant skeleton (merge plausibility). */
  readonly first: Int32Array;
  readonly length: Int32Array;
  readonly skeletonFirst: Int32Array;
  readonly skeletonLength: Int32Array;
}

export interface NameTable {
  /** Name n's token ids are tokenIds[tokenStart[n] .. tokenStart[n + 1]). */
  readonly tokenStart: Int32Array;
  readonly tokenIds: Int32Array;
  /** Per name: the index of its entity's source, one bit per token class present. */
  readonly source: Int32Array;
  readonly classMask: Uint8Array;
  /**
   * Per name, RECORD_SIZE integers for the name ceiling (name-letters.ts), whose FLAGS field also
   * says whether it is a weak alias and the script of its original-script form.
   */
  readonly letters: Int32Array;
  readonly weightTop: Float64Array;
}

const SCRIPTS: readonly Script[] = [
  'latin',
  'cyrillic',
  'greek',
  'arabic',
  'hebrew',
  'han',
  'hangul',
  'kana',
  'thai',
  'other',
];

/** Script index of a name's original form, or -1 when it has none (same-script comparisons). */
export function originalScriptCode(name: PreparedName): number {
  return name.original.length > 0 ? SCRIPTS.indexOf(name.script) : -1;
}

export function buildTokenTable(tokens: readonly PreparedToken[]): TokenTable {
  const n = tokens.length;
  const table = {
    weight: new Float64Array(n),
    cls: new Uint8Array(n),
    mergeable: new Uint8Array(n),
    abjad: new Uint8Array(n),
    first: new Int32Array(n),
    length: new Int32Array(n),
    skeletonFirst: new Int32Array(n),
    skeletonLength: new Int32Array(n),
  };
  tokens.forEach((t, id) => {
    table.weight[id] = t.weight;
    table.cls[id] = CLASS_CODE[t.cls];
    table.mergeable[id] = isMergeable(t) ? 1 : 0;
    table.abjad[id] = t.abjad ? 1 : 0;
    table.first[id] = t.codes.length > 0 ? t.codes[0]! : -1;
    table.length[id] = t.codes.length;
    table.skeletonFirst[id] = t.skeleton.length > 0 ? t.skeleton[0]! : -1;
    table.skeletonLength[id] = t.skeleton.length;
  });
  return table;
}

export function buildNameTable(
  prepared: readonly PreparedName[],
  nameTypes: readonly NameType[],
  nameSource: (name: number) => number,
): NameTable {
  const tokenStart = new Int32Array(prepared.length + 1);
  let total = 0;
  prepared.forEach((p, n) => {
    tokenStart[n] = total;
    total += p.tokens.length;
  });
  tokenStart[prepared.length] = total;
  const tokenIds = new Int32Array(total);
  const source = new Int32Array(prepared.length);
  const classMask = new Uint8Array(prepared.length);
  const letters = new Int32Array(prepared.length * RECORD_SIZE);
  const weightTop = new Float64Array(total);
  prepared.forEach((p, n) => {
    let mask = 0;
    const start = tokenStart[n]!;
    p.tokens.forEach((t, k) => {
      tokenIds[start + k] = t.id;
      mask |= 1 << CLASS_CODE[t.cls];
    });
    const weights = p.tokens.map((t) => t.weight).sort((a, b) => b - a);
    let sum = 0;
    weights.forEach((w, k) => {
      sum += w;
      weightTop[start + k] = sum;
    });
    classMask[n] = mask;
    source[n] = nameSource(n);
    recordNameLetters(letters, n, p.tokens, nameTypes[n] === 'weak_aka', originalScriptCode(p));
  });
  return {
    tokenStart,
    tokenIds,
    source,
    classMask,
    letters,
    weightTop,
  };
}
