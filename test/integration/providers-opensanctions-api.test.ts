import { expect, it } from 'vitest';
import { fixture } from '../support/provider-server.js';
import { describeProvider, type ProviderUnderTest } from '../support/provider-tests.js';

const MATCH = fixture('opensanctions-match.json');
const PEP = fixture('opensanctions-match-pep.json');
const API_KEY = 'os-test-key-7f3a9c2e51';
const MATCH_PATH = '/match/default';
/** The other source: the EU list excerpt (5 entries). */
const OFFICIAL_LIST = 'eu_fsf';
const LISTED = { query: 'Khalid Sheikh Mohammed', type: 'person' };
const KORSAKOV = { query: 'Alexander Korsakov', type: 'person' };

const OPENSANCTIONS: ProviderUnderTest = {
  source: 'opensanctions',
  title: 'OpenSanctions',
  suite: 'OpenSanctions API provider',
  officialList: OFFICIAL_LIST,
  listed: LISTED,
  env: (server) => ({
    OPENSANCTIONS_MODE: 'api',
    OPENSANCTIONS_API_URL: server.baseUrl,
    OPENSANCTIONS_API_KEY: API_KEY,
  }),
  answerNormally: (server) => server.serve(MATCH_PATH, { body: MATCH }),
  path: MATCH_PATH,
  matched: () => KORSAKOV,
  truncatedAnswer: '{"responses": {"q1": ',
  serverErrorBody: { detail: 'Internal Server Error' },
  ownFailures: [
    {
      label: 'answers without a response to our query',
      install: (server) => server.serve(MATCH_PATH, { body: { responses: {}, limit: 10 } }),
      error: /no response to the query/,
    },
  ],
};

describeProvider(OPENSANCTIONS, {
  onOneService: (yente) => {
    it('flags the match scored by the service matcher, confirming the EU list loaded here, asking yente with the ApiKey header', async () => {
      const response = await yente.screen(KORSAKOV);
      // yente returned three Korsakovs; the service matcher keeps the one it scores above 0.5.
      const flag = yente.onlyFlag(response);
      expect(flag).toMatchObject({
        type: 'watchlist',
        source: 'opensanctions',
        // As in bulk mode: the sanctioned target is in the dataset of the EU list enabled here.
        list: 'EU_FSF',
        match_score: 1,
        details: {
          entity_id: 'NK-fict-K7rSv2LmQx9Wd4Ta',
          confirms: ['eu_fsf'],
          matched_name: 'Alexander KORSAKOV',
          provider_score: 0.97,
        },
      });
      expect(response.body).toMatchObject({ risk_score: 30, risk_level: 'medium' });
      const [request] = yente.server.requestsTo(MATCH_PATH);
      expect(request!.method).toBe('POST');
      expect(request!.headers.authorization).toBe(`ApiKey ${API_KEY}`);
      expect(Object.fromEntries(request!.query)).toEqual({ threshold: '0.5', limit: '10' });
      expect(JSON.parse(request!.body)).toEqual({
        queries: { q1: { schema: 'Person', properties: { name: ['alexander korsakov'] } } },
      });
    });

    it('flags a politically exposed person as pep', async () => {
      yente.server.serve(MATCH_PATH, { body: PEP });
      const response = await yente.screen({ query: 'Mohammed bin Khalid Al Saud', type: 'person' });
      const flags = response.body.flags.filter((f: any) => f.source === 'opensanctions');
      expect(flags).toEqual([
        expect.objectContaining({ type: 'pep', list: 'SA_WIKI_PEPS_V2', match_score: 1 }),
      ]);
    });

    it('retries a 500 once, then screens without OpenSanctions, naming no key or address', async () => {
      yente.server.serve(MATCH_PATH, { status: 500, body: { detail: 'Internal Server Error' } });
      const response = await yente.screen(LISTED);
      expect(response.status).toBe(200);
      expect(response.body.sources_matched).toEqual([OFFICIAL_LIST]);
      expect(yente.server.requestsTo(MATCH_PATH)).toHaveLength(2);
      const errors = await yente.sourceErrors(response.body.id);
      expect(errors).toEqual([
        {
          source: 'opensanctions',
          error: 'opensanctions: answered HTTP 500',
          timed_out: false,
          reason: 'error',
        },
      ]);
      expect(JSON.stringify(errors)).not.toMatch(new RegExp(`${API_KEY}|127\\.0\\.0\\.1`));
    });
  },
  eachOnItsOwn: (ownService) => {
    it('sends no Authorization header to a self-hosted yente without a key', async () => {
      await ownService({ OPENSANCTIONS_API_KEY: '' }, async (service) => {
        expect((await service.screen(KORSAKOV)).body.sources_matched).toEqual(['opensanctions']);
        expect(service.server.requests[0]!.headers.authorization).toBeUndefined();
      });
    }, 120_000);

    it('is neither queried nor reported unless OPENSANCTIONS_MODE is api', async () => {
      await ownService({ OPENSANCTIONS_MODE: 'off' }, async (service) => {
        expect((await service.screen(KORSAKOV)).body.sources_queried).toEqual([OFFICIAL_LIST]);
        expect((await service.api.request('GET', '/v1/health')).body.sources.opensanctions).toBeUndefined();
        expect(service.server.requests).toHaveLength(0);
      });
    }, 120_000);
  },
});
