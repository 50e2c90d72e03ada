import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/http/context.js';
import { MonitorService, type MonitorServiceDeps } from '../../src/screening/monitoring/monitor-service.js';
import {
  MONITOR_IMPORT_CHUNK,
  MONITOR_IMPORT_STAGING_LEASE_MS,
} from '../../src/screening/monitoring/monitoring-policy.js';
import { backends } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/**
 * What the import's own statements meet: from its `failAt`-th chunk on, a failure (the database
 * went away for the chunk), or with `dies`, the end of the process (every later statement of the
 * import fails too, so it cannot even give itself up).
 */
class ImportFaults implements KyselyPlugin {
  private chunks = 0;
  private dead = false;
  failAt: number | undefined;
  dies = false;

  transformQuery({ node }: { node: RootOperationNode }) {
    if (this.dead) throw new Error('the process is gone');
    if (node.kind === 'InsertQueryNode' && tableOf(node) === 'monitors' && ++this.chunks === this.failAt) {
      this.dead = this.dies;
      throw new Error('the chunk failed');
    }
    return node;
  }

  async transformResult({ result }: { result: any }) {
    return result;
  }

  reset(): void {
    this.chunks = 0;
    this.dead = false;
    this.failAt = undefined;
    this.dies = false;
  }
}

function tableOf(node: RootOperationNode): string {
  const into = 'into' in node ? node.into : undefined;
  const table = into && 'table' in into ? into.table : undefined;
  return table && 'identifier' in table ? String(table.identifier.name) : '';
}

const parties = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    query: `Staged Party ${prefix} ${i}`,
    type: 'person',
    reference: prefix,
  }));

