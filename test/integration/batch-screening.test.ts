import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/http/problems.js';
import { BatchWorker } from '../../src/screening/batches/batch-worker.js';
import { type Backend, backends, describeWithSharedBackends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { answerToUnfinishedCsv } from '../support/unfinished-body.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
const ENV = {
  LISTS_DIR,
  LISTS_ENABLED: 'un_sc',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
};
// A name on the UN list (as in the excerpt of consolidated.xml) and names no list holds.
const LISTED = 'Eric Badege';
const unlisted = (i: number) => `Nobody Listed ${i} ${randomBytes(4).toString('hex')}`;

describe.each(backends())('batch screening ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { env: ENV });
    await api.runtime.ctx.lists.settled();
    receiver = await WebhookReceiver.start({ status: 204 });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    await drop?.();
  });

  const submit = (key: string, body: unknown, headers?: Record<string, string>) =>
    api.request('POST', '/v1/screen/batch', {
      key,
      ...(typeof body === 'string' ? { rawBody: body, headers } : { body }),
    });
  const finished = async (key: string, id: string) => {
    await api.runtime.batchWork.settle();
    return api.request('GET', `/v1/screen/batch/${id}`, { key });
  };
  const storedScreenings = async (accountId: string) => {
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM screenings WHERE account_id = ${accountId}`.execute(api.runtime.ctx.db);
    return Number(rows[0]!.n);
  };

  it('queues a JSON batch with 202 and a Location, and screens every item like POST /v1/screen', async () => {
    const { key, account } = await api.createAccount('professional');
    const items = [
      { query: LISTED, type: 'person', reference: 'customer-1' },
      ...Array.from({ length: 24 }, (_, i) => ({ query: unlisted(i), reference: `c-${i + 2}` })),
    ];
    const queued = await submit(key, { items, options: { threshold: 0.7 } });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'queued', total: 25 });
    expect(queued.headers.get('location')).toBe(`/v1/screen/batch/${queued.body.id}`);

    const done = await finished(key, queued.body.id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'completed',
      total: 25,
      completed: 25,
      failed: 0,
      next_cursor: null,
    });
    expect(done.body.completed_at).not.toBeNull();
    const [first, ...rest] = done.body.results;
    expect(first).toMatchObject({
      index: 0,
      reference: 'customer-1',
      status: 'completed',
      complete: true,
      sources_failed: [],
    });
    expect(first.risk_score).toBeGreaterThan(0);
    expect(first.flag_count).toBeGreaterThan(0);
    expect(rest.every((r: { flag_count: number }) => r.flag_count === 0)).toBe(true);

    // Each item is a stored screening of the account, counted against the quota, and audited.
    const screening = await api.request('GET', `/v1/screen/${first.screening_id}`, { key });
    expect(screening.status).toBe(200);
    expect(screening.body.flags[0]).toMatchObject({ source: 'un_sc' });
    expect(await storedScreenings(account.id)).toBe(25);
    const usage = await api.request('GET', '/v1/usage', { key });
    expect(usage.body.current_month.count).toBe(25);
    await api.runtime.ctx.audit.flush();
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM audit_log
      WHERE account_id = ${account.id} AND route = '/v1/screen/batch/:id/items/:index'`.execute(
      api.runtime.ctx.db,
    );
    expect(Number(rows[0]!.n)).toBe(25);

    // Each item is cached as a single screening is: asking again about the same party (its
    // reference is its subject) answers that same screening.
    const again = await api.request('POST', '/v1/screen', {
      key,
      body: { query: LISTED, type: 'person', reference: 'customer-1', options: { threshold: 0.7 } },
    });
    expect(again.body).toMatchObject({ cache_hit: true, id: first.screening_id, reference: 'customer-1' });
  });

  it('reads CSV input with query, type and reference columns', async () => {
    const { key } = await api.createAccount('enterprise');
    const csv = `query,type,reference\r\n"${LISTED}",person,ref-a\r\n${unlisted(1)},,ref-b\r\n`;
    const queued = await submit(key, csv, { 'content-type': 'text/csv' });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body.total).toBe(2);
    const done = await finished(key, queued.body.id);
    expect(done.body.results.map((r: { reference: string }) => r.reference)).toEqual(['ref-a', 'ref-b']);
    expect(done.body.results[0].flag_count).toBeGreaterThan(0);
  });

  it('refuses a batch with invalid items with 422 naming each by index and pointer, and queues nothing', async () => {
    const { key, account } = await api.createAccount('professional');
    const response = await submit(key, {
      items: [{ query: 'Fine Name' }, { query: ' x ' }, { query: 'Other', options: { sources: ['nope'] } }],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
      '/items/1/query',
      '/items/2/options/sources',
    ]);
    const csv = await submit(key, 'query,type\r\nSome Name,robot\r\n', { 'content-type': 'text/csv' });
    expect(csv.status).toBe(422);
    expect(csv.body.errors[0].pointer).toBe('/items/0/type');
    // A NUL, which no database text can hold, is the CSV's error too, not the database's.
    const nul = await submit(key, 'query\r\nZeta\u0000 Corp\r\n', { 'content-type': 'text/csv' });
    expect(nul.status).toBe(422);
    expect(nul.body.errors).toEqual([
      { pointer: '/items/0/query', detail: 'line 2: must not hold a NUL character' },
    ]);
    const { rows } = await sql`SELECT 1 FROM batches WHERE account_id = ${account.id}`.execute(
      api.runtime.ctx.db,
    );
    expect(rows).toHaveLength(0);
  });

  it('refuses each batch item without a letter or digit with its own 422 error, and queues nothing', async () => {
    const { key, account } = await api.createAccount('professional');
    const response = await submit(key, {
      items: [{ query: '\u200b\u200b\u200b' }, { query: 'Fine Name' }, { query: '!!..--' }],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { pointer: '/items/0/query', detail: 'must hold at least one letter or digit' },
      { pointer: '/items/2/query', detail: 'must hold at least one letter or digit' },
    ]);
    const { rows } = await sql`SELECT 1 FROM batches WHERE account_id = ${account.id}`.execute(
      api.runtime.ctx.db,
    );
    expect(rows).toHaveLength(0);
  });

  it('refuses a batch request without a body with 422, not 500, and queues nothing', async () => {
    const { key, account } = await api.createAccount('professional');
    const response = await api.request('POST', '/v1/screen/batch', { key });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.errors).toEqual([{ pointer: '/', detail: 'must be a JSON object or a CSV text' }]);
    const { rows } = await sql`SELECT 1 FROM batches WHERE account_id = ${account.id}`.execute(
      api.runtime.ctx.db,
    );
    expect(rows).toHaveLength(0);
  });

  it('refuses batches on the Starter plan with 403 plan-feature-unavailable', async () => {
    const { key } = await api.createAccount('starter');
    const response = await submit(key, { items: [{ query: 'Some Name' }] });
    expect(response.status).toBe(403);
    expect(response.body.type).toMatch(/plan-feature-unavailable$/);
  });

  it('refuses a batch before reading its body on Starter (403) and with no screening left (402)', async () => {
    const endless = (key: string) => answerToUnfinishedCsv(`${api.baseUrl}/v1/screen/batch`, key);
    const starter = await api.createAccount('starter');
    expect(await endless(starter.key)).toMatchObject({
      status: 403,
      body: { type: '/problems/plan-feature-unavailable' },
    });
    const { key, account } = await api.createAccount('professional');
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    await sql`INSERT INTO usage_counters (account_id, month, count) VALUES (${account.id}, ${month}, 2000)`.execute(
      api.runtime.ctx.db,
    );
    expect(await endless(key)).toMatchObject({ status: 402, body: { type: '/problems/quota-exceeded' } });
  });

  it('refuses with 402 a batch larger than the quota left this month, saying both numbers, and runs nothing', async () => {
    const { key, account } = await api.createAccount('professional');
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    await sql`INSERT INTO usage_counters (account_id, month, count) VALUES (${account.id}, ${month}, 1995)`.execute(
      api.runtime.ctx.db,
    );
    const response = await submit(key, {
      items: Array.from({ length: 6 }, (_, i) => ({ query: unlisted(i) })),
    });
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({
      type: '/problems/quota-insufficient',
      title: 'Not enough screenings left this month',
      requested: 6,
      remaining: 5,
    });
    expect(response.body.detail).toMatch(
      /^6 screenings asked, 5 remain this month .*; nothing was queued\.$/,
    );
    expect(await storedScreenings(account.id)).toBe(0);
    expect((await submit(key, { items: [{ query: unlisted(7) }] })).status).toBe(202);
  });

  it('pages results with a cursor and gives every result as CSV', async () => {
    const { key } = await api.createAccount('enterprise');
    const items = Array.from({ length: 7 }, (_, i) => ({
      query: unlisted(i),
      reference: i === 3 ? '=HYPERLINK()' : `r${i}`,
    }));
    const { id } = (await submit(key, { items })).body;
    await finished(key, id);
    const page1 = await api.request('GET', `/v1/screen/batch/${id}?limit=5`, { key });
    expect(page1.body.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);
    const page2 = await api.request(
      'GET',
      `/v1/screen/batch/${id}?limit=5&cursor=${page1.body.next_cursor}`,
      { key },
    );
    expect(page2.body.results.map((r: { index: number }) => r.index)).toEqual([5, 6]);
    expect(page2.body.next_cursor).toBeNull();
    const csv = await api.request('GET', `/v1/screen/batch/${id}?format=csv`, { key });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe(
      'index,reference,screening_id,risk_score,risk_level,flag_count,status,error,complete,' +
        'query,type,date_of_birth,countries,identifiers',
    );
    expect(lines).toHaveLength(8);
    expect(lines[4]).toContain(",'=HYPERLINK(),");
    expect((await api.request('GET', `/v1/screen/batch/${id}?cursor=abc`, { key })).status).toBe(422);
  });

  it('says in each result what its item asked, as screened, in JSON and in CSV with formulas defused', async () => {
    const { key } = await api.createAccount('professional');
    const csvBatch = [
      'query,type,reference,date_of_birth,countries,identifiers',
      `${LISTED},person,cust-1,1971,cd;uk,passport:OP0045123`,
      `"=cmd|' /C calc'!A0",,cust-2,,,`,
      `@${unlisted(1)},organization,,,,company_number:123;lei:5493001KJTIIGC8Y1R12`,
    ].join('\r\n');
    const queued = await submit(key, csvBatch, { 'content-type': 'text/csv' });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const done = await finished(key, queued.body.id);
    const [listed, formula, company] = done.body.results;
    expect(listed).toMatchObject({ status: 'completed', reference: 'cust-1' });
    const stored = await api.request('GET', `/v1/screen/${listed.screening_id}`, { key });
    expect(listed.request).toEqual(stored.body.request);
    expect(listed.request).toEqual({
      query: LISTED,
      type: 'person',
      date_of_birth: '1971',
      countries: ['CD', 'GB'],
      identifiers: [{ type: 'passport', value: 'OP0045123' }],
      options: { threshold: 0.5, sources: ['un_sc'], include_adverse_media: true },
    });
    expect(formula.request).toMatchObject({ query: "=cmd|' /C calc'!A0", type: 'entity', countries: [] });
    expect(company.request.identifiers).toHaveLength(2);

    const csv = await api.request('GET', `/v1/screen/batch/${queued.body.id}?format=csv`, { key });
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]!.split(',').slice(9)).toEqual([
      'query',
      'type',
      'date_of_birth',
      'countries',
      'identifiers',
    ]);
    expect(lines[1]).toMatch(/,completed,,true,Eric Badege,person,1971,CD;GB,passport:OP0045123$/);
    expect(lines[2]).toMatch(/,true,'=cmd\|' \/C calc'!A0,entity,,,$/);
    expect(lines[3]).toContain(",true,'@Nobody Listed 1 ");
    expect(lines[3]).toMatch(/,organization,,,company_number:123;lei:5493001KJTIIGC8Y1R12$/);
  });

  it("answers 404 for another account's batch and for a malformed id", async () => {
    const owner = await api.createAccount('professional');
    const other = await api.createAccount('professional');
    const { id } = (await submit(owner.key, { items: [{ query: unlisted(1) }] })).body;
    expect((await api.request('GET', `/v1/screen/batch/${id}`, { key: other.key })).status).toBe(404);
    expect((await api.request('DELETE', `/v1/screen/batch/${id}`, { key: other.key })).status).toBe(404);
    expect((await api.request('GET', '/v1/screen/batch/not-a-uuid', { key: owner.key })).status).toBe(404);
  });

  it('sends a signed batch.complete event with the counts per risk level when a batch finishes', async () => {
    const { key } = await api.createAccount('enterprise');
    const hook = await api.request('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}/batches`, events: ['batch.complete'] },
    });
    expect(hook.status).toBe(201);
    const { id } = (await submit(key, { items: [{ query: LISTED, type: 'person' }, { query: unlisted(1) }] }))
      .body;
    await finished(key, id);
    await api.runtime.webhookDelivery.settle();
    const events = receiver.received
      .filter((r) => r.path.endsWith('/batches'))
      .map((r) => JSON.parse(r.body.toString()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event: 'batch.complete',
      batch_id: id,
      data: { id, status: 'completed', total: 2, completed: 2, failed: 0 },
    });
    const levels = events[0].data.risk_levels;
    expect(levels.low + levels.medium + levels.high + levels.critical).toBe(2);
    expect(levels.low).toBe(1);
  });

  // Batch work yields to requests (docs/reliability.md): it must still finish while another
  // account keeps the service busy, and that account's requests must not wait for the batch.
  it("answers another account's requests while a batch runs, and the batch still completes", async () => {
    const owner = await api.createAccount('enterprise');
    const other = await api.createAccount('enterprise');
    await api.admin('PATCH', `/admin/v1/accounts/${other.account.id}`, { rate_limit_per_minute: 100_000 });
    const items = Array.from({ length: 120 }, (_, i) => ({ query: unlisted(i) }));
    const { id } = (await submit(owner.key, { items })).body;
    const open = async () => {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM batch_items
        WHERE batch_id = ${id} AND status IN ('pending', 'running')`.execute(api.runtime.ctx.db);
      return Number(rows[0]!.n);
    };
    // The other account's answer does not wait for the batch to be done.
    const first = await api.request('POST', '/v1/screen', { key: other.key, body: { query: LISTED } });
    expect(first.status).toBe(200);
    expect(await open()).toBeGreaterThan(0);
    // Requests back to back, one after another, until the batch is done: it is never starved.
    let requests = 0;
    while ((await open()) > 0) {
      expect(requests++, 'the batch made no progress under steady requests').toBeLessThan(5_000);
      const screened = await api.request('POST', '/v1/screen', {
        key: other.key,
        body: { query: unlisted(requests) },
      });
      const usage = await api.request('GET', '/v1/usage', { key: other.key });
      expect([screened.status, usage.status]).toEqual([200, 200]);
    }
    const done = await finished(owner.key, id);
    expect(done.body).toMatchObject({ status: 'completed', total: 120, completed: 120, failed: 0 });
  });
});

describe.each(backends())('batch cancellation and restart ($name)', (shared) => {
  it('cancels the items not yet started; a restart finishes every other item exactly once, those a dead instance held included', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const dataDir = (await import('node:fs')).mkdtempSync(
      path.join(process.env.TMPDIR ?? '/tmp', 'css-batch-'),
    );
    const start = () => TestApp.start(backend, { env: ENV, dataDir, inMemoryDatabase: false });
    let api = await start();
    try {
      await api.runtime.ctx.lists.settled();
      const { key, account } = await api.createAccount('enterprise');
      // The worker stops first, as in a shutdown: the batches queued now wait in the database.
      await api.runtime.batchWork.close();
      const kept = (
        await api.request('POST', '/v1/screen/batch', {
          key,
          body: { items: Array.from({ length: 30 }, (_, i) => ({ query: unlisted(i) })) },
        })
      ).body;
      // As if another instance had claimed item 0 and died: running, its lease over, never screened.
      await sql`UPDATE batch_items SET status = 'running', claim_token = gen_random_uuid(),
        claimed_until = now() - interval '1 minute' WHERE batch_id = ${kept.id} AND index = 0`.execute(
        api.runtime.ctx.db,
      );
      const cancelled = (
        await api.request('POST', '/v1/screen/batch', { key, body: { items: [{ query: unlisted(99) }] } })
      ).body;
      expect((await api.request('DELETE', `/v1/screen/batch/${cancelled.id}`, { key })).status).toBe(204);
      const view = await api.request('GET', `/v1/screen/batch/${cancelled.id}`, { key });
      expect(view.body).toMatchObject({ status: 'cancelled', cancelled: 1, completed: 0 });
      expect(view.body.completed_at).not.toBeNull();
      await api.close();

      api = await start();
      await api.runtime.batchWork.settle();
      const done = await api.request('GET', `/v1/screen/batch/${kept.id}`, { key });
      expect(done.body).toMatchObject({ status: 'completed', completed: 30 });
      const ids = done.body.results.map((r: { screening_id: string }) => r.screening_id);
      expect(new Set(ids).size).toBe(30);
      const { rows } = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM screenings WHERE account_id = ${account.id}`.execute(api.runtime.ctx.db);
      expect(Number(rows[0]!.n)).toBe(30);
      expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(30);
    } finally {
      await api.close();
      await drop();
    }
  }, 120_000);
});

