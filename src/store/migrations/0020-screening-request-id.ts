import { type Kysely, sql } from 'kysely';

/**
 * A screening names the request that made it (`request_id`, the `request_id` of that request's
 * audit row), so `audit verify` can name a stored screening whose audit row never reached the log
 * (written after the response by the buffered AuditWriter, lost if the process is killed within
 * its flush window). Screenings stored before have none (NULL): they are not held to the log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE screenings ADD COLUMN request_id text`.execute(db);
}
