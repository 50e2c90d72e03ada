import { type Kysely, sql } from 'kysely';

/**
 * Accepted versions of the official lists (their parsed entities, compressed) and the refresh
 * state of each list, shared by every instance on one database.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('list_snapshots')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('list_date', 'text')
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull())
    .addColumn('entity_count', 'integer', (c) => c.notNull())
    .addColumn('name_count', 'integer', (c) => c.notNull())
    .addColumn('counts', 'jsonb', (c) => c.notNull())
    .addColumn('files', 'jsonb', (c) => c.notNull())
    .addColumn('parse_options', 'jsonb', (c) => c.notNull())
    .addColumn('forced', 'boolean', (c) => c.notNull())
    .addColumn('warnings', 'jsonb', (c) => c.notNull())
    // NULL once pruned: the row stays as the record of which versions were in service.
    .addColumn('entities', 'bytea')
    .addColumn('entities_bytes', 'integer', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX list_snapshots_list_time_idx ON list_snapshots (list_id, fetched_at DESC)`.execute(
    db,
  );

  await db.schema
    .createTable('list_states')
    .addColumn('list_id', 'text', (c) => c.primaryKey())
    .addColumn('snapshot_id', 'uuid', (c) => c.references('list_snapshots.id'))
    .addColumn('checked_at', 'timestamptz')
    .addColumn('attempted_at', 'timestamptz')
    .addColumn('outcome', 'text')
    .addColumn('error', 'text')
    .execute();
}
