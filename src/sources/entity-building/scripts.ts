// ISO 15924 codes of the writing systems that occur in sanctions lists. Latin is the default and
// is not marked, so only names in another script carry `script`.
const SCRIPTS: ReadonlyArray<readonly [string, RegExp]> = [
  ['Arab', /\p{Script=Arabic}/u],
  ['Cyrl', /\p{Script=Cyrillic}/u],
  ['Hani', /\p{Script=Han}/u],
  ['Hang', /\p{Script=Hangul}/u],
  ['Jpan', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Grek', /\p{Script=Greek}/u],
  ['Hebr', /\p{Script=Hebrew}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Geor', /\p{Script=Georgian}/u],
  ['Armn', /\p{Script=Armenian}/u],
  ['Deva', /\p{Script=Devanagari}/u],
  ['Ethi', /\p{Script=Ethiopic}/u],
  ['Mymr', /\p{Script=Myanmar}/u],
  ['Khmr', /\p{Script=Khmer}/u],
  ['Beng', /\p{Script=Bengali}/u],
  ['Tibt', /\p{Script=Tibetan}/u],
];

/** Anything beyond Latin, Latin-1 and Latin Extended letters and general punctuation. */
const BEYOND_LATIN = /[^\u0020-\u024f\u1e00-\u1eff\u2000-\u206f]/;

/** The ISO 15924 code of the first non-Latin script found in `text`, or undefined for Latin. */
export function detectScript(text: string): string | undefined {
  if (!BEYOND_LATIN.test(text)) return undefined;
  for (const [code, pattern] of SCRIPTS) {
    if (pattern.test(text)) return code;
  }
  return undefined;
}