describe.each(backends())('batch items claimed by a process that died ($name)', (shared) => {
  // On the embedded database the process is the only writer (its folder is locked): a claim left
  // in it at start is a dead process's, whatever its lease. PostgreSQL may have other instances.
  const soleWriter = shared.databaseUrl === undefined;

  it(soleWriter
    ? 'takes back at start, at once, the items a dead process held on the embedded database'
    : 'leaves to their lease, on PostgreSQL, the items another instance may still hold', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const dataDir = (await import('node:fs')).mkdtempSync(
      path.join(process.env.TMPDIR ?? '/tmp', 'css-batch-'),
    );
    const start = () => TestApp.start(backend, { env: ENV, dataDir, inMemoryDatabase: false });
    let api = await start();
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount('enterprise');
      await api.runtime.batchWork.close();
      const batch = (
        await api.request('POST', '/v1/screen/batch', {
          key,
          body: { items: Array.from({ length: 3 }, (_, i) => ({ query: unlisted(i) })) },
        })
      ).body;
      // As if the process had claimed item 0 and died at once: running, its lease far from over.
      await sql`UPDATE batch_items SET status = 'running', claim_token = gen_random_uuid(),
          claimed_until = now() + interval '9 minutes' WHERE batch_id = ${batch.id} AND index = 0`.execute(
        api.runtime.ctx.db,
      );
      await api.close();

      api = await start();
      await api.runtime.ctx.lists.settled();
      await api.runtime.batchWork.settle();
      const view = await api.request('GET', `/v1/screen/batch/${batch.id}`, { key });
      if (soleWriter) {
        expect(view.body).toMatchObject({ status: 'completed', completed: 3 });
      } else {
        expect(view.body).toMatchObject({ status: 'running', completed: 2 });
      }
    } finally {
      await api.close();
      await drop();
    }
  }, 120_000);
});

