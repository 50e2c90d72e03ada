import { type Kysely, sql } from 'kysely';

/**
 * Every live screening, kept for the retention period. The result is stored whole (jsonb) so a
 * later GET returns exactly what the POST answered; the columns beside it serve lookups and purge.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('screenings')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'uuid', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('query_type', 'text', (c) => c.notNull())
    .addColumn('request_options', 'jsonb', (c) => c.notNull())
    .addColumn('result', 'jsonb', (c) => c.notNull())
    .addColumn('source_errors', 'jsonb', (c) => c.notNull())
    .addColumn('source_versions', 'jsonb', (c) => c.notNull())
    .addColumn('risk_score', 'integer', (c) => c.notNull())
    .addColumn('risk_level', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX screenings_account_time_idx ON screenings (account_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX screenings_created_idx ON screenings (created_at)`.execute(db);
}
