/**
 * Look-alike letters of another script inside a Latin word (`НAMAS` with a Cyrillic Н, `Ѕаddаm`),
 * folded to the Latin letters they look like before transliteration. A name written wholly in
 * Cyrillic or Greek is left alone and transliterated as usual: only a word that mixes scripts is
 * taken to be a disguised (or carelessly typed) Latin word. The table is the Cyrillic and Greek
 * part of Unicode's confusables (UTS #39) whose prototype is a single Latin letter.
 */
const LATIN_LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic capitals
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  У: 'Y',
  Ѕ: 'S',
  І: 'I',
  Ј: 'J',
  Ԛ: 'Q',
  Ԝ: 'W',
  Ү: 'Y',
  Һ: 'H',
  Ӏ: 'I',
  // Cyrillic small letters
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ј: 'j',
  ԁ: 'd',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ү: 'y',
  ɡ: 'g',
  // Greek capitals and small letters
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ο: 'o',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  α: 'a',
};

const WORD = /[\p{L}\p{M}]+/gu;
const LATIN_LETTER = /\p{Script=Latin}/u;
const FOREIGN_LETTER = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;

/**
 * The Latin letter `ch` looks like. A small letter whose capital is a look-alike folds to the small
 * Latin letter (`н` of `Н`): queries are case-folded before they are matched.
 */
function lookAlike(ch: string): string | undefined {
  return LATIN_LOOK_ALIKES[ch] ?? LATIN_LOOK_ALIKES[ch.toUpperCase()]?.toLowerCase();
}

/** `text` with every mixed-script word's Cyrillic and Greek look-alikes replaced by Latin letters. */
export function foldConfusables(text: string): string {
  if (!FOREIGN_LETTER.test(text)) return text;
  return text.replace(WORD, (word) => {
    if (!LATIN_LETTER.test(word) || !FOREIGN_LETTER.test(word)) return word;
    let out = '';
    for (const ch of word) out += lookAlike(ch) ?? ch;
    return out;
  });
}
