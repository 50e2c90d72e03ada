import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageSubject } from '../../src/accounts/usage.js';
import { ServiceError } from '../../src/errors.js';
import { backends } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { TestApp } from '../support/test-app.js';

describe.each(backends())('usage and monthly quota ($name)', (backend) => {
  let api: TestApp;
  const clock = new FakeClock('2026-01-31T23:59:58.000Z');
  beforeAll(async () => {
    api = await TestApp.start(backend, { clock });
  });
  afterAll(async () => api?.close());

  const db = () => api.runtime.ctx.db;
  const count = (subject: UsageSubject) => api.runtime.ctx.usage.count(subject);

  async function subjectFor(plan: 'starter' | 'professional' | 'enterprise') {
    const { account, key, keyId } = await api.createAccount(plan);
    return { key, subject: { accountId: account.id, keyId, plan } as UsageSubject };
  }

  it('reports plan, limit, count, remaining, reset date and the key’s own count', async () => {
    clock.set('2026-01-31T23:59:58.000Z');
    const { key, subject } = await subjectFor('starter');
    await count(subject);
    await count(subject);
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual({
      tier: 'starter',
      monthly_limit: 500,
      current_month: { count: 2, remaining: 498, reset_date: '2026-02-01T00:00:00.000Z', key_count: 2 },
    });
  });

  it('starts a new count at the first instant of the next month (UTC)', async () => {
    clock.set('2026-01-31T23:59:59.999Z');
    const { key, subject } = await subjectFor('professional');
    await count(subject);
    expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(1);
    clock.set('2026-02-01T00:00:00.000Z');
    const next = await api.request('GET', '/v1/usage', { key });
    expect(next.body.current_month).toEqual({
      count: 0,
      remaining: 2000,
      reset_date: '2026-03-01T00:00:00.000Z',
      key_count: 0,
    });
  });

  it('shares the quota between the keys of an account and counts each key on its own', async () => {
    clock.set('2026-05-10T12:00:00.000Z');
    const { key, subject } = await subjectFor('professional');
    const second = await api.admin('POST', `/admin/v1/accounts/${subject.accountId}/keys`, { name: 'b' });
    await count(subject);
    await count({ ...subject, keyId: second.body.id });
    await count({ ...subject, keyId: second.body.id });
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body.current_month).toMatchObject({ count: 3, key_count: 1 });
  });

  it('reports no limit and no remaining count for Enterprise', async () => {
    const { key } = await subjectFor('enterprise');
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({
      tier: 'enterprise',
      monthly_limit: null,
      current_month: { remaining: null },
    });
  });

  it('admits exactly the limit under 20 concurrent screenings at the edge, then refuses before any work', async () => {
    clock.set('2026-06-15T08:00:00.000Z');
    const { key, subject } = await subjectFor('starter');
    await db()
      .insertInto('usage_counters')
      .values({ account_id: subject.accountId, month: '2026-06-01', count: 490 })
      .execute();
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => count(subject)));
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes.filter(
      (o) =>
        o.status === 'rejected' && o.reason instanceof ServiceError && o.reason.code === 'quota-exceeded',
    ).length;
    expect(admitted).toBe(10);
    expect(refused).toBe(10);
    await expect(api.runtime.ctx.usage.assertAvailable(subject)).rejects.toMatchObject({
      code: 'quota-exceeded',
    });
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body.current_month).toMatchObject({ count: 500, remaining: 0, key_count: 10 });
  });

  it('never refuses an Enterprise account for quota', async () => {
    const { subject } = await subjectFor('enterprise');
    await Promise.all(Array.from({ length: 20 }, () => count(subject)));
    await expect(api.runtime.ctx.usage.assertAvailable(subject)).resolves.toBeUndefined();
  });

  it('reports exact counts when usage is read while screenings are being counted', async () => {
    clock.set('2026-07-01T10:00:00.000Z');
    const { key, subject } = await subjectFor('enterprise');
    const reads: Promise<unknown>[] = [];
    const counts = Array.from({ length: 25 }, (_, i) => {
      if (i % 3 === 0) reads.push(api.request('GET', '/v1/usage', { key }));
      return count(subject);
    });
    await Promise.all([...counts, ...reads]);
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body.current_month).toMatchObject({ count: 25, key_count: 25 });
  });
});
