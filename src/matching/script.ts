/**
 * Writing-system detection. The original-script form of a name is compared as such only when the
 * query and the name share a script, and abjad scripts (Arabic, Hebrew, Syriac, Thaana) need a
 * consonant-skeleton comparison because their transliteration drops most vowels.
 */
export type Script =
  | 'latin'
  | 'cyrillic'
  | 'greek'
  | 'arabic'
  | 'hebrew'
  | 'han'
  | 'hangul'
  | 'kana'
  | 'thai'
  | 'other';

const SCRIPT_TESTS: readonly [Script, RegExp][] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['arabic', /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['thai', /\p{Script=Thai}/u],
];

const LETTER = /\p{L}/u;

function scriptOf(ch: string): Script | null {
  if (ch < '\u0080') return /[A-Za-z]/.test(ch) ? 'latin' : null;
  if (!LETTER.test(ch)) return null;
  for (const [script, test] of SCRIPT_TESTS) if (test.test(ch)) return script;
  return 'other';
}

/** The script most letters of the text are written in; Japanese kanji mixed with kana counts as kana. */
export function dominantScript(text: string): Script {
  const counts = new Map<Script, number>();
  for (const ch of text) {
    const script = scriptOf(ch);
    if (script) counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  if (counts.has('kana') && counts.has('han')) counts.set('kana', counts.get('kana')! + counts.get('han')!);
  let best: Script = 'latin';
  let bestCount = 0;
  for (const [script, count] of counts) {
    if (count > bestCount) [best, bestCount] = [script, count];
  }
  return best;
}

/** Scripts whose transliteration is a consonant skeleton (vowels mostly unwritten). */
export function isAbjad(script: Script): boolean {
  return script === 'arabic' || script === 'hebrew';
}

/** Scripts written without spaces where every character is a syllable of the name. */
export function isSyllabicPerCharacter(script: Script): boolean {
  return script === 'han' || script === 'hangul';
}

/** Scripts whose romanisation is toneless syllables that many different characters share. */
export function isHomophoneRich(script: Script): boolean {
  return script === 'han' || script === 'kana';
}
