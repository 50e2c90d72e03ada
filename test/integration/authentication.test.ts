import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { TestApp } from '../support/test-app.js';

describe.each(backends())('authentication ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  it('accepts an active key in the Authorization header', async () => {
    const { key } = await api.createAccount();
    const response = await api.request('GET', '/v1/usage', { key });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['no Authorization header', {}],
    ['a scheme other than Bearer', { authorization: 'Basic Y3NfbGl2ZV86eA==' }],
    ['an empty Bearer token', { authorization: 'Bearer ' }],
    ['a token without the cs_live_ prefix', { authorization: `Bearer sk_live_${'a'.repeat(32)}` }],
    ['a token of the wrong length', { authorization: `Bearer cs_live_${'a'.repeat(31)}` }],
    ['a well-formed key that does not exist', { authorization: `Bearer cs_live_${'a'.repeat(32)}` }],
  ])('answers 401 for %s', async (_case, headers) => {
    const response = await api.request('GET', '/v1/usage', { headers });
    expect(response.status).toBe(401);
    expect(response.body.type).toBe('/problems/unauthenticated');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('ratelimit')).toBeNull();
  });

  it.each(['api_key', 'key', 'access_token', 'token'])(
    'refuses a valid key passed as the query parameter %s, pointing to the header',
    async (parameter) => {
      const { key } = await api.createAccount();
      const response = await api.request('GET', `/v1/usage?${parameter}=${key}`);
      expect(response.status).toBe(401);
      expect(response.body.detail).toMatch(/Authorization header/);
    },
  );

  it('refuses a valid key passed in a cookie, pointing to the header', async () => {
    const { key } = await api.createAccount();
    const response = await api.request('GET', '/v1/usage', { headers: { cookie: `api_key=${key}` } });
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/Authorization header/);
  });

  it('answers 403 for a revoked key', async () => {
    const { key, keyId } = await api.createAccount();
    expect((await api.request('DELETE', `/v1/keys/${keyId}`, { key })).status).toBe(204);
    const response = await api.request('GET', '/v1/usage', { key });
    expect(response.status).toBe(403);
    expect(response.body.type).toBe('/problems/key-revoked');
  });

  it('answers 403 for a key of a suspended account, and serves it again once resumed', async () => {
    const { key, account } = await api.createAccount();
    expect((await api.request('GET', '/v1/usage', { key })).status).toBe(200);
    await api.admin('PATCH', `/admin/v1/accounts/${account.id}`, { status: 'suspended' });
    const refused = await api.request('GET', '/v1/usage', { key });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe('/problems/account-suspended');
    await api.admin('PATCH', `/admin/v1/accounts/${account.id}`, { status: 'active' });
    expect((await api.request('GET', '/v1/usage', { key })).status).toBe(200);
  });

  it('keeps the health check, the OpenAPI document and the docs page open without a key', async () => {
    expect((await api.request('GET', '/v1/health')).status).toBe(200);
    const doc = await fetch(`${api.baseUrl}/v1/openapi.json`);
    expect(doc.status).toBe(200);
    const docs = await fetch(`${api.baseUrl}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
  });
});
