import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { TestProject } from 'vitest/node';
import { writeEmbeddedImage } from './support/embedded-image.js';
import { createSchema, dropSchemasStartingWith } from './support/postgres-schema.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * PostgreSQL URLs bound to schemas of this test run only, one per worker (worker-stores.ts);
     * empty without DATABASE_URL.
     */
    postgresUrls: string[];
    redisUrl: string | undefined;
    /** Prefix of Redis keys and channels of this test run. */
    runId: string;
    /** The image every in-memory embedded database of the run starts from (embedded-image.ts). */
    embeddedImagePath: string;
  }
}

/**
 * When DATABASE_URL is set, each worker of a test run works in its own PostgreSQL schema (dropped
 * at the end), so runs and files running together never see each other's rows and each worker
 * starts from an empty database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  project.provide('runId', runId);
  project.provide('redisUrl', process.env.REDIS_URL || undefined);
  const imageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-test-image-'));
  project.provide('embeddedImagePath', await writeEmbeddedImage(imageDir));
  const removeImage = async () => fs.rmSync(imageDir, { recursive: true, force: true });
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    project.provide('postgresUrls', []);
    return removeImage;
  }
  const workers = Array.from({ length: project.config.maxWorkers }, (_, i) => i + 1);
  const schemas = await Promise.all(workers.map((worker) => createSchema(baseUrl, `${runId}_w${worker}`)));
  project.provide(
    'postgresUrls',
    schemas.map((schema) => schema.url),
  );
  return async () => {
    await removeImage();
    // The workers' schemas and the test databases' schemas (isolated-database.ts).
    await dropSchemasStartingWith(baseUrl, `${runId}_`);
  };
}
