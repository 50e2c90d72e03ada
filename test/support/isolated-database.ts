import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Backend } from './backends.js';

/**
 * The official lists are shared by the whole database (not per account), so a test about list
 * versions needs a database of its own: on PostgreSQL a fresh schema (dropped by `drop`), on the
 * embedded backend nothing to do (each TestApp has its own in-memory or folder database).
 */
export async function isolatedBackend(
  backend: Backend,
): Promise<{ backend: Backend; drop(): Promise<void> }> {
  if (!backend.databaseUrl) return { backend, drop: async () => {} };
  const schema = `${inject('runId')}_l${randomBytes(4).toString('hex')}`;
  const base = new URL(backend.databaseUrl);
  base.searchParams.delete('options');
  await query(base.toString(), `CREATE SCHEMA ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    backend: { ...backend, databaseUrl: url.toString() },
    drop: () => query(base.toString(), `DROP SCHEMA ${schema} CASCADE`),
  };
}

async function query(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
