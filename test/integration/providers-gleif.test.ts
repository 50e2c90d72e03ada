import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { fixture, type ProviderReply, type ProviderServer } from '../support/provider-server.js';
import { describeProvider, type ProviderUnderTest } from '../support/provider-tests.js';

const SEARCH = '/api/v1/lei-records';
// Fictional LEIs (valid check digits) of the fixtures.
const SUBSIDIARY = '5493003BHTRD00HK0161';
const NAMESAKE = '5493006BHSZN000CN302';
const AGRI = '213800GRNAGRI00GB472';
const KOMID = '98450077KPKOMID00113';
const BLUE_HARBOUR = { query: 'Blue Harbour Trading Limited' };

/** GLEIF's name search, answering by the queried name as the fixtures were shaped for. */
const SEARCH_FIXTURES: Record<string, string> = {
  'blue harbour trading limited': 'gleif-lei-records-subsidiary.json',
  'greenfield agri supplies limited': 'gleif-lei-records-unlisted-parent.json',
  'orchard lane bakery limited': 'gleif-lei-records-no-parent.json',
};

/**
 * GLEIF as it answers normally. The fictional Blue Harbour Trading Limited (Hong Kong) has an
 * unlisted direct parent and, as ultimate parent, KOMID (Korea Mining Development Trading
 * Corporation), which is on the UN list (KPe.001); Greenfield's parent is listed nowhere.
 */
function answerNormally(server: ProviderServer): void {
  server.serve(SEARCH, ({ query }) => ({
    body: fixture(SEARCH_FIXTURES[query.get('filter[entity.names]') ?? ''] ?? 'gleif-lei-records-empty.json'),
  }));
  server.serve(`${SEARCH}/${SUBSIDIARY}/direct-parent`, {
    body: fixture('gleif-direct-parent-intermediate.json'),
  });
  server.serve(`${SEARCH}/${SUBSIDIARY}/ultimate-parent`, {
    body: fixture('gleif-ultimate-parent-listed.json'),
  });
  server.serve(`${SEARCH}/${AGRI}/direct-parent`, { body: fixture('gleif-parent-unlisted.json') });
  server.serve(`${SEARCH}/${AGRI}/ultimate-parent`, { body: fixture('gleif-parent-unlisted.json') });
}

const GLEIF: ProviderUnderTest = {
  source: 'gleif',
  title: 'GLEIF',
  suite: 'gleif: listed parents of a screened company',
  officialList: 'un_sc',
  listed: { query: 'Korea Mining Development Trading Corporation' },
  env: (server) => ({ GLEIF_ENABLED: 'true', GLEIF_URL: server.url('/api/v1') }),
  answerNormally,
  path: SEARCH,
  matched: () => BLUE_HARBOUR,
  truncatedAnswer: '{"data": [{"type": "lei-records", ',
  serverErrorBody: { errors: [{ status: '500', title: 'Internal Server Error' }] },
  ownFailures: [
    {
      label: 'cannot say who the parent is (500 on the parent look-up)',
      install: (server) => server.serve(`${SEARCH}/${SUBSIDIARY}/ultimate-parent`, { status: 500, body: {} }),
      error: /answered HTTP 500/,
    },
  ],
};

/** An FtM entity as OpenSanctions exports it, naming the fixtures' unlisted parent. */
const GREENFIELD_PARENT_ON_WATCHLIST = {
  id: 'NK-test-greenfield',
  caption: 'GREENFIELD GROUP HOLDINGS PLC',
  schema: 'Company',
  properties: { name: ['GREENFIELD GROUP HOLDINGS PLC'], topics: ['role.oligarch'] },
  datasets: ['test_watchlist'],
  target: true,
  first_seen: '2026-01-05T10:00:00',
  last_seen: '2026-04-29T12:00:00',
};

