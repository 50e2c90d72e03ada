import { Redis } from 'ioredis';

/** How long a Redis command may wait before the caller falls back (cache miss, local rate limit). */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** Reconnection back-off ceiling: Redis coming back is noticed within this time. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * A Redis connection that never holds requests hostage: commands fail fast while it is down
 * (no offline queue), and it keeps reconnecting in the background.
 */
export function connectRedis(url: string, onError: (error: Error) => void): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, REDIS_MAX_RECONNECT_DELAY_MS),
  });
  redis.on('error', onError);
  return redis;
}

/** Waits until the connection is ready, or gives up after `timeoutMs` (the service starts anyway). */
export async function waitUntilReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
