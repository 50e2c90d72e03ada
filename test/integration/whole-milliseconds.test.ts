import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

/** Every `duration_ms` and `latency_ms` the service reports or records is a whole number of milliseconds. */
describe.each(backends())('durations in whole milliseconds ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, {
      env: {
        LISTS_DIR,
        LISTS_ENABLED: 'un_sc',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
      },
    });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('answers a screening, live, cached and stored, with duration_ms whole and the precise time in Server-Timing', async () => {
    const { key } = await api.createAccount();
    const body = { query: 'Whole Milliseconds Trading', type: 'entity' };
    const live = await api.request('POST', '/v1/screen', { key, body });
    const cached = await api.request('POST', '/v1/screen', { key, body });
    const stored = await api.request('GET', `/v1/screen/${live.body.id}`, { key });
    expect(cached.body.cache_hit).toBe(true);
    for (const answer of [live, cached, stored]) {
      expect(answer.status).toBe(200);
      expect(Number.isInteger(answer.body.duration_ms), String(answer.body.duration_ms)).toBe(true);
    }
    for (const answer of [live, cached]) {
      const timing = /^screen;dur=(\d+(?:\.\d+)?)$/.exec(answer.headers.get('server-timing') ?? '');
      expect(timing, answer.headers.get('server-timing') ?? 'no Server-Timing').not.toBeNull();
      expect(Math.abs(Number(timing![1]) - answer.body.duration_ms)).toBeLessThanOrEqual(0.5);
    }
    const row = await api.runtime.ctx.db
      .selectFrom('screenings')
      .select('result')
      .where('id', '=', live.body.id)
      .executeTakeFirstOrThrow();
    expect(Number.isInteger(row.result.duration_ms), String(row.result.duration_ms)).toBe(true);
  });

  it('answers the health check with latency_ms whole', async () => {
    const health = await api.request('GET', '/v1/health');
    expect(Number.isInteger(health.body.latency_ms), String(health.body.latency_ms)).toBe(true);
  });

  it('records and lists the audit rows with latency_ms whole', async () => {
    const { key } = await api.createAccount();
    await api.request('GET', '/v1/usage', { key });
    await api.request('POST', '/v1/screen', { key, body: { query: 'Audited Whole Milliseconds' } });
    await api.runtime.ctx.audit.flush();
    const audit = await api.request('GET', '/v1/audit', { key });
    // The rows of the account's and its key's creations are changes, not responses: no latency.
    const responses = audit.body.data.filter((row: { action: string | null }) => row.action === null);
    expect(responses.length).toBeGreaterThanOrEqual(2);
    for (const row of responses)
      expect(Number.isInteger(row.latency_ms), `${row.path} ${row.latency_ms}`).toBe(true);
  });

  it('lists webhook delivery attempts with duration_ms whole', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { key } = await api.createAccount('professional');
      const webhook = await api.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } });
      await api.request('POST', '/v1/screen', { key, body: { query: 'Delivered Whole Milliseconds' } });
      await receiver.waitFor(1);
      await api.runtime.webhookDelivery.settle();
      const deliveries = await api.request('GET', `/v1/webhooks/${webhook.body.id}/deliveries`, { key });
      expect(deliveries.body.data).toHaveLength(1);
      const [attempt] = deliveries.body.data;
      expect(Number.isInteger(attempt.duration_ms), String(attempt.duration_ms)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
