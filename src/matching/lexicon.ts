import { jaroWinkler } from './jaro-winkler.js';
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

/** Long one-word legal forms are recognised with a typo too (`AKTIENGESELSCHAFT`, `CORPORATON`). */
const MIN_FUZZY_LEGAL_LENGTH = 8;
const FUZZY_LEGAL_SIMILARITY = 0.95;
const fuzzyLegalWords = legalPhrases.filter(
  (p) => p.words.length === 1 && p.words[0]!.length >= MIN_FUZZY_LEGAL_LENGTH,
);

/** The legal-form phrase starting at `words[start]`, if any: its class and how many words it spans. */
export function legalFormAt(words: readonly string[], start: number): { cls: string; length: number } | null {
  for (const phrase of legalPhrases) {
    if (start + phrase.words.length > words.length) continue;
    let ok = true;
    for (let k = 0; k < phrase.words.length && ok; k++) ok = words[start + k] === phrase.words[k];
    if (ok) return { cls: phrase.cls, length: phrase.words.length };
  }
  const word = words[start]!;
  if (word.length < MIN_FUZZY_LEGAL_LENGTH) return null;
  for (const phrase of fuzzyLegalWords) {
    if (jaroWinkler(word, phrase.words[0]!) >= FUZZY_LEGAL_SIMILARITY) return { cls: phrase.cls, length: 1 };
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
