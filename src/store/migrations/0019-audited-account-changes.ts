import { type Kysely, sql } from 'kysely';

/**
 * Accounts, API keys and dashboard users join the audited changes (0018): an account created or
 * changed by the operator, a key created or revoked, a user created or deleted is chained in its
 * own transaction with the row's hash. `predates_audit` marks the rows made before: they have no
 * change in the log to be held to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['accounts', 'api_keys', 'users']) {
    // Existing rows take the default true; rows made from now on false.
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN predates_audit boolean NOT NULL DEFAULT true`.execute(
      db,
    );
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN predates_audit SET DEFAULT false`.execute(db);
  }
}
