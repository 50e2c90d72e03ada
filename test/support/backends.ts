import { describe, inject, it } from 'vitest';
import { workerPostgresUrl } from './worker-stores.js';

export interface Backend {
  name: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

/** Every integration suite runs on the embedded default, and on PostgreSQL + Redis when configured. */
export function backends(): Backend[] {
  const list: Backend[] = [
    { name: 'embedded PGlite, in-memory cache', databaseUrl: undefined, redisUrl: undefined },
  ];
  const postgresUrl = workerPostgresUrl();
  if (postgresUrl)
    list.push({ name: 'PostgreSQL + Redis', databaseUrl: postgresUrl, redisUrl: inject('redisUrl') });
  return list;
}

/**
 * Suites about several instances need a shared database and Redis; without DATABASE_URL they are
 * reported as skipped rather than silently absent.
 */
export function describeWithSharedBackends(title: string, suite: (backend: Backend) => void): void {
  const shared = backends().filter((b) => b.databaseUrl !== undefined && b.redisUrl !== undefined);
  if (shared.length === 0) {
    describe.skip(`${title} (needs DATABASE_URL and REDIS_URL)`, () => {
      it('runs only against PostgreSQL and Redis', () => {});
    });
    return;
  }
  for (const backend of shared) describe(`${title} (${backend.name})`, () => suite(backend));
}
