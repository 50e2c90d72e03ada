import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/accounts/usage.js';
import { purgeDeliveryHistory } from '../../src/webhooks/delivery-queue.js';
import { DeliveryThread } from '../../src/webhooks/delivery-thread.js';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { maxRetryJitterMs } from '../../src/webhooks/retry-schedule.js';
import { DELIVERY_CONCURRENCY, DELIVERY_CONCURRENCY_PER_ACCOUNT } from '../../src/webhooks/webhook-policy.js';
import { type Backend, backends } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { type ReceivedWebhook, WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** The receivers are on 127.0.0.1 over http: only these escape hatches let the service reach them. */
const LOCAL_RECEIVERS = {
  LISTS_DIR,
  LISTS_ENABLED: 'un_sc',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
};
const MINUTE = 60_000;

/** X-Service-Signature checked the way a receiver would, with node:crypto only. */
function serviceSignatureHolds(request: ReceivedWebhook, secret: string): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`;
  const given = String(request.headers['x-service-signature'] ?? '');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** A distinct query each time, so that no screening is answered from the cache by accident. */
let queries = 0;
const freshQuery = () => `Webhook Test Company ${++queries} ${Math.random().toString(36).slice(2, 8)}`;

async function startApp(backend: Backend, options: Parameters<typeof TestApp.start>[1] = {}) {
  const api = await TestApp.start(backend, { ...options, env: { ...LOCAL_RECEIVERS, ...options.env } });
  await api.runtime.ctx.lists.settled();
  return api;
}

async function setUp(api: TestApp, receiver: WebhookReceiver, events?: string[]) {
  const { key, account } = await api.createAccount('professional');
  const created = await api.request('POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, ...(events ? { events } : {}) },
  });
  expect(created.status).toBe(201);
  return { key, account, webhook: created.body as { id: string; secret: string } };
}

async function screen(api: TestApp, key: string, query = freshQuery()) {
  const response = await api.request('POST', '/v1/screen', { key, body: { query } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe.each(backends())('webhook delivery ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
  });
  afterAll(async () => drop?.());

  describe('on the system clock', () => {
    let api: TestApp;
    beforeAll(async () => {
      api = await startApp(backend);
    }, 120_000);
    afterAll(async () => api?.close());

    it.each([
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.170.2/v2/credentials',
      'http://169.254.170.23/v1/credentials',
      'http://169.254.0.23/',
      'http://169.254.1.1/hooks',
      'http://100.100.100.200/latest/meta-data/',
      'http://168.63.129.16/machine',
      'http://[fe80::a9fe:a9fe]/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://[::ffff:169.254.170.2]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[::169.254.169.254]/',
      'http://[64:ff9b::6464:64c8]/',
    ])('refuses %s even with WEBHOOK_ALLOW_PRIVATE_NETWORKS (cloud metadata, link-local)', async (url) => {
      const { key } = await api.createAccount('professional');
      const response = await api.request('POST', '/v1/webhooks', { key, body: { url } });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([
        { pointer: '/url', detail: expect.stringMatching(/cloud metadata|link-local/) },
      ]);
    });

    it('sends each live screening, signed in both schemes, to every subscribed webhook', async () => {
      const [first, second, batchOnly] = await Promise.all([
        WebhookReceiver.start(),
        WebhookReceiver.start(),
        WebhookReceiver.start(),
      ]);
      try {
        const { key, webhook } = await setUp(api, first);
        const other = await api.request('POST', '/v1/webhooks', { key, body: { url: second.url } });
        await api.request('POST', '/v1/webhooks', {
          key,
          body: { url: batchOnly.url, events: ['batch.complete'] },
        });
        const result = await screen(api, key);
        const [request] = await first.waitFor(1);
        await second.waitFor(1);
        await api.runtime.webhookDelivery.settle();

        expect(request!.method).toBe('POST');
        expect(request!.headers['content-type']).toBe('application/json');
        expect(serviceSignatureHolds(request!, webhook.secret)).toBe(true);
        expect(serviceSignatureHolds(request!, other.body.secret)).toBe(false);
        const verified = new Webhook(webhook.secret).verify(request!.body.toString('utf8'), {
          'webhook-id': String(request!.headers['webhook-id']),
          'webhook-timestamp': String(request!.headers['webhook-timestamp']),
          'webhook-signature': String(request!.headers['webhook-signature']),
        });
        const { duration_ms: _d, ...answered } = result;
        expect(verified).toMatchObject({
          event: 'screening.complete',
          screening_id: result.id,
          timestamp: result.timestamp,
          data: { ...answered, cache_hit: false },
        });
        expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
        // Each webhook gets its own delivery, signed with its own secret.
        expect(second.received[0]!.headers['webhook-id']).not.toBe(request!.headers['webhook-id']);
        expect(serviceSignatureHolds(second.received[0]!, other.body.secret)).toBe(true);
        expect(batchOnly.received).toHaveLength(0);

        const log = await api.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { key });
        expect(log.body.data).toEqual([
          expect.objectContaining({
            delivery_id: request!.headers['webhook-id'],
            event: 'screening.complete',
            attempt: 1,
            status_code: 200,
            error: null,
            next_retry_at: null,
            delivery_status: 'delivered',
          }),
        ]);
        const status = await api.request('GET', `/v1/webhooks/${webhook.id}`, { key });
        expect(status.body).toMatchObject({ status: 'active', consecutive_failures: 0 });
        expect(status.body.last_delivery_at).toBe(log.body.data[0].attempted_at);
      } finally {
        await Promise.all([first.close(), second.close(), batchOnly.close()]);
      }
    });

    it('sends as body, byte for byte, the event object with the stored result, quotes and accents included', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const { key } = await setUp(api, receiver);
        // A listed name, so the body carries flags with the list's records; quotes and an accent in the entity.
        const result = await screen(api, key, `Eric "the" Badegé ${Math.random().toString(36).slice(2, 8)}`);
        expect(result.flags.length).toBeGreaterThan(0);
        const [request] = await receiver.waitFor(1);
        const body = request!.body.toString('utf8');
        const sent = JSON.parse(body);
        // Exactly the text JSON.stringify gives for it: no other spacing or escaping.
        expect(body).toBe(JSON.stringify(sent));
        const stored = await api.request('GET', `/v1/screen/${result.id}`, { key });
        expect(sent).toEqual({
          event: 'screening.complete',
          screening_id: result.id,
          timestamp: result.timestamp,
          data: stored.body,
        });
        expect(sent.data.entity).toMatch(/^eric "the" badegé /);
      } finally {
        await receiver.close();
      }
    });

    it('sends from a thread of its own on PostgreSQL, started again if it stops, losing nothing queued meanwhile', async () => {
      const delivery = api.runtime.webhookDelivery;
      // The embedded database has one connection, in the main thread: deliveries are sent there.
      if (backend.databaseUrl === undefined) {
        expect(delivery).toBeInstanceOf(DeliveryWorker);
        return;
      }
      expect(delivery).toBeInstanceOf(DeliveryThread);
      const receiver = await WebhookReceiver.start();
      try {
        const { key, webhook } = await setUp(api, receiver);
        await (delivery as DeliveryThread).thread?.terminate(); // as a crash would stop it
        const result = await screen(api, key);
        // Settling waits for the thread that replaces it, which sends what was queued meanwhile.
        await delivery.settle();
        const [request] = receiver.received;
        expect(serviceSignatureHolds(request!, webhook.secret)).toBe(true);
        expect(JSON.parse(request!.body.toString('utf8'))).toMatchObject({ screening_id: result.id });
        expect((delivery as DeliveryThread).thread).toBeDefined();
      } finally {
        await receiver.close();
      }
    });

    it('sends nothing for a cache hit, nor for a screening the quota refused', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const { key, account } = await setUp(api, receiver);
        const query = freshQuery();
        await screen(api, key, query);
        await receiver.waitFor(1);
        const again = await screen(api, key, query);
        expect(again.cache_hit).toBe(true);

        await api.runtime.ctx.db
          .insertInto('usage_counters')
          .values({ account_id: account.id, month: monthOf(new Date()), count: 2_000 })
          .onConflict((oc) => oc.columns(['account_id', 'month']).doUpdateSet({ count: 2_000 }))
          .execute();
        const refused = await api.request('POST', '/v1/screen', { key, body: { query: freshQuery() } });
        expect(refused.status).toBe(402);
        await api.runtime.webhookDelivery.settle();
        expect(receiver.received).toHaveLength(1);
        const events = await api.runtime.ctx.db
          .selectFrom('webhook_events')
          .select('id')
          .where('account_id', '=', account.id)
          .execute();
        expect(events).toHaveLength(1);
      } finally {
        await receiver.close();
      }
    });

    it('delivers to a webhook registered after the account had screened without one', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const { key } = await api.createAccount('professional');
        await screen(api, key);
        const created = await api.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } });
        const result = await screen(api, key);
        await receiver.waitFor(1);
        expect(JSON.parse(receiver.received[0]!.body.toString()).screening_id).toBe(result.id);
        await api.request('DELETE', `/v1/webhooks/${created.body.id}`, { key });
        await screen(api, key);
        await api.runtime.webhookDelivery.settle();
        expect(receiver.received).toHaveLength(1);
      } finally {
        await receiver.close();
      }
    });

    it('cuts an attempt to a receiver that never answers at 10 s, and schedules its retry', async () => {
      const receiver = await WebhookReceiver.start('hang');
      try {
        const { key, webhook } = await setUp(api, receiver);
        await screen(api, key);
        await receiver.waitFor(1);
        await api.runtime.webhookDelivery.settle();
        const [attempt] = (await api.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { key })).body
          .data;
        expect(attempt).toMatchObject({
          attempt: 1,
          status_code: null,
          error: 'no answer within 10 s',
        });
        expect(attempt.duration_ms).toBeGreaterThanOrEqual(9_900);
        expect(attempt.duration_ms).toBeLessThan(20_000);
        expect(attempt.delivery_status).toBe('pending');
        expect(Date.parse(attempt.next_retry_at) - Date.parse(attempt.attempted_at)).toBeGreaterThanOrEqual(
          MINUTE,
        );
      } finally {
        await receiver.close();
      }
    }, 40_000);

    it("sends another account's delivery at once while one account's receivers hang, holding its share of the slots only", async () => {
      const hanging = await WebhookReceiver.start('hang');
      const prompt = await WebhookReceiver.start();
      const slow = await api.createAccount('professional');
      const slowWebhooks: string[] = [];
      try {
        for (let i = 0; i < 10; i++) {
          const created = await api.request('POST', '/v1/webhooks', {
            key: slow.key,
            body: { url: `${hanging.url}/${i}` },
          });
          slowWebhooks.push(created.body.id);
        }
        const other = await setUp(api, prompt);
        // More of the slow account's deliveries than every slot, all due before the other account's.
        const screenings = Math.ceil((2 * DELIVERY_CONCURRENCY) / slowWebhooks.length);
        for (let i = 0; i < screenings; i++) await screen(api, slow.key);
        await hanging.waitFor(DELIVERY_CONCURRENCY_PER_ACCOUNT, 60_000);
        await screen(api, other.key);
        await prompt.waitFor(1, 60_000);
        // It came while every attempt of the slow account still hung (they end at the 10 s timeout):
        // none is recorded yet, and no more than its share were made.
        for (const id of slowWebhooks) {
          const log = await api.request('GET', `/v1/webhooks/${id}/deliveries`, { key: slow.key });
          expect(log.body.data).toEqual([]);
        }
        expect(hanging.received).toHaveLength(DELIVERY_CONCURRENCY_PER_ACCOUNT);
      } finally {
        // Their pending deliveries are cancelled, so nothing of theirs is retried during later tests.
        for (const id of slowWebhooks) await api.request('DELETE', `/v1/webhooks/${id}`, { key: slow.key });
        await Promise.all([hanging.close(), prompt.close()]);
        await api.runtime.webhookDelivery.settle();
      }
    }, 120_000);

    it('purges old delivery history with its deliveries and attempts, keeping what is still pending', async () => {
      const [ok, failing] = await Promise.all([
        WebhookReceiver.start(),
        WebhookReceiver.start({ status: 503 }),
      ]);
      try {
        const delivered = await setUp(api, ok);
        const pending = await setUp(api, failing);
        const done = await screen(api, delivered.key);
        const waiting = await screen(api, pending.key);
        await api.runtime.webhookDelivery.settle();
        const { db } = api.runtime.ctx;
        const rowsOf = async (screeningId: string) => {
          const { rows } = await sql<{ events: string; deliveries: string; attempts: string }>`
            SELECT (SELECT count(*) FROM webhook_events WHERE subject_id = ${screeningId}) AS events,
              (SELECT count(*) FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
                WHERE e.subject_id = ${screeningId}) AS deliveries,
              (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                JOIN webhook_events e ON e.id = d.event_id WHERE e.subject_id = ${screeningId}) AS attempts`.execute(
            db,
          );
          return rows[0]!;
        };
        expect(await rowsOf(done.id)).toEqual({ events: '1', deliveries: '1', attempts: '1' });
        // Everything so far counts as old: a cutoff a minute ahead.
        await purgeDeliveryHistory(db, new Date(Date.now() + MINUTE), 100);
        expect(await rowsOf(done.id)).toEqual({ events: '0', deliveries: '0', attempts: '0' });
        const { rows } =
          await sql`SELECT 1 FROM webhook_deliveries WHERE id NOT IN (SELECT d.id FROM webhook_deliveries d
          JOIN webhook_events e ON e.id = d.event_id)`.execute(db);
        expect(rows, 'no delivery is left without its event').toHaveLength(0);
        const kept = await rowsOf(waiting.id);
        expect(kept.events).toBe('1');
        expect(kept.deliveries).toBe('1');
      } finally {
        await Promise.all([ok.close(), failing.close()]);
      }
    });
  });

  describe('on a fake clock', () => {
    const clock = new FakeClock(new Date());
    let api: TestApp;
    beforeAll(async () => {
      api = await startApp(backend, { clock });
    }, 120_000);
    afterAll(async () => api?.close());

    const settle = () => api.runtime.webhookDelivery.settle();
    const attempts = async (key: string, id: string) =>
      (await api.request('GET', `/v1/webhooks/${id}/deliveries`, { key })).body.data as any[];
    const webhookState = async (key: string, id: string) =>
      (await api.request('GET', `/v1/webhooks/${id}`, { key })).body;

    it('retries at 1, 5, 15, 60 and 1,440 minutes after each failure, then marks the delivery failed', async () => {
      const receiver = await WebhookReceiver.start({ status: 500, body: 'try later' });
      try {
        const { key, webhook } = await setUp(api, receiver);
        await screen(api, key);
        await settle();
        expect(receiver.received).toHaveLength(1);
        const deliveryId = receiver.received[0]!.headers['webhook-id'];

        for (const [index, minutes] of [1, 5, 15, 60, 1_440].entries()) {
          const failed = index + 1;
          const [last] = await attempts(key, webhook.id);
          expect(last).toMatchObject({ attempt: failed, status_code: 500, error: 'HTTP 500: try later' });
          const due = Date.parse(last.next_retry_at);
          const delay = due - Date.parse(last.attempted_at);
          expect(delay).toBeGreaterThanOrEqual(minutes * MINUTE);
          expect(delay).toBeLessThan(minutes * MINUTE + maxRetryJitterMs(failed));

          clock.set(new Date(due - 1));
          await settle();
          expect(receiver.received, `no retry before ${minutes} min`).toHaveLength(failed);
          clock.set(new Date(due));
          await settle();
          expect(receiver.received, `the retry at ${minutes} min`).toHaveLength(failed + 1);
          const retry = receiver.received[failed]!;
          expect(retry.headers['webhook-id']).toBe(deliveryId);
          expect(Number(retry.headers['webhook-timestamp'])).toBe(Math.floor(due / 1000));
          expect(serviceSignatureHolds(retry, webhook.secret)).toBe(true);
        }

        const [last] = await attempts(key, webhook.id);
        expect(last).toMatchObject({ attempt: 6, next_retry_at: null, delivery_status: 'failed' });
        clock.advance(3 * 24 * 60 * MINUTE);
        await settle();
        expect(receiver.received).toHaveLength(6);
      } finally {
        await receiver.close();
      }
    });

    it('degrades a webhook after 5 failed attempts in a row, keeps sending to it, and restores it on success', async () => {
      const receiver = await WebhookReceiver.start({ status: 503 });
      try {
        const { key, webhook } = await setUp(api, receiver);
        for (let i = 1; i <= 5; i++) {
          await screen(api, key);
          await settle();
          expect(await webhookState(key, webhook.id)).toMatchObject({
            consecutive_failures: i,
            status: i < 5 ? 'active' : 'degraded',
          });
        }
        receiver.behaviour = { status: 200 };
        await screen(api, key);
        await settle();
        expect(receiver.received).toHaveLength(6);
        expect(await webhookState(key, webhook.id)).toMatchObject({
          consecutive_failures: 0,
          status: 'active',
        });
        // The five failed deliveries are still due for their retries, which now succeed.
        clock.advance(2 * MINUTE);
        await settle();
        expect(receiver.received).toHaveLength(11);
        const log = await attempts(key, webhook.id);
        expect(log.filter((a) => a.delivery_status === 'delivered')).toHaveLength(log.length);
      } finally {
        await receiver.close();
      }
    });

    it('counts a redirect as a failure and does not follow it', async () => {
      const target = await WebhookReceiver.start();
      const redirecting = await WebhookReceiver.start({ status: 307, headers: { location: target.url } });
      try {
        const { key, webhook } = await setUp(api, redirecting);
        await screen(api, key);
        await settle();
        expect(redirecting.received).toHaveLength(1);
        expect(target.received).toHaveLength(0);
        const [attempt] = await attempts(key, webhook.id);
        expect(attempt).toMatchObject({
          status_code: 307,
          error: 'redirect (307) not followed',
          delivery_status: 'pending',
        });
        expect(await webhookState(key, webhook.id)).toMatchObject({ consecutive_failures: 1 });
      } finally {
        await Promise.all([target.close(), redirecting.close()]);
      }
    });

    it('cancels the pending deliveries of a deleted webhook', async () => {
      const receiver = await WebhookReceiver.start({ status: 500 });
      try {
        const { key, webhook } = await setUp(api, receiver);
        await screen(api, key);
        await settle();
        expect(receiver.received).toHaveLength(1);
        expect((await api.request('DELETE', `/v1/webhooks/${webhook.id}`, { key })).status).toBe(204);
        // A screening after the deletion queues nothing for it either.
        await screen(api, key);
        receiver.behaviour = { status: 200 };
        clock.advance(2 * 24 * 60 * MINUTE);
        await settle();
        expect(receiver.received).toHaveLength(1);
        const deliveries = await api.runtime.ctx.db
          .selectFrom('webhook_deliveries')
          .select(['status', 'attempts'])
          .where('webhook_id', '=', webhook.id)
          .execute();
        expect(deliveries).toEqual([{ status: 'cancelled', attempts: 1 }]);
      } finally {
        await receiver.close();
      }
    });
  });

  it('loses nothing across a restart between a failure and its retry', async () => {
    const clock = new FakeClock(new Date());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-webhooks-restart-'));
    const persistent = { clock, dataDir, inMemoryDatabase: false };
    const receiver = await WebhookReceiver.start({ status: 500 });
    let api = await startApp(backend, persistent);
    try {
      const { key, webhook } = await setUp(api, receiver);
      await screen(api, key);
      await api.runtime.webhookDelivery.settle();
      expect(receiver.received).toHaveLength(1);
      const [failed] = (await api.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { key })).body.data;
      await api.close();

      // The retry falls due while the service is down; it goes out when the service is back.
      clock.set(new Date(Date.parse(failed.next_retry_at) + 10 * MINUTE));
      receiver.behaviour = { status: 200 };
      api = await startApp(backend, persistent);
      await receiver.waitFor(2);
      await api.runtime.webhookDelivery.settle();
      const retry = receiver.received[1]!;
      expect(retry.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      expect(retry.body.equals(receiver.received[0]!.body)).toBe(true);
      expect(serviceSignatureHolds(retry, webhook.secret)).toBe(true);
      const [delivered] = (await api.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { key })).body
        .data;
      expect(delivered).toMatchObject({ attempt: 2, status_code: 200, delivery_status: 'delivered' });
      expect(receiver.received).toHaveLength(2);
    } finally {
      await api.close();
      await receiver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
