import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { TestApp } from '../support/test-app.js';

/** Deletions an attacker with write access to the database can make, and how `audit verify` sees them. */
describe.each(backends())('audit log tampering ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  const db = () => api.runtime.ctx.db;

  async function deleteChain(accountId: string): Promise<void> {
    await api.runtime.ctx.audit.flush();
    await db().deleteFrom('audit_log').where('chain_id', '=', accountId).execute();
    await db().deleteFrom('audit_chain_heads').where('chain_id', '=', accountId).execute();
  }

  it('reports an account that made requests but whose chain and head were deleted', async () => {
    const { key, account } = await api.createAccount();
    for (let i = 0; i < 3; i++) expect((await api.request('GET', '/v1/usage', { key })).status).toBe(200);
    const untouched = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(untouched.body).toMatchObject({ ok: true, chains_checked: 1, rows_checked: 3 });

    await deleteChain(account.id);
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body.ok).toBe(false);
    expect(result.body.chains_checked).toBe(0);
    expect(result.body.breaks).toEqual([
      expect.objectContaining({
        chain_id: account.id,
        row_id: null,
        reason: expect.stringMatching(/no audit chain.*API key used/),
      }),
    ]);
    // The whole-log verification names it too.
    const all = await api.admin('POST', '/admin/v1/audit/verify');
    expect(all.body.ok).toBe(false);
    expect(all.body.breaks.map((b: { chain_id: string }) => b.chain_id)).toContain(account.id);
  });

  it('does not report an account that never made a request', async () => {
    const { account } = await api.createAccount();
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body).toEqual({ ok: true, chains_checked: 0, rows_checked: 0, breaks: [] });
  });
});
