import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/accounts/api-key-format.js';
import { backends } from '../support/backends.js';
import { TestApp } from '../support/test-app.js';

describe.each(backends())('API keys ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  it('creates a key shown once in full, then listed only by prefix and last four characters', async () => {
    const { key } = await api.createAccount();
    const created = await api.request('POST', '/v1/keys', { key, body: { name: 'payments backend' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^cs_live_[0-9A-Za-z]{32}$/);
    expect(created.body).toMatchObject({
      name: 'payments backend',
      prefix: 'cs_live_',
      last4: created.body.key.slice(-4),
    });

    const listed = await api.request('GET', '/v1/keys', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(created.body.key);
    expect(text).not.toContain(hashApiKey(created.body.key));
    expect((await api.request('GET', '/v1/usage', { key: created.body.key })).status).toBe(200);
  });

  it('stores only the SHA-256 of a key, never the key', async () => {
    const { key, keyId } = await api.createAccount();
    const row = await api.runtime.ctx.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('lets a key revoke itself, with 204 and no body', async () => {
    const { key, keyId } = await api.createAccount();
    const response = await api.request('DELETE', `/v1/keys/${keyId}`, { key });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await api.request('GET', '/v1/usage', { key })).status).toBe(403);
  });

  it("answers 404 for another account's key and leaves it working", async () => {
    const mine = await api.createAccount();
    const theirs = await api.createAccount();
    const response = await api.request('DELETE', `/v1/keys/${theirs.keyId}`, { key: mine.key });
    expect(response.status).toBe(404);
    expect((await api.request('GET', '/v1/usage', { key: theirs.key })).status).toBe(200);
  });

  it('answers 404 for an unknown or malformed key id', async () => {
    const { key } = await api.createAccount();
    expect(
      (await api.request('DELETE', '/v1/keys/00000000-0000-4000-8000-000000000000', { key })).status,
    ).toBe(404);
    expect((await api.request('DELETE', '/v1/keys/not-a-uuid', { key })).status).toBe(404);
  });

  it('rejects a key name that is empty or has unknown fields beside it', async () => {
    const { key } = await api.createAccount();
    const empty = await api.request('POST', '/v1/keys', { key, body: { name: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].pointer).toBe('/name');
    const extra = await api.request('POST', '/v1/keys', { key, body: { name: 'x', scope: 'all' } });
    expect(extra.status).toBe(422);
    expect(extra.body.errors).toContainEqual({ pointer: '/scope', detail: 'is not a known field' });
  });

  it('records when a key was last used without a write per request', async () => {
    const { key, keyId } = await api.createAccount();
    for (let i = 0; i < 5; i++) await api.request('GET', '/v1/usage', { key });
    await api.runtime.ctx.lastUsed.flush();
    const listed = await api.request('GET', '/v1/keys', { key });
    const used = listed.body.data.find((k: { id: string }) => k.id === keyId);
    expect(Date.now() - Date.parse(used.last_used_at)).toBeLessThan(60_000);
  });
});
