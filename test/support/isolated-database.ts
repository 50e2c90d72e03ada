import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Backend } from './backends.js';
import { createSchema } from './postgres-schema.js';

/**
 * The official lists are shared by the whole database (not per account), so a test about list
 * versions needs a database of its own: on PostgreSQL a fresh schema, on the embedded backend
 * nothing to do (each TestApp has its own in-memory or folder database).
 *
 * The schema is dropped with the run's (global-setup.ts), not by `drop`: a schema dropped while
 * a test in the other worker migrates fails that migration, since Kysely's look for its tables
 * reads every schema of the server by name.
 */
export async function isolatedBackend(
  backend: Backend,
): Promise<{ backend: Backend; drop(): Promise<void> }> {
  if (!backend.databaseUrl) return { backend, drop: async () => {} };
  const schema = await createSchema(
    backend.databaseUrl,
    `${inject('runId')}_l${randomBytes(4).toString('hex')}`,
  );
  return { backend: { ...backend, databaseUrl: schema.url }, drop: async () => {} };
}
