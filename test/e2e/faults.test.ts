import { afterEach, expect, it } from 'vitest';
import { describeWithSharedBackends } from '../support/backends.js';
import {
  type Answer,
  call,
  FAULT_ADMIN_TOKEN,
  hasExecutable,
  OwnRedis,
  randomSecretKey,
  type ServiceUnderFault,
  screeningLoad,
  sqlClient,
  startServiceProcess,
  TcpProxy,
  unlimitDefaultAccount,
  waitUntil,
} from '../support/fault-tools.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

// Faults in real processes on 127.0.0.1: the service runs as `npm start` runs it, on PostgreSQL
// (a schema of each test's own) and Redis, and the test breaks what it depends on under load.
// (A provider that hangs is covered by the provider suites, see test/support/provider-tests.ts,
// and test/integration/screening-contract.test.ts: "answers on time and correctly when one
// provider throws and one hangs".)

/** Everything a test started, stopped in reverse order even when the test fails. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function statusesOf(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

const withRedisServer = hasExecutable('redis-server');

describeWithSharedBackends('the service when Redis stops and comes back', (shared) => {
  if (!withRedisServer) {
    it.skip('needs redis-server on the PATH to run a Redis of its own', () => {});
    return;
  }

  it('keeps answering screenings with the cache down, reports degraded, limits rates per instance, and recovers', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    cleanups.push(drop);
    const redis = await OwnRedis.start();
    cleanups.push(() => redis.stop());
    const service = await startServiceProcess({ DATABASE_URL: backend.databaseUrl!, REDIS_URL: redis.url });
    cleanups.push(() => service.kill());
    await unlimitDefaultAccount(service);
    const health = () => call(service.url, '', 'GET', '/v1/health');
    expect((await health()).body).toMatchObject({ status: 'ok', cache: 'up' });
    // An account with a small rate limit, to see the limit hold while Redis is away.
    const limited = await call(service.url, FAULT_ADMIN_TOKEN, 'POST', '/admin/v1/accounts', {
      name: 'limited',
      plan: 'enterprise',
    });
    const patched = await call(
      service.url,
      FAULT_ADMIN_TOKEN,
      'PATCH',
      `/admin/v1/accounts/${limited.body.account.id}`,
      { rate_limit_per_minute: 5 },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // Counted in Redis while it is up.
    expect((await call(service.url, limited.body.key.key, 'GET', '/v1/usage')).status).toBe(200);

    const load = screeningLoad(service, 4);
    cleanups.push(() => load.stop());
    await waitUntil(async () => load.answers.length >= 20, 15_000);
    await redis.stop();
    const stoppedAt = Date.now();
    await waitUntil(async () => (await health()).body.cache === 'down', 5_000);
    expect((await health()).body).toMatchObject({ status: 'degraded', database: 'up', cache: 'down' });
    expect((await health()).status).toBe(200);
    // Rate limits go on, counted by this instance alone (from zero: Redis's count is out of reach).
    const usage = [];
    for (let i = 0; i < 6; i++)
      usage.push((await call(service.url, limited.body.key.key, 'GET', '/v1/usage')).status);
    expect(usage).toEqual([200, 200, 200, 200, 200, 429]);
    // Screenings go on without the cache: a repeat is screened again.
    const body = { query: 'Repeated While Redis Is Down' };
    expect((await call(service.url, service.key, 'POST', '/v1/screen', body)).status).toBe(200);
    const repeat = await call(service.url, service.key, 'POST', '/v1/screen', body);
    expect(repeat).toMatchObject({ status: 200, body: { cache_hit: false } });
    await waitUntil(async () => load.answers.filter((a) => a.at > stoppedAt + 2_000).length >= 20, 15_000);

    await redis.startAgain();
    const recovered = await waitUntil(async () => (await health()).body.status === 'ok', 10_000);
    const cachedBody = { query: 'Cached Once Redis Is Back' };
    await call(service.url, service.key, 'POST', '/v1/screen', cachedBody);
    const cached = await call(service.url, service.key, 'POST', '/v1/screen', cachedBody);
    expect(cached.body.cache_hit).toBe(true);
    const answers = await load.stop();
    const during = answers.filter((a) => a.at > stoppedAt);
    expect(during.length).toBeGreaterThan(20);
    expect(statusesOf(answers)).toEqual({ 200: answers.length });
    console.info(
      `Redis fault: ${answers.length} screenings, all 200 (${during.length} after Redis stopped); health ok again ${recovered} ms after Redis restarted`,
    );
  }, 120_000);
});

describeWithSharedBackends('the service when PostgreSQL restarts', (shared) => {
  it('answers 503 problems in the gap, recovers by itself, and loses no screening it answered 200', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    cleanups.push(drop);
    // The machine's PostgreSQL serves other tests: the service reaches it through a proxy that
    // the test cuts (every connection dropped, new ones refused) and restores, as a restart looks.
    const target = new URL(backend.databaseUrl!);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    cleanups.push(() => proxy.cut());
    const viaProxy = new URL(target);
    viaProxy.port = String(proxy.port);
    const service = await startServiceProcess({
      DATABASE_URL: viaProxy.toString(),
      REDIS_URL: backend.redisUrl!,
    });
    cleanups.push(() => service.kill());
    await unlimitDefaultAccount(service);

    const load = screeningLoad(service, 4);
    cleanups.push(() => load.stop());
    await waitUntil(async () => load.answers.length >= 20, 15_000);
    await proxy.cut();
    const cutAt = Date.now();
    const health = await call(service.url, '', 'GET', '/v1/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'down', database: 'down' });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await proxy.restore();
    const restoredAt = Date.now();
    // Recovered: ten answers in a row are 200 again.
    const recovered = await waitUntil(async () => {
      const last = load.answers.filter((a) => a.at > restoredAt).slice(-10);
      return last.length === 10 && last.every((a) => a.status === 200);
    }, 20_000);
    const answers = await load.stop();

    const gap = answers.filter((a) => a.at > cutAt && a.at <= restoredAt);
    expect(gap.some((a) => a.status === 503)).toBe(true);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.status).toBe(503);
      expect(answer.contentType).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ status: 503, type: expect.stringMatching(/^\/problems\//) });
    }
    const answered = answers.filter((a) => a.status === 200).map((a) => a.body.id as string);
    const client = await sqlClient(backend.databaseUrl!);
    try {
      const stored = await client.query<{ id: string }>(
        'SELECT id FROM screenings WHERE id = ANY($1::uuid[])',
        [answered],
      );
      expect(stored.rows.map((r) => r.id).sort()).toEqual([...answered].sort());
    } finally {
      await client.end();
    }
    // And through the API, a sample of them.
    for (const id of answered.filter((_, i) => i % 10 === 0)) {
      expect((await call(service.url, service.key, 'GET', `/v1/screen/${id}`)).status).toBe(200);
    }
    console.info(
      `PostgreSQL fault: ${JSON.stringify(statusesOf(answers))}, ${answered.length} answered 200 all stored; 10 answers in a row 200 again ${recovered} ms after the database came back`,
    );
  }, 120_000);
});

describeWithSharedBackends('webhook retries when an instance is killed', (shared) => {
  it('delivers each event exactly once from another instance after the one retrying them was killed with SIGKILL', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    cleanups.push(drop);
    const receiver = await WebhookReceiver.start({ status: 503 });
    cleanups.push(() => receiver.close());
    const env = {
      DATABASE_URL: backend.databaseUrl!,
      REDIS_URL: backend.redisUrl!,
      SECRET_KEY: randomSecretKey(),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    };
    const db = await sqlClient(backend.databaseUrl!);
    cleanups.push(() => db.end());
    const first: ServiceUnderFault = await startServiceProcess(env);
    cleanups.push(() => first.kill());
    const webhook = await call(first.url, first.key, 'POST', '/v1/webhooks', { url: receiver.url });
    expect(webhook.status).toBe(201);
    const events = 5;
    for (let i = 0; i < events; i++) {
      const screened = await call(first.url, first.key, 'POST', '/v1/screen', {
        query: `Retried Company ${i}`,
      });
      expect(screened.status).toBe(200);
    }
    // First attempts fail (503); the retries are scheduled a minute later.
    await receiver.waitFor(events, 15_000);
    const pending = async () =>
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM webhook_deliveries d
            WHERE webhook_id = $1 AND status = 'pending' AND claim_token IS NULL
              AND EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id)`,
          [webhook.body.id],
        )
      ).rows[0]!.n;
    await waitUntil(async () => Number(await pending()) === events, 10_000);

    // The retries fall due now (as a minute later); the first instance claims them and sends them
    // to a receiver that never answers: they are in flight when the instance is killed.
    receiver.behaviour = 'hang';
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE webhook_id = $1`, [
      webhook.body.id,
    ]);
    await receiver.waitFor(2 * events, 10_000);
    await first.kill();
    receiver.behaviour = { status: 200 };
    const answeredFrom = receiver.received.length;

    const second = await startServiceProcess(env);
    cleanups.push(() => second.kill());
    // The killed instance's claims hold for DELIVERY_CLAIM_LEASE_MS (5 minutes); the test ends
    // them now, as if that time had passed, instead of waiting.
    const claimed = await db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now()
        WHERE webhook_id = $1 AND status = 'pending' AND claim_token IS NOT NULL`,
      [webhook.body.id],
    );
    expect(claimed.rowCount).toBe(events);
    await waitUntil(
      async () =>
        (
          await db.query(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [
            webhook.body.id,
          ])
        ).rowCount === events,
      20_000,
    );
    // A moment more: a second delivery of any event would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const delivered = receiver.received.slice(answeredFrom);
    const ids = delivered.map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(events);
    expect(new Set(ids).size).toBe(events);
    const eventIds = (
      await db.query<{ id: string }>(`SELECT event_id AS id FROM webhook_deliveries WHERE webhook_id = $1`, [
        webhook.body.id,
      ])
    ).rows.map((r) => r.id);
    expect(new Set(eventIds).size).toBe(events);
    // The same event ids as the failed first attempts: retries of those events, not new ones.
    const firstIds = receiver.received.slice(0, events).map((r) => String(r.headers['webhook-id']));
    expect([...ids].sort()).toEqual([...firstIds].sort());
  }, 120_000);
});
