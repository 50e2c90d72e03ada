import { describe, expect, it } from 'vitest';
import {
  COMPANIES_HOUSE_SERVICE_URL,
  disqualifiedOfficerFlag,
  disqualifiedOfficersFrom,
  officerDisqualificationsFrom,
  officerMatch,
} from '../../../src/sources/providers/companies-house-records.js';
import { fixture } from '../../support/provider-server.js';

const search = JSON.parse(fixture('companies-house-search-disqualified-officers.json'));
const natural = JSON.parse(fixture('companies-house-natural-officer.json'));
const corporate = JSON.parse(fixture('companies-house-corporate-officer.json'));

describe('Companies House disqualified officers: reading the answers', () => {
  it('reads every item of a documented search answer, natural and corporate officers alike', () => {
    const items = disqualifiedOfficersFrom(search)!;
    expect(items.map((i) => [i.title, i.officerKind, i.officerId])).toEqual([
      ['Jonathan Edward MARLOWE', 'natural', 'Fq3kTzS0d9wLbY2xPpN7vR1cHuE'],
      ['MARLOWE HAULAGE LIMITED', 'corporate', 'Hm7sQx2Lr9TcVb1Nk4Pz0WyJdE8'],
      ['Jonathan PRYCE-WILLIAMS', 'natural', 'pL0aW8mQe2ZrT5uYx9KdN3sBvG4'],
    ]);
    // The search gives a timestamp; a date of birth is a date.
    expect(items[0]!.dateOfBirth).toBe('1971-03-14');
    expect(items[1]!.dateOfBirth).toBeUndefined();
  });

  it('treats an answer that is not a search result as a failure, and an empty one as no match', () => {
    expect(disqualifiedOfficersFrom([])).toBeUndefined();
    expect(disqualifiedOfficersFrom({ items: 'none' })).toBeUndefined();
    expect(disqualifiedOfficersFrom(null)).toBeUndefined();
    expect(disqualifiedOfficersFrom({ kind: 'search#disqualified-officers', total_results: 0 })).toEqual([]);
  });

  it('never takes a detail path from an answer other than an officer link of the same API', () => {
    for (const self of [
      'https://evil.example/disqualified-officers/natural/x',
      '/disqualified-officers/natural/../../company/123',
      '//evil.example/disqualified-officers/natural/abc',
      '/officers/abc/appointments',
    ]) {
      const [item] = disqualifiedOfficersFrom({ items: [{ title: 'A Name', links: { self } }] })!;
      expect(item!.path, self).toBeUndefined();
    }
  });

  it('reads the dates and reasons of each disqualification from the detail resource', () => {
    expect(officerDisqualificationsFrom(natural)!.disqualifications).toEqual([
      {
        disqualified_from: '2023-05-02',
        disqualified_until: '2030-05-01',
        disqualification_type: 'undertaking',
        case_identifier: 'INV5518372',
        court_name: null,
        heard_on: null,
        undertaken_on: '2023-04-11',
        company_names: ['MARLOWE HAULAGE LIMITED', 'MARLOWE LOGISTICS (NORTH) LIMITED'],
        reason: {
          act: 'company-directors-disqualification-act-1986',
          section: '7',
          description_identifier: 'order-or-undertaking-and-reporting-provisions',
        },
      },
    ]);
    expect(officerDisqualificationsFrom(corporate)!.disqualifications[0]!.court_name).toBe(
      'Business And Property Courts Leeds',
    );
    expect(officerDisqualificationsFrom({ kind: 'natural-disqualification' })).toBeUndefined();
  });
});

describe('Companies House disqualified officers: from a matched item to a flag', () => {
  const [person, company] = disqualifiedOfficersFrom(search)!;

  it('flags a matched officer as watchlist UK_DISQUALIFIED_DIRECTORS with the register entry and its dates', () => {
    const match = officerMatch('jonathan marlowe', 'person', person!);
    const flag = disqualifiedOfficerFlag(match, officerDisqualificationsFrom(natural)!);
    expect(flag).toMatchObject({
      type: 'watchlist',
      source: 'uk_companies_house',
      list: 'UK_DISQUALIFIED_DIRECTORS',
      match_score: match.comparison.score,
      details: {
        source_id: 'Fq3kTzS0d9wLbY2xPpN7vR1cHuE',
        kind: 'person',
        name: 'Jonathan Edward MARLOWE',
        date_of_birth: '1971-03-14',
        nationality: 'British',
        address: '21 Park Row, Leeds, West Yorkshire, United Kingdom, LS1 4DY',
        description: 'Born on 14 March 1971 - Disqualified',
        url: `${COMPANIES_HOUSE_SERVICE_URL}/disqualified-officers/natural/Fq3kTzS0d9wLbY2xPpN7vR1cHuE`,
        matched_name: 'Jonathan Edward MARLOWE',
        matched_name_type: 'primary',
        match_explanation: { matched_name: 'Jonathan Edward MARLOWE', score: match.comparison.score },
      },
    });
    // The query leaves out the listed middle name: a strong match, not a near-exact one.
    expect(match.comparison.score).toBeGreaterThan(0.85);
    expect((flag.details.disqualifications as unknown[]).length).toBe(1);
    expect(flag.details.source_record).toEqual({ search_item: person!.raw, officer: natural });
  });

  it('still flags the match when the dates could not be read, saying they are unknown (null), not absent ([])', () => {
    const flag = disqualifiedOfficerFlag(officerMatch('marlowe haulage limited', 'entity', company!), null);
    expect(flag.match_score).toBe(1);
    expect(flag.details).toMatchObject({
      kind: 'organization',
      disqualifications: null,
      date_of_birth: null,
    });
  });

  it('scores an unrelated officer that the loose search returned below the default threshold', () => {
    const [, , other] = disqualifiedOfficersFrom(search)!;
    expect(officerMatch('jonathan marlowe', 'person', other!).comparison.score).toBeLessThan(0.5);
  });

  it('matches on the other names an officer was disqualified under, reported as an alias', () => {
    const item = { ...person!, title: 'Jon MARLOWE-SMYTHE', snippet: 'Jonathan Edward Marlowe' };
    const match = officerMatch('jonathan edward marlowe', 'person', item);
    expect(match.nameType).toBe('aka');
    expect(disqualifiedOfficerFlag(match, null).details.matched_name).toBe('Jonathan Edward Marlowe');
  });
});
