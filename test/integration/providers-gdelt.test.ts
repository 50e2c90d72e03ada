import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PlanId } from '../../src/accounts/plans.js';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { type ProviderReply, ProviderServer } from '../support/provider-server.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = path.resolve(process.cwd(), '../shared/data/lists');
const fixture = (name: string) => fs.readFileSync(`test/fixtures/providers/${name}`, 'utf8');
const ARTLIST = fixture('gdelt-artlist.json');
const DOC_PATH = '/api/v2/doc/doc';
/** The other source: the EU list excerpt of ../shared/data/lists (5 entries, loads at once). */
const OFFICIAL_LIST = 'eu_fsf';
const VANTOREX = { query: 'Vantorex Holdings' };
/** A name on the EU list, so that the official list answers while GDELT does not. */
const LISTED = { query: 'Khalid Sheikh Mohammed', type: 'person' };

async function startApp(backend: Backend, gdelt: ProviderServer, env: Record<string, string> = {}) {
  const api = await TestApp.start(backend, {
    env: {
      LISTS_DIR,
      LISTS_ENABLED: OFFICIAL_LIST,
      GDELT_ENABLED: 'true',
      GDELT_URL: gdelt.url(DOC_PATH),
      ...env,
    },
  });
  await api.runtime.ctx.lists.settled();
  return api;
}

async function screen(api: TestApp, body: unknown, plan: PlanId = 'professional') {
  const { key } = await api.createAccount(plan);
  return api.request('POST', '/v1/screen', { key, body });
}

async function sourceErrors(api: TestApp, id: string): Promise<{ source: string; error: string }[]> {
  const row = await api.runtime.ctx.db
    .selectFrom('screenings')
    .select('source_errors')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.source_errors as { source: string; error: string }[];
}

