import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { RECORD_PROBLEMS_MAX, type RecordProblem } from './audit-record-check.js';

/**
 * A screening younger than this is not yet held to the log. Its request's row is written after the
 * response by the AuditWriter of whichever instance served it: within AUDIT_FLUSH_INTERVAL_MS
 * (100 ms) normally, a few retries later after a database hiccup. Verify flushes only its own instance's
 * writer, so without this wait a verification run just after a screening elsewhere would name a
 * row still on its way.
 */
export const SCREENING_AUDIT_GRACE_MS = 60_000;

/**
 * Holds the stored screenings (every account's, or one's) to the log: each names the request that
 * made it (`screenings.request_id`: an API or dashboard request, a batch item, a monitor's first
 * screening or re-screening), and that request's audit row must be in the account's chain. Request
 * rows are buffered (audit-writer.ts), so a process killed within its flush window stores the
 * screening without its row: this names such screenings, as it does any row deleted from the log.
 * Screenings stored before they named their request (migration 0020) are not held; those younger
 * than SCREENING_AUDIT_GRACE_MS are not yet. No index on the log's request ids: the anti-join
 * hashes the chains' rows (one account's found by their chain index), which verify reads in full
 * anyway, and every audit row written is spared an index entry. On PostgreSQL with 100,000
 * screenings and 150,000 rows the whole log's anti-join took 0.24 s (verify 3.6 s, was 3.3 s),
 * one account's 3.5 ms.
 */
export async function checkScreenings(
  db: Db,
  accountId: string | undefined,
  now: Date,
): Promise<{ checked: number; problems: RecordProblem[] }> {
  const held = sql`s.request_id IS NOT NULL
    AND s.created_at < ${new Date(now.getTime() - SCREENING_AUDIT_GRACE_MS)}
    ${accountId === undefined ? sql`` : sql`AND s.account_id = ${accountId}`}`;
  const { rows } = await sql<{ chain_id: string; record_id: string; request_id: string }>`
    SELECT s.account_id AS chain_id, s.id::text AS record_id, s.request_id
    FROM screenings s
    WHERE ${held}
      AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.chain_id = s.account_id AND a.request_id = s.request_id)
    ORDER BY s.account_id, s.created_at, s.id
    LIMIT ${RECORD_PROBLEMS_MAX}`.execute(db);
  const counted = await sql<{ count: string }>`
    SELECT count(*) AS count FROM screenings s WHERE ${held}`.execute(db);
  return {
    checked: Number(counted.rows[0]?.count ?? 0),
    problems: rows.map((row) => ({
      chain_id: row.chain_id,
      table: 'screenings',
      record_id: row.record_id,
      reason: `its request (${row.request_id}) is not in the audit log: its row was lost before it was written (the process ended within the audit writer's buffer) or deleted`,
    })),
  };
}
