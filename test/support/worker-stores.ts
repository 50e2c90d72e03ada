import { inject } from 'vitest';

/**
 * Test files run side by side, one per vitest worker. On PostgreSQL each worker has a schema of
 * its own, and on Redis a key prefix of its own: a file's batch and delivery workers, purges and
 * broadcasts never meet another file's rows, as when the files ran one after another.
 */
function workerIndex(): number {
  // Set by vitest in each worker: 1 to maxWorkers, never shared by two files running together.
  return Number(process.env.VITEST_POOL_ID ?? '1');
}

/** The PostgreSQL URL of this worker's schema; undefined without DATABASE_URL. */
export function workerPostgresUrl(): string | undefined {
  const urls = inject('postgresUrls');
  if (urls.length === 0) return undefined;
  const url = urls[workerIndex() - 1];
  if (!url) throw new Error(`no PostgreSQL schema for worker ${workerIndex()} of ${urls.length}`);
  return url;
}

/** Prefix of the Redis keys and channels of this worker's test apps. */
export function workerRedisPrefix(): string {
  return `${inject('runId')}w${workerIndex()}:`;
}
