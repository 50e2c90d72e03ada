import { randomBytes } from 'node:crypto';

import type { TestProject } from 'vitest/node';
import { createSchema } from './support/postgres-schema.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL URL bound to a schema of this test run only; undefined without DATABASE_URL. */
    postgresUrl: string | undefined;
    redisUrl: string | undefined;
    /** Prefix of Redis keys and channels of this test run. */
    runId: string;
  }
}

/**
 * When DATABASE_URL is set, each test run works in its own PostgreSQL schema (dropped at the
 * end), so runs never see each other's rows and always start from an empty database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  project.provide('runId', runId);
  project.provide('redisUrl', process.env.REDIS_URL || undefined);
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    project.provide('postgresUrl', undefined);
    return async () => {};
  }
  const schema = await createSchema(baseUrl, runId);
  project.provide('postgresUrl', schema.url);
  return schema.drop;
}
