import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScreeningService } from '../../src/screening/screening-service.js';
import type { Flag } from '../../src/sources/flag.js';
import { ListSource } from '../../src/sources/lists/list-source.js';
import type { Source } from '../../src/sources/source.js';
import { connectRedis, waitUntilReady } from '../../src/store/redis.js';
import { MemoryResultCache, RedisResultCache, type ResultCache } from '../../src/store/result-cache.js';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

/** Stand-ins for remote providers, which tests may not reach: one that fails, one that never answers. */
function failingProvider(id: string, behaviour: 'throws' | 'hangs'): Source {
  return {
    id,
    kind: 'watchlist_provider',
    timeoutMs: 150,
    screen: () =>
      behaviour === 'throws'
        ? Promise.reject(new Error('provider answered 502'))
        : new Promise<Flag[]>(() => {}),
    health: () => 'down',
    version: () => undefined,
  };
}

/**
 * The app with UN's list and a screening service of the test's own: its sources (besides the
 * list) and its cache stand in for what a test cannot make fail here.
 */
async function startWithScreening(
  backend: Backend,
  more: { sources?: Source[]; cache?: ResultCache } = {},
): Promise<{ api: TestApp; screening: ScreeningService }> {
  let screening: ScreeningService | undefined;
  const api = await TestApp.start(backend, {
    env: { LISTS_DIR, LISTS_ENABLED: 'un_sc' },
    adjust: (ctx) => {
      screening = new ScreeningService({
        db: ctx.db,
        clock: ctx.clock,
        usage: ctx.usage,
        cache: more.cache ?? new MemoryResultCache(),
        sources: () => [new ListSource('un_sc', ctx.lists), ...(more.sources ?? [])],
        retentionMonths: 24,
      });
      return { ...ctx, screening };
    },
  });
  return { api, screening: screening! };
}

/**
 * A cache that sends each write on at once and never reports it done, as a Redis that stalls
 * after receiving the command; `writes` counts them.
 */
function unacknowledged(cache: ResultCache): ResultCache & { writes: number } {
  return {
    writes: 0,
    get: (key) => cache.get(key),
    isUp: () => cache.isUp(),
    set(key, value, ttlMs) {
      this.writes++;
      void cache.set(key, value, ttlMs);
      return new Promise<void>(() => {});
    },
  };
}

