import { type Kysely, sql } from 'kysely';

/**
 * Webhook events are fanned out to their webhooks' deliveries by the delivery worker, not by the
 * statement that stores the screening: that statement writes one event row instead of one row per
 * webhook, which keeps the latency webhooks add to a screening low. `fanned_out` says whether an
 * event's deliveries exist; events stored before this migration already have theirs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_events ADD COLUMN fanned_out boolean NOT NULL DEFAULT true`.execute(db);
  await sql`CREATE INDEX webhook_events_unfanned_idx ON webhook_events (created_at) WHERE NOT fanned_out`.execute(
    db,
  );
}
