import { type Kysely, sql } from 'kysely';

/**
 * A batch item's outcome says, as its screening's answer does, whether the screening covered every
 * official list it selected and which sources failed. Items finished before have neither (NULL):
 * it was not recorded, and is not guessed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE batch_items ADD COLUMN complete boolean, ADD COLUMN sources_failed jsonb`.execute(db);
}
