import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { accountWithUser, DashboardClient, fullKeysIn } from '../support/dashboard-client.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { TestApp } from '../support/test-app.js';

/**
 * Accounts, API keys and dashboard users are in the tamper-evident log: each change is chained in
 * its own transaction, with the row's hash and who made it (the key, the dashboard user, or the
 * operator: neither), so a key created or revoked is in the log as soon as it is answered, and
 * `audit verify` holds the rows to it. A database of its own: the edits below must not meet other
 * suites' whole-log verifications.
 */
describe.each(backends())('audited account, key and user changes ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  const db = () => api.runtime.ctx.db;

  /** The chained changes of a record, as committed: no flush of the audit writer before. */
  const changesOf = (recordId: string) =>
    db()
      .selectFrom('audit_log')
      .select(['chain_id', 'action', 'key_id', 'user_id', 'status', 'record_hash'])
      .where('record_id', '=', recordId)
      .orderBy('seq')
      .execute();

  const HASH = expect.stringMatching(/^[0-9a-f]{64}$/);
  const verify = (accountId: string) => api.admin('POST', `/admin/v1/audit/verify?account=${accountId}`);

  it('chains keys created and revoked through the API under the key that did it', async () => {
    const { account, key, keyId } = await api.createAccount('professional');
    const created = await api.request('POST', '/v1/keys', { key, body: { name: 'second' } });
    expect(created.status).toBe(201);
    expect(await changesOf(created.body.id)).toEqual([
      {
        chain_id: account.id,
        action: 'api_key.created',
        key_id: keyId,
        user_id: null,
        status: null,
        record_hash: HASH,
      },
    ]);
    expect((await api.request('DELETE', `/v1/keys/${created.body.id}`, { key })).status).toBe(204);
    // Revoking it again changes nothing, and chains nothing.
    expect((await api.request('DELETE', `/v1/keys/${created.body.id}`, { key })).status).toBe(204);
    expect((await changesOf(created.body.id)).map((c) => [c.action, c.key_id])).toEqual([
      ['api_key.created', keyId],
      ['api_key.revoked', keyId],
    ]);
    expect((await verify(account.id)).body).toMatchObject({ ok: true, records: [] });
  });

  it("chains the operator's changes (no key, no user) in the account's chain", async () => {
    const { account, keyId } = await api.createAccount('starter');
    expect((await changesOf(account.id)).map((c) => [c.chain_id, c.action, c.key_id, c.user_id])).toEqual([
      [account.id, 'account.created', null, null],
    ]);
    expect((await changesOf(keyId)).map((c) => c.action)).toEqual(['api_key.created']);

    const changed = await api.admin('PATCH', `/admin/v1/accounts/${account.id}`, {
      plan: 'enterprise',
      status: 'suspended',
    });
    expect(changed.status).toBe(200);
    const made = await api.admin('POST', `/admin/v1/accounts/${account.id}/keys`, { name: 'ops' });
    expect(made.status).toBe(201);
    expect((await api.admin('DELETE', `/admin/v1/keys/${keyId}`)).status).toBe(204);
    const user = await api.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
      email: `ops-${account.id.slice(0, 8)}@example.com`,
    });
    expect(user.status).toBe(201);
    expect((await api.admin('DELETE', `/admin/v1/users/${user.body.id}`)).status).toBe(204);

    expect((await changesOf(account.id)).map((c) => c.action)).toEqual([
      'account.created',
      'account.changed',
    ]);
    expect((await changesOf(made.body.id)).map((c) => c.action)).toEqual(['api_key.created']);
    expect((await changesOf(keyId)).map((c) => c.action)).toEqual(['api_key.created', 'api_key.revoked']);
    const userChanges = await changesOf(user.body.id);
    expect(userChanges.map((c) => [c.chain_id, c.action, c.key_id, c.user_id])).toEqual([
      [account.id, 'user.created', null, null],
      [account.id, 'user.deleted', null, null],
    ]);
    // Deleted: no row left to hash.
    expect(userChanges[1]!.record_hash).toBeNull();
    expect((await verify(account.id)).body).toMatchObject({ ok: true, records_checked: 3, records: [] });
  });

  it('chains keys created and revoked in the dashboard under the signed-in user', async () => {
    const user = await accountWithUser(api);
    expect((await changesOf(user.userId)).map((c) => c.action)).toEqual(['user.created']);
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/keys');
    const created = await browser.post('/dashboard/keys', {
      _csrf: browser.csrf,
      name: 'from the dashboard',
    });
    expect(created.status).toBe(201);
    const [plaintext] = fullKeysIn(created.body);
    const keyId = (
      await db()
        .selectFrom('api_keys')
        .select('id')
        .where('account_id', '=', user.accountId)
        .where('last4', '=', plaintext!.slice(-4))
        .executeTakeFirstOrThrow()
    ).id;
    const revoked = await browser.post(`/dashboard/keys/${keyId}/revoke`, {
      _csrf: browser.csrf,
      confirm: 'yes',
    });
    expect(revoked.status).toBe(200);
    expect((await changesOf(keyId)).map((c) => [c.action, c.key_id, c.user_id])).toEqual([
      ['api_key.created', null, user.userId],
      ['api_key.revoked', null, user.userId],
    ]);
    expect((await verify(user.accountId)).body).toMatchObject({ ok: true, records: [] });
  });

  it('verify fails on a key un-revoked, a key or user slipped in, and a plan raised in the database', async () => {
    const { account, key, keyId } = await api.createAccount('professional');
    const second = await api.request('POST', '/v1/keys', { key, body: { name: 'second' } });
    expect((await api.request('DELETE', `/v1/keys/${second.body.id}`, { key })).status).toBe(204);
    expect((await verify(account.id)).body.ok).toBe(true);

    await db().updateTable('api_keys').set({ revoked_at: null }).where('id', '=', second.body.id).execute();
    const forgedKey = '6f1c0a52-8e0b-4c3e-9f5e-2d7b1a3c4e5f';
    const row = await db()
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    const { predates_audit: _, ...copy } = row;
    await db()
      .insertInto('api_keys')
      .values({ ...copy, id: forgedKey, key_hash: 'f'.repeat(64) })
      .execute();
    await db().updateTable('accounts').set({ plan: 'enterprise' }).where('id', '=', account.id).execute();
    const result = await verify(account.id);
    expect(result.body.ok).toBe(false);
    expect(
      result.body.records.map((r: any) => [r.table, r.record_id, r.reason.split(':')[0]]).sort(),
    ).toEqual(
      [
        ['accounts', account.id, 'it was edited'],
        ['api_keys', forgedKey, 'it is not in the audit log'],
        ['api_keys', second.body.id, 'it was edited'],
      ].sort(),
    );
  });
});
