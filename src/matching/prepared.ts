import type { Script } from './script.js';
import type { NameRules } from './types.js';

/**
 * How a token takes part in matching: ordinary words carry the name; particles (AL, BIN, VAN, OF)
 * and legal-form classes weigh little; numbers must agree; initials pair with any word they begin.
 */
export type TokenClass = 'word' | 'particle' | 'legal' | 'number' | 'initial';

/** One prepared token; the index shares one object between every name that contains the token. */
export interface PreparedToken {
  /** Upper-case ASCII text; legal forms are their class (`<LLC>`), numbers their value. */
  readonly text: string;
  /** Code points of `text`, the form Jaro-Winkler reads. */
  readonly codes: Int32Array;
  readonly cls: TokenClass;
  readonly weight: number;
  /** Ids of the equivalence groups (name variants, transliteration families) holding the token. */
  readonly groups: readonly number[];
  /** Transliterated from an abjad script (Arabic, Hebrew): compared through its consonant skeleton. */
  readonly abjad: boolean;
  /** Consonant skeleton (vowels, W/Y dropped, V as W, doubles collapsed), for abjad comparisons. */
  readonly skeleton: Int32Array;
  /** Position in the index vocabulary, or -1 outside an index. */
  readonly id: number;
}

/** A name after preparation: run once per list name at index time and once per query. */
export interface PreparedName {
  readonly full: string;
  readonly script: Script;
  readonly tokens: readonly PreparedToken[];
  /** The prepared form as text: two names with equal keys are an exact match (score 1.0). */
  readonly key: string;
  /** Original-script tokens of a non-Latin name, compared when the other name shares the script. */
  readonly original: readonly PreparedToken[];
  /** The rules it was prepared by. */
  readonly rules: NameRules;
  /** Its text holds replacement characters (U+FFFD): letters were lost before it reached us. */
  readonly damaged: boolean;
}
