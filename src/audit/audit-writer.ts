import type { Db } from '../store/database.js';
import { appendAuditRows } from './audit-append.js';
import type { AuditEntry } from './audit-chain.js';

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
        await this.db.transaction().execute((trx) => appendAuditRows(trx, batch));
      } catch (error) {
        this.queue = batch.concat(this.queue);
        this.onError(error);
        this.timer ??= setTimeout(() => void this.flush(), AUDIT_FLUSH_INTERVAL_MS * 10).unref();
        return;
      }
    }
  }
}
