import { afterAll, beforeAll, expect, it } from 'vitest';
import { SIGN_IN_FAILURES_MAX } from '../../src/accounts/dashboard-sessions.js';
import { describeWithSharedBackends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { hasExecutable, OwnRedis } from '../support/fault-tools.js';
import { TestApp } from '../support/test-app.js';

/** Polls until `check` holds or `withinMs` passes; returns how long it took. */
async function timeUntil(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`condition not reached within ${withinMs} ms`);
}

/**
 * Guesses a user's password many times at once, alternately through each instance; returns how many
 * guesses had their password checked (answered 401 rather than refused with 429).
 */
async function passwordsCheckedInBurst(instances: TestApp[], guesses: number): Promise<number> {
  const user = await accountWithUser(instances[0]!);
  const statuses = await Promise.all(
    Array.from({ length: guesses }, async (_, i) => {
      const browser = new DashboardClient(instances[i % instances.length]!.baseUrl);
      return (await browser.signIn(user.email, `wrong password ${i}`)).status;
    }),
  );
  expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  return statuses.filter((status) => status === 401).length;
}

// Two instances of the service sharing one PostgreSQL database and one Redis, as behind a load balancer.
describeWithSharedBackends('two instances sharing one database and Redis', (backend) => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    [first, second] = await Promise.all([TestApp.start(backend), TestApp.start(backend)]);
  });
  afterAll(async () => Promise.all([first?.close(), second?.close()]));

  it('refuses on the second instance, within one second, a key revoked through the first', async () => {
    const { key, keyId } = await first.createAccount();
    // Both instances have the key cached as active before the revocation.
    expect((await second.request('GET', '/v1/usage', { key })).status).toBe(200);
    expect((await first.request('GET', '/v1/usage', { key })).status).toBe(200);
    expect((await first.request('DELETE', `/v1/keys/${keyId}`, { key })).status).toBe(204);
    const took = await timeUntil(
      async () => (await second.request('GET', '/v1/usage', { key })).status === 403,
      1_000,
    );
    expect(took).toBeLessThan(1_000);
  });

  it('refuses on every instance the keys of an account suspended through one of them', async () => {
    const { key, account } = await first.createAccount();
    expect((await second.request('GET', '/v1/usage', { key })).status).toBe(200);
    await first.admin('PATCH', `/admin/v1/accounts/${account.id}`, { status: 'suspended' });
    await timeUntil(async () => (await second.request('GET', '/v1/usage', { key })).status === 403, 1_000);
  });

  it('holds the rate limit across instances: the 101st request of a minute is refused wherever it lands', async () => {
    const { key } = await first.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++)
      statuses.push((await (i % 2 ? first : second).request('GET', '/v1/usage', { key })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await first.request('GET', '/v1/usage', { key })).status).toBe(429);
    expect((await second.request('GET', '/v1/usage', { key })).status).toBe(429);
  });

  it('checks at most 5 passwords of an email from an address, however the guesses are spread over instances', async () => {
    expect(await passwordsCheckedInBurst([first, second], 20)).toBe(SIGN_IN_FAILURES_MAX);
  });

  it('shows a screening counted on one instance in the usage read on the other within a second', async () => {
    const { key, keyId, account } = await first.createAccount();
    expect((await second.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(0);
    await first.runtime.ctx.usage.count({ accountId: account.id, keyId, plan: account.plan });
    const took = await timeUntil(
      async () => (await second.request('GET', '/v1/usage', { key })).body.current_month.count === 1,
      2_000,
    );
    // One second of cache lifetime, plus the time the polling requests themselves take under load.
    expect(took).toBeLessThanOrEqual(1_500);
  });

  it('keeps one audit chain per account when both instances write to it', async () => {
    const { key, account } = await first.createAccount();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).request('GET', '/v1/usage', { key })),
    );
    await Promise.all([first.runtime.ctx.audit.flush(), second.runtime.ctx.audit.flush()]);
    const result = await first.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    // The account's and its first key's creations, then the 20 requests.
    expect(result.body).toMatchObject({ ok: true, rows_checked: 22 });
  });
});

describeWithSharedBackends('two instances sharing PostgreSQL without Redis', (backend) => {
  it('refuses a revoked key on the other instance within one second (no broadcast to rely on)', async () => {
    const withoutRedis = { ...backend, redisUrl: undefined };
    const [first, second] = await Promise.all([TestApp.start(withoutRedis), TestApp.start(withoutRedis)]);
    try {
      const { key, keyId } = await first.createAccount();
      expect((await second.request('GET', '/v1/usage', { key })).status).toBe(200);
      expect((await first.request('DELETE', `/v1/keys/${keyId}`, { key })).status).toBe(204);
      const took = await timeUntil(
        async () => (await second.request('GET', '/v1/usage', { key })).status === 403,
        2_000,
      );
      // One second of cache lifetime, plus the time the polling requests themselves take under load.
      expect(took).toBeLessThanOrEqual(1_500);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('checks at most 5 passwords of an email from an address across instances, counting in the database', async () => {
    const withoutRedis = { ...backend, redisUrl: undefined };
    const [first, second] = await Promise.all([TestApp.start(withoutRedis), TestApp.start(withoutRedis)]);
    try {
      expect(await passwordsCheckedInBurst([first, second], 20)).toBe(SIGN_IN_FAILURES_MAX);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

// Sign-in counts are the database's, also with Redis: a count Redis held fell back to each
// instance's memory when Redis failed (10 passwords checked over two instances, not 5), and a Redis
// restart erased every lockout. Each test runs a redis-server of its own, which it stops.
describeWithSharedBackends('two instances sharing PostgreSQL and a Redis that fails', (backend) => {
  if (!hasExecutable('redis-server')) {
    it.skip('needs redis-server on the PATH to run a Redis of its own', () => {});
    return;
  }
  let redis: OwnRedis;
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    redis = await OwnRedis.start();
    const withOwnRedis = { ...backend, redisUrl: redis.url };
    [first, second] = await Promise.all([TestApp.start(withOwnRedis), TestApp.start(withOwnRedis)]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await redis?.stop();
  });

  it('keeps a lockout through a Redis restart', async () => {
    const user = await accountWithUser(first);
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) {
      const browser = new DashboardClient((i % 2 ? first : second).baseUrl);
      expect((await browser.signIn(user.email, `wrong password ${i}`)).status).toBe(401);
    }
    await redis.stop();
    await redis.startAgain();
    for (const instance of [first, second]) {
      expect((await new DashboardClient(instance.baseUrl).signIn(user.email, user.password)).status).toBe(
        429,
      );
    }
  });

  it('checks at most 5 passwords of an email from an address over both instances while Redis is down', async () => {
    await redis.stop();
    try {
      expect(await passwordsCheckedInBurst([first, second], 16)).toBe(SIGN_IN_FAILURES_MAX);
    } finally {
      await redis.startAgain();
    }
  });
});
