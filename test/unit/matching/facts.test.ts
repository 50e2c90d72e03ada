import { describe, expect, it } from 'vitest';
import { birthDateAgreement, compareBirthDate } from '../../../src/matching/birth-dates.js';
import {
  BIRTH_DATE_AGREEMENT,
  BIRTH_DATE_MISMATCH_FACTOR,
  IDENTITY_DOCUMENT_MISMATCH_FACTOR,
  NATIONALITY_MISMATCH_FACTOR,
  NEAR_EXACT_NAME,
  type RecordFacts,
  SAME_BIRTH_DAY_SHARE,
  UNDATED_RECORD_CEILING,
  weighFacts,
} from '../../../src/matching/facts.js';
import { normaliseIdentifier } from '../../../src/matching/identifiers.js';

const record = (facts: Partial<RecordFacts> = {}): RecordFacts => ({
  birthDates: [],
  nationalities: [],
  countries: [],
  identifiers: [],
  ...facts,
});

describe('facts that confirm or rule out a name match', () => {
  it('compares birth dates at the precision both give, a year either way for years', () => {
    expect(compareBirthDate('1937-04-28', ['1937-04-28'])).toBe('match');
    expect(compareBirthDate('1937-04-27', ['1937-04-28'])).toBe('mismatch');
    expect(compareBirthDate('1937-04', ['1937-04-28'])).toBe('match');
    expect(compareBirthDate('1938-02-01', ['1937'])).toBe('match');
    expect(compareBirthDate('1939', ['1937'])).toBe('mismatch');
    expect(compareBirthDate('1991-05-02', ['1958-01-01/1962-12-31'])).toBe('mismatch');
    expect(compareBirthDate('1963', ['1958-01-01/1962-12-31'])).toBe('match');
    expect(compareBirthDate('1964', ['1960', '1964-07-01'])).toBe('match');
    expect(compareBirthDate('1964', [])).toBe('unknown');
  });

  it('reads a birth date a year off, or with day and month swapped, as near: neither confirming nor contradicting', () => {
    expect(birthDateAgreement('1976-04-28', ['1975-04-28'])).toBe('near');
    expect(birthDateAgreement('1974-04-28', ['1975-04-28'])).toBe('near');
    expect(birthDateAgreement('1975-08-03', ['1975-03-08'])).toBe('near');
    expect(birthDateAgreement('1976-04', ['1975-04-11'])).toBe('near');
    // Two years off, another day, another month: another birth.
    expect(birthDateAgreement('1977-04-28', ['1975-04-28'])).toBe('mismatch');
    expect(birthDateAgreement('1975-04-27', ['1975-04-28'])).toBe('mismatch');
    expect(birthDateAgreement('1976-08-03', ['1975-03-08'])).toBe('mismatch');
    // One of several dates near, another the same: the best counts.
    expect(birthDateAgreement('1975-08-03', ['1960', '1975-03-08'])).toBe('near');
    expect(birthDateAgreement('1975-08-03', ['1975-03-08', '1975-08-03'])).toBe('same day');
    const weighed = weighFacts(0.85, { dateOfBirth: '1976-04-28' }, record({ birthDates: ['1975-04-28'] }));
    expect(weighed).toEqual({
      score: 0.85,
      outcomes: [{ field: 'date_of_birth', outcome: 'near', effect: 'none', compared_with: ['1975-04-28'] }],
    });
  });

  it('keeps a fuzzy match on a record that states no birth date below high when the screening gives one', () => {
    const undated = weighFacts(
      0.9,
      { dateOfBirth: '1975-04-28', countries: ['IQ'] },
      record({ countries: ['IQ'] }),
    );
    expect(undated.score).toBe(UNDATED_RECORD_CEILING);
    expect(undated.outcomes[0]).toEqual({
      field: 'date_of_birth',
      outcome: 'unknown',
      effect: `capped at ${UNDATED_RECORD_CEILING}`,
    });
    // A near-exact name is strong enough alone; without a birth date given nothing is capped.
    expect(weighFacts(NEAR_EXACT_NAME, { dateOfBirth: '1975-04-28' }, record()).score).toBe(NEAR_EXACT_NAME);
    expect(weighFacts(0.9, { countries: ['IQ'] }, record({ countries: ['IQ'] })).score).toBeCloseTo(0.92, 10);
    // A weaker match is not touched, and an identifier still decides.
    expect(weighFacts(0.7, { dateOfBirth: '1975-04-28' }, record()).score).toBe(0.7);
    const identified = weighFacts(
      0.6,
      { dateOfBirth: '1975-04-28', identifiers: [{ type: 'passport', value: 'A123' }] },
      record({ identifiers: [{ type: 'passport', value: 'A123' }] }),
    );
    expect(identified.score).toBe(1);
  });

  it('lowers a match whose birth date contradicts every birth date of the record', () => {
    const weighed = weighFacts(1, { dateOfBirth: '1991-03-02' }, record({ birthDates: ['1937-04-28'] }));
    expect(weighed.score).toBeCloseTo(BIRTH_DATE_MISMATCH_FACTOR, 10);
    expect(weighed.outcomes).toEqual([
      { field: 'date_of_birth', outcome: 'mismatch', effect: 'x0.7', compared_with: ['1937-04-28'] },
    ]);
  });

  it('raises a fuzzy match a little when the birth date agrees, never to an exact match', () => {
    expect(
      weighFacts(0.78, { dateOfBirth: '1937' }, record({ birthDates: ['1937-04-28'] })).score,
    ).toBeCloseTo(0.78 + BIRTH_DATE_AGREEMENT, 10);
    expect(weighFacts(0.97, { dateOfBirth: '1937' }, record({ birthDates: ['1937'] })).score).toBe(0.99);
    expect(weighFacts(1, { dateOfBirth: '1937' }, record({ birthDates: ['1937'] })).score).toBe(1);
  });

  it('tells the same full birth date apart from a coarser agreement', () => {
    expect(birthDateAgreement('1945-10-29', ['1945-10-29'])).toBe('same day');
    expect(birthDateAgreement('1945-10-29', ['1945', '1945-10-29'])).toBe('same day');
    expect(birthDateAgreement('1945-10-29', ['1945-10'])).toBe('match');
    expect(birthDateAgreement('1945-10-29', ['1945'])).toBe('match');
    expect(birthDateAgreement('1945', ['1945-10-29'])).toBe('match');
    expect(birthDateAgreement('1945-10-29', ['1944-01-01/1946-12-31'])).toBe('match');
    expect(birthDateAgreement('1945-10-28', ['1945-10-29'])).toBe('mismatch');
  });

  it('counts a shared 1 January, the day written for a year alone, as a coarse agreement', () => {
    expect(birthDateAgreement('1965-01-01', ['1965-01-01'])).toBe('match');
    expect(birthDateAgreement('1965-01-02', ['1965-01-02'])).toBe('same day');
    expect(
      weighFacts(0.5, { dateOfBirth: '1965-01-01' }, record({ birthDates: ['1965-01-01'] })).score,
    ).toBeCloseTo(0.5 + BIRTH_DATE_AGREEMENT, 10);
  });

  it('makes any name match at the default threshold high with the record\u2019s own full birth date', () => {
    const born = record({ birthDates: ['1945-10-29'] });
    const weighed = weighFacts(0.5, { dateOfBirth: '1945-10-29' }, born);
    // 0.8 is where a sanctions flag is high (risk.ts).
    expect(weighed.score).toBeGreaterThanOrEqual(0.8);
    expect(weighed.score).toBeCloseTo(0.5 + 0.5 * SAME_BIRTH_DAY_SHARE, 10);
    expect(weighed.outcomes[0]).toMatchObject({ field: 'date_of_birth', outcome: 'match', effect: '+0.30' });
    // Stronger names stay stronger, and a fuzzy one never reaches an exact one.
    expect(weighFacts(0.7, { dateOfBirth: '1945-10-29' }, born).score).toBeGreaterThan(weighed.score);
    expect(weighFacts(0.98, { dateOfBirth: '1945-10-29' }, born).score).toBe(0.99);
    expect(weighFacts(1, { dateOfBirth: '1945-10-29' }, born).outcomes[0]?.effect).toBe('none');
    // A year or a month in common is weaker evidence: a little only.
    expect(weighFacts(0.5, { dateOfBirth: '1945' }, born).score).toBeCloseTo(0.5 + BIRTH_DATE_AGREEMENT, 10);
  });

  it('lets no agreeing fact undo another person\u2019s identity document', () => {
    const person = record({
      identifiers: [{ type: 'passport', value: 'N0123456', country: 'IQ' }],
      birthDates: ['1945-10-29'],
    });
    const weighed = weighFacts(
      1,
      { dateOfBirth: '1945-10-29', identifiers: [{ type: 'passport', value: 'A9999999', country: 'IQ' }] },
      person,
    );
    expect(weighed.score).toBeCloseTo(IDENTITY_DOCUMENT_MISMATCH_FACTOR, 10);
  });

  it('changes nothing where either side does not know, below the ceiling of an undated record', () => {
    const weighed = weighFacts(0.75, { dateOfBirth: '1991', countries: ['BR'] }, record());
    expect(weighed.score).toBe(0.75);
    expect(weighed.outcomes.map((o) => [o.field, o.outcome, o.effect])).toEqual([
      ['date_of_birth', 'unknown', 'none'],
      ['countries', 'unknown', 'none'],
    ]);
  });

  it('lowers a little a record of another nationality, and raises a little one linked to a country', () => {
    const iraqi = record({ nationalities: ['IQ'], countries: ['IQ'] });
    expect(weighFacts(0.9, { countries: ['BR'] }, iraqi).score).toBeCloseTo(
      0.9 * NATIONALITY_MISMATCH_FACTOR,
      10,
    );
    expect(weighFacts(0.9, { countries: ['BR', 'IQ'] }, iraqi).score).toBeCloseTo(0.92, 10);
    // An address abroad says nothing of a nationality.
    expect(weighFacts(0.9, { countries: ['BR'] }, record({ countries: ['AE'] })).score).toBe(0.9);
  });

  it('makes an identifier of the same kind and value a match of 1.0 whatever the name', () => {
    const vessel = record({ identifiers: [{ type: 'imo', value: '9187629' }], birthDates: [] });
    const weighed = weighFacts(0.3, { identifiers: [{ type: 'imo', value: 'IMO 9187629' }] }, vessel);
    expect(weighed.score).toBe(1);
    expect(weighed.outcomes[0]).toMatchObject({
      field: 'identifiers',
      outcome: 'match',
      effect: 'set to 1.0',
    });
    // A birth date that disagrees does not undo an identifier match.
    const person = record({
      identifiers: [{ type: 'passport', value: 'N0123456', country: 'IQ' }],
      birthDates: ['1937'],
    });
    expect(
      weighFacts(
        0.5,
        { dateOfBirth: '1990', identifiers: [{ type: 'passport', value: 'n 0123-456' }] },
        person,
      ).score,
    ).toBe(1);
  });

  it('does not match an identifier of another kind or another issuing country', () => {
    const person = record({ identifiers: [{ type: 'passport', value: 'N0123456', country: 'IQ' }] });
    expect(weighFacts(0.8, { identifiers: [{ type: 'tax_id', value: 'N0123456' }] }, person).score).toBe(0.8);
    expect(
      weighFacts(0.8, { identifiers: [{ type: 'passport', value: 'N0123456', country: 'JO' }] }, person)
        .score,
    ).toBe(0.8);
  });

  it('lowers strongly a passport of the same country with another number', () => {
    const person = record({ identifiers: [{ type: 'passport', value: 'N0123456', country: 'IQ' }] });
    const weighed = weighFacts(
      1,
      { identifiers: [{ type: 'passport', value: 'A9999999', country: 'IQ' }] },
      person,
    );
    expect(weighed.score).toBeCloseTo(IDENTITY_DOCUMENT_MISMATCH_FACTOR, 10);
    expect(weighed.outcomes[0]).toMatchObject({ outcome: 'mismatch', effect: 'x0.6' });
  });

  it('normalises identifiers by their kind: crypto addresses by their chain rules', () => {
    expect(normaliseIdentifier('passport', ' n 0123-456.7 ')).toBe('N01234567');
    expect(normaliseIdentifier('crypto_wallet', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h')).toBe(
      '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
    );
    expect(normaliseIdentifier('crypto_wallet', '0xAbCdef0123456789')).toBe('0xabcdef0123456789');
    expect(normaliseIdentifier('crypto_wallet', 'BC1QXY2KGDYGJRSQTZQ2N0YRF2493P83KKFJHX0WLH')).toBe(
      'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
    );
  });

  it.each([
    ['imo', '７４０６７８４', '7406784'],
    ['imo', '740\u200b6784', '7406784'],
    ['imo', '٧٤٠٦٧٨٤', '7406784'],
    ['imo', 'IMO No. 7406784', '7406784'],
    ['imo', 'imo\u00a0７４０-６７８４', '7406784'],
    ['passport', 'N0123\u00ad4567', 'N01234567'],
    ['passport', '\u202aN01234567\u202c', 'N01234567'],
    ['passport', 'Ｎ０１２３４５６７', 'N01234567'],
    ['passport', 'АВ 123456', 'AB123456'],
    ['tax_id', '77–4400–1497', '7744001497'],
    ['mmsi', 'MMSI 273 385 420', '273385420'],
    ['crypto_wallet', '12QtD5BFwR\u00adsdNsAZY76UVE1xyCGNTojH9h', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h'],
    ['crypto_wallet', ' 12QtD5BFwRsdNsAZY76 UVE1xyCGNTojH9h\u200d', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h'],
    ['crypto_wallet', '１２QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h'],
    [
      'crypto_address',
      '0x7F\u200b367cc41522ce07553e823bf3be79a889debe1b',
      '0x7f367cc41522ce07553e823bf3be79a889debe1b',
    ],
  ])('a variant of %s %j compares as %s', (type, written, value) => {
    expect(normaliseIdentifier(type, written)).toBe(value);
  });

  it('keeps a base58 address case-sensitive: another case is another address', () => {
    expect(normaliseIdentifier('crypto_wallet', '12qtd5bfwrsdnsazy76uve1xycgntojh9h')).not.toBe(
      normaliseIdentifier('crypto_address', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h'),
    );
  });
});
