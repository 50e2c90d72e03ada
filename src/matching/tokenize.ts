import anyAscii from 'any-ascii';
import { foldConfusables } from './confusables.js';
import { dominantScript, isSyllabicPerCharacter, type Script } from './script.js';

/** A name cut into upper-case ASCII words, with the facts preparation needs about its original form. */
export interface TokenizedName {
  script: Script;
  /** Upper-case ASCII words, in order. */
  words: string[];
  /** The original-script form (NFKC, case-folded, punctuation as spaces) for same-script comparison. */
  original: string[];
}

// Apostrophes and the letters any-ascii emits for hamza and ayn are removed without a space, so
// `O'BRIEN` and `OBRIEN` prepare alike and `'ABD` becomes `ABD`.
const APOSTROPHES = /['\u2018\u2019\u02BC\u02BB\u02BF\u02BE`\u00B4]/g;
const NON_ALNUM = /[^A-Z0-9]+/g;
// Dots between single letters form an acronym (`A.B.C.`, `G.m.b.H.`, `L.X.C`): join the letters.
const DOTTED_ACRONYM = /(?<![A-Z0-9])([A-Z])\.(?=[A-Z](?![A-Z0-9]))/g;
const ORIGINAL_SEPARATORS = /[^\p{L}\p{N}\p{M}]+/gu;
const HAN_OR_HANGUL = /([\p{Script=Han}\p{Script=Hangul}])/gu;

/**
 * Reorders `SURNAME, Given Names` (the lists' way of writing people) into `Given Names SURNAME`.
 * Only a single comma with words on both sides counts; anything else is left as it is.
 */
export function reorderSurnameFirst(text: string): string {
  const parts = text.split(',');
  if (parts.length !== 2) return text;
  const [surname, given] = [parts[0]!.trim(), parts[1]!.trim()];
  if (surname === '' || given === '') return text;
  return `${given} ${surname}`;
}

function transliterate(text: string, script: Script): string {
  // Han and Hangul characters are syllables: give each its own word so `习近平` becomes `XI JIN PING`
  // and lines up with `XI JINPING` through merged-token matching.
  const spaced = isSyllabicPerCharacter(script) ? text.replace(HAN_OR_HANGUL, ' $1 ') : text;
  return anyAscii(spaced).toUpperCase();
}

/** Splits a name into words; `joinAcronyms` is for organisations, where `J.P.` is one word. */
export function tokenize(
  full: string,
  options: { personOrder: boolean; joinAcronyms: boolean },
): TokenizedName {
  let text = foldConfusables(full.normalize('NFKC')).replace(/\s+/g, ' ').trim();
  if (options.personOrder) text = reorderSurnameFirst(text);
  const script = dominantScript(text);
  let ascii = transliterate(text.replace(APOSTROPHES, ''), script).replace(APOSTROPHES, '');
  ascii = ascii.replace(/&/g, ' AND ');
  if (options.joinAcronyms) ascii = ascii.replace(DOTTED_ACRONYM, '$1');
  const words = ascii.replace(NON_ALNUM, ' ').trim().split(' ').filter(Boolean);
  const original =
    script === 'latin'
      ? []
      : text
          .toLowerCase()
          .replace(APOSTROPHES, '')
          .replace(ORIGINAL_SEPARATORS, ' ')
          .trim()
          .split(' ')
          .filter(Boolean);
  return { script, words, original };
}
