import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { BROADCAST_SILENCE_MS, RedisBroadcast } from '../../src/store/broadcast.js';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/store/redis.js';
import { describeWithSharedBackends } from '../support/backends.js';
import { hasExecutable, OwnRedis, waitUntil } from '../support/fault-tools.js';
import { TestApp } from '../support/test-app.js';

// A Redis that hangs (SIGSTOP, or a partition without a reset) keeps every connection to it
// "ready": nothing fails, nothing arrives. Each test stops a redis-server of its own, never the
// shared one, and always lets it go on and ends it afterwards.

const withRedisServer = hasExecutable('redis-server');

/** Everything a test started, undone in reverse order even when the test fails. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A redis-server of the test's own that the test can freeze (SIGSTOP) and let go on (SIGCONT). */
async function freezableRedis(): Promise<{ url: string; freeze(): void; resume(): void }> {
  const redis = await OwnRedis.start();
  cleanups.push(() => redis.stop());
  const client = new Redis(redis.url);
  const pid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
  client.disconnect();
  if (!Number.isInteger(pid) || pid <= 0) throw new Error('redis-server did not tell its process id');
  let frozen = false;
  const resume = () => {
    if (frozen) process.kill(pid, 'SIGCONT');
    frozen = false;
  };
  // Registered after `stop`, so it runs before it: a stopped process is let go on, then killed.
  cleanups.push(async () => resume());
  return {
    url: redis.url,
    freeze: () => {
      process.kill(pid, 'SIGSTOP');
      frozen = true;
    },
    resume,
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('the revocation broadcast while Redis hangs', () => {
  if (!withRedisServer) {
    it.skip('needs redis-server on the PATH to run a Redis of its own', () => {});
    return;
  }

  it('stops confirming within a second of silence, and confirms again under a new epoch once Redis answers', async () => {
    const redis = await freezableRedis();
    const connection = new Redis(redis.url, { enableOfflineQueue: false, commandTimeout: 500 });
    connection.on('error', () => {});
    const broadcast = new RedisBroadcast(connection, 'hang-test:');
    cleanups.push(async () => {
      await broadcast.close();
      connection.disconnect();
    });
    await waitUntil(async () => broadcast.epoch() !== undefined, 5_000);
    const before = broadcast.epoch();

    redis.freeze();
    const silentAfter = await waitUntil(async () => broadcast.epoch() === undefined, 3_000);
    expect(silentAfter).toBeLessThanOrEqual(BROADCAST_SILENCE_MS + 500);

    redis.resume();
    await waitUntil(async () => broadcast.epoch() !== undefined, 5_000);
    // Entries cached under the old epoch are not confirmed any more: they may have missed a message.
    expect(broadcast.epoch()).not.toBe(before);
  });
});

describeWithSharedBackends('two instances while their Redis hangs', (backend) => {
  if (!withRedisServer) {
    it.skip('needs redis-server on the PATH to run a Redis of its own', () => {});
    return;
  }
  let redis: Awaited<ReturnType<typeof freezableRedis>>;
  let first: TestApp;
  let second: TestApp;

  // Each test gets its own Redis and instances: a frozen Redis must not outlive its test.
  async function startInstances(): Promise<void> {
    redis = await freezableRedis();
    [first, second] = await Promise.all([
      TestApp.start(backend, { redisUrl: redis.url }),
      TestApp.start(backend, { redisUrl: redis.url }),
    ]);
    // Closed before the Redis they use is let go on and stopped (cleanups run in reverse).
    cleanups.push(() => Promise.all([first.close(), second.close()]));
    // Both instances hear their broadcast before the test begins, so their caches are trusted.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  it('refuses on the other instance, within about a second, a key revoked while Redis hangs', async () => {
    await startInstances();
    const { key, keyId } = await first.createAccount();
    // The second instance has the key cached as active, with its broadcast link working.
    expect((await second.request('GET', '/v1/usage', { key })).status).toBe(200);

    redis.freeze();
    const revokedAt = performance.now();
    expect((await first.request('DELETE', `/v1/keys/${keyId}`, { key })).status).toBe(204);
    await waitUntil(async () => (await second.request('GET', '/v1/usage', { key })).status === 403, 5_000);
    const took = performance.now() - revokedAt;
    console.info(`revoked key refused by the other instance after ${Math.round(took)} ms`);
    // One second of silence before the cache is distrusted, plus the requests' own time (seconds
    // on a loaded machine); a trusted cache would have served the key for a minute.
    expect(took).toBeLessThanOrEqual(BROADCAST_SILENCE_MS + 2_000);
  });

  it('does not make each request wait for a hung Redis, and shares the rate count again once it answers', async () => {
    await startInstances();
    const { key } = await first.createAccount();
    expect((await second.request('GET', '/v1/usage', { key })).status).toBe(200);

    redis.freeze();
    // The first requests may each wait for a command to time out; after them the circuit is open.
    await new Promise((resolve) => setTimeout(resolve, 2 * REDIS_COMMAND_TIMEOUT_MS));
    const durations: number[] = [];
    for (let i = 0; i < 7; i++) {
      const { ms, value } = await timed(() => second.request('GET', '/v1/usage', { key }));
      expect(value.status).toBe(200);
      durations.push(ms);
    }
    console.info(`requests during the hang: ${durations.map(Math.round).join(', ')} ms`);
    // A request that waited for Redis would take at least the command timeout.
    expect(median(durations)).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS);

    redis.resume();
    // Back on Redis, the two instances count together: each request leaves one fewer to both.
    const remaining = async (app: TestApp) => {
      const header = (await app.request('GET', '/v1/usage', { key })).headers.get('ratelimit') ?? '';
      return Number(/r=(\d+)/.exec(header)?.[1]);
    };
    await waitUntil(async () => {
      const a = await remaining(first);
      const b = await remaining(second);
      return b === a - 1;
    }, 5_000);
  });
});
