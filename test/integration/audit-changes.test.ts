import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENING_AUDIT_GRACE_MS } from '../../src/audit/audit-screening-check.js';
import { AdminClient } from '../../src/cli/admin-client.js';
import { runAudit } from '../../src/cli/audit.js';
import { type Backend, backends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

const UN_XML = readFileSync(path.join(FIXTURE_LISTS_DIR, 'consolidated.xml'), 'utf8');
const GASTON = 'Gaston Iyamuremye';
const GASTON_RECORD = /\s*<INDIVIDUAL>\s*<DATAID>6907995<\/DATAID>[\s\S]*?<\/INDIVIDUAL>/;
const WITHOUT_GASTON = UN_XML.replace(GASTON_RECORD, '');

/**
 * Decisions, alerts and monitors are in the tamper-evident log: each change is chained with the
 * changed row's hash in the change's own transaction, and `audit verify` holds the rows to it.
 * A screening's row is its request's, written after the response by the buffered AuditWriter: a
 * process killed within the buffer stores the screening without it, and `audit verify` names such
 * a screening. A database of its own: the edits below must not meet other suites' whole-log
 * verifications.
 */
describe.each(backends())('audited changes ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: ListServer;
  let api: TestApp;

  const publish = async (xml: string) => {
    server.serve('/un/consolidated.xml', { body: xml });
    expect((await api.admin('POST', '/admin/v1/lists/un_sc/refresh')).body.outcome).toBe('accepted');
    await api.runtime.monitorRuns.settle();
  };

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    server = await ListServer.start();
    server.serve('/un/consolidated.xml', { body: UN_XML });
    api = await TestApp.start(backend, {
      env: {
        LISTS_ENABLED: 'un_sc',
        LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
        LISTS_REFRESH_INTERVAL_MINUTES: '0',
      },
    });
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await server?.close();
    await drop?.();
  });

  const db = () => api.runtime.ctx.db;

  /** `screening audit verify` as the operator runs it, against this instance. */
  function cliVerify(...args: string[]) {
    return runAudit(['verify', ...args], {
      client: () => new AdminClient(api.baseUrl, { token: TEST_ADMIN_TOKEN, source: 'ADMIN_TOKEN' }),
      config: { auditCheckpointKey: undefined },
    }) as Promise<{ code: number; output: any }>;
  }

  /** An account with a screening of GASTON and a decision on its flag. */
  async function decided(decision: 'true_match' | 'false_positive', note = 'checked the passport') {
    const created = await api.createAccount('professional');
    const screened = await api.request('POST', '/v1/screen', {
      key: created.key,
      body: { type: 'person', query: GASTON, reference: 'cust-1' },
    });
    const flag = screened.body.flags.find((f: any) => f.details.name.toLowerCase() === GASTON.toLowerCase());
    const made = await api.request('POST', `/v1/screen/${screened.body.id}/flags/${flag.id}/decision`, {
      key: created.key,
      body: { decision, note },
    });
    expect(made.status).toBe(201);
    return { ...created, screening: screened.body, decision: made.body };
  }

  const changesOf = (recordId: string) =>
    db()
      .selectFrom('audit_log')
      .select(['action', 'key_id', 'user_id', 'status', 'record_hash', 'request_id'])
      .where('record_id', '=', recordId)
      .orderBy('seq')
      .execute();

  it("a decision's audit row is written with the decision, before its 201 is answered", async () => {
    const { account, keyId, decision } = await decided('true_match');
    // No flush: the row was committed with the decision, not left to the audit writer.
    expect(await changesOf(decision.id)).toEqual([
      {
        action: 'decision.created',
        key_id: keyId,
        user_id: null,
        status: null,
        record_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        request_id: expect.any(String),
      },
    ]);
    const verified = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    // The decision, the account and its first key.
    expect(verified.body).toMatchObject({ ok: true, records_checked: 3, records: [] });
  });

  it('verify fails on a decision edited in the database (true_match to false_positive, a new note)', async () => {
    const { account, decision } = await decided('true_match');
    await db()
      .updateTable('decisions')
      .set({ decision: 'false_positive', note: 'a namesake' })
      .where('id', '=', decision.id)
      .execute();
    const { code, output } = await cliVerify('--account', account.id);
    expect(code).toBe(3);
    expect(output.ok).toBe(false);
    expect(output.breaks).toEqual([]);
    expect(output.records).toEqual([
      {
        chain_id: account.id,
        table: 'decisions',
        record_id: decision.id,
        reason: expect.stringMatching(/edited.*decision\.created/),
      },
    ]);
  });

  it('verify fails on a decision deleted from the database, and on one inserted outside the service', async () => {
    const { account, decision } = await decided('true_match');
    const row = await db()
      .selectFrom('decisions')
      .selectAll()
      .where('id', '=', decision.id)
      .executeTakeFirstOrThrow();
    await db().deleteFrom('decisions').where('id', '=', decision.id).execute();
    const forged = '6f1c0a52-8e0b-4c3e-9f5e-2d7b1a3c4e5f';
    await db()
      .insertInto('decisions')
      .values({
        ...row,
        id: forged,
        withdrawn_by: null,
      } as never)
      .execute();
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body.ok).toBe(false);
    expect(result.body.records).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ record_id: decision.id, reason: expect.stringMatching(/deleted/) }),
        expect.objectContaining({ record_id: forged, reason: expect.stringMatching(/not in the audit log/) }),
      ]),
    );
    expect(result.body.records).toHaveLength(2);
  });

  it('chains a superseded and a withdrawn decision with who did it; verify fails when one is restored', async () => {
    const { account, key, keyId, screening, decision } = await decided('true_match');
    const flag = screening.flags.find((f: any) => f.details.name.toLowerCase() === GASTON.toLowerCase());
    const second = await api.request('POST', `/v1/screen/${screening.id}/flags/${flag.id}/decision`, {
      key,
      body: { decision: 'false_positive', note: 'a namesake after all' },
    });
    expect((await api.request('DELETE', `/v1/decisions/${second.body.id}`, { key })).status).toBe(204);
    expect((await changesOf(decision.id)).map((c) => c.action)).toEqual([
      'decision.created',
      'decision.superseded',
    ]);
    expect((await changesOf(second.body.id)).map((c) => c.action)).toEqual([
      'decision.created',
      'decision.withdrawn',
    ]);
    const rows = await db()
      .selectFrom('decisions')
      .select(['id', 'withdrawn_by'])
      .where('account_id', '=', account.id)
      .execute();
    for (const row of rows) expect(row.withdrawn_by).toEqual({ type: 'api_key', id: keyId });
    expect((await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`)).body.ok).toBe(true);

    // The withdrawal undone in the database: the cleared flag would count as cleared again.
    await db()
      .updateTable('decisions')
      .set({ withdrawn_at: null, withdrawn_by: null })
      .where('id', '=', second.body.id)
      .execute();
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body.records).toEqual([
      expect.objectContaining({
        record_id: second.body.id,
        reason: expect.stringMatching(/decision\.withdrawn/),
      }),
    ]);
  });

  it('chains monitors created and deleted, alerts raised and closed (closed_by); verify holds each to the log', async () => {
    await publish(WITHOUT_GASTON);
    const { account, key, keyId } = await api.createAccount('professional');
    const created = await api.request('POST', '/v1/monitors', {
      key,
      body: { type: 'person', query: GASTON, reference: 'watched' },
    });
    expect(created.status).toBe(201);
    const gone = await api.request('POST', '/v1/monitors', {
      key,
      body: { type: 'person', query: 'Someone Else' },
    });
    expect((await api.request('DELETE', `/v1/monitors/${gone.body.id}`, { key })).status).toBe(204);
    await publish(UN_XML);
    const listed = await api.request('GET', `/v1/alerts?monitor_id=${created.body.id}`, { key });
    const alerts = listed.body.data;
    expect(alerts).toHaveLength(1);
    const closed = await api.request('POST', `/v1/alerts/${alerts[0].id}/close`, {
      key,
      body: { note: 'known customer, cleared' },
    });
    expect(closed.status).toBe(200);
    expect(closed.body.closed_by).toEqual({ type: 'api_key', id: keyId });
    expect((await changesOf(created.body.id)).map((c) => c.action)).toEqual(['monitor.created']);
    expect((await changesOf(gone.body.id)).map((c) => c.action)).toEqual([
      'monitor.created',
      'monitor.deleted',
    ]);
    // No flush: the alert was chained with the alert itself, before it could be listed and closed.
    expect((await changesOf(alerts[0].id)).map((c) => c.action)).toEqual(['alert.raised', 'alert.closed']);
    const clean = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    // The alert, the two monitors, the account and its first key.
    expect(clean.body).toMatchObject({ ok: true, records_checked: 5, records: [] });

    // An alert reopened, a deleted monitor revived, in the database.
    await db().updateTable('alerts').set({ status: 'open' }).where('id', '=', alerts[0].id).execute();
    await db().updateTable('monitors').set({ deleted_at: null }).where('id', '=', gone.body.id).execute();
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body.ok).toBe(false);
    expect(
      result.body.records
        .map((r: any) => [r.table, r.record_id])
        .sort((a: string[], b: string[]) => a[0]!.localeCompare(b[0]!)),
    ).toEqual([
      ['alerts', alerts[0].id],
      ['monitors', gone.body.id],
    ]);
  }, 180_000);

  /** The account's screenings made before the grace began: verify holds them to the log now. */
  async function pastTheGrace(accountId: string) {
    await sql`UPDATE screenings SET created_at = created_at - ${`${SCREENING_AUDIT_GRACE_MS * 2} milliseconds`}::interval
      WHERE account_id = ${accountId}`.execute(db());
  }

  /**
   * What a kill -9 within the audit writer's buffer leaves: the request's row, the last of its
   * chain, never written, and the chain's head where it was before it (the chain itself intact).
   */
  async function loseRequestRow(accountId: string, requestId: string) {
    await api.runtime.ctx.audit.flush();
    const last = await db()
      .selectFrom('audit_log')
      .select(['id', 'seq', 'request_id', 'prev_hash'])
      .where('chain_id', '=', accountId)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(last.request_id).toBe(requestId);
    await db().deleteFrom('audit_log').where('id', '=', last.id).execute();
    await db()
      .updateTable('audit_chain_heads')
      .set({ seq: Number(last.seq) - 1, hash: last.prev_hash })
      .where('chain_id', '=', accountId)
      .execute();
  }

  it("names a stored screening whose request's audit row was lost, once past the writer's grace", async () => {
    const { account, key } = await api.createAccount('professional');
    const kept = await api.request('POST', '/v1/screen', { key, body: { query: 'Kept Row Trading Ltd' } });
    const lost = await api.request('POST', '/v1/screen', { key, body: { query: 'Lost Row Trading Ltd' } });
    expect(lost.status).toBe(200);
    expect(lost.body.cache_hit).toBe(false);
    await loseRequestRow(account.id, lost.headers.get('x-request-id')!);

    // Just screened: its row could still be in another instance's buffer.
    const fresh = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(fresh.body).toMatchObject({ ok: true, breaks: [], screenings_checked: 0, records: [] });

    await pastTheGrace(account.id);
    const { code, output } = await cliVerify('--account', account.id);
    expect(code).toBe(3);
    expect(output).toMatchObject({ ok: false, breaks: [], screenings_checked: 2 });
    expect(output.records).toEqual([
      {
        chain_id: account.id,
        table: 'screenings',
        record_id: lost.body.id,
        reason: expect.stringMatching(
          new RegExp(`its request \\(${lost.headers.get('x-request-id')}\\) is not in the audit log`),
        ),
      },
    ]);
    expect(output.records.map((r: any) => r.record_id)).not.toContain(kept.body.id);
    // The whole log's verification names it too, and only it: the other tests' screenings have their rows.
    const all = await cliVerify();
    expect(all.output.records.filter((r: any) => r.table === 'screenings')).toEqual(output.records);

    // A screening stored before screenings named their request (migration 0020) is not held.
    await db()
      .updateTable('screenings')
      .set({ request_id: null } as never)
      .where('id', '=', lost.body.id)
      .execute();
    const older = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(older.body).toMatchObject({ ok: true, screenings_checked: 1, records: [] });
  });

  it("holds API and console screenings, batch items and monitors' screenings to their rows: all clean", async () => {
    await publish(WITHOUT_GASTON);
    const user = await accountWithUser(api, 'professional');
    const { accountId, key } = user;
    expect(
      (await api.request('POST', '/v1/screen', { key, body: { query: 'Plain Api Screening Ltd' } })).status,
    ).toBe(200);
    // The dashboard's console.
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/screen');
    const consoled = await browser.post('/dashboard/screen', {
      _csrf: browser.csrf,
      type: 'entity',
      query: 'Console Screening Ltd',
    });
    expect(consoled.location).toMatch(/answered=live$/);
    // A batch's items, screened by the batch worker.
    const batch = await api.request('POST', '/v1/screen/batch', {
      key,
      body: { items: [{ query: 'Batch Item One Ltd' }, { query: 'Batch Item Two Ltd' }] },
    });
    expect(batch.status).toBe(202);
    await api.runtime.batchWork.settle();
    // A monitor's first screening in its request, imported monitors' in the background.
    const created = await api.request('POST', '/v1/monitors', {
      key,
      body: { type: 'person', query: GASTON, reference: 'watched' },
    });
    expect(created.status).toBe(201);
    const imported = await api.request('POST', '/v1/monitors/import', {
      key,
      rawBody: 'query,type\nImported Party One,person\nImported Party Two,person\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(imported.status).toBe(202);
    await api.runtime.firstScreenings.settle();
    // GASTON listed: the monitor's re-screening is stored with the alert it raises.
    await publish(UN_XML);
    expect((await api.request('GET', '/v1/alerts', { key })).body.data).toHaveLength(1);

    const stored = await db()
      .selectFrom('screenings')
      .select(['request_id'])
      .where('account_id', '=', accountId)
      .execute();
    // The API, the console, 2 items, the monitor, 2 imported, the re-screening.
    expect(stored).toHaveLength(8);
    for (const row of stored) expect(row.request_id).toEqual(expect.any(String));

    await api.runtime.ctx.audit.flush();
    await pastTheGrace(accountId);
    const verified = await api.admin('POST', `/admin/v1/audit/verify?account=${accountId}`);
    expect(verified.body).toMatchObject({ ok: true, breaks: [], screenings_checked: 8, records: [] });
  }, 180_000);
});
