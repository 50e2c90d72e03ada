import { expect, it } from 'vitest';
import { fixture, type ProviderServer } from '../support/provider-server.js';
import { describeProvider, type ProviderUnderTest } from '../support/provider-tests.js';

const KEY = 'ch-live-key-5b1e9f0c7a3d';
const BASIC_AUTH = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
const SEARCH = '/search/disqualified-officers';
const NATURAL = '/disqualified-officers/natural/Fq3kTzS0d9wLbY2xPpN7vR1cHuE';
const CORPORATE = '/disqualified-officers/corporate/Hm7sQx2Lr9TcVb1Nk4Pz0WyJdE8';
const MARLOWE = { query: 'Jonathan Marlowe', type: 'person' };

/** Companies House as it answers normally: the search and the detail resources of the fixtures. */
function answerNormally(server: ProviderServer): void {
  server.serve(SEARCH, { body: fixture('companies-house-search-disqualified-officers.json') });
  server.serve(NATURAL, { body: fixture('companies-house-natural-officer.json') });
  server.serve(CORPORATE, { body: fixture('companies-house-corporate-officer.json') });
}

const COMPANIES_HOUSE: ProviderUnderTest = {
  source: 'uk_companies_house',
  title: 'Companies House',
  suite: 'uk_companies_house: the disqualified directors register',
  officialList: 'uk_fcdo',
  listed: { query: 'Mohammad Hassan Akhund', type: 'person' },
  env: (server) => ({ COMPANIES_HOUSE_URL: server.baseUrl, COMPANIES_HOUSE_API_KEY: KEY }),
  answerNormally,
  path: SEARCH,
  matched: () => MARLOWE,
  truncatedAnswer: '{"items": [{"title": "Jonathan Edward MARLOWE", ',
  serverErrorBody: { error: 'Internal Server Error' },
};

describeProvider(COMPANIES_HOUSE, {
  onOneService: (ch) => {
    it('flags a disqualified director as watchlist, with the dates of the disqualification and the register link', async () => {
      const response = await ch.screen(MARLOWE);
      // Only the officer our matcher kept costs a detail call; the loose search hits cost none.
      expect(ch.server.requests.map((r) => r.path)).toEqual([SEARCH, NATURAL]);
      expect(Object.fromEntries(ch.server.requests[0]!.query)).toEqual({
        q: 'jonathan marlowe',
        items_per_page: '50',
      });
      const flag: any = ch.onlyFlag(response);
      expect(flag).toMatchObject({
        type: 'watchlist',
        list: 'UK_DISQUALIFIED_DIRECTORS',
        details: {
          name: 'Jonathan Edward MARLOWE',
          matched_name: 'Jonathan Edward MARLOWE',
          date_of_birth: '1971-03-14',
          address: '21 Park Row, Leeds, West Yorkshire, United Kingdom, LS1 4DY',
          url: `https://find-and-update.company-information.service.gov.uk${NATURAL}`,
          disqualifications: [
            {
              disqualified_from: '2023-05-02',
              disqualified_until: '2030-05-01',
              disqualification_type: 'undertaking',
            },
          ],
        },
      });
      expect(flag.match_score).toBeGreaterThan(0.85);
      expect(response.body.risk_level).toBe('medium');
    });

    it('flags a disqualified company for an entity query, with its court order', async () => {
      const response = await ch.screen({ query: 'Marlowe Haulage Limited' });
      const [flag]: any[] = ch.flags(response);
      expect(flag.match_score).toBe(1);
      expect(flag.details).toMatchObject({
        kind: 'organization',
        disqualifications: [
          { disqualification_type: 'court-order', court_name: 'Business And Property Courts Leeds' },
        ],
      });
    });

    it('sends the key as basic auth, and never shows it in a response or a stored error', async () => {
      const { key } = await ch.api.createAccount();
      await ch.screen(MARLOWE, { key });
      expect(ch.server.requests.map((r) => r.headers.authorization)).toEqual([BASIC_AUTH, BASIC_AUTH]);

      ch.server.serve(SEARCH, { status: 401, body: { error: 'Invalid Authorization', type: 'ch:service' } });
      const refused = await ch.screen({ query: 'Someone Else', type: 'person' }, { key });
      expect(refused.status).toBe(200);
      const stored = await ch.sourceErrors(refused.body.id);
      expect(stored).toEqual([expect.objectContaining({ source: 'uk_companies_house' })]);
      for (const text of [JSON.stringify(refused.body), JSON.stringify(stored)]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain(BASIC_AUTH.slice('Basic '.length));
      }
    });
  },
  eachOnItsOwn: (ownService) => {
    it('is not built without an API key: neither queried nor reported, and the registry is never called', async () => {
      await ownService({ COMPANIES_HOUSE_API_KEY: '' }, async (service) => {
        const response = await service.screen(MARLOWE);
        expect(response.status).toBe(200);
        expect(response.body.sources_queried).toContain('uk_fcdo');
        expect(response.body.sources_queried).not.toContain('uk_companies_house');
        expect(
          (await service.api.request('GET', '/v1/health')).body.sources.uk_companies_house,
        ).toBeUndefined();
        expect(service.server.requests).toEqual([]);
      });
    }, 120_000);
  },
});
