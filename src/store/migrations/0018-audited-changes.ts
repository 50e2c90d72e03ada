import { type Kysely, sql } from 'kysely';

/**
 * Changes in the tamper-evident log. A decision, a withdrawal, an alert raised or closed, a monitor
 * created, imported or deleted, an API key or dashboard user added or removed is chained in its own
 * transaction as an audit row beside the request's: `action` (`decision.created`, ...),
 * `record_id` and `record_hash`, the hash of the changed row as it then stood
 * (src/audit/audited-records.ts), so `audit verify` can hold the current rows to the log. Such a
 * row is not a response, so it has no `status` nor `latency_ms`.
 *
 * Who: `decisions.withdrawn_by` and `alerts.closed_by` (`{type, id}`, the API key or dashboard
 * user, as `decided_by`). `predates_audit` marks the decisions, alerts and monitors made before
 * this migration: they have no change in the log to be held to, so verify does not ask for one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE audit_log
    ALTER COLUMN status DROP NOT NULL,
    ALTER COLUMN latency_ms DROP NOT NULL,
    ADD COLUMN action text,
    ADD COLUMN record_id text,
    ADD COLUMN record_hash text`.execute(db);
  // verify: the latest change of each record of a chain.
  await sql`CREATE INDEX audit_log_records_idx ON audit_log (chain_id, record_id, seq DESC)
    WHERE action IS NOT NULL`.execute(db);
  await sql`ALTER TABLE decisions ADD COLUMN withdrawn_by jsonb`.execute(db);
  await sql`ALTER TABLE alerts ADD COLUMN closed_by jsonb`.execute(db);
  for (const table of ['decisions', 'alerts', 'monitors']) {
    // Existing rows take the default true; rows made from now on false.
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN predates_audit boolean NOT NULL DEFAULT true`.execute(
      db,
    );
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN predates_audit SET DEFAULT false`.execute(db);
  }
}
