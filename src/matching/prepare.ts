import { toCodePoints } from './jaro-winkler.js';
import { equivalenceGroups, HONORIFIC_SET, legalFormAt, numberValue, PARTICLE_SET } from './lexicon.js';
import type { PreparedName, PreparedToken, TokenClass } from './prepared.js';
import { rulesOf } from './query-type.js';
import { isAbjad } from './script.js';
import { consonantSkeleton } from './skeleton.js';
import { tokenize } from './tokenize.js';
import type { QueryType } from './types.js';

// Token weights. Ordinary words weigh their length (longer tokens carry more identity and make a
// typo in them matter less); the other classes weigh a fixed small amount.
export const PARTICLE_WEIGHT = 1;
export const LEGAL_FORM_WEIGHT = 1.5;
export const INITIAL_WEIGHT = 1.5;
export const NUMBER_WEIGHT = 4;
const MAX_WORD_WEIGHT = 12;
/** Names are cut at this many tokens: longer ones are lists of words, not names, and cost time. */
export const MAX_TOKENS = 16;

/** Creates (or, inside an index, interns) the token object for one prepared word. */
export type TokenFactory = (text: string, cls: TokenClass, abjad: boolean) => PreparedToken;
/** The same for one word of a name's original-script form. */
export type OriginalTokenFactory = (text: string) => PreparedToken;

export function makeToken(text: string, cls: TokenClass, abjad: boolean, id = -1): PreparedToken {
  const weight =
    cls === 'word'
      ? Math.min(text.length, MAX_WORD_WEIGHT)
      : cls === 'particle'
        ? PARTICLE_WEIGHT
        : cls === 'legal'
          ? LEGAL_FORM_WEIGHT
          : cls === 'initial'
            ? INITIAL_WEIGHT
            : NUMBER_WEIGHT;
  return {
    text,
    codes: toCodePoints(text),
    cls,
    weight,
    groups: cls === 'word' ? equivalenceGroups(text) : [],
    abjad,
    skeleton: toCodePoints(consonantSkeleton(text)),
    id,
  };
}

interface ClassifiedWord {
  text: string;
  cls: TokenClass;
}

/**
 * `abjad`: the words were transliterated from a script written without most vowels, where a
 * name such as `عامر` comes out as `MR`: the titles are Latin words and are only dropped from
 * names written in a script that spells them out.
 */
function classifyWords(words: readonly string[], type: QueryType, abjad: boolean): ClassifiedWord[] {
  const organisation = rulesOf(type) === 'entity';
  const out: ClassifiedWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const legal = organisation ? legalFormAt(words, i) : null;
    if (legal) {
      out.push({ text: `<${legal.cls}>`, cls: 'legal' });
      i += legal.length - 1;
      continue;
    }
    if (!organisation && !abjad && HONORIFIC_SET.has(word) && words.length > 1) continue;
    const number = numberValue(word, organisation);
    if (number !== null || /[0-9]/.test(word)) out.push({ text: number ?? word, cls: 'number' });
    else if (word.length === 1) out.push({ text: word, cls: 'initial' });
    else if (PARTICLE_SET.has(word)) out.push({ text: word, cls: 'particle' });
    else out.push({ text: word, cls: 'word' });
  }
  return withoutRepeats(out).slice(0, MAX_TOKENS);
}

/**
 * The words without any run of them repeated right after itself: a word (`SERGEY SERGEY SHOIGU`)
 * or a whole name (`SADDAM HUSSEIN SADDAM HUSSEIN`) written twice is a duplication, not
 * information, and the second copy would count as unpaired words against every listed name.
 */
function withoutRepeats(words: ClassifiedWord[]): ClassifiedWord[] {
  const out = [...words];
  // Initials are no duplication: `J R R TOLKIEN` is John Ronald Reuel.
  const same = (a: number, b: number, length: number) => {
    let initials = true;
    for (let k = 0; k < length; k++) {
      if (out[a + k]!.text !== out[b + k]!.text) return false;
      initials &&= out[a + k]!.cls === 'initial';
    }
    return !initials;
  };
  // Longest runs first; after a removal, from the start again (`X Y Z Z X Y Z` is `X Y Z`).
  let removed = true;
  while (removed) {
    removed = false;
    for (let i = 0; i < out.length && !removed; i++) {
      for (let length = Math.min(MAX_TOKENS, Math.floor((out.length - i) / 2)); length >= 1; length--) {
        if (!same(i, i + length, length)) continue;
        out.splice(i + length, length);
        removed = true;
        break;
      }
    }
  }
  return out;
}

const defaultFactory: TokenFactory = (text, cls, abjad) => makeToken(text, cls, abjad);
const defaultOriginalFactory: OriginalTokenFactory = (text) => makeToken(text, 'word', false);

/**
 * Prepares a name for matching: Unicode NFKC, case folding, transliteration to ASCII, person-name
 * reordering and honorific removal (type `person`), legal forms to class tokens and acronym joining
 * (type `entity`), numbers as number tokens. Deterministic and pure.
 */
export function prepareName(
  full: string,
  type: QueryType,
  factory: TokenFactory = defaultFactory,
  originalFactory: OriginalTokenFactory = defaultOriginalFactory,
): PreparedName {
  const rules = rulesOf(type);
  const tokenized = tokenize(full, { personOrder: rules === 'person', joinAcronyms: rules === 'entity' });
  const abjad = isAbjad(tokenized.script);
  const tokens = classifyWords(tokenized.words, type, abjad).map((w) => factory(w.text, w.cls, abjad));
  const original = tokenized.original.slice(0, MAX_TOKENS).map(originalFactory);
  return {
    full,
    script: tokenized.script,
    tokens,
    // A non-Latin name keeps its original form in the key: two names are only identical when
    // their transliterations and their original spellings agree.
    key:
      tokens.map((t) => t.text).join(' ') +
      (original.length > 0 ? ` | ${original.map((t) => t.text).join(' ')}` : ''),
    original,
    rules,
    damaged: full.includes(REPLACEMENT_CHARACTER),
  };
}

const REPLACEMENT_CHARACTER = '\uFFFD';
