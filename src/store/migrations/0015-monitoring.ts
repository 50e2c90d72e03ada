import { type Kysely, sql } from 'kysely';

/**
 * Ongoing monitoring. A monitor is a subject the account wants kept screened (the screening
 * request it was created with); `monitor_flags` is what the service knows each monitor was already
 * flagged for (record id and the record's hash), so a list change alerts only on what is new to it.
 * `list_changes` is the durable job a new list version makes, written with the version itself:
 * whichever instance claims it screens the monitors against the records that changed.
 * `alerts` holds exactly one row per monitor, record version and reason (the unique index), however
 * often a run is repeated after a crash or by another instance.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'uuid')
    .addColumn('reference', 'text')
    .addColumn('subject_key', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('query_type', 'text', (c) => c.notNull())
    .addColumn('request', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX monitors_account_time_idx ON monitors (account_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX monitors_account_reference_idx ON monitors (account_id, reference)
    WHERE deleted_at IS NULL AND reference IS NOT NULL`.execute(db);
  // A run walks every live monitor in id order.
  await sql`CREATE INDEX monitors_live_idx ON monitors (id) WHERE deleted_at IS NULL`.execute(db);

  await db.schema
    .createTable('monitor_flags')
    .addColumn('monitor_id', 'uuid', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('flag_id', 'text', (c) => c.notNull())
    .addColumn('record_hash', 'text', (c) => c.notNull())
    .addColumn('flag', 'jsonb', (c) => c.notNull())
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('monitor_flags_pk', ['monitor_id', 'flag_id', 'record_hash'])
    .execute();
  // A changed or removed record finds the monitors it flagged.
  await sql`CREATE INDEX monitor_flags_flag_idx ON monitor_flags (flag_id)`.execute(db);

  await db.schema
    .createTable('list_changes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('snapshot_id', 'uuid', (c) => c.notNull())
    .addColumn('previous_snapshot_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('claimed_until', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('monitor_cursor', 'uuid')
    .addColumn('done_at', 'timestamptz')
    .addColumn('summary', 'jsonb')
    .execute();
  await sql`CREATE INDEX list_changes_open_idx ON list_changes (created_at) WHERE done_at IS NULL`.execute(
    db,
  );

  await db.schema
    .createTable('alerts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('monitor_id', 'uuid', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('screening_id', 'uuid', (c) => c.notNull())
    .addColumn('flag_id', 'text', (c) => c.notNull())
    .addColumn('record_hash', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('list_version', 'text', (c) => c.notNull())
    .addColumn('flags', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('closed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX alerts_once_idx ON alerts (monitor_id, flag_id, record_hash, reason)`.execute(
    db,
  );
  await sql`CREATE INDEX alerts_account_time_idx ON alerts (account_id, created_at DESC, id DESC)`.execute(
    db,
  );
}
