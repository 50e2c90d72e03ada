import { type Kysely, sql } from 'kysely';

/**
 * Analysts' decisions on flags. A decision belongs to a subject (the caller's `reference` for the
 * party, or else what the request said of it: `subject_key`, see screening-subject.ts) and to one
 * listed record in the state it was decided on (`flag_id`, `record_hash`). A screening records its
 * subject so that a decision taken on one of its flags knows whom it is about, and its reference
 * so that the history can be searched by it. A withdrawn (or superseded) decision keeps its row,
 * with `withdrawn_at`, as the audit log keeps the requests that made and withdrew it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE screenings ADD COLUMN subject_key text, ADD COLUMN reference text`.execute(db);
  await sql`CREATE INDEX screenings_account_reference_idx ON screenings (account_id, reference, created_at DESC)
    WHERE reference IS NOT NULL`.execute(db);
  await db.schema
    .createTable('decisions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('subject_key', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('screening_id', 'uuid', (c) => c.notNull())
    .addColumn('flag_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('listed_name', 'text')
    .addColumn('record_hash', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('key_id', 'uuid')
    .addColumn('user_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('withdrawn_at', 'timestamptz')
    .execute();
  // The decisions a screening applies: the subject's standing ones.
  await sql`CREATE INDEX decisions_subject_idx ON decisions (account_id, subject_key, flag_id)
    WHERE withdrawn_at IS NULL`.execute(db);
  // GET /v1/decisions: the account's standing decisions, newest first.
  await sql`CREATE INDEX decisions_account_time_idx ON decisions (account_id, created_at DESC, id DESC)
    WHERE withdrawn_at IS NULL`.execute(db);
}
