import { type Kysely, sql } from 'kysely';
import { supportsLz4 } from './0010-lz4-compression.js';

/**
 * A screening's result (~10 KB of JSON) is stored as `json`, the text as written, instead of
 * `jsonb`. It is written once, read back whole (GET /v1/screen/:id, the dashboard) and never
 * searched inside, so jsonb's binary form bought nothing, while building it was a large part of the
 * cost of storing a screening. The text is also exactly what the POST answered. Rewrites the table
 * once; the column keeps LZ4 where the server has it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE screenings ALTER COLUMN result TYPE json USING result::json`.execute(db);
  if (await supportsLz4(db))
    await sql`ALTER TABLE screenings ALTER COLUMN result SET COMPRESSION lz4`.execute(db);
}
