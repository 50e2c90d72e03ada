import { type Kysely, sql } from 'kysely';

/**
 * Sign-in attempts counted per subject (an address, or an email at an address) over a fixed
 * window, for deployments without Redis: the count must be shared by every instance and taken in
 * one statement before the password is checked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attempt_windows')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('ends_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX attempt_windows_ends_idx ON attempt_windows (ends_at)`.execute(db);
}
