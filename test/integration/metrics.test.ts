import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startMetricsServer } from '../../src/http/metrics-server.js';
import { backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(backends())('GET /metrics ($name)', (shared) => {
  let api: TestApp;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const isolated = await isolatedBackend(shared);
    drop = isolated.drop;
    api = await TestApp.start(isolated.backend, {
      env: {
        LISTS_DIR,
        LISTS_ENABLED: 'uk_fcdo',
        // A provider that cannot be reached: its failures and its circuit show in the metrics.
        GLEIF_ENABLED: 'true',
        GLEIF_URL: 'http://127.0.0.1:9/api/v1',
      },
    });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  const scrape = async () => {
    const response = await api.admin<string>('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.body;
  };

  it('is refused without the operator token, or with an API key, as the operator API is', async () => {
    const none = await api.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.type).toBe('/problems/admin-unauthenticated');
    const { key } = await api.createAccount();
    expect((await api.request('GET', '/metrics', { key })).status).toBe(401);
    expect((await api.admin('GET', '/metrics')).status).toBe(200);
  });

  it('counts requests by route pattern and status, and screenings by outcome', async () => {
    const { key } = await api.createAccount();
    const before = await scrape();
    const screen = () =>
      api.request('POST', '/v1/screen', { key, body: { query: 'Metrics Probe Person', type: 'person' } });
    expect((await screen()).status).toBe(200);
    expect((await screen()).status).toBe(200);
    expect((await api.request('POST', '/v1/screen', { key, body: { query: '' } })).status).toBe(422);
    const secret = `s3cr3t-${Date.now()}`;
    expect((await api.request('GET', `/v1/screen/${secret}`, { key })).status).toBe(404);
    expect((await api.request('GET', `/nowhere/${secret}`)).status).toBe(404);
    const after = await scrape();

    const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    expect(delta('http_requests_total{method="POST",route="/v1/screen",status="200"}')).toBe(2);
    expect(delta('http_requests_total{method="POST",route="/v1/screen",status="422"}')).toBe(1);
    expect(delta('http_requests_total{method="GET",route="/v1/screen/:id",status="404"}')).toBe(1);
    expect(delta('http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(delta('http_request_duration_seconds_count{method="POST",route="/v1/screen"}')).toBe(3);
    expect(delta('screenings_total{outcome="live"}')).toBe(1);
    expect(delta('screenings_total{outcome="cached"}')).toBe(1);
    expect(delta('screenings_total{outcome="refused"}')).toBe(1);
    expect(delta('screening_cache_lookups_total{result="hit"}')).toBe(1);
    expect(delta('source_answer_duration_seconds_count{source="uk_fcdo"}')).toBe(1);
    // URLs never become labels: the series stay bounded whatever callers send.
    expect(after).not.toContain(secret);
  });

  it('reports the lists in service, their age and refresh interval', async () => {
    const text = await scrape();
    const version = api.runtime.ctx.lists.freshness().find((l) => l.id === 'uk_fcdo')!.version!;
    expect(sample(text, `list_version_info{list="uk_fcdo",version="${version}"}`)).toBe(1);
    expect(sample(text, 'list_loaded{list="uk_fcdo"}')).toBe(1);
    const age = sample(text, 'list_age_seconds{list="uk_fcdo"}')!;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(600);
    expect(sample(text, 'list_refresh_interval_seconds{list="uk_fcdo"}')).toBe(3_600);
    expect(sample(text, 'source_up{source="uk_fcdo"}')).toBe(1);
  });

  it('reports a failing provider, then its open circuit', async () => {
    const { key } = await api.createAccount('enterprise');
    for (let i = 0; i < 5; i++) {
      const query = `Unreachable Holdings ${i} Limited`;
      expect(
        (await api.request('POST', '/v1/screen', { key, body: { query, type: 'organization' } })).status,
      ).toBe(200);
    }
    const text = await scrape();
    expect(sample(text, 'source_failures_total{source="gleif",reason="error"}')).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'source_circuit_state{source="gleif"}')).toBe(2);
    expect(sample(text, 'source_up{source="gleif"}')).toBe(0);
  });

  it('reads the queue depths and the audit writer at scrape time', async () => {
    const { key } = await api.createAccount('enterprise');
    const batch = await api.request('POST', '/v1/screen/batch', {
      key,
      body: { items: [{ query: 'Queued Name One' }, { query: 'Queued Name Two' }] },
    });
    expect(batch.status).toBe(202);
    const queued = await scrape();
    expect(sample(queued, 'queue_depth_query_ok')).toBe(1);
    expect(sample(queued, 'batch_queue_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(queued, 'webhook_outbox_events')).toBe(0);
    expect(sample(queued, 'webhook_deliveries_pending')).toBe(0);
    await api.runtime.batchWork.settle();
    expect(sample(await scrape(), 'batch_queue_depth')).toBe(0);
    // Scrapes are not audited; the requests before them wait in the writer until it flushes.
    await api.runtime.ctx.audit.flush();
    const flushed = await scrape();
    expect(sample(flushed, 'audit_writer_pending_rows')).toBe(0);
    expect(sample(flushed, 'audit_writer_oldest_pending_seconds')).toBe(0);
    expect(sample(flushed, 'webhook_delivery_attempts_total{result="failed"}')).toBe(0);
  });
});

describe.each(backends())('webhook delivery metrics ($name)', (shared) => {
  it('counts delivery attempts by result, from the delivery thread on PostgreSQL too', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const api = await TestApp.start(backend, {
      env: {
        LISTS_DIR,
        LISTS_ENABLED: 'uk_fcdo',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
      },
    });
    const receiver = await WebhookReceiver.start({ status: 500 });
    try {
      await api.runtime.ctx.lists.settled();
      const { key } = await api.createAccount('enterprise');
      expect((await api.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } })).status).toBe(
        201,
      );
      const query = { query: 'Webhook Metrics Person', type: 'person' };
      expect((await api.request('POST', '/v1/screen', { key, body: query })).status).toBe(200);
      await receiver.waitFor(1);
      await api.runtime.webhookDelivery.settle();
      const text = (await api.admin<string>('GET', '/metrics')).body;
      expect(sample(text, 'webhook_delivery_attempts_total{result="failed"}')).toBe(1);
      expect(sample(text, 'webhook_delivery_attempts_total{result="ok"}')).toBe(0);
      // The failed delivery waits for its retry.
      expect(sample(text, 'webhook_deliveries_pending')).toBe(1);
    } finally {
      await receiver.close();
      await api.close();
      await drop();
    }
  });
});

describe('METRICS_PORT', () => {
  let api: TestApp;
  let server: FastifyInstance;
  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!);
    server = await startMetricsServer(api.runtime.ctx.metrics, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await api?.close();
  });

  it('serves the metrics without a token on its own port, and nothing else there', async () => {
    const port = (server.server.address() as AddressInfo).port;
    await api.request('GET', '/v1/health');
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('http_requests_total{method="GET",route="/v1/health",status="200"}');
    expect((await fetch(`http://127.0.0.1:${port}/v1/health`)).status).toBe(404);
    // The main port still asks for the operator token.
    expect((await api.request('GET', '/metrics')).status).toBe(401);
    expect((await api.request('GET', '/metrics', { key: TEST_ADMIN_TOKEN })).status).toBe(200);
  });

  it('is a port number when set', () => {
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(() => loadConfig({ METRICS_PORT: 'ninety' })).toThrow(/METRICS_PORT/);
  });
});
