import { type Kysely, sql } from 'kysely';

/**
 * Batch screening: a batch and one row per item. Items are durable jobs: workers in every
 * instance claim them with `FOR UPDATE SKIP LOCKED`; an item's outcome is written in the same
 * statement that counts and stores its screening, so an item is screened exactly once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('batches')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'uuid', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX batches_account_idx ON batches (account_id, created_at)`.execute(db);

  // While an instance holds an item (`running`), `claimed_until` is the end of its lease and
  // `claim_token` names the claim (see src/screening/batches/batch-queue.ts).
  await db.schema
    .createTable('batch_items')
    .addColumn('batch_id', 'uuid', (c) => c.notNull().references('batches.id').onDelete('cascade'))
    .addColumn('index', 'integer', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('request', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull())
    .addColumn('claim_token', 'uuid')
    .addColumn('claimed_until', 'timestamptz')
    .addColumn('screening_id', 'uuid')
    .addColumn('risk_score', 'integer')
    .addColumn('risk_level', 'text')
    .addColumn('flag_count', 'integer')
    .addColumn('error', 'text')
    .addColumn('finished_at', 'timestamptz')
    .addPrimaryKeyConstraint('batch_items_pk', ['batch_id', 'index'])
    .execute();
  await sql`CREATE INDEX batch_items_open_idx ON batch_items (queued_at, batch_id, index)
    WHERE status IN ('pending', 'running')`.execute(db);
  // Whether a batch still has open items, answered without reading its finished ones.
  await sql`CREATE INDEX batch_items_open_by_batch_idx ON batch_items (batch_id)
    WHERE status IN ('pending', 'running')`.execute(db);
}
