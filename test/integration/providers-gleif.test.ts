import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { fixture, type RegistryAnswer, RegistryServer } from '../support/registry-server.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = path.resolve(process.cwd(), '../shared/data/lists');
const SEARCH = '/api/v1/lei-records';
// Fictional LEIs (valid check digits) of the fixtures.
const SUBSIDIARY = '5493003BHTRD00HK0161';
const NAMESAKE = '5493006BHSZN000CN302';
const AGRI = '213800GRNAGRI00GB472';
const KOMID = '98450077KPKOMID00113';
const PROVIDER_TIMEOUT_MS = '400';
const SLOW_ANSWER_MS = 5_000;

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
function answerNormally(server: RegistryServer): void {
  server.reset();
  server.route(SEARCH, ({ query }) => ({
    body: fixture(SEARCH_FIXTURES[query.get('filter[entity.names]') ?? ''] ?? 'gleif-lei-records-empty.json'),
  }));
  server.route(`${SEARCH}/${SUBSIDIARY}/direct-parent`, {
    body: fixture('gleif-direct-parent-intermediate.json'),
  });
  server.route(`${SEARCH}/${SUBSIDIARY}/ultimate-parent`, {
    body: fixture('gleif-ultimate-parent-listed.json'),
  });
  server.route(`${SEARCH}/${AGRI}/direct-parent`, { body: fixture('gleif-parent-unlisted.json') });
  server.route(`${SEARCH}/${AGRI}/ultimate-parent`, { body: fixture('gleif-parent-unlisted.json') });
}

const gleifFlags = (body: any) => body.flags.filter((f: any) => f.source === 'gleif');

describe.each(backends())('gleif: listed parents of a screened company ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: RegistryServer;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    server = await RegistryServer.start();
    api = await TestApp.start(backend, {
      env: {
        LISTS_DIR,
        LISTS_ENABLED: 'un_sc',
        GLEIF_ENABLED: 'true',
        GLEIF_URL: `${server.baseUrl}/api/v1`,
        PROVIDER_TIMEOUT_MS,
      },
    });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  beforeEach(() => answerNormally(server));
  afterAll(async () => {
    await api?.close();
    await server?.close();
    await drop?.();
  });

  const screen = (key: string, body: unknown) => api.request('POST', '/v1/screen', { key, body });

  it('flags a subsidiary whose ultimate parent is on the UN list as sanctions from gleif, with the ownership chain', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Blue Harbour Trading Limited' });
    expect(response.status).toBe(200);
    expect(response.body.sources_matched).toEqual(['gleif']);
    const [flag, ...others] = gleifFlags(response.body);
    // The direct parent is not listed: it gives no flag of its own.
    expect(others).toEqual([]);
    expect(flag).toMatchObject({
      type: 'sanctions',
      list: 'UN_CONSOLIDATED',
      details: {
        source_id: SUBSIDIARY,
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
    expect(server.requests.filter((r) => r.path.includes(NAMESAKE))).toEqual([]);
  });

  it('asks for the direct and the ultimate parent at the same time', async () => {
    // Each parent answers only once both were asked, and the listed one is asked first here (as
    // the direct parent): a search that asked one after the other would lose it to its time budget.
    let bothAsked: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothAsked = resolve;
    });
    const parentAnswer = (name: string) => async (): Promise<RegistryAnswer> => {
      if (server.requests.filter((r) => r.path.includes(`${SUBSIDIARY}/`)).length === 2) bothAsked();
      await barrier;
      return { body: fixture(name) };
    };
    server.route(`${SEARCH}/${SUBSIDIARY}/direct-parent`, parentAnswer('gleif-ultimate-parent-listed.json'));
    server.route(`${SEARCH}/${SUBSIDIARY}/ultimate-parent`, parentAnswer('gleif-parent-unlisted.json'));
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Blue Harbour Trading Limited' });
    expect(response.body.sources_matched).toEqual(['gleif']);
  });

  it.each([
    ['whose parent is listed nowhere', 'Greenfield Agri Supplies Limited', 2],
    ['that declares no parent', 'Orchard Lane Bakery Limited', 0],
    ['that GLEIF does not know', 'Nowhere Registered Widgets Ltd', 0],
  ])(
    'gives no flag for a company %s (a registry record is no compliance signal)',
    async (_case, query, parentCalls) => {
      const { key } = await api.createAccount();
      const response = await screen(key, { query });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toContain('gleif');
      expect(gleifFlags(response.body)).toEqual([]);
      expect(server.requests.filter((r) => r.path !== SEARCH)).toHaveLength(parentCalls);
    },
  );

  it('never asks GLEIF about a person', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Blue Harbour Trading Limited', type: 'person' });
    expect(response.status).toBe(200);
    expect(gleifFlags(response.body)).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  const failures: Array<[string, (server: RegistryServer) => void]> = [
    ['answers 500', (s) => s.route(SEARCH, { status: 500, body: { errors: [{ status: '500' }] } })],
    ['answers malformed JSON', (s) => s.route(SEARCH, { body: '{"data": [{"type": "lei-records", ' })],
    [
      'sends a body over the size cap',
      (s) => s.route(SEARCH, { body: `{"data": [${'0,'.repeat(1_600_000)}0]}`, chunked: true }),
    ],
    [
      'redirects to another host',
      (s) => s.route(SEARCH, { status: 307, headers: { location: `${s.otherHostUrl}/elsewhere` } }),
    ],
    [
      'is slower than its time budget',
      (s) => s.route(SEARCH, { delayMs: SLOW_ANSWER_MS, body: fixture('gleif-lei-records-empty.json') }),
    ],
    [
      'cannot say who the parent is (500 on the parent look-up)',
      (s) => s.route(`${SEARCH}/${SUBSIDIARY}/ultimate-parent`, { status: 500, body: {} }),
    ],
  ];

  it.each(failures)(
    'answers 200 on time with the official lists when GLEIF %s, and asks again next time',
    async (_case, fail) => {
      const { key } = await api.createAccount();
      fail(server);
      const started = performance.now();
      const response = await screen(key, { query: 'Blue Harbour Trading Limited' });
      expect(response.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(SLOW_ANSWER_MS / 2);
      expect(response.body.sources_queried).toEqual(expect.arrayContaining(['un_sc', 'gleif']));
      expect(response.body.sources_matched).not.toContain('gleif');
      expect(server.requestsTo('/elsewhere')).toEqual([]);

      answerNormally(server);
      const again = await screen(key, { query: 'Blue Harbour Trading Limited' });
      expect(again.body.cache_hit).toBe(false);
      expect(again.body.sources_matched).toEqual(['gleif']);
    },
  );
});