describe.each(backends())('batch items when the month fills up meanwhile ($name)', (shared) => {
  it('screens items until the quota is reached and marks the rest failed with quota-exceeded', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const api = await TestApp.start(backend, { env: ENV });
    try {
      await api.runtime.ctx.lists.settled();
      const { key, account } = await api.createAccount('professional');
      const month = `${new Date().toISOString().slice(0, 7)}-01`;
      await sql`INSERT INTO usage_counters (account_id, month, count) VALUES (${account.id}, ${month}, 1995)`.execute(
        api.runtime.ctx.db,
      );
      // The batch fits the 5 screenings left when it is queued; then 2 single screenings use some.
      await api.runtime.batchWork.close();
      const items = Array.from({ length: 5 }, (_, i) => ({ query: unlisted(i) }));
      const queued = await api.request('POST', '/v1/screen/batch', { key, body: { items } });
      expect(queued.status).toBe(202);
      for (const i of [10, 11])
        expect((await api.request('POST', '/v1/screen', { key, body: { query: unlisted(i) } })).status).toBe(
          200,
        );
      const { ctx } = api.runtime;
      const worker = new BatchWorker({
        db: ctx.db,
        clock: ctx.clock,
        logger: pino({ level: 'silent' }),
        screening: ctx.screening,
        audit: ctx.audit,
        onBatchClosed: () => {},
        statusOf: (code) => PROBLEMS[code].status,
      });
      worker.start();
      await worker.settle();
      await worker.close();
      const done = await api.request('GET', `/v1/screen/batch/${queued.body.id}`, { key });
      expect(done.body).toMatchObject({ status: 'completed', completed: 3, failed: 2 });
      const failed = done.body.results.filter((r: { status: string }) => r.status === 'failed');
      expect(failed.map((r: { error: string }) => r.error.split(':')[0])).toEqual([
        'quota-exceeded',
        'quota-exceeded',
      ]);
      // Not screened, but what was asked is still there, as checked when the batch was queued.
      expect(failed.map((r: { index: number; request: { query: string } }) => r.request.query)).toEqual(
        failed.map((r: { index: number }) => items[r.index]!.query),
      );
      expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(2000);
    } finally {
      await api.close();
      await drop();
    }
  }, 120_000);
});

