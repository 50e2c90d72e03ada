import { type Kysely, sql } from 'kysely';

/**
 * Webhooks and their durable delivery. An event (its payload as the exact bytes to send) is
 * written in the same statement as the screening it reports, with one delivery per subscribed
 * webhook: the outbox. Workers claim due deliveries; every attempt is kept for the customer's log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    // AES-256-GCM (see src/webhooks/secret-box.ts); NULL once the webhook is deleted.
    .addColumn('secret_ciphertext', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_delivery_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX webhooks_account_idx ON webhooks (account_id, created_at) WHERE deleted_at IS NULL`.execute(
    db,
  );

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX webhook_events_created_idx ON webhook_events (created_at)`.execute(db);

  // While an instance holds a delivery, `next_attempt_at` is the end of its lease and
  // `claim_token` names the claim (see src/webhooks/delivery-queue.ts).
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('event_id', 'uuid', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('webhook_id', 'uuid', (c) => c.notNull().references('webhooks.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('claim_token', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`.execute(db);

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('delivery_id', 'uuid', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('webhook_id', 'uuid', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('next_retry_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (webhook_id, attempted_at DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id)`.execute(db);
}
