import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { type ProviderReply, ProviderServer } from '../support/provider-server.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = path.resolve(process.cwd(), '../shared/data/lists');
const fixture = (name: string) => fs.readFileSync(`test/fixtures/providers/${name}`, 'utf8');
const MATCH = fixture('opensanctions-match.json');
const PEP = fixture('opensanctions-match-pep.json');
const API_KEY = 'os-test-key-7f3a9c2e51';
const MATCH_PATH = '/match/default';
/**
 * The other source: the EU list excerpt of ../shared/data/lists (5 entries, loads at once), and a
 * name on it, so that the official list answers while OpenSanctions does not.
 */
const OFFICIAL_LIST = 'eu_fsf';
const LISTED = { query: 'Khalid Sheikh Mohammed', type: 'person' };
const ZAKHAROV = { query: 'Alexander Zakharov', type: 'person' };

async function startApp(backend: Backend, yente: ProviderServer, env: Record<string, string> = {}) {
  const api = await TestApp.start(backend, {
    env: {
      LISTS_DIR,
      LISTS_ENABLED: OFFICIAL_LIST,
      OPENSANCTIONS_MODE: 'api',
      OPENSANCTIONS_API_URL: yente.baseUrl,
      OPENSANCTIONS_API_KEY: API_KEY,
      ...env,
    },
  });
  await api.runtime.ctx.lists.settled();
  return api;
}

