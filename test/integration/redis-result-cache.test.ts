import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerBytes, looksLikeStoredResult } from '../../src/screening/screening-result.js';
import { connectRedis, waitUntilReady } from '../../src/store/redis.js';
import { RedisResultCache } from '../../src/store/result-cache.js';
import { describeWithSharedBackends } from '../support/backends.js';

describeWithSharedBackends('the Redis result cache', (backend) => {
  const redis = connectRedis(backend.redisUrl!, () => {});
  const prefix = `test:${randomUUID()}:`;
  const cache = new RedisResultCache(redis, prefix);

  beforeAll(async () => {
    expect(await waitUntilReady(redis, 5_000)).toBe(true);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('gives back exactly the bytes it was given, in every script', async () => {
    const json = JSON.stringify({ entity: 'صدام حسين 金正恩 Ким Чен Ын 🛳️ Jose\u0301', duration_ms: 2.5 });
    const bytes = Buffer.from(json, 'utf8');
    await cache.set('every-script', bytes, 60_000);
    const back = await cache.get('every-script');
    expect(back?.equals(bytes)).toBe(true);
    expect(await cache.get('never-cached')).toBeUndefined();
  });

  it('answers a result an earlier version cached as text, as a hit with the same content', async () => {
    // Earlier versions set the JSON as a string: Redis holds its UTF-8 bytes, as it does now.
    const result = { id: randomUUID(), entity: 'Ṣaddām Ḥusayn', flags: [], duration_ms: 41.5 };
    await redis.set(`${prefix}earlier`, JSON.stringify(result), 'PX', 60_000);
    const back = await cache.get('earlier');
    expect(back && looksLikeStoredResult(back)).toBe(true);
    expect(JSON.parse(answerBytes(back!, true, 3).toString('utf8'))).toEqual({
      ...result,
      cache_hit: true,
      duration_ms: 3,
    });
  });
});
