/**
 * The words that make news about a name adverse. `term` is what GDELT is asked for (its full-text
 * search matches words and quoted phrases); `stems` are what a title is searched for, so that
 * "bribe", "bribes" and "bribed" all count for "bribery". The order is the priority: when a long
 * name leaves no room under GDELT's query length limit, terms are dropped from the end.
 */
export interface AdverseTerm {
  term: string;
  stems: readonly string[];
}

export const ADVERSE_TERMS: readonly AdverseTerm[] = [
  { term: 'fraud', stems: ['fraud'] },
  { term: 'money laundering', stems: ['launder'] },
  { term: 'sanctions', stems: ['sanction'] },
  { term: 'bribery', stems: ['brib'] },
  { term: 'corruption', stems: ['corrupt'] },
  { term: 'embezzlement', stems: ['embezzl'] },
  { term: 'terrorism', stems: ['terror'] },
  { term: 'trafficking', stems: ['traffick'] },
  { term: 'indicted', stems: ['indict'] },
  { term: 'convicted', stems: ['convict'] },
  { term: 'charged', stems: ['charged', 'charges'] },
  { term: 'arrested', stems: ['arrest'] },
  { term: 'smuggling', stems: ['smuggl'] },
  { term: 'extortion', stems: ['extort'] },
  { term: 'tax evasion', stems: ['tax evasion', 'evading tax'] },
  { term: 'ponzi', stems: ['ponzi'] },
  { term: 'scam', stems: ['scam ', 'scams ', 'scammer'] },
  { term: 'sentenced', stems: ['sentenced'] },
];

/** Fewest terms a GDELT query carries: with fewer, the search would no longer be about adverse news. */
export const MIN_ADVERSE_TERMS_PER_QUERY = 4;

/**
 * The adverse terms a title uses, in table order. A stem matches at the start of a word, so
 * "fraudster" is fraud; a stem ending in a space must end the word too, so "scampi" is no scam.
 */
export function adverseTermsIn(title: string): string[] {
  const text = ` ${title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  return ADVERSE_TERMS.filter(({ stems }) => stems.some((stem) => text.includes(` ${stem}`))).map(
    ({ term }) => term,
  );
}
