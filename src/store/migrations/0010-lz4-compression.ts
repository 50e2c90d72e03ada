import { type Kysely, sql } from 'kysely';

/**
 * The two large values every live screening writes (its result, ~10 KB of JSON, and its webhook
 * event's body) are compressed with LZ4 instead of PostgreSQL's default pglz where the server
 * supports it: pglz's compression was most of an insert's cost, and LZ4 does the same work in a
 * fraction of the time. Values already stored keep their compression; new ones use LZ4. PGlite is
 * built without LZ4, so the embedded database keeps pglz.
 */
const LARGE_COLUMNS = [
  ['screenings', 'result'],
  ['webhook_events', 'payload'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await supportsLz4(db))) return;
  for (const [table, column] of LARGE_COLUMNS)
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} SET COMPRESSION lz4`.execute(
      db,
    );
}

/** Whether the server was built with LZ4 (`--with-lz4`): the setting then offers it. */
export async function supportsLz4(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ supported: boolean }>`
    SELECT 'lz4' = ANY(enumvals) AS supported FROM pg_settings WHERE name = 'default_toast_compression'`.execute(
    db,
  );
  return rows[0]?.supported === true;
}
