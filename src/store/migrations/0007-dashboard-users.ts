import { type Kysely, sql } from 'kysely';

/**
 * Dashboard users (email and scrypt password hash, one account each), their server-side sessions
 * (only the SHA-256 of the session token is stored) and the user behind an audited dashboard
 * request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // `email` is stored normalised (trimmed, lower case), so the unique constraint is case-insensitive
  // and sign-in by email alone names one user across every account.
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX users_account_idx ON users (account_id, created_at)`.execute(db);

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id)`.execute(db);
  await sql`CREATE INDEX dashboard_sessions_seen_idx ON dashboard_sessions (last_seen_at)`.execute(db);

  // Rows written before this migration have no user; the row hash covers the column only when set,
  // so their hashes (and `audit verify`) are unchanged.
  await sql`ALTER TABLE audit_log ADD COLUMN user_id uuid`.execute(db);
}