describeProvider(GLEIF, {
  onOneService: (gleif) => {
    it('flags a subsidiary whose ultimate parent is on the UN list as sanctions from gleif, with the ownership chain', async () => {
      const response = await gleif.screen(BLUE_HARBOUR);
      // The direct parent is not listed: it gives no flag of its own.
      const flag: any = gleif.onlyFlag(response);
      expect(flag).toMatchObject({
        type: 'sanctions',
        list: 'UN_CONSOLIDATED',
        details: {
          source_id: expect.stringMatching(new RegExp(`^${SUBSIDIARY}:ultimate_parent:un_sc:`)),
          lei: SUBSIDIARY,
          name: 'BLUE HARBOUR TRADING LIMITED',
          matched_name: 'BLUE HARBOUR TRADING LIMITED',
          via: {
            relationship: 'ultimate_parent',
            chain: [
              { role: 'screened_company', name: 'BLUE HARBOUR TRADING LIMITED', lei: SUBSIDIARY },
              { role: 'ultimate_parent', name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION', lei: KOMID },
            ],
            listed_parent: {
              source: 'un_sc',
              list: 'UN_CONSOLIDATED',
              matched_name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION',
            },
          },
        },
      });
      expect(flag.match_score).toBe(
        Math.min(flag.details.company_match_score, flag.details.via.listed_parent.match_score),
      );
      expect(response.body.risk_level).toMatch(/high|critical/);
      // The namesake in Shenzhen declares no parent (reporting exception): no call is made for it.
      expect(gleif.server.requests.filter((r) => r.path.includes(NAMESAKE))).toEqual([]);
    });

    it('asks for the direct and the ultimate parent at the same time', async () => {
      // Each parent answers only once both were asked, and the listed one is asked first here (as
      // the direct parent): a search that asked one after the other would lose it to its time budget.
      let bothAsked: () => void = () => {};
      const barrier = new Promise<void>((resolve) => {
        bothAsked = resolve;
      });
      const parentAnswer = (name: string) => async (): Promise<ProviderReply> => {
        if (gleif.server.requests.filter((r) => r.path.includes(`${SUBSIDIARY}/`)).length === 2) bothAsked();
        await barrier;
        return { body: fixture(name) };
      };
      const parents = `${SEARCH}/${SUBSIDIARY}`;
      gleif.server.serve(`${parents}/direct-parent`, parentAnswer('gleif-ultimate-parent-listed.json'));
      gleif.server.serve(`${parents}/ultimate-parent`, parentAnswer('gleif-parent-unlisted.json'));
      const response = await gleif.screen(BLUE_HARBOUR);
      expect(response.body.sources_matched).toEqual(['gleif']);
    });

    it.each([
      ['whose parent is listed nowhere', 'Greenfield Agri Supplies Limited', 2],
      ['that declares no parent', 'Orchard Lane Bakery Limited', 0],
      ['that GLEIF does not know', 'Nowhere Registered Widgets Ltd', 0],
    ])(
      'gives no flag for a company %s (a registry record is no compliance signal)',
      async (_case, query, parentCalls) => {
        const response = await gleif.screen({ query });
        expect(response.status).toBe(200);
        expect(response.body.sources_queried).toContain('gleif');
        expect(gleif.flags(response)).toEqual([]);
        expect(gleif.server.requests.filter((r) => r.path !== SEARCH)).toHaveLength(parentCalls);
      },
    );

    it('does not query GLEIF for a person, nor report it as a source that answered', async () => {
      const response = await gleif.screen({ ...BLUE_HARBOUR, type: 'person' });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual(['un_sc']);
      expect(gleif.flags(response)).toEqual([]);
      expect(gleif.server.requests).toEqual([]);
    });

    it('answers 422 when GLEIF alone is asked about a person, naming the type', async () => {
      const response = await gleif.screen({
        ...BLUE_HARBOUR,
        type: 'person',
        options: { sources: ['gleif'] },
      });
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(response.body.detail).toMatch(/person/);
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/options/sources']);
      expect(gleif.server.requests).toEqual([]);
    });
  },
  eachOnItsOwn: (ownService) => {
    it('never answers a clean "low" when the official list could not be loaded', async () => {
      const emptyMirror = fs.mkdtempSync(path.join(os.tmpdir(), 'gleif-empty-mirror-'));
      try {
        await ownService({ LISTS_DIR: emptyMirror }, async (service) => {
          // GLEIF does not apply to a person: nothing that applies answered, so there is no result.
          const person = await service.screen({ query: 'Saddam Hussein', type: 'person' });
          expect(person.status).toBe(500);
          expect(person.body).toMatchObject({
            type: '/problems/sources-failed',
            sources_failed: [{ source: 'un_sc', reason: 'unavailable' }],
          });
          expect(service.server.requests).toEqual([]);
          // GLEIF answered for a company; the list it could not check is named, and the answer is incomplete.
          const company = await service.screen({ query: 'Orchard Lane Bakery Limited' });
          expect(company.status).toBe(200);
          expect(company.body).toMatchObject({
            sources_queried: ['un_sc', 'gleif'],
            sources_failed: [{ source: 'un_sc', reason: 'unavailable' }],
            complete: false,
          });
        });
      } finally {
        fs.rmSync(emptyMirror, { recursive: true, force: true });
      }
    }, 120_000);

    it("screens parents against the authorities' lists only, never against OpenSanctions' export", async () => {
      // Greenfield's parent, on no official list, is on the (bulk) OpenSanctions watchlist here: a
      // watchlist entry is not a sanction, so it must not become a sanctions flag from gleif.
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gleif-opensanctions-'));
      const watchlist = path.join(folder, 'entities.ftm.json');
      fs.writeFileSync(watchlist, `${JSON.stringify(GREENFIELD_PARENT_ON_WATCHLIST)}\n`);
      const env = { OPENSANCTIONS_MODE: 'bulk', LIST_URL_OPENSANCTIONS: pathToFileURL(watchlist).href };
      try {
        await ownService(env, async (service) => {
          const parent = await service.screen({ query: 'Greenfield Group Holdings PLC' });
          expect(parent.body.sources_matched).toEqual(['opensanctions']);
          const response = await service.screen({ query: 'Greenfield Agri Supplies Limited' });
          expect(response.body.sources_queried).toContain('gleif');
          expect(service.flags(response)).toEqual([]);
        });
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    }, 120_000);
  },
});
