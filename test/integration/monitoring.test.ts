import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimChanges,
  markDone,
  reopenChangesMissedBy,
  saveProgress,
} from '../../src/screening/monitoring/list-change-queue.js';
import { MONITOR_RUN_MAX_ATTEMPTS } from '../../src/screening/monitoring/monitoring-policy.js';
import { type Backend, backends, describeWithSharedBackends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { answerToUnfinishedCsv } from '../support/unfinished-body.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const UN_XML = readFileSync(path.join(FIXTURE_LISTS_DIR, 'consolidated.xml'), 'utf8');
const GASTON = 'Gaston Iyamuremye';
const BADEGE = 'Eric Badege';
const GASTON_RECORD = /\s*<INDIVIDUAL>\s*<DATAID>6907995<\/DATAID>[\s\S]*?<\/INDIVIDUAL>/;
const BADEGE_RECORD = /\s*<INDIVIDUAL>\s*<DATAID>6907993<\/DATAID>[\s\S]*?<\/INDIVIDUAL>/;

function edited(xml: string, change: (xml: string) => string): string {
  const result = change(xml);
  expect(result).not.toBe(xml);
  return result;
}

// The versions of the UN list the tests go through, in order.
const WITHOUT_GASTON = edited(UN_XML, (xml) => xml.replace(GASTON_RECORD, ''));
const WITH_GASTON = UN_XML;
const BADEGE_CHANGED = edited(UN_XML, (xml) =>
  xml.replace(/(<DATAID>6907993<\/DATAID>[\s\S]*?<COMMENTS1>)He fled to Rwanda/, '$1He fled to Uganda'),
);
const BADEGE_REMOVED = edited(BADEGE_CHANGED, (xml) => xml.replace(BADEGE_RECORD, ''));

describe.each(backends())('ongoing monitoring ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: ListServer;
  let api: TestApp;
  let receiver: WebhookReceiver;

  /** Serves a new version of the UN list, has it refreshed, and lets the monitor run finish. */
  const publish = async (xml: string) => {
    server.serve('/un/consolidated.xml', { body: xml });
    const refreshed = await api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    expect(refreshed.body.outcome).toBe('accepted');
    await api.runtime.monitorRuns.settle();
  };
  const monitor = async (key: string, body: Record<string, unknown>) => {
    const created = await api.request('POST', '/v1/monitors', { key, body: { type: 'person', ...body } });
    expect(created.status).toBe(201);
    return created.body;
  };
  const alertsOf = async (key: string, monitorId: string) =>
    (await api.request('GET', `/v1/alerts?monitor_id=${monitorId}`, { key })).body.data as any[];
  const latestChange = () =>
    api.runtime.ctx.db
      .selectFrom('list_changes')
      .select(['id', 'snapshot_id', 'created_at'])
      .where('list_id', '=', 'un_sc')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
  const used = async (key: string) =>
    (await api.request('GET', '/v1/usage', { key })).body.current_month.count as number;
  const monitorsHeld = (accountId: string, count: number) =>
    sql`INSERT INTO monitors (id, account_id, subject_key, entity, query_type, request, created_at)
      SELECT gen_random_uuid(), ${accountId}, 'query:x', 'x', 'person', '{}'::jsonb, now()
      FROM generate_series(1, ${count}::int)`.execute(api.runtime.ctx.db);
  const screeningsUsed = (accountId: string, count: number) =>
    sql`INSERT INTO usage_counters (account_id, month, count)
      VALUES (${accountId}, ${`${new Date().toISOString().slice(0, 7)}-01`}, ${count})`.execute(
      api.runtime.ctx.db,
    );

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    server = await ListServer.start();
    receiver = await WebhookReceiver.start({ status: 204 });
    api = await TestApp.start(backend, {
      env: {
        LISTS_ENABLED: 'un_sc',
        LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
        LISTS_REFRESH_INTERVAL_MINUTES: '0',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
      },
    });
    await publish(WITHOUT_GASTON);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await server?.close();
    await receiver?.close();
    await drop?.();
  });

  // State shared by the tests below, which follow the list's versions in order.
  let owner: { key: string; account: { id: string } };
  let gastonMonitor: any;
  let badegeMonitor: any;

  it('is done at once with a list change while no monitor is watched anywhere', async () => {
    const { rows } = await sql<{
      summary: unknown;
      done: boolean;
    }>`SELECT summary, done_at IS NOT NULL AS done
      FROM list_changes ORDER BY created_at`.execute(api.runtime.ctx.db);
    // The first version, published before any monitor existed: its delta was not worked out.
    expect(rows).toEqual([{ summary: { monitors: 0, skipped: 'no watched monitors' }, done: true }]);
  });

  it('creates a monitor with its first screening, counted once; lists, finds and deletes monitors', async () => {
    owner = await api.createAccount('professional');
    const hook = await api.request('POST', '/v1/webhooks', {
      key: owner.key,
      body: { url: `${receiver.url}/alerts`, events: ['monitor.alert'] },
    });
    expect(hook.status).toBe(201);
    gastonMonitor = await monitor(owner.key, { query: GASTON, reference: 'customer-1' });
    expect(gastonMonitor).toMatchObject({ query: GASTON, type: 'person', reference: 'customer-1' });
    expect(gastonMonitor.screening.flags).toEqual([]);
    badegeMonitor = await monitor(owner.key, { query: BADEGE, reference: 'customer-2' });
    expect(badegeMonitor.screening.flags.length).toBeGreaterThan(0);
    expect(await used(owner.key)).toBe(2);

    const listed = await api.request('GET', '/v1/monitors?reference=customer-1', { key: owner.key });
    expect(listed.body.data.map((m: any) => m.id)).toEqual([gastonMonitor.id]);
    const first = await api.request('GET', '/v1/monitors?limit=1', { key: owner.key });
    expect(first.body.data.map((m: any) => m.id)).toEqual([badegeMonitor.id]);
    const next = await api.request('GET', `/v1/monitors?limit=1&cursor=${first.body.next_cursor}`, {
      key: owner.key,
    });
    expect(next.body.data.map((m: any) => m.id)).toEqual([gastonMonitor.id]);
    expect((await api.request('GET', '/v1/monitors?cursor=nonsense', { key: owner.key })).status).toBe(422);
    const found = await api.request('GET', `/v1/monitors/${badegeMonitor.id}`, { key: owner.key });
    expect(found.body).toMatchObject({ id: badegeMonitor.id, query: BADEGE });

    const passing = await monitor(owner.key, { query: 'Someone Passing Through' });
    expect((await api.request('DELETE', `/v1/monitors/${passing.id}`, { key: owner.key })).status).toBe(204);
    expect((await api.request('GET', `/v1/monitors/${passing.id}`, { key: owner.key })).status).toBe(404);
    expect((await api.request('DELETE', `/v1/monitors/${passing.id}`, { key: owner.key })).status).toBe(404);
    const other = await api.createAccount('enterprise');
    expect((await api.request('GET', `/v1/monitors/${gastonMonitor.id}`, { key: other.key })).status).toBe(
      404,
    );
  });

  it('refuses monitors on Starter (403), over the plan limit (402), and bad requests (422)', async () => {
    const starter = await api.createAccount('starter');
    const refused = await api.request('POST', '/v1/monitors', { key: starter.key, body: { query: GASTON } });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toContain('plan-feature-unavailable');

    const full = await api.createAccount('professional');
    await sql`INSERT INTO monitors (id, account_id, subject_key, entity, query_type, request, created_at)
      SELECT gen_random_uuid(), ${full.account.id}, 'query:x', 'x', 'person', '{}'::jsonb, now()
      FROM generate_series(1, 10000)`.execute(api.runtime.ctx.db);
    const over = await api.request('POST', '/v1/monitors', { key: full.key, body: { query: GASTON } });
    expect(over.status).toBe(402);
    expect(over.body.type).toContain('monitor-limit-reached');
    expect(await used(full.key)).toBe(0);

    const bad = await api.request('POST', '/v1/monitors', {
      key: owner.key,
      body: { query: 'x', colour: 1 },
    });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
  });

  it('a new version designating a monitored party raises one alert and one monitor.alert webhook, uncounted', async () => {
    const bystander = await api.createAccount('enterprise');
    const unrelated = await monitor(bystander.key, { query: 'Someone Else Entirely' });
    await publish(WITH_GASTON);

    const alerts = await alertsOf(owner.key, gastonMonitor.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      monitor_id: gastonMonitor.id,
      reference: 'customer-1',
      reason: 'new_match',
      list: 'un_sc',
      status: 'open',
    });
    expect(alerts[0].flags[0].details.name.toLowerCase()).toContain('iyamuremye');
    const screening = await api.request('GET', `/v1/screen/${alerts[0].screening_id}`, { key: owner.key });
    expect(screening.status).toBe(200);
    expect(screening.body.flags.map((f: any) => f.id)).toContain(alerts[0].flags[0].id);
    // Badege's record did not change: the monitor already flagged for it is not alerted.
    expect(await alertsOf(owner.key, badegeMonitor.id)).toEqual([]);
    expect(await alertsOf(bystander.key, unrelated.id)).toEqual([]);
    expect(await used(owner.key)).toBe(3);

    await api.runtime.webhookDelivery.settle();
    const events = receiver.received
      .filter((r) => r.path.endsWith('/alerts'))
      .map((r) => JSON.parse(r.body.toString()));
    expect(events).toHaveLength(1);
    // The alert is in the account's audit log, as the request that raised it would be.
    await api.runtime.ctx.audit.flush();
    const audited = await api.request('GET', `/v1/audit?path=/v1/monitors/${gastonMonitor.id}/alerts`, {
      key: owner.key,
    });
    expect(audited.body.data.map((row: any) => row.route)).toEqual(['/v1/monitors/:id/alerts']);
    expect(events[0]).toMatchObject({
      event: 'monitor.alert',
      alert_id: alerts[0].id,
      data: { id: alerts[0].id },
    });
  });

  it('the same version run again (a run repeated after a crash) raises no second alert', async () => {
    await sql`UPDATE list_changes SET done_at = NULL, claimed_until = NULL, monitor_cursor = NULL`.execute(
      api.runtime.ctx.db,
    );
    api.runtime.monitorRuns.wake();
    await api.runtime.monitorRuns.settle();
    expect(await alertsOf(owner.key, gastonMonitor.id)).toHaveLength(1);
    expect(await alertsOf(owner.key, badegeMonitor.id)).toEqual([]);
    await api.runtime.webhookDelivery.settle();
    expect(receiver.received.filter((r) => r.path.endsWith('/alerts'))).toHaveLength(1);
  });

  it('a changed record alerts record_changed, a cleared match too; its removal alerts only the uncleared', async () => {
    // The same party monitored for another customer, whose match an analyst cleared.
    const cleared = await monitor(owner.key, { query: BADEGE, reference: 'customer-3' });
    const flag = cleared.screening.flags[0];
    const decided = await api.request(
      'POST',
      `/v1/screen/${cleared.screening.id}/flags/${encodeURIComponent(flag.id)}/decision`,
      { key: owner.key, body: { decision: 'false_positive', note: 'another Eric Badege' } },
    );
    expect(decided.status).toBe(201);

    await publish(BADEGE_CHANGED);
    const changed = await alertsOf(owner.key, badegeMonitor.id);
    expect(changed.map((a) => a.reason)).toEqual(['record_changed']);
    expect(changed[0].flags[0].id).toBe(flag.id);
    // Cleared in an earlier state of the record: the change is news.
    const clearedAlerts = await alertsOf(owner.key, cleared.id);
    expect(clearedAlerts.map((a) => a.reason)).toEqual(['record_changed']);
    expect(await alertsOf(owner.key, gastonMonitor.id)).toHaveLength(1);

    // Cleared again in the changed state: its removal from the list is no news.
    const again = await api.request(
      'POST',
      `/v1/screen/${clearedAlerts[0].screening_id}/flags/${encodeURIComponent(flag.id)}/decision`,
      { key: owner.key, body: { decision: 'false_positive', note: 'still another Eric Badege' } },
    );
    expect(again.status).toBe(201);
    await publish(BADEGE_REMOVED);
    expect((await alertsOf(owner.key, badegeMonitor.id)).map((a) => a.reason).sort()).toEqual([
      'record_changed',
      'record_removed',
    ]);
    expect((await alertsOf(owner.key, cleared.id)).map((a) => a.reason)).toEqual(['record_changed']);
  });

  it('a record delisted and listed again alerts again, unless cleared in that state', async () => {
    const cleared = (await api.request('GET', '/v1/monitors?reference=customer-3', { key: owner.key })).body
      .data[0];
    await publish(BADEGE_CHANGED);
    const relisted = await alertsOf(owner.key, badegeMonitor.id);
    expect(relisted.map((a) => a.reason).sort()).toEqual(['new_match', 'record_changed', 'record_removed']);
    // The analyst's standing decision on this very state of the record still holds.
    expect((await alertsOf(owner.key, cleared.id)).map((a) => a.reason)).toEqual(['record_changed']);
  });

  it("one monitor the account can no longer screen does not hold up the others' alerts", async () => {
    const broken = await monitor(owner.key, { query: GASTON, reference: 'customer-4' });
    const sound = await monitor(owner.key, { query: GASTON, reference: 'customer-5' });
    // As if the plan no longer allowed what the monitor was created with.
    await sql`UPDATE monitors SET request = request || '{"options": {"sources": ["un_sc", "retired_list"]}}'::jsonb
      WHERE id = ${broken.id}`.execute(api.runtime.ctx.db);
    // Made well before the list change (a run's last pass takes the monitors of its last minute).
    await sql`UPDATE monitors SET first_screened_at = first_screened_at - interval '10 minutes'
      WHERE id IN (${broken.id}, ${sound.id})`.execute(api.runtime.ctx.db);
    await publish(WITHOUT_GASTON);
    expect((await alertsOf(owner.key, sound.id)).map((a) => a.reason)).toEqual(['record_removed']);
    expect(await alertsOf(owner.key, broken.id)).toEqual([]);
    const { rows } = await sql<{ summary: any }>`SELECT summary FROM list_changes
      ORDER BY created_at DESC LIMIT 1`.execute(api.runtime.ctx.db);
    expect(rows[0]?.summary).toMatchObject({ refused: 1 });
    await publish(WITH_GASTON);
    expect((await alertsOf(owner.key, sound.id)).map((a) => a.reason).sort()).toEqual([
      'new_match',
      'record_removed',
    ]);
  });

  it('lists alerts by status and closes one with a note', async () => {
    const [alert] = await alertsOf(owner.key, gastonMonitor.id);
    const closed = await api.request('POST', `/v1/alerts/${alert.id}/close`, {
      key: owner.key,
      body: { note: 'Customer offboarded' },
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ id: alert.id, status: 'closed', note: 'Customer offboarded' });
    const open = await api.request('GET', '/v1/alerts?status=open', { key: owner.key });
    expect(open.body.data.map((a: any) => a.id)).not.toContain(alert.id);
    const closedList = await api.request('GET', '/v1/alerts?status=closed', { key: owner.key });
    expect(closedList.body.data.map((a: any) => a.id)).toEqual([alert.id]);
    const noNote = await api.request('POST', `/v1/alerts/${alert.id}/close`, { key: owner.key, body: {} });
    expect(noNote.status).toBe(422);
    const other = await api.createAccount('professional');
    const foreign = await api.request('POST', `/v1/alerts/${alert.id}/close`, {
      key: other.key,
      body: { note: 'x' },
    });
    expect(foreign.status).toBe(404);
  });

  it('a monitor first screened after a change was written is screened by its run, whatever its id', async () => {
    const { db } = api.runtime.ctx;
    const late = await monitor(owner.key, { query: GASTON, reference: 'customer-6' });
    const latest = await latestChange();
    // As if its first screening had been done by an instance not yet serving the latest version,
    // while the run's pages were already past its id.
    await db.deleteFrom('monitor_flags').where('monitor_id', '=', late.id).execute();
    await sql`UPDATE monitors SET first_screened_at = ${latest.created_at}::timestamptz + interval '1 second'
      WHERE id = ${late.id}`.execute(db);
    await sql`UPDATE list_changes SET done_at = NULL, claimed_until = NULL,
      monitor_cursor = 'ffffffff-ffff-4fff-bfff-ffffffffffff' WHERE id = ${latest.id}`.execute(db);
    api.runtime.monitorRuns.wake();
    await api.runtime.monitorRuns.settle();
    expect((await alertsOf(owner.key, late.id)).map((a) => a.reason)).toEqual(['new_match']);
  });

  it('a change whose run failed every attempt is given up, with the last error, and the queue goes on', async () => {
    const { db } = api.runtime.ctx;
    const latest = await latestChange();
    const failing = randomUUID();
    await db
      .insertInto('list_changes')
      .values({
        id: failing,
        list_id: 'un_sc',
        snapshot_id: latest.snapshot_id,
        previous_snapshot_id: null,
        created_at: new Date(new Date(latest.created_at).getTime() - 1000),
        attempts: MONITOR_RUN_MAX_ATTEMPTS,
        last_error: 'the database went away',
      })
      .execute();
    api.runtime.monitorRuns.wake();
    await api.runtime.monitorRuns.settle();
    const row = await db.selectFrom('list_changes').selectAll().where('id', '=', failing).executeTakeFirst();
    expect(row?.done_at).not.toBeNull();
    expect(row?.summary).toEqual({ abandoned: 'the database went away' });
    const metrics = (await api.admin<string>('GET', '/metrics')).body;
    expect(metrics).toMatch(/^monitor_runs_pending 0$/m);
  });

  it('imports parties as CSV: 202, first screenings counted in the background, then watched', async () => {
    const before = await used(owner.key);
    const csv = `query,type,reference,countries\n${GASTON},person,imported-1,\nHarmless Imported Person,person,imported-2,FR;DE\n`;
    const imported = await api.request('POST', '/v1/monitors/import', {
      key: owner.key,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });
    expect(imported.status).toBe(202);
    expect(imported.body).toMatchObject({ status: 'processing', total: 2 });
    expect(imported.headers.get('location')).toBe(`/v1/monitors/imports/${imported.body.id}`);
    await api.runtime.firstScreenings.settle();
    const done = await api.request('GET', `/v1/monitors/imports/${imported.body.id}`, { key: owner.key });
    expect(done.body).toMatchObject({ status: 'completed', total: 2, screened: 2, failed: 0 });
    expect(await used(owner.key)).toBe(before + 2);
    const [gaston] = (await api.request('GET', '/v1/monitors?reference=imported-1', { key: owner.key })).body
      .data;
    expect(gaston).toMatchObject({ query: GASTON, status: 'active', first_screening_error: null });
    const first = await api.request('GET', `/v1/screen/${gaston.first_screening_id}`, { key: owner.key });
    expect(first.body.flags.length).toBeGreaterThan(0);
    const [other] = (await api.request('GET', '/v1/monitors?reference=imported-2', { key: owner.key })).body
      .data;
    expect(other).toMatchObject({ countries: ['FR', 'DE'], status: 'active' });

    // Watched with what its first screening flagged: the record's removal is news, nothing else.
    await publish(WITHOUT_GASTON);
    expect((await alertsOf(owner.key, gaston.id)).map((a) => a.reason)).toEqual(['record_removed']);
    expect(await alertsOf(owner.key, other.id)).toEqual([]);
    await publish(WITH_GASTON);
  });

  it('refuses an import whole: 422 naming each bad row, 403 on Starter, 402 over the plan limit', async () => {
    const account = await api.createAccount('professional');
    const bad = await api.request('POST', '/v1/monitors/import', {
      key: account.key,
      body: { items: [{ query: 'Good Name' }, { query: ' ' }, { query: 'x' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => e.pointer)).toEqual(['/items/1/query', '/items/2/query']);
    const badCsv = await api.request('POST', '/v1/monitors/import', {
      key: account.key,
      rawBody: 'query,type\nGood Name,person\nBad Type,ship\nx,person\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(badCsv.status).toBe(422);
    expect(badCsv.body.errors.map((e: any) => e.pointer)).toEqual(['/items/1/type', '/items/2/query']);
    expect((await api.request('GET', '/v1/monitors', { key: account.key })).body.data).toEqual([]);

    const starter = await api.createAccount('starter');
    const refused = await api.request('POST', '/v1/monitors/import', {
      key: starter.key,
      body: { items: [{ query: GASTON }] },
    });
    expect(refused.status).toBe(403);

    await sql`INSERT INTO monitors (id, account_id, subject_key, entity, query_type, request, created_at)
      SELECT gen_random_uuid(), ${account.account.id}, 'query:x', 'x', 'person', '{}'::jsonb, now()
      FROM generate_series(1, 9999)`.execute(api.runtime.ctx.db);
    const over = await api.request('POST', '/v1/monitors/import', {
      key: account.key,
      body: { items: [{ query: 'One More' }, { query: 'Two More' }] },
    });
    expect(over.status).toBe(402);
    expect(over.body.type).toContain('monitor-limit-reached');
    expect(await used(account.key)).toBe(0);
    const unknown = await api.request('GET', `/v1/monitors/imports/${randomUUID()}`, { key: account.key });
    expect(unknown.status).toBe(404);
  });

  it("refuses an import before reading its body: on Starter (403), at the plan's monitors or with no screening left (402)", async () => {
    const endless = (key: string) => answerToUnfinishedCsv(`${api.baseUrl}/v1/monitors/import`, key);
    const starter = await api.createAccount('starter');
    expect(await endless(starter.key)).toMatchObject({
      status: 403,
      body: { type: '/problems/plan-feature-unavailable' },
    });
    const full = await api.createAccount('professional');
    await monitorsHeld(full.account.id, 10_000);
    expect(await endless(full.key)).toMatchObject({
      status: 402,
      body: { type: '/problems/monitor-limit-reached' },
    });
    const spent = await api.createAccount('professional');
    await screeningsUsed(spent.account.id, 2_000);
    expect(await endless(spent.key)).toMatchObject({
      status: 402,
      body: { type: '/problems/quota-exceeded' },
    });
  });

  it('refuses an import of more parties than screenings remain with the two numbers, importing nothing', async () => {
    const { key, account } = await api.createAccount('professional');
    await screeningsUsed(account.id, 1_990);
    const items = Array.from({ length: 20 }, (_, i) => ({ query: `Imported Party ${i}` }));
    const refused = await api.request('POST', '/v1/monitors/import', { key, body: { items } });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      type: '/problems/quota-insufficient',
      title: 'Not enough screenings left this month',
      requested: 20,
      remaining: 10,
    });
    expect(refused.body.detail).toMatch(/^20 screenings asked, 10 remain this month \(the quota resets at /);
    expect((await api.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
    expect(await used(key)).toBe(1_990);
  });

  it('answers other requests while a 100,000-row import is checked, and lists its first 100 problems', async () => {
    const { key } = await api.createAccount('professional');
    // The service's own import, observed: the test asks for health once the checking has begun.
    const service = api.runtime.ctx.monitors;
    const importing = service.import;
    let checking!: () => void;
    const checkingBegun = new Promise<void>((resolve) => {
      checking = resolve;
    });
    service.import = (...args) => {
      checking();
      return importing.apply(service, args);
    };
    let importAnswered = false;
    try {
      const imported = new Promise<{ status: number; body: any }>((resolve, reject) => {
        const request = http.request(
          `${api.baseUrl}/v1/monitors/import`,
          { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' } },
          (response) => {
            importAnswered = true;
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk) => {
              text += chunk;
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        request.on('error', reject);
        request.end(`query\n${'x\n'.repeat(100_000)}`);
      });
      await checkingBegun;
      // Each answer needs the event loop, which checking the rows used to hold for seconds.
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${api.baseUrl}/v1/health`)).status).toBe(200);
        expect(importAnswered).toBe(false);
      }
      const refused = await imported;
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toBe('100000 of the 100000 items are not valid; nothing was queued.');
      expect(refused.body.errors).toHaveLength(100);
      expect(refused.body.errors[99].pointer).toBe('/items/99/query');
      expect(refused.body.errors_omitted).toBe(99_900);
    } finally {
      service.import = importing;
    }
  }, 180_000);

  it("charges nothing for monitors refused at the plan's limit, however many ask at once", async () => {
    const { key, account } = await api.createAccount('professional');
    await monitorsHeld(account.id, 9_998);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api.request('POST', '/v1/monitors', { key, body: { query: `Racing Party ${i}`, type: 'person' } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 402, 402, 402, 402, 402, 402, 402, 402]);
    expect(await used(key)).toBe(2);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM screenings
      WHERE account_id = ${account.id}`.execute(api.runtime.ctx.db);
    expect(rows[0]?.n).toBe(2);
  });

  it('changes of a list are claimed in order, only where their version or a later one serves; a lapsed claim writes nothing', async () => {
    const { db } = api.runtime.ctx;
    // A list no instance serves: the running worker never claims these rows.
    const [s1, s2, s3] = [randomUUID(), randomUUID(), randomUUID()];
    const changes = [s1, s2, s3].map((snapshot, i) => ({
      id: randomUUID(),
      list_id: 'queue_probe',
      snapshot_id: snapshot,
      created_at: new Date(Date.UTC(2026, 0, 1 + i)),
    }));
    await db.insertInto('list_changes').values(changes).execute();
    const now = new Date();
    const claimed = (inService: string[]) => claimChanges(db, now, 60_000, inService, 10);
    const claim = async (inService: string[]) => (await claimed(inService)).map((c) => c.snapshotId);

    expect(await claim([])).toEqual([]);
    // An instance still on the first version leaves the second and third to one that caught up.
    const [first] = await claimed([s1]);
    expect(first?.snapshotId).toBe(s1);
    // The second waits for the first to be done, the third for the second.
    expect(await claim([s3])).toEqual([]);
    expect(await markDone(db, first!, now, {})).toBe(true);
    const [second] = await claimed([s3]);
    expect(second?.snapshotId).toBe(s2);
    expect(await claim([s3])).toEqual([]);
    expect(await markDone(db, second!, now, {})).toBe(true);

    const [stale] = await claimed([s3]);
    expect(stale?.snapshotId).toBe(s3);
    // Its lease lapses (its instance stalled) and another instance takes it.
    await db
      .updateTable('list_changes')
      .set({ claimed_until: new Date(0) })
      .where('snapshot_id', '=', s3)
      .execute();
    const [taken] = await claimed([s3]);
    expect(taken?.snapshotId).toBe(s3);
    expect(await saveProgress(db, stale!, randomUUID(), now)).toBe(false);
    expect(await markDone(db, stale!, now, {})).toBe(false);
    expect(await saveProgress(db, taken!, randomUUID(), now)).toBe(true);
    expect(await markDone(db, taken!, now, { alerts: 0 })).toBe(true);

    // An instance that had not loaded the third version yet made a monitor: its run is done again.
    expect(await reopenChangesMissedBy(db, [s2])).toBe(1);
    expect(await claim([s3])).toEqual([s3]);
    await db.deleteFrom('list_changes').where('list_id', '=', 'queue_probe').execute();
  });
});

describe.each(backends())('a monitor run its process left unfinished ($name)', (shared) => {
  // On the embedded database the process is the only writer: a claim found at start is a dead
  // process's, taken back at once. On PostgreSQL another instance takes it once its lease lapsed.
  const soleWriter = shared.databaseUrl === undefined;

  it('is finished after a restart with exactly one alert per monitor, also when run twice', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const server = await ListServer.start();
    const dataDir = mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'css-monitoring-'));
    const env = {
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
      LISTS_REFRESH_INTERVAL_MINUTES: '0',
    };
    const start = () => TestApp.start(backend, { env, dataDir, inMemoryDatabase: false });
    const refresh = async (app: TestApp, xml: string) => {
      server.serve('/un/consolidated.xml', { body: xml });
      expect((await app.admin('POST', '/admin/v1/lists/un_sc/refresh')).body.outcome).toBe('accepted');
    };
    // As a process that claimed the change and died would leave it.
    const abandon = (app: TestApp) =>
      sql`UPDATE list_changes SET done_at = NULL, monitor_cursor = NULL, claimed_until = ${
        soleWriter ? sql`now() + interval '1 minute'` : sql`now() - interval '1 second'`
      }`.execute(app.runtime.ctx.db);
    let api = await start();
    try {
      await refresh(api, WITHOUT_GASTON);
      await api.runtime.monitorRuns.settle();
      const { key } = await api.createAccount('enterprise');
      const monitors: string[] = [];
      for (const reference of ['a', 'b', 'c']) {
        const created = await api.request('POST', '/v1/monitors', {
          key,
          body: { query: GASTON, type: 'person', reference },
        });
        monitors.push(created.body.id);
      }
      // An import whose first screenings are still due when the process stops.
      await api.runtime.firstScreenings.close();
      const imported = await api.request('POST', '/v1/monitors/import', {
        key,
        body: { items: [{ query: 'Imported Before Restart' }, { query: 'Also Imported' }] },
      });
      expect(imported.status).toBe(202);
      // The run stops first, as in a shutdown: the new version's change waits in the database.
      await api.runtime.monitorRuns.close();
      await refresh(api, WITH_GASTON);
      await abandon(api);
      await api.close();

      const alertsPerMonitor = async () => {
        const { data } = (await api.request('GET', '/v1/alerts?limit=100', { key })).body;
        return monitors.map((id) => data.filter((a: any) => a.monitor_id === id).length);
      };
      api = await start();
      await api.runtime.monitorRuns.settle();
      expect(await alertsPerMonitor()).toEqual([1, 1, 1]);
      await api.runtime.firstScreenings.settle();
      const finished = await api.request('GET', `/v1/monitors/imports/${imported.body.id}`, { key });
      expect(finished.body).toMatchObject({ status: 'completed', screened: 2, failed: 0 });
      // Three monitors made alone, two imported: each first screening counted once.
      expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(5);

      await abandon(api);
      await api.close();
      api = await start();
      await api.runtime.monitorRuns.settle();
      expect(await alertsPerMonitor()).toEqual([1, 1, 1]);
    } finally {
      await api.close();
      await server.close();
      await drop();
    }
  }, 180_000);
});

/** Two instances of one database serving the UN list without Gaston (the list's server too). */
async function twoInstances(shared: Backend) {
  const { backend, drop } = await isolatedBackend(shared);
  const server = await ListServer.start();
  const env = {
    LISTS_ENABLED: 'un_sc',
    LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
    LISTS_REFRESH_INTERVAL_MINUTES: '0',
  };
  server.serve('/un/consolidated.xml', { body: WITHOUT_GASTON });
  const a = await TestApp.start(backend, { env });
  const b = await TestApp.start(backend, { env });
  const close = async () => {
    await a.close();
    await b.close();
    await server.close();
    await drop();
  };
  return { a, b, server, close };
}

describeWithSharedBackends('monitor runs on two instances of one database', (shared) => {
  it('raise exactly one alert per monitor and record version, whichever instance runs the change', async () => {
    const { a, b, server, close } = await twoInstances(shared);
    try {
      const { key } = await a.createAccount('enterprise');
      const monitors: string[] = [];
      // Made on both instances, well before the change (the last pass takes the last minute's).
      for (const [i, app] of [a, b, a, b].entries()) {
        const created = await app.request('POST', '/v1/monitors', {
          key,
          body: { query: GASTON, type: 'person', reference: `two-${i}` },
        });
        expect(created.status).toBe(201);
        monitors.push(created.body.id);
      }
      await sql`UPDATE monitors SET first_screened_at = first_screened_at - interval '10 minutes'`.execute(
        a.runtime.ctx.db,
      );
      server.serve('/un/consolidated.xml', { body: WITH_GASTON });
      // One instance stores the version; the other loads it: both serve it, both may claim its run.
      expect((await a.admin('POST', '/admin/v1/lists/un_sc/refresh')).body.outcome).toBe('accepted');
      // A refresh another instance's round holds the lock for is a 409 to retry, as the API says.
      let refreshed = await b.admin('POST', '/admin/v1/lists/un_sc/refresh');
      for (let tries = 0; refreshed.status === 409 && tries < 60; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        refreshed = await b.admin('POST', '/admin/v1/lists/un_sc/refresh');
      }
      expect(refreshed.body.outcome).toBe('unchanged');
      await Promise.all([a.runtime.monitorRuns.settle(), b.runtime.monitorRuns.settle()]);
      await Promise.all([a.runtime.monitorRuns.settle(), b.runtime.monitorRuns.settle()]);
      const { data } = (await a.request('GET', '/v1/alerts?limit=100', { key })).body;
      expect(monitors.map((id) => data.filter((alert: any) => alert.monitor_id === id).length)).toEqual([
        1, 1, 1, 1,
      ]);
      expect(data.every((alert: any) => alert.reason === 'new_match')).toBe(true);
      const { rows } = await sql<{ done: number }>`SELECT count(*)::int AS done FROM list_changes
        WHERE done_at IS NOT NULL`.execute(a.runtime.ctx.db);
      expect(rows[0]?.done).toBe(2);
    } finally {
      await close();
    }
  }, 120_000);
});

describeWithSharedBackends('monitor creations on two instances of one database', (shared) => {
  it('charge nothing for the monitors refused at the plan limit, wherever they land', async () => {
    const { a, b, close } = await twoInstances(shared);
    try {
      const { key, account } = await a.createAccount('professional');
      await sql`INSERT INTO monitors (id, account_id, subject_key, entity, query_type, request, created_at)
        SELECT gen_random_uuid(), ${account.id}, 'query:x', 'x', 'person', '{}'::jsonb, now()
        FROM generate_series(1, 9998)`.execute(a.runtime.ctx.db);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).request('POST', '/v1/monitors', {
            key,
            body: { query: `Racing Party ${i}`, type: 'person' },
          }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
      expect(answers.filter((answer) => answer.status === 402)).toHaveLength(18);
      const { rows } = await sql<{ counted: number; stored: number }>`SELECT
        (SELECT count FROM usage_counters WHERE account_id = ${account.id}) AS counted,
        (SELECT count(*)::int FROM screenings WHERE account_id = ${account.id}) AS stored`.execute(
        a.runtime.ctx.db,
      );
      expect(rows[0]).toEqual({ counted: 2, stored: 2 });
    } finally {
      await close();
    }
  }, 120_000);
});
