import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Backend } from './backends.js';
import { createSchema } from './postgres-schema.js';

/**
 * The official lists are shared by the whole database (not per account), so a test about list
 * versions needs a database of its own: on PostgreSQL a fresh schema (dropped by `drop`), on the
 * embedded backend nothing to do (each TestApp has its own in-memory or folder database).
 */
export async function isolatedBackend(
  backend: Backend,
): Promise<{ backend: Backend; drop(): Promise<void> }> {
  if (!backend.databaseUrl) return { backend, drop: async () => {} };
  const schema = await createSchema(
    backend.databaseUrl,
    `${inject('runId')}_l${randomBytes(4).toString('hex')}`,
  );
  return { backend: { ...backend, databaseUrl: schema.url }, drop: schema.drop };
}
