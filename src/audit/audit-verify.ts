import type { Db } from '../store/database.js';
import type { AuditLogRow } from '../store/schema.js';
import { ANONYMOUS_CHAIN_ID, auditRowHash, GENESIS_HASH } from './audit-chain.js';

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
  breaks: ChainBreak[];
}

/**
 * Recomputes every chain (or one account's) from its first row and reports the first broken row
 * of each: an edited field, a deleted or inserted row, or rows missing after the last one.
 */
export async function verifyAuditChains(db: Db, accountId?: string): Promise<AuditVerification> {
  let heads = db.selectFrom('audit_chain_heads').selectAll().orderBy('chain_id');
  if (accountId !== undefined) heads = heads.where('chain_id', '=', accountId);
  const result: AuditVerification = { ok: true, chains_checked: 0, rows_checked: 0, breaks: [] };
  for (const head of await heads.execute()) {
    result.chains_checked += 1;
    const outcome = await verifyChain(db, head.chain_id, Number(head.seq), head.hash);
    result.rows_checked += outcome.rows;
    if (outcome.break) result.breaks.push(outcome.break);
  }
  result.ok = result.breaks.length === 0;
  return result;
}

async function verifyChain(
  db: Db,
  chainId: string,
  headSeq: number,
  headHash: string,
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
      const problem = checkRow(row, expectedSeq, prevHash);
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
  return { rows };
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
