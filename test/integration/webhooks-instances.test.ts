import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claimDueDeliveries } from '../../src/webhooks/delivery-queue.js';
import { DeliveryShares } from '../../src/webhooks/delivery-shares.js';
import { describeWithSharedBackends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

// Two instances sharing one PostgreSQL database (a schema of their own) and one SECRET_KEY, as
// behind a load balancer: both run a delivery worker over the same outbox.
describeWithSharedBackends('webhook delivery by two instances', (shared) => {
  let first: TestApp;
  let second: TestApp;
  let drop: () => Promise<void>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const isolated = await isolatedBackend(shared);
    drop = isolated.drop;
    const env = {
      LISTS_DIR,
      LISTS_ENABLED: 'un_sc',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      SECRET_KEY: randomBytes(32).toString('hex'),
    };
    // The second starts once the first has stored the list, so it loads that version at start.
    first = await TestApp.start(isolated.backend, { env });
    await first.runtime.ctx.lists.settled();
    second = await TestApp.start(isolated.backend, { env });
    await second.runtime.ctx.lists.settled();
    for (const instance of [first, second]) {
      const [un] = (await instance.admin('GET', '/admin/v1/lists')).body.data;
      expect(un, 'the UN list is loaded on both instances').toMatchObject({
        id: 'un_sc',
        state: expect.not.stringMatching(/missing/),
      });
    }
    // A slow receiver keeps attempts in flight long enough for both workers to be claiming at once.
    receiver = await WebhookReceiver.start({ status: 200, delayMs: 50 });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await receiver?.close();
    await drop?.();
  });

  it('attempts each delivery exactly once although both workers claim from the same outbox', async () => {
    const { key } = await first.createAccount('enterprise');
    const created = await first.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } });
    expect(created.status).toBe(201);
    const screenings = 40;
    const answers = await Promise.all(
      Array.from({ length: screenings }, (_, i) =>
        (i % 2 ? first : second).request('POST', '/v1/screen', {
          key,
          body: { query: `Two Instances Company ${i} ${randomBytes(3).toString('hex')}` },
        }),
      ),
    );
    expect(
      answers.map((a) => a.status),
      JSON.stringify(answers.find((a) => a.status !== 200)?.body),
    ).toEqual(Array(screenings).fill(200));
    await receiver.waitFor(screenings, 30_000);
    await Promise.all([first.runtime.webhookDelivery.settle(), second.runtime.webhookDelivery.settle()]);

    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(screenings);
    expect(new Set(ids).size).toBe(screenings);
    const screened = new Set(answers.map((a) => a.body.id));
    const delivered = new Set(receiver.received.map((r) => JSON.parse(r.body.toString()).screening_id));
    expect(delivered).toEqual(screened);
    const rows = await first.runtime.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('webhook_id', '=', created.body.id)
      .execute();
    expect(rows).toHaveLength(screenings);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
    const attempts = await first.runtime.ctx.db
      .selectFrom('webhook_attempts')
      .select('id')
      .where('webhook_id', '=', created.body.id)
      .execute();
    expect(attempts).toHaveLength(screenings);
  }, 60_000);

  it('never hands one due delivery to two claimers, however many claim at once', async () => {
    const { account } = await first.createAccount('enterprise');
    const db = first.runtime.ctx.db;
    // The rows fall due an hour from now: the instances' own workers (on the system clock) leave
    // them alone, and the claimers below claim as of two hours from now.
    const now = new Date(Date.now() + 2 * 60 * 60_000);
    const webhookId = crypto.randomUUID();
    await db
      .insertInto('webhooks')
      .values({
        id: webhookId,
        account_id: account.id,
        url: 'http://127.0.0.1:9/never',
        events: ['screening.complete'],
        secret_ciphertext: null,
        status: 'active',
        consecutive_failures: 0,
        created_at: now,
        deleted_at: null,
      })
      .execute();
    const eventId = crypto.randomUUID();
    await db
      .insertInto('webhook_events')
      .values({
        id: eventId,
        account_id: account.id,
        event: 'screening.complete',
        subject_id: null,
        payload: '{}',
        created_at: now,
      })
      .execute();
    const due = 200;
    await db
      .insertInto('webhook_deliveries')
      .values(
        Array.from({ length: due }, () => ({
          id: crypto.randomUUID(),
          event_id: eventId,
          webhook_id: webhookId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: new Date(now.getTime() - 60 * 60_000),
          created_at: now,
        })),
      )
      .execute();
    // 16 claimers at once, over both instances' connection pools, 20 rows each at most.
    const claims = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        claimDueDeliveries((i % 2 ? first : second).runtime.ctx.db, now, 20, new DeliveryShares()),
      ),
    );
    const mine = claims
      .flat()
      .filter((c) => c.webhookId === webhookId)
      .map((c) => c.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine).size).toBe(mine.length);
    // What was claimed is no longer due for anyone else until its lease ends: claiming what is
    // left (a webhook's share at a time) finds exactly the rest.
    const again: string[] = [];
    for (;;) {
      const claimed = await claimDueDeliveries(db, now, 1_000, new DeliveryShares());
      if (claimed.length === 0) break;
      again.push(...claimed.filter((c) => c.webhookId === webhookId).map((c) => c.id));
    }
    expect(again.filter((id) => mine.includes(id))).toEqual([]);
    expect(mine.length + again.length).toBe(due);
    await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', webhookId).execute();
  });
});
