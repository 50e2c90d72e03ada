import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from './store/database.js';

export type ComponentState = 'up' | 'down';

export interface HealthReport {
  status: 'ok' | 'degraded' | 'down';
  database: ComponentState;
  cache: ComponentState;
  sources: Record<string, 'up' | 'slow' | 'down'>;
  latency_ms: number;
}

/** No health probe may hold the endpoint longer than this. */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000;

async function probe(check: () => Promise<unknown>): Promise<ComponentState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), HEALTH_CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Pings the database and the cache. The database is required (down → 503); a cache that is down
 * only degrades the service, because screenings go on without it.
 */
export async function checkHealth(db: Db, redis: Redis | undefined): Promise<HealthReport> {
  const started = performance.now();
  const [database, cache] = await Promise.all([
    probe(() => sql`SELECT 1`.execute(db)),
    redis ? probe(() => redis.ping()) : Promise.resolve<ComponentState>('up'),
  ]);
  const status = database === 'down' ? 'down' : cache === 'down' ? 'degraded' : 'ok';
  return {
    status,
    database,
    cache,
    sources: {},
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
  };
}
