import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEntity } from '../../src/sources/list-entity.js';
import { type Backend, backends } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
const ALL_LISTS = 'ofac_sdn,ofac_cons,un_sc,eu_fsf,uk_fcdo,uk_ofsi,us_csl';

/** A name of the entry worth screening: its primary name, if it has two words or more in Latin script. */
function screenableName(entity: ListEntity): string | undefined {
  const name = entity.names[0];
  if (!name || name.script || !/^[A-Za-z][A-Za-z .'-]{9,60}$/.test(name.full)) return undefined;
  return name.full.split(' ').filter((w) => w.length >= 4).length >= 2 ? name.full : undefined;
}

/** The name with two letters of its longest word swapped: the commonest typing error. */
function withTypo(name: string): string {
  const words = name.split(' ');
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  const i = Math.floor(longest.length / 2);
  const typo = longest.slice(0, i) + longest[i + 1] + longest[i] + longest.slice(i + 2);
  return words.map((w) => (w === longest ? typo : w)).join(' ');
}

describe.each(backends())('screening against the official lists ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;
  const clock = new FakeClock('2026-03-10T09:00:00.000Z');

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { clock, env: { LISTS_DIR, LISTS_ENABLED: ALL_LISTS } });
    await api.runtime.ctx.lists.settled();
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  const screen = (key: string, body: unknown) => api.request('POST', '/v1/screen', { key, body });

  it.each(ALL_LISTS.split(','))(
    'finds a listed name of %s with score 1.0, and its typo above 0.8',
    async (listId) => {
      const { key } = await api.createAccount('enterprise');
      const list = api.runtime.ctx.lists.view().lists.get(listId)!;
      const entity = [...list.entities].find((e) => screenableName(e) !== undefined)!;
      const name = screenableName(entity)!;
      const type = entity.kind === 'person' ? 'person' : 'entity';

      const exact = await screen(key, { query: name, type });
      expect(exact.status).toBe(200);
      const hit = exact.body.flags.find(
        (f: any) => f.source === listId && f.details.source_id === entity.source_id,
      );
      expect(hit, `${name} in ${listId}`).toBeDefined();
      expect(hit.match_score).toBe(1);
      expect(hit).toMatchObject({ type: 'sanctions', list: entity.list });
      expect(hit.details.matched_name).toBe(name);
      expect(hit.details.match_explanation.method).toBe('exact');
      expect(exact.body.sources_matched).toContain(listId);
      expect(exact.body.risk_score).toBeGreaterThanOrEqual(60);

      const typo = await screen(key, { query: withTypo(name), type });
      const fuzzy = typo.body.flags.find(
        (f: any) => f.source === listId && f.details.source_id === entity.source_id,
      );
      expect(fuzzy, `${withTypo(name)} in ${listId}`).toBeDefined();
      expect(fuzzy.match_score).toBeGreaterThan(0.8);
      expect(fuzzy.match_score).toBeLessThan(1);
    },
  );

  it('does not flag an unrelated common name', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: 'Margaret Whitfield', type: 'person' });
    expect(response.status).toBe(200);
    expect(response.body.flags).toEqual([]);
    expect(response.body).toMatchObject({ risk_score: 0, risk_level: 'low', sources_matched: [] });
    expect(response.body.sources_queried.sort()).toEqual(ALL_LISTS.split(',').sort());
  });

  it('answers with the normalised entity, a UUID, the execution time and its duration', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, { query: '  ＡＣＭＥ   Jose\u0301 İstanbul  ' });
    expect(response.body.entity).toBe('acme josé i̇stanbul');
    expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.timestamp).toBe('2026-03-10T09:00:00.000Z');
    expect(response.body.duration_ms).toBeGreaterThanOrEqual(0);
    expect(response.body.cache_hit).toBe(false);
  });

  it('limits the screening to the requested sources and reports only those', async () => {
    const { key } = await api.createAccount();
    const response = await screen(key, {
      query: 'Saddam Hussein',
      options: { sources: ['un_sc', 'eu_fsf'] },
    });
    expect(response.body.sources_queried.sort()).toEqual(['eu_fsf', 'un_sc']);
    for (const flag of response.body.flags) expect(['eu_fsf', 'un_sc']).toContain(flag.source);
  });

  it('answers a repeated screening from the cache with the original id, and counts it', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: 'Kim Jong Un', type: 'person' });
    // The same request as screened (surrounding spaces are trimmed from the name as given).
    const second = await screen(key, { query: '  Kim Jong Un ', type: 'person' });
    expect(second.body).toMatchObject({
      cache_hit: true,
      id: first.body.id,
      timestamp: first.body.timestamp,
    });
    expect(second.body.flags).toEqual(first.body.flags);
    // The whole answer is the original's but for these two.
    expect({ ...second.body, cache_hit: false, duration_ms: 0 }).toEqual({ ...first.body, duration_ms: 0 });
    const other = await screen(key, { query: 'Kim Jong Un', type: 'person', options: { threshold: 0.9 } });
    expect(other.body.cache_hit).toBe(false);
    // Another spelling of the name is another request on record (`request.query`): screened anew.
    const lowerCase = await screen(key, { query: 'kim jong un', type: 'person' });
    expect(lowerCase.body).toMatchObject({ cache_hit: false, request: { query: 'kim jong un' } });
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body.current_month.count).toBe(4);
  });

  it('returns a stored screening by id to its account only, and not after the retention period', async () => {
    const mine = await api.createAccount();
    const theirs = await api.createAccount();
    const created = await screen(mine.key, { query: 'Osama bin Laden', type: 'person' });
    const stored = await api.request('GET', `/v1/screen/${created.body.id}`, { key: mine.key });
    expect(stored.status).toBe(200);
    // The stored duration is the screening's own; the POST's also covers writing the response.
    expect({ ...stored.body, duration_ms: 0 }).toEqual({ ...created.body, cache_hit: false, duration_ms: 0 });
    expect((await api.request('GET', `/v1/screen/${created.body.id}`, { key: theirs.key })).status).toBe(404);
    expect(
      (await api.request('GET', '/v1/screen/7b0b3f4e-0000-4000-8000-000000000000', { key: mine.key })).status,
    ).toBe(404);
    expect((await api.request('GET', '/v1/screen/not-an-id', { key: mine.key })).status).toBe(404);
    clock.set('2028-03-10T09:00:01.000Z');
    try {
      expect((await api.request('GET', `/v1/screen/${created.body.id}`, { key: mine.key })).status).toBe(404);
    } finally {
      clock.set('2026-03-10T09:00:00.000Z');
    }
  });
});