async function screen(api: TestApp, body: unknown) {
  const { key } = await api.createAccount('professional');
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

describe.each(backends())('OpenSanctions API provider ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let yente: ProviderServer;
  let elsewhere: ProviderServer;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    yente = await ProviderServer.start();
    elsewhere = await ProviderServer.start();
  });
  afterAll(async () => {
    await Promise.all([yente?.close(), elsewhere?.close()]);
    await drop?.();
  });
  beforeEach(() => {
    yente.reset();
    elsewhere.reset();
  });

  describe('on one running service', () => {
    let api: TestApp;
    beforeAll(async () => {
      api = await startApp(backend, yente);
    }, 120_000);
    afterAll(() => api?.close());

    it('flags the match scored by the service matcher, asking yente with the ApiKey header', async () => {
      yente.serve(MATCH_PATH, { body: MATCH });
      const response = await screen(api, ZAKHAROV);
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual([OFFICIAL_LIST, 'opensanctions']);
      expect(response.body.sources_matched).toEqual(['opensanctions']);
      // yente returned three Zakharovs; the service matcher keeps the one it scores above 0.5.
      expect(response.body.flags).toHaveLength(1);
      expect(response.body.flags[0]).toMatchObject({
        type: 'watchlist',
        source: 'opensanctions',
        list: 'GB_COH_DISQUALIFIED',
        match_score: 1,
        details: {
          entity_id: 'NK-aU5ybkbRFJucf8YMwsJvDw',
          matched_name: 'Alexander ZAKHAROV',
          provider_score: 0.97,
        },
      });
      expect(response.body).toMatchObject({ risk_score: 30, risk_level: 'medium' });
      const [request] = yente.requestsTo(MATCH_PATH);
      expect(request!.method).toBe('POST');
      expect(request!.headers.authorization).toBe(`ApiKey ${API_KEY}`);
      expect(Object.fromEntries(request!.query)).toEqual({ threshold: '0.5', limit: '10' });
      expect(JSON.parse(request!.body)).toEqual({
        queries: { q1: { schema: 'Person', properties: { name: ['alexander zakharov'] } } },
      });
    });

    it('flags a politically exposed person as pep', async () => {
      yente.serve(MATCH_PATH, { body: PEP });
      const response = await screen(api, { query: 'Mohammed bin Khalid Al Saud', type: 'person' });
      const flags = response.body.flags.filter((f: any) => f.source === 'opensanctions');
      expect(flags).toEqual([
        expect.objectContaining({ type: 'pep', list: 'SA_WIKI_PEPS_V2', match_score: 1 }),
      ]);
    });

    it('retries a 500 once, then screens without OpenSanctions, naming no key or address', async () => {
      yente.serve(MATCH_PATH, { status: 500, body: { detail: 'Internal Server Error' } });
      const response = await screen(api, LISTED);
      expect(response.status).toBe(200);
      expect(response.body.sources_matched).toEqual([OFFICIAL_LIST]);
      expect(yente.requestsTo(MATCH_PATH)).toHaveLength(2);
      const errors = await sourceErrors(api, response.body.id);
      expect(errors).toEqual([
        { source: 'opensanctions', error: 'opensanctions: answered HTTP 500', timed_out: false },
      ]);
      expect(JSON.stringify(errors)).not.toMatch(new RegExp(`${API_KEY}|127\\.0\\.0\\.1`));
    });

    it('never reads a bad answer as no match: without JSON, over 2 MB, without our query, or redirected elsewhere', async () => {
      const bad: [string, ProviderReply][] = [
        ['not json', { body: '{"responses": {"q1": ', headers: { 'content-type': 'application/json' } }],
        ['too large', { body: { padding: 'x'.repeat(3 * 1024 * 1024) }, chunked: true }],
        ['no response', { body: { responses: {}, limit: 10 } }],
        ['redirect', { status: 307, headers: { location: elsewhere.url(MATCH_PATH) } }],
      ];
      elsewhere.serve(MATCH_PATH, { body: MATCH });
      for (const [label, reply] of bad) {
        yente.serve(MATCH_PATH, reply);
        const response = await screen(api, ZAKHAROV);
        expect(response.status, label).toBe(200);
        expect(response.body.flags, label).toEqual([]);
        const errors = await sourceErrors(api, response.body.id);
        expect(errors, label).toEqual([expect.objectContaining({ source: 'opensanctions' })]);
        // A good answer in between, so that the failures never add up to an open circuit.
        yente.serve(MATCH_PATH, { body: MATCH });
        expect((await screen(api, ZAKHAROV)).body.sources_matched, label).toEqual(['opensanctions']);
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

    it('answers on time with the official list when OpenSanctions is slower than its budget', async () => {
      yente.serve(MATCH_PATH, { body: MATCH, delayMs: 5_000 });
      api = await startApp(backend, yente, { PROVIDER_TIMEOUT_MS: '300' });
      const started = Date.now();
      const response = await screen(api, LISTED);
      expect(Date.now() - started).toBeLessThan(300 + 1_000);
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toContain('opensanctions');
      expect(response.body.sources_matched).toEqual([OFFICIAL_LIST]);
      const errors = await sourceErrors(api, response.body.id);
      expect(errors).toEqual([
        expect.objectContaining({ source: 'opensanctions', error: expect.stringMatching(/300 ms/) }),
      ]);
    });

    it('reports OpenSanctions down in health once its circuit opens, and stops asking it', async () => {
      yente.serve(MATCH_PATH, { status: 503 });
      api = await startApp(backend, yente);
      expect((await api.request('GET', '/v1/health')).body.sources.opensanctions).toBe('up');
      for (let i = 0; i < 5; i++) await screen(api, { query: `Unlisted Person ${i}`, type: 'person' });
      const asked = yente.requests.length;
      const health = await api.request('GET', '/v1/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: 'degraded',
        sources: { [OFFICIAL_LIST]: 'up', opensanctions: 'down' },
      });
      const skipped = await screen(api, LISTED);
      expect(skipped.body.sources_matched).toEqual([OFFICIAL_LIST]);
      expect(yente.requests.length).toBe(asked);
    });

    it('sends no Authorization header to a self-hosted yente without a key', async () => {
      yente.serve(MATCH_PATH, { body: MATCH });
      api = await startApp(backend, yente, { OPENSANCTIONS_API_KEY: '' });
      expect((await screen(api, ZAKHAROV)).body.sources_matched).toEqual(['opensanctions']);
      expect(yente.requests[0]!.headers.authorization).toBeUndefined();
    });

    it('is neither queried nor reported unless OPENSANCTIONS_MODE is api', async () => {
      yente.serve(MATCH_PATH, { body: MATCH });
      api = await startApp(backend, yente, { OPENSANCTIONS_MODE: 'off' });
      expect((await screen(api, ZAKHAROV)).body.sources_queried).toEqual([OFFICIAL_LIST]);
      expect((await api.request('GET', '/v1/health')).body.sources.opensanctions).toBeUndefined();
      expect(yente.requests).toHaveLength(0);
    });
  });
});
