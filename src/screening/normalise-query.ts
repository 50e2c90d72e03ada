/** Characters whose full Unicode case folding differs from `toLowerCase()` in ways that matter for names. */
const FOLDING_BEYOND_LOWERCASE: Readonly<Record<string, string>> = {
  ß: 'ss',
  ς: 'σ',
  ſ: 's',
  ϐ: 'β',
  ϑ: 'θ',
  ϕ: 'φ',
  ϖ: 'π',
  ϰ: 'κ',
  ϱ: 'ρ',
  ϵ: 'ε',
};
const FOLDING_PATTERN = new RegExp(`[${Object.keys(FOLDING_BEYOND_LOWERCASE).join('')}]`, 'gu');

/**
 * Characters that show nothing, or reorder what is shown: control characters other than the
 * whitespace ones (which become spaces), and format characters (zero-width spaces, soft hyphens,
 * byte order marks, bidirectional marks, embeddings, overrides and isolates, tag characters). Left
 * in the reported name, they would make the history and the review queue show another name than
 * the one screened (`\u202enituP` reads as Putin backwards), and some would change the match (a
 * soft hyphen split a Cyrillic word in two). The zero-width (non-)joiners stay: Persian and Indic
 * names need them to be written right.
 */
const INVISIBLE = /(?![\t\n\v\f\r\u200c\u200d])[\p{Cc}\p{Cf}]/gu;

/** `text` without the characters that show nothing (see INVISIBLE). */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, '');
}

/**
 * The screened entity as the API reports it: trimmed, NFKC-normalised (full-width letters,
 * ligatures and composed accents become their canonical form), invisible characters removed,
 * whitespace collapsed and case-folded (Unicode full folding, not locale rules: Turkish İ folds to
 * i + combining dot).
 */
export function normaliseQuery(query: string): string {
  const nfkc = visibleText(query.normalize('NFKC')).trim().replace(/\s+/gu, ' ');
  const folded = nfkc.toLowerCase().replace(FOLDING_PATTERN, (c) => FOLDING_BEYOND_LOWERCASE[c] ?? c);
  return folded.normalize('NFKC');
}

/** Length in Unicode code points, as the API's 2-500 character rule counts it. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Whether a name holds something to match: a letter or a digit of any script. Invisible (format)
 * and control characters, punctuation, symbols and spaces alone name nobody, and screening them
 * would only bill the account for an answer about nothing.
 */
export function holdsLetterOrDigit(text: string): boolean {
  return LETTER_OR_DIGIT.test(text);
}
