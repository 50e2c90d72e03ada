import { describe, expect, it } from 'vitest';
import { ADVERSE_TERMS, adverseTermsIn } from '../../../src/sources/providers/adverse-terms.js';
import {
  buildGdeltQuery,
  GDELT_MAX_QUERY_CHARS,
  gdeltSearchParams,
} from '../../../src/sources/providers/gdelt-query.js';

/** The OR group of a query: `(a OR "b c" OR d)` → ['a', '"b c"', 'd']. */
function orTerms(query: string): string[] {
  const group = query.match(/\(([^()]*)\)\s*$/)?.[1] ?? '';
  return group.split(' OR ');
}

describe('GDELT query', () => {
  it('asks for the name as a phrase together with any of the adverse terms', () => {
    const query = buildGdeltQuery('vantorex holdings');
    expect(query.startsWith('"vantorex holdings" (fraud OR "money laundering" OR sanctions OR ')).toBe(true);
  });

  it('keeps every OR inside one pair of parentheses and nothing else in parentheses', () => {
    // GDELT: "Queries containing OR'd terms must be surrounded by ()" and "Parentheses may only be
    // used around OR'd statements", both answered with HTTP 200 and no results.
    const query = buildGdeltQuery('vantorex holdings');
    expect(query.match(/\(/g)).toHaveLength(1);
    expect(query.slice(0, query.indexOf('('))).not.toMatch(/\bOR\b/);
    expect(orTerms(query).length).toBeGreaterThanOrEqual(4);
  });

  it('quotes multi-word terms and leaves single words bare', () => {
    const terms = orTerms(buildGdeltQuery('acme'));
    expect(terms).toContain('"money laundering"');
    expect(terms).toContain('fraud');
    expect(terms).not.toContain('"fraud"');
  });

  it('leaves a one-word name unquoted, which GDELT would refuse as a phrase too short', () => {
    expect(buildGdeltQuery('gazprom').startsWith('gazprom (')).toBe(true);
  });

  it('quotes a one-word name holding punctuation, which GDELT allows only inside quotes', () => {
    expect(buildGdeltQuery('al-qaida').startsWith('"al-qaida" (')).toBe(true);
  });

  it('takes quotes and parentheses out of the name, so they cannot end the phrase', () => {
    const query = buildGdeltQuery('acme "trading" (uk)');
    expect(query.startsWith('"acme trading uk" (')).toBe(true);
    expect(query.match(/"/g)!.length % 2).toBe(0);
  });

  it('stays under the length GDELT accepts, dropping the least important terms first', () => {
    const name = 'international maritime logistics and commodity trading holdings';
    const query = buildGdeltQuery(name);
    expect(query.length).toBeLessThanOrEqual(GDELT_MAX_QUERY_CHARS);
    const terms = orTerms(query);
    expect(terms.length).toBeLessThan(ADVERSE_TERMS.length);
    expect(terms[0]).toBe('fraud');
  });

  it('searches a name too long for the limit by its leading words, keeping at least four terms', () => {
    const name = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const query = buildGdeltQuery(name);
    expect(query.length).toBeLessThanOrEqual(GDELT_MAX_QUERY_CHARS);
    expect(query.startsWith('"word0 word1 word2')).toBe(true);
    expect(orTerms(query)).toHaveLength(4);
  });

  it('asks for an article list in JSON over the configured months, newest first', () => {
    const params = gdeltSearchParams('vantorex holdings', 24);
    expect(Object.fromEntries(params)).toMatchObject({
      mode: 'artlist',
      format: 'json',
      timespan: '24months',
      maxrecords: '75',
      sort: 'DateDesc',
    });
    expect(params.get('query')).toBe(buildGdeltQuery('vantorex holdings'));
  });
});

describe('adverse terms in a headline', () => {
  it.each([
    ['Vantorex executives charged with fraud', ['fraud', 'charged']],
    ['Fraudster jailed over Ponzi scheme', ['fraud', 'ponzi']],
    ['Bank laundered millions, court hears', ['money laundering']],
    ['Minister bribed officials', ['bribery']],
    ['Founder sentenced for tax evasion', ['tax evasion', 'sentenced']],
    ['Police arrest two in trafficking case', ['trafficking', 'arrested']],
  ])('finds the terms of "%s"', (title, terms) => {
    expect(adverseTermsIn(title)).toEqual(expect.arrayContaining(terms));
    expect(adverseTermsIn(title)).toHaveLength(terms.length);
  });

  it('counts a stem only at the start of a word, and a whole-word term only as a whole word', () => {
    expect(adverseTermsIn('Scampi prices rise at the fish market')).toEqual([]);
    expect(adverseTermsIn('Counterterrorism unit opens new office')).toEqual([]);
    expect(adverseTermsIn('Investors warn of crypto scam')).toEqual(['scam']);
  });

  it('finds nothing in a neutral headline', () => {
    expect(adverseTermsIn('Vantorex Holdings opens new terminal in Rotterdam')).toEqual([]);
  });
});
