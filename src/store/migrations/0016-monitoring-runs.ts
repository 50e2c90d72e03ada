import { type Kysely, sql } from 'kysely';

/**
 * Monitoring runs made safe across instances and retries, and imports of many monitors.
 *
 * - `list_changes.claim_token`: a run writes its progress only while it still holds the claim it
 *   was given, so an instance whose lease lapsed cannot overwrite the one that took over;
 *   `last_error` keeps why the last attempt failed.
 * - `alerts.list_change_id`: an alert is unique per monitor, record version, reason *and* list
 *   change, so a record delisted and listed again unchanged alerts again, while a repeated run of
 *   one change still raises nothing twice.
 * - `monitors.first_screened_at`: a monitor is watched from its first screening on (at once for
 *   one created alone; in the background for an imported one); a run also screens the monitors
 *   first screened after its change was written, whatever their id.
 * - What monitors know is cleaned up to the new rules: each record in its last known state only,
 *   and no record whose removal was already alerted.
 * - `monitor_imports`: a durable import, whose monitors' first screenings are claimed
 *   (`claimed_until`) and done by any instance.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE list_changes ADD COLUMN claim_token uuid, ADD COLUMN last_error text`.execute(db);

  await sql`DELETE FROM monitor_flags m USING monitor_flags newer
    WHERE newer.monitor_id = m.monitor_id AND newer.flag_id = m.flag_id AND newer.seen_at > m.seen_at`.execute(
    db,
  );
  await sql`DELETE FROM monitor_flags m USING alerts a
    WHERE a.monitor_id = m.monitor_id AND a.flag_id = m.flag_id AND a.reason = 'record_removed'
      AND a.created_at >= m.seen_at`.execute(db);

  await sql`ALTER TABLE alerts ADD COLUMN list_change_id uuid`.execute(db);
  await sql`UPDATE alerts SET list_change_id = '00000000-0000-0000-0000-000000000000'`.execute(db);
  await sql`ALTER TABLE alerts ALTER COLUMN list_change_id SET NOT NULL`.execute(db);
  await sql`DROP INDEX alerts_once_idx`.execute(db);
  await sql`CREATE UNIQUE INDEX alerts_once_idx
    ON alerts (monitor_id, flag_id, record_hash, reason, list_change_id)`.execute(db);
  // The open alerts of an account, for the inbox.
  await sql`CREATE INDEX alerts_account_open_idx ON alerts (account_id, created_at DESC, id DESC)
    WHERE status = 'open'`.execute(db);

  await db.schema
    .createTable('monitor_imports')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'uuid')
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX monitor_imports_account_time_idx ON monitor_imports (account_id, created_at DESC)`.execute(
    db,
  );

  await sql`ALTER TABLE monitors
    ADD COLUMN import_id uuid REFERENCES monitor_imports (id),
    ADD COLUMN first_screened_at timestamptz,
    ADD COLUMN first_screening_id uuid,
    ADD COLUMN first_screening_error text,
    ADD COLUMN claimed_until timestamptz`.execute(db);
  await sql`UPDATE monitors SET first_screened_at = created_at`.execute(db);
  // Monitors whose first screening is due, oldest first.
  await sql`CREATE INDEX monitors_unscreened_idx ON monitors (created_at, id)
    WHERE first_screened_at IS NULL AND first_screening_error IS NULL AND deleted_at IS NULL`.execute(db);
  // A run's last pass: the monitors first screened after its change was written.
  await sql`CREATE INDEX monitors_first_screened_idx ON monitors (first_screened_at)
    WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX monitors_import_idx ON monitors (import_id) WHERE import_id IS NOT NULL`.execute(db);
}
