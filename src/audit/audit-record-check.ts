import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { ACCOUNT_COLUMN, type AuditedTable, recordHashSql } from './audited-records.js';

/** At most this many records are reported per table (the first ones found). */
export const RECORD_PROBLEMS_MAX = 1_000;

/**
 * A decision, alert, monitor, account, API key or dashboard user whose current row does not match
 * the latest change the log holds of it; or a stored screening whose request the log does not hold
 * (audit-screening-check.ts).
 */
export interface RecordProblem {
  chain_id: string;
  table: AuditedTable | 'screenings';
  record_id: string;
  reason: string;
}

const ACTION_PREFIX: Record<AuditedTable, string> = {
  decisions: 'decision.',
  alerts: 'alert.',
  monitors: 'monitor.',
  accounts: 'account.',
  api_keys: 'api_key.',
  users: 'user.',
};

/**
 * Holds the rows of `table` (every account's, or one's) to the log: each row's hash must equal the
 * hash chained by its latest change (by time, then position in the chain). Reports rows edited
 * since, rows the log has changes of but the table no longer holds (deleted), and rows the log has
 * no change of (inserted outside the service),
 * except rows made before changes were audited (`predates_audit`). One statement per table, so the
 * rows and the log are read from one snapshot: a change committing meanwhile is seen whole or not at all.
 */
export async function checkRecords(
  db: Db,
  table: AuditedTable,
  accountId: string | undefined,
): Promise<{ checked: number; problems: RecordProblem[] }> {
  const owner = ACCOUNT_COLUMN[table];
  const forAccount = (column: string) =>
    accountId === undefined ? sql`` : sql`AND ${sql.ref(column)} = ${accountId}`;
  const { rows } = await sql<{
    chain_id: string;
    record_id: string;
    action: string | null;
    chained: string | null;
    current: string | null;
  }>`
    WITH changes AS (
      SELECT DISTINCT ON (a.chain_id, a.record_id) a.chain_id, a.record_id, a.action, a.record_hash
      FROM audit_log a
      WHERE a.action LIKE ${`${ACTION_PREFIX[table]}%`} ${forAccount('a.chain_id')}
      ORDER BY a.chain_id, a.record_id, a.occurred_at DESC, a.seq DESC
    ), current AS (
      SELECT ${sql.ref(`r.${owner}`)} AS account_id, r.id::text AS id, r.predates_audit, r.created_at, ${recordHashSql(table, 'r')} AS hash
      FROM ${sql.table(table)} r
      WHERE true ${forAccount(`r.${owner}`)}
    )
    SELECT coalesce(c.account_id, ch.chain_id) AS chain_id, coalesce(c.id, ch.record_id) AS record_id,
      ch.action, ch.record_hash AS chained, c.hash AS current
    FROM current c FULL JOIN changes ch ON ch.chain_id = c.account_id AND ch.record_id = c.id
    WHERE ch.record_hash IS DISTINCT FROM c.hash
      AND NOT (ch.record_id IS NULL AND c.predates_audit)
    ORDER BY 1, 2
    LIMIT ${RECORD_PROBLEMS_MAX}`.execute(db);
  const counted = await sql<{ count: string }>`
    SELECT count(*) AS count FROM ${sql.table(table)} r WHERE true ${forAccount(`r.${owner}`)}`.execute(db);
  return {
    checked: Number(counted.rows[0]?.count ?? 0),
    problems: rows.map((row) => ({
      chain_id: row.chain_id,
      table,
      record_id: row.record_id,
      reason: reasonOf(row),
    })),
  };
}

function reasonOf(row: { action: string | null; chained: string | null; current: string | null }): string {
  if (row.action === null)
    return 'it is not in the audit log: made outside the service, or its audit row was lost';
  if (row.current === null)
    return `it was deleted: the audit log holds its ${row.action}, the table no longer holds it`;
  return `it was edited: it does not match the hash its ${row.action} chained`;
}
