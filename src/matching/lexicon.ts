import { jaroWinklerCodes, toCodePoints } from './jaro-winkler.js';
import { withinOneEdit } from './one-edit.js';
import { GIVEN_NAME_GROUPS } from './tables/given-names.js';
import { HONORIFICS } from './tables/honorifics.js';
import { LEGAL_FORM_CLASSES } from './tables/legal-forms.js';
import { PARTICLES } from './tables/particles.js';
import { TRANSLITERATION_FAMILIES } from './tables/transliteration-families.js';

/** Lookups built once from the data tables in `tables/`. */

export const HONORIFIC_SET: ReadonlySet<string> = new Set(HONORIFICS);
export const PARTICLE_SET: ReadonlySet<string> = new Set(PARTICLES);

/** Token -> ids of the equivalence groups (given-name variants, transliteration families) it belongs to. */
const groupsByToken = new Map<string, number[]>();
[...GIVEN_NAME_GROUPS, ...TRANSLITERATION_FAMILIES].forEach((group, id) => {
  for (const token of group) {
    const ids = groupsByToken.get(token) ?? [];
    if (!ids.includes(id)) ids.push(id);
    groupsByToken.set(token, ids);
  }
});

const NO_GROUPS: readonly number[] = [];

export function equivalenceGroups(token: string): readonly number[] {
  return groupsByToken.get(token) ?? NO_GROUPS;
}

/** Legal-form phrases as word arrays, longest first so the longest phrase wins. */
const legalPhrases: { words: string[]; cls: string }[] = Object.entries(LEGAL_FORM_CLASSES)
  .flatMap(([cls, phrases]) => phrases.map((phrase) => ({ words: phrase.split(' '), cls })))
  .sort((a, b) => b.words.length - a.words.length);

/** The same phrases by first word, longest first in each: one lookup per word instead of a scan. */
const legalPhrasesByFirstWord = new Map<string, { words: string[]; cls: string }[]>();
for (const phrase of legalPhrases) {
  const first = phrase.words[0]!;
  const same = legalPhrasesByFirstWord.get(first);
  if (same) same.push(phrase);
  else legalPhrasesByFirstWord.set(first, [phrase]);
}

/**
 * One-word legal forms are recognised with a typo too: of six letters or more, one edit away
 * (`COMAPNY`, `LIIMTED`); long ones also by Jaro-Winkler (`AKTIENGESELSCHAFT`, `CORPORATON`).
 * Otherwise a typo in the legal form would leave a heavy unpaired word on each side.
 */
const MIN_ONE_EDIT_LEGAL_LENGTH = 6;
const MIN_FUZZY_LEGAL_LENGTH = 8;
const FUZZY_LEGAL_SIMILARITY = 0.95;
/**
 * Jaro-Winkler is at most 0.6 * Jaro + 0.4 (a prefix of four), and Jaro at most (2 + short / long) / 3
 * for lengths short <= long: below this length ratio no word reaches FUZZY_LEGAL_SIMILARITY, so
 * its Jaro-Winkler is not computed (a little below the exact 0.75, for rounding).
 */
const FUZZY_LEGAL_MIN_LENGTH_RATIO = 0.74;
const fuzzyLegalWords = legalPhrases
  .filter((p) => p.words.length === 1 && p.words[0]!.length >= MIN_FUZZY_LEGAL_LENGTH)
  .map((p) => ({ cls: p.cls, codes: toCodePoints(p.words[0]!) }));
const oneEditLegalWords = legalPhrases
  .filter((p) => p.words.length === 1 && p.words[0]!.length >= MIN_ONE_EDIT_LEGAL_LENGTH)
  .map((p) => ({ cls: p.cls, codes: toCodePoints(p.words[0]!) }));
const NOTHING = new Int32Array(0);

/** The legal-form phrase starting at `words[start]`, if any: its class and how many words it spans. */
export function legalFormAt(words: readonly string[], start: number): { cls: string; length: number } | null {
  const word = words[start]!;
  for (const phrase of legalPhrasesByFirstWord.get(word) ?? []) {
    if (start + phrase.words.length > words.length) continue;
    let ok = true;
    for (let k = 1; k < phrase.words.length && ok; k++) ok = words[start + k] === phrase.words[k];
    if (ok) return { cls: phrase.cls, length: phrase.words.length };
  }
  if (word.length < MIN_ONE_EDIT_LEGAL_LENGTH) return null;
  const codes = toCodePoints(word);
  for (const phrase of oneEditLegalWords)
    if (withinOneEdit(codes, phrase.codes, NOTHING)) return { cls: phrase.cls, length: 1 };
  if (word.length < MIN_FUZZY_LEGAL_LENGTH) return null;
  for (const phrase of fuzzyLegalWords) {
    const [a, b] = [codes.length, phrase.codes.length];
    if (Math.min(a, b) < Math.max(a, b) * FUZZY_LEGAL_MIN_LENGTH_RATIO) continue;
    if (
      jaroWinklerCodes(codes, 0, codes.length, phrase.codes, 0, phrase.codes.length) >= FUZZY_LEGAL_SIMILARITY
    )
      return { cls: phrase.cls, length: 1 };
  }
  return null;
}

const ORDINAL_WORDS: Readonly<Record<string, string>> = {
  FIRST: '1',
  SECOND: '2',
  THIRD: '3',
  FOURTH: '4',
  FIFTH: '5',
  SIXTH: '6',
  SEVENTH: '7',
  EIGHTH: '8',
  NINTH: '9',
  TENTH: '10',
};
const ROMAN_NUMERALS: Readonly<Record<string, string>> = {
  II: '2',
  III: '3',
  IV: '4',
  VI: '6',
  VII: '7',
  VIII: '8',
  IX: '9',
  XI: '11',
  XII: '12',
  XIII: '13',
  XIV: '14',
  XV: '15',
  XVI: '16',
  XVII: '17',
  XVIII: '18',
  XIX: '19',
  XX: '20',
};

/**
 * The number a word stands for (`1ST`, `FIRST`, and for organisations Roman numerals from II),
 * or null. Single `I`, `V` and `X` stay letters: they are initials far more often than numerals.
 */
export function numberValue(word: string, organisation: boolean): string | null {
  if (/^[0-9]+$/.test(word)) return word.replace(/^0+(?=.)/, '');
  const ordinal = /^([0-9]+)(ST|ND|RD|TH)$/.exec(word);
  if (ordinal) return ordinal[1]!;
  if (organisation) return ORDINAL_WORDS[word] ?? ROMAN_NUMERALS[word] ?? null;
  return null;
}