describe.each(backends())('screening: the contract of each status ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { env: { LISTS_DIR, LISTS_ENABLED: 'un_sc,eu_fsf' } });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  const screen = (key: string, body: unknown) => api.request('POST', '/v1/screen', { key, body });

  /** A Starter account (500 a month) that has already used `count` screenings this month. */
  async function starterAccountWithUsage(count: number): Promise<{ key: string }> {
    const { key, account } = await api.createAccount('starter');
    await api.runtime.ctx.db
      .insertInto('usage_counters')
      .values({ account_id: account.id, month: `${new Date().toISOString().slice(0, 7)}-01`, count })
      .execute();
    return { key };
  }

  it('answers 401 without a key and 403 with a revoked one, before validating the body', async () => {
    expect((await api.request('POST', '/v1/screen', { body: { nonsense: true } })).status).toBe(401);
    const { key, keyId } = await api.createAccount();
    await api.request('DELETE', `/v1/keys/${keyId}`, { key });
    expect((await screen(key, { nonsense: true })).status).toBe(403);
  });

  it.each([
    ['a query of one character after trimming', { query: '  x  ' }, '/query'],
    ['a query over 500 code points', { query: '𝔸'.repeat(501) }, '/query'],
    ['a missing query', { type: 'person' }, '/query'],
    ['an unknown type', { query: 'Acme', type: 'company' }, '/type'],
    ['a threshold above 1', { query: 'Acme', options: { threshold: 1.5 } }, '/options/threshold'],
    ['an unknown field', { query: 'Acme', limit: 5 }, '/limit'],
    ['an unknown option', { query: 'Acme', options: { fuzzy: true } }, '/options/fuzzy'],
    [
      'unknown source ids',
      { query: 'Acme', options: { sources: ['un_sc', 'interpol'] } },
      '/options/sources',
    ],
  ])('answers 422 for %s, pointing at the field', async (_case, body, pointer) => {
    const { key } = await api.createAccount();
    const response = await screen(key, body);
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it.each([
    ['only invisible characters', '\u200b\u200b\u200b'],
    ['only control characters', '\u0001\u0002\u0007\u001f'],
    ['only punctuation', '!!..--'],
    ['only symbols, punctuation and spaces', ' €$ ¿¡ — ✓ '],
    ['invisible characters between punctuation', '-\u200d-\u2060-\ufeff-'],
  ])('refuses a name of %s with 422 at /query, and does not count it', async (_case, query) => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.type).toBe('/problems/validation-failed');
    expect(response.body.errors).toEqual([
      { pointer: '/query', detail: 'must hold at least one letter or digit' },
    ]);
    expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(0);
  });

  it.each([
    ['digits only', '007'],
    ['letters of another script', '李小龍'],
    ['letters among punctuation and invisible characters', '\u200b-- Ö! --'],
  ])('screens a name of %s', async (_case, query) => {
    const { key } = await api.createAccount();
    expect((await screen(key, { query })).status).toBe(200);
  });

  it('reports the screened name without the invisible characters it held, and counts it without them', async () => {
    const { key } = await api.createAccount();
    const reversed = await screen(key, { query: '\u202eniteP rimidalV' });
    expect(reversed.status).toBe(200);
    expect(reversed.body.entity).toBe('nitep rimidalv');
    const hidden = await screen(key, { query: 'Acme\u0001 Tra\u200bding\u00ad Ltd' });
    expect(hidden.status).toBe(200);
    expect(hidden.body.entity).toBe('acme trading ltd');
    // Counted as shown: one letter and invisible characters is too short.
    const short = await screen(key, { query: 'X\u200b\u200b\u200b' });
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual([
      { pointer: '/query', detail: 'must be 2 to 500 characters after trimming (got 1)' },
    ]);
  });

  it('names the unknown source ids in the 422', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Acme', options: { sources: ['interpol', 'un_sc', 'fbi'] } });
    expect(response.body.detail).toMatch(/interpol, fbi/);
  });

  it('counts a 500-character query of astral characters as 500, and accepts it', async () => {
    const { key } = await api.createAccount();
    expect((await screen(key, { query: '𝔸'.repeat(500) })).status).toBe(200);
  });

  it('refuses adverse media asked explicitly on Starter with 403 plan-feature-unavailable', async () => {
    const { key } = await api.createAccount('starter');
    const response = await screen(key, { query: 'Acme', options: { include_adverse_media: true } });
    expect(response.status).toBe(403);
    expect(response.body.type).toBe('/problems/plan-feature-unavailable');
    expect((await screen(key, { query: 'Acme', options: { include_adverse_media: false } })).status).toBe(
      200,
    );
  });

  it('answers 402 once the month is used up, before any work, and counts nothing more', async () => {
    const { key } = await starterAccountWithUsage(499);
    expect((await screen(key, { query: 'Acme Holdings' })).status).toBe(200);
    const refused = await screen(key, { query: 'Another Name' });
    expect(refused.status).toBe(402);
    expect(refused.body.type).toBe('/problems/quota-exceeded');
    expect((await api.request('GET', '/v1/usage', { key })).body.current_month).toMatchObject({
      count: 500,
      remaining: 0,
    });
  });

  it('admits exactly the screenings the month has room for when one key sends many at once, and stores each admitted one', async () => {
    // Concurrent screenings of one key are counted and stored together (group commit); a group
    // the month cannot hold whole must still admit exactly the room left, one by one.
    const { key } = await starterAccountWithUsage(488);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => screen(key, { query: `Concurrent Name ${i}` })),
    );
    const admitted = answers.filter((a) => a.status === 200);
    expect(admitted).toHaveLength(12);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(12);
    expect((await api.request('GET', '/v1/usage', { key })).body.current_month).toMatchObject({
      count: 500,
      remaining: 0,
      key_count: 12,
    });
    for (const a of admitted)
      expect((await api.request('GET', `/v1/screen/${a.body.id}`, { key })).body.id).toBe(a.body.id);
  });

  it('answers 422 when none of the requested sources is configured here', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Acme', options: { sources: ['uk_ofsi'] } });
    expect(response.status).toBe(422);
  });
});

// Each test has a database of its own: a list stored by one must not be found by the other.
describe.each(backends())('screening when sources fail ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
  });
  afterEach(async () => drop?.());

  it('answers on time and correctly when one provider throws and one hangs', async () => {
    const { api } = await startWithScreening(backend, {
      sources: [failingProvider('opensanctions', 'throws'), failingProvider('gleif', 'hangs')],
    });
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount();
      const started = Date.now();
      const response = await api.request('POST', '/v1/screen', {
        key,
        body: { query: 'Saddam Hussein Al-Tikriti', type: 'person' },
      });
      expect(Date.now() - started).toBeLessThan(150 + 1_000);
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual(['un_sc', 'opensanctions', 'gleif']);
      expect(response.body.sources_matched).toEqual(['un_sc']);
      expect(response.body.sources_failed).toEqual([
        { source: 'opensanctions', reason: 'error' },
        { source: 'gleif', reason: 'timeout' },
      ]);
      // Both are providers: every official list selected answered.
      expect(response.body.complete).toBe(true);
      expect(response.body.flags[0].match_score).toBe(1);
      const row = await api.runtime.ctx.db
        .selectFrom('screenings')
        .select('source_errors')
        .where('id', '=', response.body.id)
        .executeTakeFirstOrThrow();
      expect(row.source_errors).toEqual([
        { source: 'opensanctions', error: 'provider answered 502', timed_out: false, reason: 'error' },
        { source: 'gleif', error: 'no answer within 150 ms', timed_out: true, reason: 'timeout' },
      ]);
    } finally {
      await api.close();
    }
  });

  it('answers 500 sources-failed naming each source and its reason, counting nothing, when every selected source failed', async () => {
    const emptyMirror = fs.mkdtempSync(path.join(os.tmpdir(), 'css-empty-mirror-'));
    const api = await TestApp.start(backend, {
      env: { LISTS_DIR: emptyMirror, LISTS_ENABLED: 'un_sc,eu_fsf' },
    });
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount();
      const response = await api.request('POST', '/v1/screen', { key, body: { query: 'Saddam Hussein' } });
      // The seed's contract: "500 POST /v1/screen: All sources failed", each source named with why.
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        type: '/problems/sources-failed',
        title: 'All sources failed',
        status: 500,
        sources_failed: [
          { source: 'un_sc', reason: 'unavailable' },
          { source: 'eu_fsf', reason: 'unavailable' },
        ],
      });
      expect(response.body.detail).toBe(
        'Every selected source failed: un_sc (unavailable), eu_fsf (unavailable).',
      );
      expect(response.body.detail).not.toMatch(/not loaded|mirror|ENOENT/);
      expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(0);
      const health = await api.request('GET', '/v1/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'down', sources: { un_sc: 'down', eu_fsf: 'down' } });
    } finally {
      await api.close();
      fs.rmSync(emptyMirror, { recursive: true, force: true });
    }
  });
});

