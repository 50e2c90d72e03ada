import { expect, it } from 'vitest';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { fixture } from '../support/provider-server.js';
import { describeProvider, type ProviderUnderTest } from '../support/provider-tests.js';

const ARTLIST = fixture('gdelt-artlist.json');
const DOC_PATH = '/api/v2/doc/doc';
/** The other source: the EU list excerpt (5 entries). */
const OFFICIAL_LIST = 'eu_fsf';
const VANTOREX = { query: 'Vantorex Holdings' };

const GDELT: ProviderUnderTest = {
  source: 'gdelt',
  title: 'GDELT',
  suite: 'GDELT adverse-media provider',
  officialList: OFFICIAL_LIST,
  listed: { query: 'Khalid Sheikh Mohammed', type: 'person' },
  env: (server) => ({ GDELT_ENABLED: 'true', GDELT_URL: server.url(DOC_PATH) }),
  answerNormally: (server) => server.serve(DOC_PATH, { body: ARTLIST }),
  path: DOC_PATH,
  // GDELT's articles are kept by name: each screening needs a name GDELT was not asked about yet.
  // The headlines name "Vantorex Holdings", which still matches with a token added.
  matched: (n) => ({ query: `Vantorex Holdings ${n}` }),
  truncatedAnswer: '{"articles": [{"url": ',
  serverErrorBody: 'Internal Server Error',
  ownFailures: [
    {
      label: 'refuses the query (an HTTP 200 in plain text)',
      install: (server) => server.serve(DOC_PATH, { body: fixture('gdelt-query-rejected.txt') }),
      error: /rejected the query: Queries containing/,
    },
    {
      label: 'limits the rate',
      install: (server) => server.serve(DOC_PATH, { status: 429, body: fixture('gdelt-rate-limited.txt') }),
      error: /HTTP 429/,
    },
  ],
};

describeProvider(GDELT, {
  onOneService: (gdelt) => {
    it('flags adverse media for a Professional account, one flag per story, at most 10', async () => {
      const response = await gdelt.screen(VANTOREX);
      const flags: any[] = gdelt.matchedFlags(response);
      expect(flags).toHaveLength(10);
      expect(flags[0]).toMatchObject({
        type: 'adverse_media',
        source: 'gdelt',
        list: 'ADVERSE_MEDIA',
        match_score: 1,
        details: {
          matched_name: 'Vantorex Holdings',
          adverse_terms: ['fraud', 'charged'],
          domain: 'news.example.com',
        },
      });
      expect(flags.filter((f: any) => /money laundering probe/.test(f.details.title))).toHaveLength(1);
      expect(response.body).toMatchObject({ risk_score: 20, risk_level: 'low' });
      const [request] = gdelt.server.requestsTo(DOC_PATH);
      expect(Object.fromEntries(request!.query)).toMatchObject({
        mode: 'artlist',
        format: 'json',
        timespan: '24months',
      });
      expect(request!.query.get('query')).toMatch(/^"vantorex holdings" \(fraud OR "money laundering" OR /);
    });

    it('leaves adverse media out for a Starter account, without asking GDELT', async () => {
      const response = await gdelt.screen(VANTOREX, 'starter');
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual([OFFICIAL_LIST]);
      expect(response.body.flags).toEqual([]);
      expect(gdelt.server.requests).toHaveLength(0);
    });

    it('offers adverse media on the dashboard console of a Professional account, not a Starter one', async () => {
      const user = await accountWithUser(gdelt.api);
      const browser = new DashboardClient(gdelt.api.baseUrl);
      expect((await browser.signIn(user.email, user.password)).status).toBe(303);
      expect((await browser.get('/dashboard/screen')).body).toMatch(
        /name="adverse_media" value="yes" checked/,
      );
      const starter = await accountWithUser(gdelt.api, 'starter');
      const theirs = new DashboardClient(gdelt.api.baseUrl);
      expect((await theirs.signIn(starter.email, starter.password)).status).toBe(303);
      expect((await theirs.get('/dashboard/screen')).body).not.toMatch(/name="adverse_media"/);
    });

    it('leaves adverse media out when a Professional account turns it off', async () => {
      const response = await gdelt.screen({ ...VANTOREX, options: { include_adverse_media: false } });
      expect(response.body.sources_queried).toEqual([OFFICIAL_LIST]);
      expect(gdelt.server.requests).toHaveLength(0);
    });

    it('asks GDELT once per name: another threshold or account reuses its articles', async () => {
      // A name not screened before in this file (spaces as typed: the name is normalised).
      const name = { query: 'Vantorex  Holdings   Ltd', type: 'entity' };
      const first = await gdelt.screen(name);
      const second = await gdelt.screen(
        { query: 'vantorex holdings ltd', options: { threshold: 0.6 } },
        'enterprise',
      );
      expect(second.body.cache_hit).toBe(false);
      expect(gdelt.flags(first).length).toBeGreaterThan(0);
      expect(gdelt.flags(second)).toHaveLength(gdelt.flags(first).length);
      expect(gdelt.server.requestsTo(DOC_PATH)).toHaveLength(1);
    });

    it('treats GDELT refusing a phrase as too short as no articles, not as a failure', async () => {
      gdelt.server.serve(DOC_PATH, { body: fixture('gdelt-phrase-too-short.txt') });
      const response = await gdelt.screen({ query: 'Li Na', type: 'person' });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toContain('gdelt');
      expect(gdelt.server.requestsTo(DOC_PATH)).toHaveLength(1);
      expect(await gdelt.sourceErrors(response.body.id)).toEqual([]);
    });
  },
});
