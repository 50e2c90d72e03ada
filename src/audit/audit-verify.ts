import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { AuditLogRow } from '../store/schema.js';
import { ANONYMOUS_CHAIN_ID, auditRowHash, GENESIS_HASH } from './audit-chain.js';
import type { AuditCheckpoint } from './audit-checkpoint.js';
import { checkRecords, type RecordProblem } from './audit-record-check.js';
import { checkScreenings } from './audit-screening-check.js';
import type { AuditedTable } from './audited-records.js';

const AUDITED_TABLES: readonly AuditedTable[] = [
  'decisions',
  'alerts',
  'monitors',
  'accounts',
  'api_keys',
  'users',
];

const VERIFY_PAGE_ROWS = 1_000;

export interface ChainBreak {
  chain_id: string;
  /** The first row that does not verify (null when rows are missing at the end of the chain). */
  row_id: string | null;
  seq: number;
  reason: string;
}

export interface AuditVerification {
  ok: boolean;
  chains_checked: number;
  rows_checked: number;
  /** Signed checkpoints the chains were held to; present when checkpoints were given. */
  checkpoints_checked?: number;
  breaks: ChainBreak[];
  /** Decisions, alerts, monitors, accounts, API keys and users held to the latest change the log chains of each. */
  records_checked: number;
  /** Stored screenings held to their request's row (not those of the last SCREENING_AUDIT_GRACE_MS). */
  screenings_checked: number;
  /**
   * Those that do not match it: edited, deleted, or not in the log; and screenings whose request's
   * row is not in the log (at most 1,000 per table).
   */
  records: RecordProblem[];
}

/**
 * Recomputes every chain (or one account's) from its first row and reports the first broken row
 * of each: an edited field, a deleted or inserted row, or rows missing after the last one. An
 * account that has made requests but has no chain at all (chain and head deleted) is a break too.
 *
 * With checkpoints (the latest signed head of each chain, checked by the caller), each chain must
 * also reach its checkpointed row with the checkpointed hash, and a checkpointed chain must exist:
 * this catches rows deleted from the end of a chain with its head moved back, which the database
 * alone cannot reveal.
 *
 * Then the decisions, alerts, monitors, accounts, API keys and users are held to the changes the
 * chains hold of them (audit-record-check.ts), and the stored screenings made before `now` (less a
 * grace) to their requests' rows (audit-screening-check.ts).
 */
export async function verifyAuditChains(
  db: Db,
  now: Date,
  accountId?: string,
  checkpoints?: readonly AuditCheckpoint[],
): Promise<AuditVerification> {
  let heads = db.selectFrom('audit_chain_heads').selectAll().orderBy('chain_id');
  if (accountId !== undefined) heads = heads.where('chain_id', '=', accountId);
  const result: AuditVerification = {
    ok: true,
    chains_checked: 0,
    rows_checked: 0,
    breaks: [],
    records_checked: 0,
    screenings_checked: 0,
    records: [],
  };
  const anchors = new Map<string, AuditCheckpoint>();
  for (const checkpoint of checkpoints ?? []) {
    if (accountId === undefined || checkpoint.chain_id === accountId)
      anchors.set(checkpoint.chain_id, checkpoint);
  }
  if (checkpoints) result.checkpoints_checked = anchors.size;
  for (const head of await heads.execute()) {
    result.chains_checked += 1;
    const anchor = anchors.get(head.chain_id);
    anchors.delete(head.chain_id);
    const outcome = await verifyChain(db, head.chain_id, Number(head.seq), head.hash, anchor);
    result.rows_checked += outcome.rows;
    if (outcome.break) result.breaks.push(outcome.break);
  }
  // Checkpointed chains the database no longer has.
  for (const anchor of anchors.values()) {
    result.breaks.push({
      chain_id: anchor.chain_id,
      row_id: null,
      seq: anchor.seq,
      reason: `the chain does not exist, but the checkpoint of ${anchor.at} recorded its head at row ${anchor.seq}: it was deleted`,
    });
  }
  const reported = new Set(result.breaks.map((b) => b.chain_id));
  for (const missing of await accountsWithoutChain(db, accountId)) {
    if (!reported.has(missing.chain_id)) result.breaks.push(missing);
  }
  for (const table of AUDITED_TABLES) {
    const { checked, problems } = await checkRecords(db, table, accountId);
    result.records_checked += checked;
    result.records.push(...problems);
  }
  const screenings = await checkScreenings(db, accountId, now);
  result.screenings_checked = screenings.checked;
  result.records.push(...screenings.problems);
  result.ok = result.breaks.length === 0 && result.records.length === 0;
  return result;
}

