import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetentionPurge } from '../../src/screening/retention-purge.js';
import { purgeScreenings, retentionCutoff } from '../../src/screening/screening-store.js';
import { type Backend, backends } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

describe.each(backends())('screening retention ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;
  const clock = new FakeClock('2026-01-15T12:00:00.000Z');

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { clock, env: { LISTS_DIR, LISTS_ENABLED: 'un_sc' } });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('purges screenings older than 24 months in batches and keeps the younger ones', async () => {
    const { key } = await api.createAccount('enterprise');
    const old = await api.request('POST', '/v1/screen', { key, body: { query: 'Old Screening Name' } });
    for (const query of ['Second Old Name', 'Third Old Name']) {
      await api.request('POST', '/v1/screen', { key, body: { query } });
    }
    clock.set('2027-06-01T00:00:00.000Z');
    const young = await api.request('POST', '/v1/screen', { key, body: { query: 'Young Screening Name' } });
    clock.set('2028-01-15T12:00:01.000Z');

    // Two statements of two rows at most: no purge holds a long lock.
    const cutoff = retentionCutoff(clock.now(), 24);
    expect(await purgeScreenings(api.runtime.ctx.db, cutoff, 2)).toBe(3);
    const purge = new RetentionPurge(api.runtime.ctx.db, clock, 24, api.app.log);
    const ids = await api.runtime.ctx.db.selectFrom('screenings').select('id').execute();
    expect(ids.map((r) => r.id)).not.toContain(old.body.id);
    expect(ids.map((r) => r.id)).toContain(young.body.id);
    expect((await api.request('GET', `/v1/screen/${young.body.id}`, { key })).status).toBe(200);
    expect(await purge.run()).toBe(0);
    clock.set('2029-06-01T00:00:01.000Z');
    expect(await purge.run()).toBe(1);
  });
});
