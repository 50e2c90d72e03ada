import { type Kysely, sql } from 'kysely';

/**
 * Screenings made in the dashboard's console: they are counted and stored like the API's, but no
 * API key made them, so `key_id` may be empty and `user_id` names the dashboard user instead. No
 * foreign key on `user_id`: a screening outlives its user for the retention period.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE screenings ALTER COLUMN key_id DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE screenings ADD COLUMN user_id uuid`.execute(db);
}
