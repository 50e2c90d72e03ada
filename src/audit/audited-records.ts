import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../store/database.js';

/** The tables whose rows are changed by audited actions, and held to the log by `audit verify`. */
export type AuditedTable = 'decisions' | 'alerts' | 'monitors' | 'accounts' | 'api_keys' | 'users';

/** The column naming the account (the audit chain) a row belongs to. */
export const ACCOUNT_COLUMN: Record<AuditedTable, string> = {
  decisions: 'account_id',
  alerts: 'account_id',
  monitors: 'account_id',
  accounts: 'id',
  api_keys: 'account_id',
  users: 'account_id',
};

/**
 * The columns a row's hash covers: everything a person decided or did, never what the service
 * updates on its own (a monitor's first-screening bookkeeping and claims).
 */
const HASHED_COLUMNS: Record<AuditedTable, readonly string[]> = {
  decisions: [
    'id',
    'account_id',
    'subject_key',
    'reference',
    'entity',
    'screening_id',
    'flag_id',
    'source',
    'list',
    'listed_name',
    'record_hash',
    'decision',
    'note',
    'key_id',
    'user_id',
    'created_at',
    'withdrawn_at',
    'withdrawn_by',
  ],
  alerts: [
    'id',
    'account_id',
    'monitor_id',
    'reference',
    'screening_id',
    'flag_id',
    'record_hash',
    'list_change_id',
    'reason',
    'list',
    'list_version',
    'flags',
    'status',
    'note',
    'closed_at',
    'closed_by',
    'created_at',
  ],
  monitors: [
    'id',
    'account_id',
    'key_id',
    'reference',
    'subject_key',
    'entity',
    'query_type',
    'request',
    'created_at',
    'deleted_at',
    'import_id',
  ],
  // The operator's settings of the account, not its bookkeeping.
  accounts: ['id', 'name', 'plan', 'status', 'rate_limit_per_minute', 'created_at'],
  // Never `last_used_at`, which every request moves.
  api_keys: ['id', 'account_id', 'name', 'key_hash', 'prefix', 'last4', 'created_at', 'revoked_at'],
  // The password's hash too: a password swapped in the database is an edit.
  users: ['id', 'account_id', 'email', 'password_hash', 'created_at'],
};

const TIMESTAMP_COLUMNS = new Set(['created_at', 'withdrawn_at', 'closed_at', 'deleted_at', 'revoked_at']);

/**
 * The SQL of a row's hash (`alias` names the table in the query): SHA-256 of the JSON array of its
 * hashed columns, computed by the database, so the hash of a change and the hash verify compares
 * it with are made the same way from the same stored values. Timestamps are written in UTC, so the
 * session's time zone does not change the text.
 */
export function recordHashSql(table: AuditedTable, alias: string): RawBuilder<string> {
  const values = HASHED_COLUMNS[table].map((column) => {
    const ref = sql.ref(`${alias}.${column}`);
    return TIMESTAMP_COLUMNS.has(column) ? sql`(${ref} AT TIME ZONE 'UTC')` : ref;
  });
  return sql<string>`encode(sha256(convert_to(jsonb_build_array(${sql.join(values)})::text, 'UTF8')), 'hex')`;
}

/** The hashes of the account's rows `ids` of `table` as they stand now (in the caller's transaction). */
export async function recordHashes(
  db: Db,
  table: AuditedTable,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ id: string; hash: string }>`
    SELECT r.id, ${recordHashSql(table, 'r')} AS hash FROM ${sql.table(table)} r
    WHERE ${sql.ref(`r.${ACCOUNT_COLUMN[table]}`)} = ${accountId} AND r.id = ANY(${ids}::uuid[])`.execute(db);
  return new Map(rows.map((row) => [row.id, row.hash]));
}
