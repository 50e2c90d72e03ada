import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/accounts/api-key-format.js';
import { PLANS } from '../../src/accounts/plans.js';
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
  it('caps the active keys of an account, even when many are created at once, and frees a place on revocation', async () => {
    const { key } = await api.createAccount('enterprise');
    const max = PLANS.enterprise.activeKeysMax;
    const burst = await Promise.all(
      Array.from({ length: max + 10 }, (_, i) =>
        api.request('POST', '/v1/keys', { key, body: { name: `burst ${i}` } }),
      ),
    );
    // The account's first key counts: the burst can add one fewer than the cap.
    expect(burst.filter((r) => r.status === 201)).toHaveLength(max - 1);
    const refused = burst.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(11);
    for (const response of refused) {
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.type).toBe('/problems/limit-reached');
      expect(response.body.detail).toMatch(new RegExp(`at most ${max} active API keys`));
    }
    const { count } = await api.runtime.ctx.db
      .selectFrom('api_keys')
      .innerJoin('api_keys as mine', 'mine.account_id', 'api_keys.account_id')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('mine.key_hash', '=', hashApiKey(key))
      .where('api_keys.revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(max);
    const revoked = burst.find((r) => r.status === 201)!.body.id;
    expect((await api.request('DELETE', `/v1/keys/${revoked}`, { key })).status).toBe(204);
    expect((await api.request('POST', '/v1/keys', { key, body: { name: 'after revocation' } })).status).toBe(
      201,
    );
    expect((await api.request('POST', '/v1/keys', { key, body: { name: 'one too many' } })).status).toBe(422);
  });

  it('lists the keys a page at a time, oldest first, each key once, following next_cursor', async () => {
    const { key } = await api.createAccount();
    for (let i = 0; i < 4; i++) await api.request('POST', '/v1/keys', { key, body: { name: `paged ${i}` } });
    const names: string[] = [];
    let url = '/v1/keys?limit=2';
    for (;;) {
      const page = await api.request('GET', url, { key });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      names.push(...page.body.data.map((k: { name: string }) => k.name));
      if (page.body.next_cursor === null) break;
      url = `/v1/keys?limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    // Keys made within one millisecond are ordered by id: every key once is what a caller relies on.
    expect([...names].sort()).toEqual(['default', 'paged 0', 'paged 1', 'paged 2', 'paged 3']);
    expect((await api.request('GET', '/v1/keys', { key })).body).toMatchObject({ next_cursor: null });
    const bad = await api.request('GET', '/v1/keys?cursor=not-a-cursor', { key });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].pointer).toBe('/cursor');
    expect((await api.request('GET', '/v1/keys?limit=0', { key })).status).toBe(422);
  });
});
