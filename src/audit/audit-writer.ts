import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { ANONYMOUS_CHAIN_ID, type AuditEntry, auditRowHash, GENESIS_HASH } from './audit-chain.js';

/** Rows wait in memory at most this long before they are written (one transaction per flush). */
export const AUDIT_FLUSH_INTERVAL_MS = 100;
/**
 * Past this many unwritten rows (the database has been failing for a while) the service refuses
 * new audited requests with 503 rather than serve what it cannot record or grow without bound.
 */
export const AUDIT_QUEUE_MAX_ROWS = 100_000;
/** A flush starts early once this many rows wait; also the most rows written per transaction. */
export const AUDIT_FLUSH_BATCH_ROWS = 500;

/**
 * Appends audit rows in batches: one transaction per flush extends each account's hash chain
 * under a row lock on the chain head, so instances writing concurrently keep every chain linear.
 * Rows that cannot be written (database down) stay queued and are retried; shutdown flushes.
 */
export class AuditWriter {
  private queue: AuditEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private writing = false;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
    private readonly maxRows = AUDIT_QUEUE_MAX_ROWS,
  ) {}

  record(entry: AuditEntry): void {
    this.queue.push(entry);
    // A write in progress drains the queue to the end, so it needs no further trigger.
    if (this.writing) return;
    if (this.queue.length >= AUDIT_FLUSH_BATCH_ROWS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), AUDIT_FLUSH_INTERVAL_MS).unref();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** When the oldest unwritten row's request happened; undefined when nothing waits. */
  get oldestPendingAt(): Date | undefined {
    return this.queue[0]?.occurred_at;
  }

  /** True while the backlog is over its bound: new audited requests must be refused. */
  get saturated(): boolean {
    return this.queue.length >= this.maxRows;
  }

  /** Writes everything queued so far; resolves when it is stored (or has failed and is re-queued). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.running.then(() => this.writeQueued());
    return this.running;
  }

  // Writes in transactions of at most AUDIT_FLUSH_BATCH_ROWS rows (bounded statement size and lock
  // time) until the queue is empty; a failed batch goes back to the front of the queue.
  private async writeQueued(): Promise<void> {
    this.writing = true;
    try {
      await this.drain();
    } finally {
      this.writing = false;
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, AUDIT_FLUSH_BATCH_ROWS);
      this.queue = this.queue.slice(batch.length);
      try {
        await this.db.transaction().execute((trx) => appendRows(trx, batch));
      } catch (error) {
        this.queue = batch.concat(this.queue);
        this.onError(error);
        this.timer ??= setTimeout(() => void this.flush(), AUDIT_FLUSH_INTERVAL_MS * 10).unref();
        return;
      }
    }
  }
}

async function appendRows(trx: Db, batch: AuditEntry[]): Promise<void> {
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
  // Locked in a fixed order, so two instances flushing the same accounts cannot deadlock.
  const heads = await trx
    .selectFrom('audit_chain_heads')
    .selectAll()
    .where('chain_id', 'in', chainIds)
    .orderBy('chain_id')
    .forUpdate()
    .execute();
  const rows = [];
  for (const head of heads) {
    let seq = Number(head.seq);
    let hash = head.hash;
    for (const entry of chains.get(head.chain_id) ?? []) {
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
 * One INSERT ... SELECT FROM unnest(arrays): 19 parameters whatever the batch size, where a
 * multi-row VALUES list would send (and make the server parse) 19 per row.
 */
async function insertAuditRows(trx: Db, rows: ChainedRow[]): Promise<void> {
  const column = <K extends keyof ChainedRow>(key: K) => rows.map((row) => row[key]);
  await sql`
    INSERT INTO audit_log (id, chain_id, seq, request_id, occurred_at, account_id, key_id, key_prefix, key_last4,
      method, route, path, status, latency_ms, client_ip, user_agent, prev_hash, hash, user_id)
    SELECT * FROM unnest(
      ${column('id')}::uuid[], ${column('chain_id')}::uuid[], ${column('seq')}::bigint[],
      ${column('request_id')}::text[], ${column('occurred_at')}::timestamptz[], ${column('account_id')}::uuid[],
      ${column('key_id')}::uuid[], ${column('key_prefix')}::text[], ${column('key_last4')}::text[],
      ${column('method')}::text[], ${column('route')}::text[], ${column('path')}::text[], ${column('status')}::int[],
      ${column('latency_ms')}::float8[], ${column('client_ip')}::text[], ${column('user_agent')}::text[],
      ${column('prev_hash')}::text[], ${column('hash')}::text[], ${rows.map((row) => row.user_id ?? null)}::uuid[])`.execute(
    trx,
  );
}
