import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { TestApp } from '../support/test-app.js';

async function exhaust(api: TestApp, key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await api.request('GET', '/v1/usage', { key })).status);
  return statuses;
}

describe.each(backends())('rate limit ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  it('admits 100 requests a minute per key and answers the 101st with 429 and the real wait', async () => {
    const { key } = await api.createAccount();
    const started = Date.now();
    const statuses = await exhaust(api, key, 100);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await api.request('GET', '/v1/usage', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.type).toBe('/problems/rate-limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(60 - elapsedSeconds - 1));
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
  });

  it('announces the policy and the remaining requests on every authenticated response', async () => {
    const { key } = await api.createAccount();
    const first = await api.request('GET', '/v1/usage', { key });
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=100;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=99;t=(60|59)$/);
    const second = await api.request('GET', '/v1/keys', { key });
    expect(second.headers.get('ratelimit')).toMatch(/^"default";r=98;t=\d+$/);
  });

  it('counts each key separately, even within one account', async () => {
    const { key, account } = await api.createAccount();
    await exhaust(api, key, 100);
    expect((await api.request('GET', '/v1/usage', { key })).status).toBe(429);
    const other = await api.admin('POST', `/admin/v1/accounts/${account.id}/keys`, { name: 'second' });
    expect((await api.request('GET', '/v1/usage', { key: other.body.key })).status).toBe(200);
  });
});

describe('rate limit with Redis unreachable', () => {
  it('falls back to a per-instance limit instead of failing requests, and health reports the cache down', async () => {
    const api = await TestApp.start(backends()[0]!, { redisUrl: 'redis://127.0.0.1:9' });
    try {
      const { key } = await api.createAccount();
      const statuses = await exhaust(api, key, 101);
      expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
      expect(statuses[100]).toBe(429);
      const health = await api.request('GET', '/v1/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'degraded', cache: 'down' });
    } finally {
      await api.close();
    }
  });
});