describe.each(backends())('GDELT adverse-media provider ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let gdelt: ProviderServer;
  let elsewhere: ProviderServer;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    gdelt = await ProviderServer.start();
    elsewhere = await ProviderServer.start();
  });
  afterAll(async () => {
    await Promise.all([gdelt?.close(), elsewhere?.close()]);
    await drop?.();
  });
  beforeEach(() => {
    gdelt.reset();
    elsewhere.reset();
  });

  describe('on one running service', () => {
    let api: TestApp;
    beforeAll(async () => {
      api = await startApp(backend, gdelt);
    }, 120_000);
    afterAll(() => api?.close());

    it('flags adverse media for a Professional account, one flag per story, at most 10', async () => {
      gdelt.serve(DOC_PATH, { body: ARTLIST });
      const response = await screen(api, VANTOREX);
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual([OFFICIAL_LIST, 'gdelt']);
      expect(response.body.sources_matched).toEqual(['gdelt']);
      const flags = response.body.flags;
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
      const [request] = gdelt.requestsTo(DOC_PATH);
      expect(Object.fromEntries(request!.query)).toMatchObject({
        mode: 'artlist',
        format: 'json',
        timespan: '24months',
      });
      expect(request!.query.get('query')).toMatch(/^"vantorex holdings" \(fraud OR "money laundering" OR /);
    });

    it('leaves adverse media out for a Starter account, without asking GDELT', async () => {
      gdelt.serve(DOC_PATH, { body: ARTLIST });
      const response = await screen(api, VANTOREX, 'starter');
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual([OFFICIAL_LIST]);
      expect(response.body.flags).toEqual([]);
      expect(gdelt.requests).toHaveLength(0);
    });

    it('leaves adverse media out when a Professional account turns it off', async () => {
      gdelt.serve(DOC_PATH, { body: ARTLIST });
      const response = await screen(api, { ...VANTOREX, options: { include_adverse_media: false } });
      expect(response.body.sources_queried).toEqual([OFFICIAL_LIST]);
      expect(gdelt.requests).toHaveLength(0);
    });

    it('asks GDELT once per name: another threshold or account reuses its articles', async () => {
      gdelt.serve(DOC_PATH, { body: ARTLIST });
      // A name not screened before in this file (spaces as typed: the name is normalised).
      const name = { query: 'Vantorex  Holdings   Ltd', type: 'entity' };
      const first = await screen(api, name);
      const second = await screen(
        api,
        { query: 'vantorex holdings ltd', options: { threshold: 0.6 } },
        'enterprise',
      );
      expect(second.body.cache_hit).toBe(false);
      const gdeltFlags = (r: typeof first) => r.body.flags.filter((f: any) => f.source === 'gdelt');
      expect(gdeltFlags(first).length).toBeGreaterThan(0);
      expect(gdeltFlags(second)).toHaveLength(gdeltFlags(first).length);
      expect(gdelt.requestsTo(DOC_PATH)).toHaveLength(1);
    });

    it('treats GDELT refusing a phrase as too short as no articles, not as a failure', async () => {
      gdelt.serve(DOC_PATH, { body: fixture('gdelt-phrase-too-short.txt') });
      const response = await screen(api, { query: 'Li Na', type: 'person' });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toContain('gdelt');
      expect(await sourceErrors(api, response.body.id)).toEqual([]);
    });

    it('never reads a refusal or a bad answer as no articles: it records GDELT as failed', async () => {
      const bad: [string, ProviderReply, RegExp][] = [
        [
          'syntax refusal',
          { body: fixture('gdelt-query-rejected.txt') },
          /rejected the query: Queries containing/,
        ],
        ['rate limit', { status: 429, body: fixture('gdelt-rate-limited.txt') }, /HTTP 429/],
        ['500', { status: 500 }, /HTTP 500/],
        ['not json', { body: '{"articles": [{"url": ' }, /not valid JSON/],
        [
          'too large',
          { body: { articles: [], pad: 'x'.repeat(3 * 1024 * 1024) }, chunked: true },
          /larger than/,
        ],
        ['redirect', { status: 302, headers: { location: elsewhere.url(DOC_PATH) } }, /another host/],
      ];
      elsewhere.serve(DOC_PATH, { body: ARTLIST });
      for (const [i, [label, reply, error]] of bad.entries()) {
        gdelt.serve(DOC_PATH, reply);
        // A new name each time: a failure is not kept, but the articles of a success are.
        const response = await screen(api, { query: `Vantorex Holdings ${i}` });
        expect(response.status, label).toBe(200);
        expect(response.body.flags, label).toEqual([]);
        expect(await sourceErrors(api, response.body.id), label).toEqual([
          expect.objectContaining({ source: 'gdelt', error: expect.stringMatching(error) }),
        ]);
        // A good answer in between, so that the failures never add up to an open circuit.
        gdelt.serve(DOC_PATH, { body: '{}' });
        expect((await screen(api, { query: `Other Name ${i}` })).status, label).toBe(200);
      }
      expect(elsewhere.requests).toHaveLength(0);
    });
  });

  describe('each on a service of its own', () => {
    let api: TestApp | undefined;
    afterEach(async () => {
      await api?.close();
      api = undefined;
    });

    it('answers on time with the official list when GDELT is slower than its budget', async () => {
      gdelt.serve(DOC_PATH, { body: ARTLIST, delayMs: 5_000 });
      api = await startApp(backend, gdelt, { PROVIDER_TIMEOUT_MS: '300' });
      const started = Date.now();
      const response = await screen(api, LISTED);
      expect(Date.now() - started).toBeLessThan(300 + 1_000);
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toContain('gdelt');
      expect(response.body.sources_matched).toEqual([OFFICIAL_LIST]);
    });

    it('reports GDELT down in health once its circuit opens, and stops asking it', async () => {
      gdelt.serve(DOC_PATH, { status: 503 });
      api = await startApp(backend, gdelt);
      expect((await api.request('GET', '/v1/health')).body.sources.gdelt).toBe('up');
      for (let i = 0; i < 5; i++) await screen(api, { query: `Unknown Company ${i}` });
      const asked = gdelt.requests.length;
      const health = await api.request('GET', '/v1/health');
      expect(health.body).toMatchObject({
        status: 'degraded',
        sources: { [OFFICIAL_LIST]: 'up', gdelt: 'down' },
      });
      await screen(api, LISTED);
      expect(gdelt.requests.length).toBe(asked);
    });
  });
});
