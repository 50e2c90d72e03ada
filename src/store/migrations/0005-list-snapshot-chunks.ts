import type { Kysely } from 'kysely';

/**
 * List versions stored in chunks instead of one blob. Each chunk holds a consecutive range of
 * entities twice over, compressed: their names as the search index reads them, and their full
 * records, one JSON entity per line. A load parses only the names and keeps the records as text,
 * and no statement carries more than one chunk, so the embedded database never has to hold a
 * whole list at once. Versions stored before keep their single blob (`entities_encoding`
 * 'json_gzip') and still load; the default also covers the rows that instances still running the
 * previous version write while several instances are upgraded one by one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('list_snapshots')
    .addColumn('entities_encoding', 'text', (c) => c.notNull().defaultTo('json_gzip'))
    .execute();
  await db.schema
    .createTable('list_snapshot_chunks')
    .addColumn('snapshot_id', 'uuid', (c) => c.notNull().references('list_snapshots.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('entity_count', 'integer', (c) => c.notNull())
    // gzip of a JSON array of the entities' matchable form (key, source, kind, names).
    .addColumn('names', 'bytea', (c) => c.notNull())
    // gzip of the entities' full records, one JSON object per line, in the order of `names`.
    .addColumn('records', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_snapshot_chunks_pkey', ['snapshot_id', 'seq'])
    .execute();
}
