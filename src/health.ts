import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import { millisecondsSince } from './clock.js';
import type { ListPublication } from './sources/lists/list-status.js';
import type { Db } from './store/database.js';

export type ComponentState = 'up' | 'down';

export interface HealthReport {
  status: 'ok' | 'degraded' | 'down';
  database: ComponentState;
  cache: ComponentState;
  sources: Record<string, 'up' | 'slow' | 'down'>;
  /** Per enabled list: its state, publication date and age. */
  lists: Record<string, ListPublication>;
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

/** What health reads of the lists: per enabled list `up`, `slow` (stale) or `down` (not loaded). */
export interface SourcesHealth {
  health(): Record<string, 'up' | 'slow' | 'down'>;
  /** The lists' states and publication dates (none without lists). */
  publications?(): Record<string, ListPublication>;
}

/**
 * Pings the database and the cache, and reads the state of the sources. The database is required
 * (down → 503); a cache that is down, or a source that is stale or not loaded, only degrades the
 * service, because screenings go on without it (reporting that source as failed).
 */
export async function checkHealth(
  db: Db,
  redis: Redis | undefined,
  sources?: SourcesHealth,
): Promise<HealthReport> {
  const started = performance.now();
  const [database, cache] = await Promise.all([
    probe(() => sql`SELECT 1`.execute(db)),
    redis ? probe(() => redis.ping()) : Promise.resolve<ComponentState>('up'),
  ]);
  const sourceStates = sources?.health() ?? {};
  const states = Object.values(sourceStates);
  const sourceDegraded = states.some((state) => state !== 'up');
  // With sources configured but every one of them down, nothing can be screened: the service is
  // down. A stale list (slow) still answers, so it only degrades the service. An instance with no
  // source configured at all is judged on its database and cache.
  const noSourceUp = states.length > 0 && states.every((state) => state === 'down');
  const status =
    database === 'down' || noSourceUp ? 'down' : cache === 'down' || sourceDegraded ? 'degraded' : 'ok';
  return {
    status,
    database,
    cache,
    sources: sourceStates,
    lists: sources?.publications?.() ?? {},
    latency_ms: millisecondsSince(started),
  };
}