describe.each(backends())('screening cache and list versions ($name)', (shared) => {
  it('answers a live screening without waiting for its cache write, sent before the answer', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    // The backend's own kind of cache: on PostgreSQL + Redis, Redis itself, whose connection keeps
    // the order of the write and the next request's read.
    const redis = backend.redisUrl ? connectRedis(backend.redisUrl, () => {}) : undefined;
    if (redis) expect(await waitUntilReady(redis, 5_000)).toBe(true);
    const cache = unacknowledged(
      redis ? new RedisResultCache(redis, `test:${randomUUID()}:`) : new MemoryResultCache(),
    );
    const { api, screening } = await startWithScreening(backend, { cache });
    try {
      await api.runtime.ctx.lists.settled();
      const { account, key, keyId } = await api.createAccount();
      const body = { query: 'Saddam Hussein Al-Tikriti', type: 'person' };
      // An answer that waited for the write would never come (the test would time out).
      const live = await api.request('POST', '/v1/screen', { key, body });
      expect(live.status).toBe(200);
      expect(live.body.cache_hit).toBe(false);
      expect(cache.writes).toBe(1);
      const again = await api.request('POST', '/v1/screen', { key, body });
      expect(again.body).toMatchObject({ cache_hit: true, id: live.body.id });
      expect((await api.request('GET', `/v1/screen/${live.body.id}`, { key })).status).toBe(200);
      expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(2);

      // The write is sent by the time the answer is ready, not in a later turn of the loop.
      const subject = { accountId: account.id, keyId, plan: 'professional' as const };
      await screening.screenToJson(subject, {
        request: { query: 'Abu Bakr al-Baghdadi', type: 'person' },
        requestId: 'contract-test',
      });
      expect(cache.writes).toBe(2);
    } finally {
      await api.close();
      await redis?.quit();
      await drop();
    }
  });

  it('screens live, and counts once, when the cache holds something that is not a stored result', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    // A cache whose every value is foreign or damaged (another program's key, a truncated write).
    const foreign: ResultCache = {
      get: async () => Buffer.from('{"id":"not one of ours","duration_ms":"soon"', 'utf8'),
      set: async () => {},
      isUp: () => true,
    };
    const { api } = await startWithScreening(backend, { cache: foreign });
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount();
      const body = { query: 'Saddam Hussein Al-Tikriti', type: 'person' };
      for (let i = 0; i < 2; i++) {
        const response = await api.request('POST', '/v1/screen', { key, body });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ cache_hit: false, entity: 'saddam hussein al-tikriti' });
        expect(response.body.flags.length).toBeGreaterThan(0);
      }
      expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(2);
    } finally {
      await api.close();
      await drop();
    }
  });

  it('does not answer from the cache after the list changed version', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const server = await ListServer.start();
    const eu = fs.readFileSync(path.join(LISTS_DIR, 'xmlFullSanctionsList_1_1.xml'));
    server.serve('/eu/list.xml', { body: eu });
    const api = await TestApp.start(backend, {
      env: { LISTS_ENABLED: 'eu_fsf', LIST_URL_EU_FSF: server.url('/eu/list.xml') },
    });
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount();
      const body = { query: 'Acme Trading', options: { sources: ['eu_fsf'] } };
      const first = await api.request('POST', '/v1/screen', { key, body });
      expect((await api.request('POST', '/v1/screen', { key, body })).body.cache_hit).toBe(true);
      // A new publication of the list: same records, different bytes, so a new version.
      server.serve('/eu/list.xml', { body: Buffer.concat([eu, Buffer.from('\n<!-- republished -->\n')]) });
      const refreshed = await api.admin('POST', '/admin/v1/lists/eu_fsf/refresh?force=true');
      expect(refreshed.body.outcome).toBe('accepted');
      const after = await api.request('POST', '/v1/screen', { key, body });
      expect(after.body.cache_hit).toBe(false);
      expect(after.body.id).not.toBe(first.body.id);
    } finally {
      await api.close();
      await server.close();
      await drop();
    }
  });
});
