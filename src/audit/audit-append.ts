import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { WorkSlices } from '../work-slices.js';
import { ANONYMOUS_CHAIN_ID, type AuditEntry, auditRowHash, GENESIS_HASH } from './audit-chain.js';

/**
 * Appends rows to their accounts' chains in the caller's transaction: each chain's head is locked
 * (in a fixed order, so two writers of the same accounts cannot deadlock) until it commits, so
 * concurrent writers, in this or another instance, keep every chain linear. The AuditWriter's
 * flushes and the transactions of audited changes (audited-change.ts) both append through here.
 */
export async function appendAuditRows(trx: Db, batch: readonly AuditEntry[]): Promise<void> {
  const chains = new Map<string, AuditEntry[]>();
  for (const entry of batch) {
    const chainId = entry.account_id ?? ANONYMOUS_CHAIN_ID;
    const chain = chains.get(chainId);
    if (chain) chain.push(entry);
    else chains.set(chainId, [entry]);
  }
  const chainIds = [...chains.keys()].sort();
  await trx
    .insertInto('audit_chain_heads')
    .values(chainIds.map((chain_id) => ({ chain_id, seq: 0, hash: GENESIS_HASH })))
    .onConflict((oc) => oc.column('chain_id').doNothing())
    .execute();
  const heads = await trx
    .selectFrom('audit_chain_heads')
    .selectAll()
    .where('chain_id', 'in', chainIds)
    .orderBy('chain_id')
    .forUpdate()
    .execute();
  const rows = [];
  // An import's 100,000 rows took 1.7 s to hash: the event loop gets a turn every slice.
  const slices = new WorkSlices();
  for (const head of heads) {
    let seq = Number(head.seq);
    let hash = head.hash;
    for (const entry of chains.get(head.chain_id) ?? []) {
      if (slices.due()) await slices.pause();
      seq += 1;
      const next = auditRowHash(hash, seq, entry);
      rows.push({ ...entry, chain_id: head.chain_id, seq, prev_hash: hash, hash: next });
      hash = next;
    }
    await trx
      .updateTable('audit_chain_heads')
      .set({ seq, hash })
      .where('chain_id', '=', head.chain_id)
      .execute();
  }
  await insertAuditRows(trx, rows);
}

type ChainedRow = AuditEntry & { chain_id: string; seq: number; prev_hash: string; hash: string };

/**
 * One INSERT ... SELECT FROM unnest(arrays): 22 parameters whatever the batch size, where a
 * multi-row VALUES list would send (and make the server parse) 22 per row.
 */
async function insertAuditRows(trx: Db, rows: ChainedRow[]): Promise<void> {
  const column = <K extends keyof ChainedRow>(key: K) => rows.map((row) => row[key]);
  const nullable = <K extends keyof ChainedRow>(key: K) => rows.map((row) => row[key] ?? null);
  await sql`
    INSERT INTO audit_log (id, chain_id, seq, request_id, occurred_at, account_id, key_id, key_prefix, key_last4,
      method, route, path, status, latency_ms, client_ip, user_agent, prev_hash, hash, user_id,
      action, record_id, record_hash)
    SELECT * FROM unnest(
      ${column('id')}::uuid[], ${column('chain_id')}::uuid[], ${column('seq')}::bigint[],
      ${column('request_id')}::text[], ${column('occurred_at')}::timestamptz[], ${column('account_id')}::uuid[],
      ${column('key_id')}::uuid[], ${column('key_prefix')}::text[], ${column('key_last4')}::text[],
      ${column('method')}::text[], ${column('route')}::text[], ${column('path')}::text[], ${column('status')}::int[],
      ${column('latency_ms')}::float8[], ${column('client_ip')}::text[], ${column('user_agent')}::text[],
      ${column('prev_hash')}::text[], ${column('hash')}::text[], ${nullable('user_id')}::uuid[],
      ${nullable('action')}::text[], ${nullable('record_id')}::text[], ${nullable('record_hash')}::text[])`.execute(
    trx,
  );
}