// An import is stored a chunk per transaction (issue 45, item 13), hidden until its last chunk is
// in: one that fails or dies halfway is never seen, gives its room back, and its hidden monitors
// are deleted with the deletions chained, so the audit log still verifies.
describe.each(backends())('a staged import ($name)', (backend) => {
  const faults = new ImportFaults();
  const clock = new FakeClock(new Date());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-staged-import-'));
  const start = () =>
    TestApp.start(backend, {
      env: { LISTS_ENABLED: 'un_sc', LISTS_DIR: FIXTURE_LISTS_DIR },
      clock,
      dataDir,
      inMemoryDatabase: false,
      adjust: (ctx: AppContext) => {
        const deps = (ctx.monitors as unknown as { deps: MonitorServiceDeps }).deps;
        return { ...ctx, monitors: new MonitorService({ ...deps, db: deps.db.withPlugin(faults) }) };
      },
    });
  let api: TestApp;
  beforeAll(async () => {
    api = await start();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const db = () => api.runtime.ctx.db;
  /** Monitors held outside the service, from before changes were audited (verify leaves them be). */
  const monitorsHeld = (accountId: string, count: number) =>
    sql`INSERT INTO monitors (id, account_id, subject_key, entity, query_type, request, created_at, predates_audit)
      SELECT gen_random_uuid(), ${accountId}, 'query:x', 'x', 'person', '{}'::jsonb, now(), true
      FROM generate_series(1, ${count}::int)`.execute(db());
  const importsOf = (accountId: string) =>
    db().selectFrom('monitor_imports').selectAll().where('account_id', '=', accountId).execute();
  const monitorsOf = async (importId: string) => {
    const rows = await db()
      .selectFrom('monitors')
      .select('deleted_at')
      .where('import_id', '=', importId)
      .execute();
    return { written: rows.length, live: rows.filter((r) => r.deleted_at === null).length };
  };
  const chained = async (accountId: string, action: string) => {
    const { count } = await db()
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('chain_id', '=', accountId)
      .where('action', '=', action)
      .executeTakeFirstOrThrow();
    return Number(count);
  };
  const verify = async (accountId: string) =>
    (await api.admin('POST', `/admin/v1/audit/verify?account=${accountId}`)).body;
  /** Its imports' first screenings are not the subject here: they are refused at once, not done. */
  const suspend = (accountId: string) =>
    api.admin('PATCH', `/admin/v1/accounts/${accountId}`, { status: 'suspended' });
  const listed = async (key: string, reference: string) =>
    (await api.request('GET', `/v1/monitors?reference=${reference}`, { key })).body.data;

  it('a chunk that fails: nothing is seen, its room is free again, its hidden monitors are deleted and chained', async () => {
    const { key, account } = await api.createAccount('professional');
    await monitorsHeld(account.id, 8_500);
    faults.reset();
    faults.failAt = 2;
    const failed = await api.request('POST', '/v1/monitors/import', {
      key,
      body: { items: parties(MONITOR_IMPORT_CHUNK + 500, 'failing') },
    });
    expect(failed.status).toBe(500);
    expect(await listed(key, 'failing')).toEqual([]);
    const [given] = await importsOf(account.id);
    expect(given).toMatchObject({ stored_at: null, abandoned_at: expect.any(Date) });
    expect((await api.request('GET', `/v1/monitors/imports/${given!.id}`, { key })).status).toBe(404);

    await api.runtime.abandonedImports.settle();
    // The first chunk was written (hidden) and chained; now deleted, and the deletions chained.
    expect(await monitorsOf(given!.id)).toEqual({ written: MONITOR_IMPORT_CHUNK, live: 0 });
    expect(await chained(account.id, 'monitor.imported')).toBe(MONITOR_IMPORT_CHUNK);
    expect(await chained(account.id, 'monitor.deleted')).toBe(MONITOR_IMPORT_CHUNK);
    expect(await verify(account.id)).toMatchObject({ ok: true, records: [] });

    // Its room under the plan's 10,000 is free: the same import, now whole, fits exactly.
    faults.reset();
    const retried = await api.request('POST', '/v1/monitors/import', {
      key,
      body: { items: parties(MONITOR_IMPORT_CHUNK + 500, 'retried') },
    });
    expect(retried.status).toBe(202);
    expect((await listed(key, 'retried')).length).toBe(50);
    await suspend(account.id);
    expect(await verify(account.id)).toMatchObject({ ok: true, records: [] });
  });

  it("two imports racing for the last room: exactly one is taken, and a staged import's room is held", async () => {
    const { key, account } = await api.createAccount('professional');
    await monitorsHeld(account.id, 10_000 - (MONITOR_IMPORT_CHUNK + 500) - 1);
    faults.reset();
    const racing = ['one', 'two'].map((prefix) =>
      api.request('POST', '/v1/monitors/import', {
        key,
        body: { items: parties(MONITOR_IMPORT_CHUNK + 500, prefix) },
      }),
    );
    // Made while the imports are on their way: the one taken holds its room before it is seen.
    const alone = api.request('POST', '/v1/monitors', { key, body: { query: 'Made Alone', type: 'person' } });
    const statuses = (await Promise.all(racing)).map((r) => r.status).sort();
    expect(statuses).toEqual([202, 402]);
    expect([201, 402]).toContain((await alone).status);
    const held = await sql<{ count: string }>`SELECT count(*) AS count FROM monitors
      WHERE account_id = ${account.id} AND deleted_at IS NULL`.execute(db());
    expect(Number(held.rows[0]!.count)).toBeLessThanOrEqual(10_000);
    const more = await api.request('POST', '/v1/monitors', {
      key,
      body: { query: 'One Too Many', type: 'person' },
    });
    expect(more.status).toBe(402);
    await suspend(account.id);
    expect(await verify(account.id)).toMatchObject({ ok: true, records: [] });
  });

  it('an import whose process dies halfway is never seen, and is cleaned up: at the next start, or when its lease lapses', async () => {
    const { key, account } = await api.createAccount('enterprise');
    faults.reset();
    faults.failAt = 2;
    faults.dies = true;
    const died = await api.request('POST', '/v1/monitors/import', {
      key,
      body: { items: parties(MONITOR_IMPORT_CHUNK + 500, 'dying') },
    });
    expect(died.status).toBe(500);
    faults.reset(); // the import's process is gone; the rest of the service answers
    // Left staged, as a dead process leaves it: its first chunk written, hidden.
    const [staged] = await importsOf(account.id);
    expect(staged).toMatchObject({ stored_at: null, abandoned_at: null });
    expect(await monitorsOf(staged!.id)).toEqual({
      written: MONITOR_IMPORT_CHUNK,
      live: MONITOR_IMPORT_CHUNK,
    });
    expect((await api.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
    // Nor are its first screenings done (nor counted).
    await api.runtime.firstScreenings.settle();
    const claimed = await db()
      .selectFrom('monitors')
      .select('id')
      .where('import_id', '=', staged!.id)
      .where((eb) => eb.or([eb('claimed_until', 'is not', null), eb('first_screened_at', 'is not', null)]))
      .execute();
    expect(claimed).toEqual([]);

    if (backend.databaseUrl === undefined) {
      // The embedded database's only process: whatever is staged at start is a dead process's.
      await api.close();
      api = await start();
    } else {
      clock.advance(MONITOR_IMPORT_STAGING_LEASE_MS + 1_000);
      api.runtime.abandonedImports.wake();
    }
    await api.runtime.abandonedImports.settle();
    expect((await importsOf(account.id))[0]).toMatchObject({
      stored_at: null,
      abandoned_at: expect.any(Date),
    });
    expect(await monitorsOf(staged!.id)).toEqual({ written: MONITOR_IMPORT_CHUNK, live: 0 });
    expect((await api.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
    expect(await verify(account.id)).toMatchObject({ ok: true, records: [] });
  });
});
