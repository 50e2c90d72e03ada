import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { fixture, type RegistryAnswer, RegistryServer } from '../support/registry-server.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = path.resolve(process.cwd(), '../shared/data/lists');
const KEY = 'ch-live-key-5b1e9f0c7a3d';
const BASIC_AUTH = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
const SEARCH = '/search/disqualified-officers';
const NATURAL = '/disqualified-officers/natural/Fq3kTzS0d9wLbY2xPpN7vR1cHuE';
const CORPORATE = '/disqualified-officers/corporate/Hm7sQx2Lr9TcVb1Nk4Pz0WyJdE8';
/** Small, so that a provider that does not answer costs the test well under a second. */
const PROVIDER_TIMEOUT_MS = '400';
/** How long the slow registry takes: far beyond the budget, so "on time" cannot be luck. */
const SLOW_ANSWER_MS = 5_000;

/** Companies House as it answers normally: the search and the detail resources of the fixtures. */
function answerNormally(server: RegistryServer): void {
  server.reset();
  server.route(SEARCH, { body: fixture('companies-house-search-disqualified-officers.json') });
  server.route(NATURAL, { body: fixture('companies-house-natural-officer.json') });
  server.route(CORPORATE, { body: fixture('companies-house-corporate-officer.json') });
}

const chFlags = (body: any) => body.flags.filter((f: any) => f.source === 'uk_companies_house');

describe.each(backends())('uk_companies_house: the disqualified directors register ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: RegistryServer;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    server = await RegistryServer.start();
    api = await TestApp.start(backend, {
      env: {
        // A small official list is the "other source" that must keep answering.
        LISTS_DIR,
        LISTS_ENABLED: 'uk_fcdo',
        COMPANIES_HOUSE_URL: server.baseUrl,
        COMPANIES_HOUSE_API_KEY: KEY,
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

  it('flags a disqualified director as watchlist, with the dates of the disqualification and the register link', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Jonathan Marlowe', type: 'person' });
    expect(response.status).toBe(200);
    expect(response.body.sources_queried).toEqual(expect.arrayContaining(['uk_fcdo', 'uk_companies_house']));
    expect(response.body.sources_matched).toEqual(['uk_companies_house']);
    const [flag, ...others] = chFlags(response.body);
    expect(others).toEqual([]);
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
    expect(flag.match_score).toBeGreaterThan(0.9);
    expect(response.body.risk_level).toBe('medium');
    // Only the officer our matcher kept costs a detail call; the loose search hits cost none.
    expect(server.requests.map((r) => r.path)).toEqual([SEARCH, NATURAL]);
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({
      q: 'jonathan marlowe',
      items_per_page: '50',
    });
  });

  it('flags a disqualified company for an entity query, with its court order', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Marlowe Haulage Limited' });
    const [flag] = chFlags(response.body);
    expect(flag.match_score).toBe(1);
    expect(flag.details).toMatchObject({
      kind: 'organization',
      disqualifications: [
        { disqualification_type: 'court-order', court_name: 'Business And Property Courts Leeds' },
      ],
    });
  });

  it('sends the key as basic auth, and never shows it in a response or a stored error', async () => {
    const { key } = await api.createAccount();
    await screen(key, { query: 'Jonathan Marlowe', type: 'person' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([BASIC_AUTH, BASIC_AUTH]);

    server.route(SEARCH, { status: 401, body: { error: 'Invalid Authorization', type: 'ch:service' } });
    const refused = await screen(key, { query: 'Someone Else', type: 'person' });
    expect(refused.status).toBe(200);
    const stored = await api.runtime.ctx.db
      .selectFrom('screenings')
      .select('source_errors')
      .where('id', '=', refused.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.source_errors).toEqual([expect.objectContaining({ source: 'uk_companies_house' })]);
    for (const text of [JSON.stringify(refused.body), JSON.stringify(stored.source_errors)]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(BASIC_AUTH.slice('Basic '.length));
    }
  });

  const failures: Array<[string, (server: RegistryServer) => RegistryAnswer]> = [
    ['answers 500', () => ({ status: 500, body: { error: 'Internal Server Error' } })],
    ['answers malformed JSON', () => ({ body: '{"items": [{"title": "Jonathan Edward MARLOWE", ' })],
    [
      'sends a body over the size cap',
      () => ({ body: `{"items": [${'"x",'.repeat(800_000)}"x"]}`, chunked: true }),
    ],
    [
      'redirects to another host',
      (s) => ({ status: 302, headers: { location: `${s.otherHostUrl}/elsewhere` } }),
    ],
    [
      'is slower than its time budget',
      () => ({ delayMs: SLOW_ANSWER_MS, body: fixture('companies-house-search-empty.json') }),
    ],
  ];

  it.each(failures)(
    'answers 200 on time with the other sources when Companies House %s, and asks again next time',
    async (_case, failure) => {
      const { key } = await api.createAccount();
      server.route(SEARCH, failure(server));
      const started = performance.now();
      const response = await screen(key, { query: 'Jonathan Marlowe', type: 'person' });
      expect(response.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(SLOW_ANSWER_MS / 2);
      expect(response.body.sources_queried).toEqual(
        expect.arrayContaining(['uk_fcdo', 'uk_companies_house']),
      );
      expect(response.body.sources_matched).not.toContain('uk_companies_house');
      expect(server.requestsTo('/elsewhere')).toEqual([]);

      // A failure is not remembered as "no match": once the registry answers, the director is found.
      answerNormally(server);
      const again = await screen(key, { query: 'Jonathan Marlowe', type: 'person' });
      expect(again.body.cache_hit).toBe(false);
      expect(again.body.sources_matched).toEqual(['uk_companies_house']);
    },
  );
});

describe.each(backends())('uk_companies_house without an API key ($name)', (shared) => {
  it('is not built: neither queried nor reported, and the registry is never called', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const server = await RegistryServer.start();
    answerNormally(server);
    const api = await TestApp.start(backend, {
      env: { LISTS_DIR, LISTS_ENABLED: 'uk_fcdo', COMPANIES_HOUSE_URL: server.baseUrl },
    });
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount();
      const response = await api.request('POST', '/v1/screen', {
        key,
        body: { query: 'Jonathan Marlowe', type: 'person' },
      });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toContain('uk_fcdo');
      expect(response.body.sources_queried).not.toContain('uk_companies_house');
      expect(server.requests).toEqual([]);
    } finally {
      await api.close();
      await server.close();
      await drop();
    }
  }, 60_000);
});
