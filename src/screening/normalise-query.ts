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
 * Characters that show nothing, or reorder what is shown, and take no part in matching: control
 * characters (NUL among them, which the database cannot store), zero-width spaces and joiners of
 * words, soft hyphens, byte order marks and the bidirectional embeddings, overrides and isolates.
 * Left in the reported name, they would make the history and the review queue show another name
 * than the one screened (`‮nituP` reads as Putin backwards). The zero-width (non-)joiners stay:
 * Persian and Indic names need them to be written right.
 */
const INVISIBLE = /[\p{Cc}\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;

/**
 * The screened entity as the API reports it: trimmed, NFKC-normalised (full-width letters,
 * ligatures and composed accents become their canonical form), invisible characters removed,
 * whitespace collapsed and case-folded (Unicode full folding, not locale rules: Turkish İ folds to
 * i + combining dot).
 */
export function normaliseQuery(query: string): string {
  const nfkc = query
    .normalize('NFKC')
    .replace(/\s+/gu, ' ')
    .replace(INVISIBLE, '')
    .trim()
    .replace(/ {2,}/g, ' ');
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
