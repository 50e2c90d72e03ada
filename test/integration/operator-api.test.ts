import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

describe.each(backends())('operator API ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  it('refuses a missing or wrong operator token', async () => {
    expect((await api.request('GET', '/admin/v1/accounts')).status).toBe(401);
    const wrong = await api.request('GET', '/admin/v1/accounts', { key: `${TEST_ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.type).toBe('/problems/admin-unauthenticated');
  });

  it('refuses a customer API key on the operator API', async () => {
    const { key } = await api.createAccount();
    expect((await api.request('GET', '/admin/v1/accounts', { key })).status).toBe(401);
  });

  it('creates, lists and gets accounts', async () => {
    const { account } = await api.createAccount('starter');
    expect(account).toMatchObject({ plan: 'starter', status: 'active', rate_limit_per_minute: null });
    const listed = await api.admin('GET', '/admin/v1/accounts');
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(account.id);
    expect((await api.admin('GET', `/admin/v1/accounts/${account.id}`)).body).toEqual(account);
    expect((await api.admin('GET', '/admin/v1/accounts/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
  });

  it('rejects an unknown plan with a pointer to the field', async () => {
    const response = await api.admin('POST', '/admin/v1/accounts', { name: 'x', plan: 'gold' });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/plan');
  });

  it('changes the plan, which the usage endpoint reflects at once', async () => {
    const { account, key } = await api.createAccount('starter');
    expect((await api.request('GET', '/v1/usage', { key })).body.monthly_limit).toBe(500);
    const changed = await api.admin('PATCH', `/admin/v1/accounts/${account.id}`, { plan: 'enterprise' });
    expect(changed.body.plan).toBe('enterprise');
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({
      tier: 'enterprise',
      monthly_limit: null,
      current_month: { remaining: null },
    });
  });

  it('sets a rate-limit override that the RateLimit-Policy header announces', async () => {
    const { account, key } = await api.createAccount('enterprise');
    await api.admin('PATCH', `/admin/v1/accounts/${account.id}`, { rate_limit_per_minute: 1000 });
    const response = await api.request('GET', '/v1/usage', { key });
    expect(response.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=60');
    await api.admin('PATCH', `/admin/v1/accounts/${account.id}`, { rate_limit_per_minute: null });
    const restored = await api.request('GET', '/v1/usage', { key });
    expect(restored.headers.get('ratelimit-policy')).toBe('"default";q=100;w=60');
  });

  it('creates, lists and revokes keys of an account', async () => {
    const { account } = await api.createAccount();
    const created = await api.admin('POST', `/admin/v1/accounts/${account.id}/keys`, { name: 'ops' });
    expect(created.status).toBe(201);
    const listed = await api.admin('GET', `/admin/v1/accounts/${account.id}/keys`);
    expect(listed.body.data).toHaveLength(2);
    expect((await api.admin('DELETE', `/admin/v1/keys/${created.body.id}`)).status).toBe(204);
    expect((await api.request('GET', '/v1/usage', { key: created.body.key })).status).toBe(403);
    const after = await api.admin('GET', `/admin/v1/accounts/${account.id}/keys`);
    expect(after.body.data.find((k: { id: string }) => k.id === created.body.id).status).toBe('revoked');
  });
});