describeWithSharedBackends('batch items on two instances', (shared) => {
  it('screens each item exactly once while both instances claim from the same queue', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const first = await TestApp.start(backend, { env: ENV });
    await first.runtime.ctx.lists.settled();
    const second = await TestApp.start(backend, { env: ENV });
    try {
      await second.runtime.ctx.lists.settled();
      const { key, account } = await first.createAccount('enterprise');
      const items = Array.from({ length: 300 }, (_, i) => ({ query: unlisted(i) }));
      const queued = await first.request('POST', '/v1/screen/batch', { key, body: { items } });
      expect(queued.status).toBe(202);
      second.runtime.batchWork.wake();
      await Promise.all([first.runtime.batchWork.settle(), second.runtime.batchWork.settle()]);
      const done = await second.request('GET', `/v1/screen/batch/${queued.body.id}`, { key });
      expect(done.body).toMatchObject({ status: 'completed', completed: 300, failed: 0 });
      const { rows } = await sql<{ n: string; items: string }>`SELECT count(*) AS n,
          count(DISTINCT i.index) AS items FROM screenings s JOIN batch_items i ON i.screening_id = s.id
        WHERE s.account_id = ${account.id}`.execute(first.runtime.ctx.db);
      expect(rows[0]).toEqual({ n: '300', items: '300' });
      // The quota counted each item once (read in the database: an instance's /v1/usage may lag the
      // other's counts by up to a second).
      const counted = await sql<{
        count: number;
      }>`SELECT count FROM usage_counters WHERE account_id = ${account.id}`.execute(first.runtime.ctx.db);
      expect(Number(counted.rows[0]!.count)).toBe(300);
    } finally {
      await Promise.all([first.close(), second.close()]);
      await drop();
    }
  }, 120_000);
});
