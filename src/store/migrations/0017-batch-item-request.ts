import { type Kysely, sql } from 'kysely';

/**
 * A batch item's result says what was asked, as its screening's answer does (`request`): stored
 * when the batch is queued, as the item was checked then, and replaced by its screening's own
 * record when it is screened. Items queued before have none (NULL): not guessed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE batch_items ADD COLUMN screened_request jsonb`.execute(db);
}