/**
 * Accounts without a chain head whose data shows requests: screenings counted or stored, a key
 * used, a dashboard session. Every such request was audited, so its chain was deleted (rows and head together).
 */
async function accountsWithoutChain(db: Db, accountId: string | undefined): Promise<ChainBreak[]> {
  const { rows } = await sql<{
    id: string;
    counted: boolean;
    screened: boolean;
    key_used: boolean;
    signed_in: boolean;
  }>`
    SELECT a.id,
      EXISTS (SELECT 1 FROM usage_counters u WHERE u.account_id = a.id AND u.count > 0) AS counted,
      EXISTS (SELECT 1 FROM screenings s WHERE s.account_id = a.id) AS screened,
      EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = a.id AND k.last_used_at IS NOT NULL) AS key_used,
      EXISTS (SELECT 1 FROM dashboard_sessions d JOIN users us ON us.id = d.user_id WHERE us.account_id = a.id)
        AS signed_in
    FROM accounts a
    WHERE NOT EXISTS (SELECT 1 FROM audit_chain_heads h WHERE h.chain_id = a.id)
      ${accountId === undefined ? sql`` : sql`AND a.id = ${accountId}`}
    ORDER BY a.id`.execute(db);
  return rows.flatMap((row) => {
    const evidence = [
      row.counted ? 'counted screenings' : undefined,
      row.screened ? 'stored screenings' : undefined,
      row.key_used ? 'an API key used' : undefined,
      row.signed_in ? 'a dashboard session' : undefined,
    ].filter((what) => what !== undefined);
    if (evidence.length === 0) return [];
    const reason = `the account has no audit chain although it made requests (${evidence.join(', ')}): its chain was deleted`;
    return [{ chain_id: row.id, row_id: null, seq: 0, reason }];
  });
}

async function verifyChain(
  db: Db,
  chainId: string,
  headSeq: number,
  headHash: string,
  anchor: AuditCheckpoint | undefined,
): Promise<{ rows: number; break?: ChainBreak }> {
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let rows = 0;
  for (;;) {
    const page = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('seq', '>=', String(expectedSeq))
      // Rows appended after the head was read belong to a later verification.
      .where('seq', '<=', String(headSeq))
      .orderBy('seq')
      .limit(VERIFY_PAGE_ROWS)
      .execute();
    for (const row of page) {
      const problem = checkRow(row, expectedSeq, prevHash) ?? checkAnchor(row, anchor);
      if (problem)
        return { rows, break: { chain_id: chainId, row_id: row.id, seq: Number(row.seq), reason: problem } };
      rows += 1;
      expectedSeq += 1;
      prevHash = row.hash;
    }
    if (page.length < VERIFY_PAGE_ROWS) break;
  }
  if (expectedSeq - 1 !== headSeq || prevHash !== headHash) {
    const reason = `the chain ends at row ${expectedSeq - 1} but its head records row ${headSeq}`;
    return { rows, break: { chain_id: chainId, row_id: null, seq: expectedSeq, reason } };
  }
  if (anchor && headSeq < anchor.seq) {
    const reason = `the chain ends at row ${headSeq} but the checkpoint of ${anchor.at} recorded row ${anchor.seq}: rows were deleted from its end`;
    return { rows, break: { chain_id: chainId, row_id: null, seq: headSeq + 1, reason } };
  }
  return { rows };
}

function checkAnchor(row: AuditLogRow, anchor: AuditCheckpoint | undefined): string | undefined {
  if (anchor === undefined || Number(row.seq) !== anchor.seq || row.hash === anchor.hash) return undefined;
  return `its hash differs from the checkpoint of ${anchor.at}: the chain was rewritten up to this row`;
}

function checkRow(row: AuditLogRow, expectedSeq: number, prevHash: string): string | undefined {
  const seq = Number(row.seq);
  if (seq !== expectedSeq) return `row ${expectedSeq} is missing (found row ${seq} next)`;
  if (row.prev_hash !== prevHash) return 'its previous-hash link does not match the row before it';
  const entry = { ...row, occurred_at: new Date(row.occurred_at) };
  if (auditRowHash(prevHash, seq, entry) !== row.hash) return 'its content does not match its hash (edited)';
  if (row.account_id !== null && row.chain_id !== row.account_id) return 'it belongs to another chain';
  if (row.account_id === null && row.chain_id !== ANONYMOUS_CHAIN_ID) return 'it belongs to another chain';
  return undefined;
}
