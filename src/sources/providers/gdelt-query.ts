import { ADVERSE_TERMS, MIN_ADVERSE_TERMS_PER_QUERY } from './adverse-terms.js';

/**
 * GDELT rejects longer queries with "Your query was too short or too long." (HTTP 200, plain text).
 * The limit is not published; about 213 characters are reported to pass and 290 to fail, so the
 * query stays well under both.
 */
export const GDELT_MAX_QUERY_CHARS = 200;
/** Articles asked for: more than the flags kept, as many titles will not name the entity. */
export const GDELT_MAX_RECORDS = 75;
/** Newest first: recent coverage matters most, and GDELT's window is a rolling few months anyway. */
export const GDELT_SORT = 'DateDesc';

/**
 * The GDELT DOC 2.0 query for a name: the name as a phrase, and any of the adverse terms.
 * GDELT's syntax rules (each breach is answered with HTTP 200 and a sentence instead of JSON):
 * OR'd terms must be inside parentheses and parentheses may only hold OR'd terms; a phrase is
 * quoted, but a single plain word must not be ("The specified phrase is too short"); punctuation
 * such as a dash is only legal inside quotes. A name too long for the length limit is searched by
 * its leading words (the titles are then matched against the whole name, which keeps precision).
 */
export function buildGdeltQuery(name: string): string {
  const words = searchableWords(name);
  const terms = ADVERSE_TERMS.map(({ term }) => (term.includes(' ') ? `"${term}"` : term));
  const minimalTerms = `(${terms.slice(0, MIN_ADVERSE_TERMS_PER_QUERY).join(' OR ')})`;
  while (words.length > 1 && `${phrase(words)} ${minimalTerms}`.length > GDELT_MAX_QUERY_CHARS) words.pop();
  const head = phrase(words);
  let count = terms.length;
  while (
    count > MIN_ADVERSE_TERMS_PER_QUERY &&
    `${head} (${terms.slice(0, count).join(' OR ')})`.length > GDELT_MAX_QUERY_CHARS
  )
    count -= 1;
  return `${head} (${terms.slice(0, count).join(' OR ')})`;
}

/** The request's parameters besides the query, as GDELT's DOC 2.0 API documents them. */
export function gdeltSearchParams(name: string, timespanMonths: number): URLSearchParams {
  return new URLSearchParams({
    query: buildGdeltQuery(name),
    mode: 'artlist',
    format: 'json',
    maxrecords: String(GDELT_MAX_RECORDS),
    // GDELT reads "24months" (also "24m"); it clamps a span beyond its searchable window.
    timespan: `${timespanMonths}months`,
    sort: GDELT_SORT,
  });
}

// Quotes and parentheses are GDELT syntax: inside a name they would end the phrase early.
function searchableWords(name: string): string[] {
  return name
    .replace(/["()]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0);
}

function phrase(words: string[]): string {
  const single = words.length === 1 && /^[\p{L}\p{N}]+$/u.test(words[0]!);
  return single ? words[0]! : `"${words.join(' ')}"`;
}
