import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_CHAIN_ID } from '../../src/audit/audit-chain.js';
import { AuditWriter } from '../../src/audit/audit-writer.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { backends } from '../support/backends.js';
import { TestApp } from '../support/test-app.js';

describe.each(backends())('audit log ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  const db = () => api.runtime.ctx.db;

  async function rowsOf(requestId: string | null) {
    await api.runtime.ctx.audit.flush();
    return db().selectFrom('audit_log').selectAll().where('request_id', '=', requestId!).execute();
  }

  it('writes one row per request, with the key prefix and last four but never the key', async () => {
    const { key, keyId, account } = await api.createAccount();
    const response = await api.request('GET', '/v1/usage?x=1', {
      key,
      headers: { 'user-agent': 'audit-test/1' },
    });
    const [row] = await rowsOf(response.headers.get('x-request-id'));
    expect(row).toMatchObject({
      account_id: account.id,
      key_id: keyId,
      key_prefix: 'cs_live_',
      key_last4: key.slice(-4),
      method: 'GET',
      route: '/v1/usage',
      path: '/v1/usage',
      status: 200,
      client_ip: '127.0.0.1',
      user_agent: 'audit-test/1',
    });
    expect(row!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('writes a row for refused requests: 401 without a key, 401 with an unknown key, 403 revoked', async () => {
    const anonymous = await api.request('GET', '/v1/keys');
    const unknown = await api.request('GET', '/v1/keys', { key: `cs_live_${'Z'.repeat(32)}` });
    const { key, keyId, account } = await api.createAccount();
    await api.request('DELETE', `/v1/keys/${keyId}`, { key });
    const revoked = await api.request('GET', '/v1/keys', { key });
    for (const response of [anonymous, unknown]) {
      const [row] = await rowsOf(response.headers.get('x-request-id'));
      expect(row).toMatchObject({
        status: 401,
        account_id: null,
        key_id: null,
        chain_id: ANONYMOUS_CHAIN_ID,
      });
    }
    const [row] = await rowsOf(revoked.headers.get('x-request-id'));
    expect(row).toMatchObject({ status: 403, account_id: account.id, key_id: keyId });
  });

  it('does not audit the health check', async () => {
    const response = await api.request('GET', '/v1/health');
    expect(await rowsOf(response.headers.get('x-request-id'))).toHaveLength(0);
  });

  it("lists the account's own rows newest first, filtered and paginated", async () => {
    const { key } = await api.createAccount();
    const other = await api.createAccount();
    await api.request('GET', '/v1/usage', { key: other.key });
    await api.request('GET', '/v1/usage', { key });
    await api.request('POST', '/v1/keys', { key, body: { name: 'a' } });
    await api.request('POST', '/v1/keys', { key, body: { bad: 1 } });
    await api.request('GET', '/v1/keys', { key });

    const all = await api.request('GET', '/v1/audit', { key });
    expect(all.status).toBe(200);
    const paths = all.body.data.map(
      (r: { method: string; path: string; status: number | null; action: string | null }) =>
        `${r.method} ${r.path} ${r.status ?? r.action}`,
    );
    // A change's row is chained in its transaction, after the request's start (its row's time).
    expect(paths.slice(0, 5)).toEqual([
      'GET /v1/keys 200',
      'POST /v1/keys 422',
      'POST /v1/keys api_key.created',
      'POST /v1/keys 201',
      'GET /v1/usage 200',
    ]);
    // The operator's creation of the account and its first key.
    expect(paths.slice(5).sort()).toEqual([
      'POST /admin/v1/accounts account.created',
      'POST /admin/v1/accounts api_key.created',
    ]);

    const failed = await api.request('GET', '/v1/audit?status=4xx', { key });
    expect(failed.body.data.map((r: { status: number }) => r.status)).toEqual([422]);
    const keysOnly = await api.request('GET', '/v1/audit?path=/v1/keys&status=201', { key });
    expect(keysOnly.body.data).toHaveLength(1);

    // Listing the log is audited too, so pages are taken over the /v1/keys rows only.
    const first = await api.request('GET', '/v1/audit?limit=2&path=/v1/keys', { key });
    expect(first.body.data).toHaveLength(2);
    const second = await api.request(
      'GET',
      `/v1/audit?limit=2&path=/v1/keys&cursor=${first.body.next_cursor}`,
      {
        key,
      },
    );
    expect(second.body.data.map((r: { status: number | null }) => r.status)).toEqual([null, 201]);
    expect(second.body.next_cursor).toBeNull();

    const future = await api.request('GET', '/v1/audit?from=2999-01-01T00:00:00Z', { key });
    expect(future.body.data).toEqual([]);
    expect((await api.request('GET', '/v1/audit?status=abc', { key })).status).toBe(422);
    expect((await api.request('GET', '/v1/audit?cursor=garbage', { key })).status).toBe(422);
  });

  it('verifies the hash chain, then names the first row edited directly in the database', async () => {
    const { key, account } = await api.createAccount();
    for (let i = 0; i < 4; i++) await api.request('GET', '/v1/usage', { key });
    const verify = () => api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    const clean = await verify();
    // The account's and its first key's creations, then the four requests.
    expect(clean.body).toMatchObject({ ok: true, chains_checked: 1, rows_checked: 6 });

    const rows = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', account.id)
      .orderBy('seq')
      .execute();
    await db().updateTable('audit_log').set({ status: 500 }).where('id', '=', rows[2]!.id).execute();
    const broken = await verify();
    expect(broken.body.ok).toBe(false);
    expect(broken.body.breaks).toEqual([
      expect.objectContaining({
        chain_id: account.id,
        row_id: rows[2]!.id,
        seq: 3,
        reason: expect.stringMatching(/edited/),
      }),
    ]);
  });

  it('detects a row deleted from the middle or from the end of a chain', async () => {
    const { key, account } = await api.createAccount();
    for (let i = 0; i < 4; i++) await api.request('GET', '/v1/usage', { key });
    await api.runtime.ctx.audit.flush();
    const rows = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', account.id)
      .orderBy('seq')
      .execute();
    await db().deleteFrom('audit_log').where('id', '=', rows.at(-1)!.id).execute();
    const tail = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(tail.body.ok).toBe(false);
    expect(tail.body.breaks[0].reason).toMatch(/ends at row/);
    await db().deleteFrom('audit_log').where('id', '=', rows[1]!.id).execute();
    const middle = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(middle.body.breaks[0]).toMatchObject({
      row_id: rows[2]!.id,
      reason: expect.stringMatching(/missing/),
    });
  });

  it('keeps chains linear when many requests of one account are written concurrently', async () => {
    const { key, account } = await api.createAccount();
    await Promise.all(Array.from({ length: 30 }, () => api.request('GET', '/v1/usage', { key })));
    await api.runtime.ctx.audit.flush();
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    // The account's and its first key's creations, then the 30 requests.
    expect(result.body).toMatchObject({ ok: true, rows_checked: 32 });
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM audit_log WHERE account_id = ${account.id}`.execute(db());
    expect(Number(rows[0]!.n)).toBe(32);
  });
});

describe.each(backends())('audit writer under a backlog ($name)', (backend) => {
  it('writes a backlog larger than one transaction completely and in order', async () => {
    const api = await TestApp.start(backend);
    try {
      const { account } = await api.createAccount();
      const started = Date.now();
      for (let i = 0; i < 1_234; i++) {
        api.runtime.ctx.audit.record({
          id: randomUUID(),
          request_id: `backlog-${i}`,
          occurred_at: new Date(started + i),
          account_id: account.id,
          key_id: null,
          key_prefix: null,
          key_last4: null,
          method: 'GET',
          route: '/v1/usage',
          path: '/v1/usage',
          status: 200,
          latency_ms: 1,
          client_ip: '127.0.0.1',
          user_agent: null,
        });
      }
      await api.runtime.ctx.audit.flush();
      expect(api.runtime.ctx.audit.pending).toBe(0);
      const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
      // With the account's and its first key's creations.
      expect(result.body).toMatchObject({ ok: true, rows_checked: 1_236 });
    } finally {
      await api.close();
    }
  });
});

describe('audit log when the database cannot take the rows', () => {
  it('refuses new requests with 503 once the unwritten backlog reaches its bound, instead of growing', async () => {
    const unreachable = new Kysely<DatabaseSchema>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({
          connectionString: 'postgres://nobody@127.0.0.1:9/none',
          connectionTimeoutMillis: 300,
        }),
      }),
    });
    const api = await TestApp.start(backends()[0]!, {
      adjust: (ctx) => ({ ...ctx, audit: new AuditWriter(unreachable, () => {}, 3) }),
    });
    try {
      for (let i = 0; i < 3; i++) expect((await api.request('GET', '/v1/usage')).status).toBe(401);
      const refused = await api.request('GET', '/v1/usage');
      expect(refused.status).toBe(503);
      expect(refused.body.type).toBe('/problems/service-unavailable');
      expect((await api.request('GET', '/v1/health')).status).toBe(200);
    } finally {
      await api.app.close();
      await api.runtime.close();
      await unreachable.destroy();
    }
  });
});
