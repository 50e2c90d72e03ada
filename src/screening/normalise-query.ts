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
 * The screened entity as the API reports it: trimmed, NFKC-normalised (full-width letters,
 * ligatures and composed accents become their canonical form), whitespace collapsed and
 * case-folded (Unicode full folding, not locale rules: Turkish İ folds to i + combining dot).
 */
export function normaliseQuery(query: string): string {
  const nfkc = query.normalize('NFKC').trim().replace(/\s+/gu, ' ');
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
