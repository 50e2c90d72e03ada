import { type RawBuilder, sql } from 'kysely';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import type { ClaimedDelivery } from './delivery-queue.js';
import { ATTEMPTS_PER_WRITE_MAX, DEGRADED_AFTER_FAILURES } from './webhook-policy.js';

export interface AttemptRecord {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  finishedAt: Date;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** When the next attempt is due; undefined after a success or the last failure. */
  nextAttemptAt: Date | undefined;
}

/** What a batch of attempts does to one webhook's run of failures. */
export interface FailureRun {
  webhookId: string;
  /** A success in the batch: the run restarts from the failures after the last success. */
  reset: boolean;
  /** Failures to add (after the last success when `reset`). */
  failures: number;
  lastAttemptAt: Date;
}

/** Folds attempts, in the order they finished, into each webhook's change of failure run. */
export function failureRuns(records: readonly AttemptRecord[]): FailureRun[] {
  const runs = new Map<string, FailureRun>();
  for (const record of records) {
    const id = record.delivery.webhookId;
    const run = runs.get(id) ?? {
      webhookId: id,
      reset: false,
      failures: 0,
      lastAttemptAt: record.attemptedAt,
    };
    if (record.ok) {
      run.reset = true;
      run.failures = 0;
    } else {
      run.failures++;
    }
    if (record.attemptedAt > run.lastAttemptAt) run.lastAttemptAt = record.attemptedAt;
    runs.set(id, run);
  }
  return [...runs.values()];
}

function deliveryStatus(record: AttemptRecord): string {
  return record.ok ? 'delivered' : record.nextAttemptAt ? 'pending' : 'failed';
}

function values(rows: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return sql.join(rows, sql`, `);
}

/**
 * Records attempts in one statement: each attempt's row, each delivery's new state (only while
 * its claim still holds it and it is pending: a webhook deleted meanwhile stays cancelled), and
 * each webhook's run of failures: 5 in a row make it `degraded`, a success makes it `active`.
 */
export async function recordAttempts(db: Db, records: readonly AttemptRecord[]): Promise<void> {
  const outcomes = records.map((r) => {
    const status = deliveryStatus(r);
    return sql`(${r.delivery.id}::uuid, ${r.delivery.claimToken}::uuid, ${r.delivery.attempt}::int, ${status}::text,
      ${r.nextAttemptAt ?? null}::timestamptz, ${status === 'pending' ? null : r.finishedAt}::timestamptz)`;
  });
  const attempts = records.map(
    (
      r,
    ) => sql`(${newId()}::uuid, ${r.delivery.id}::uuid, ${r.delivery.webhookId}::uuid, ${r.delivery.attempt}::int,
      ${r.attemptedAt}::timestamptz, ${r.statusCode}::int, ${r.durationMs}::float8, ${r.error}::text,
      ${r.nextAttemptAt ?? null}::timestamptz)`,
  );
  const runs = failureRuns(records).map(
    (run) =>
      sql`(${run.webhookId}::uuid, ${run.reset}::boolean, ${run.failures}::int, ${run.lastAttemptAt}::timestamptz)`,
  );
  await sql`
    WITH outcome (delivery_id, claim_token, attempt, status, next_attempt_at, finished_at) AS (VALUES ${values(outcomes)}),
    delivery AS (
      UPDATE webhook_deliveries d SET status = o.status, attempts = o.attempt,
        next_attempt_at = COALESCE(o.next_attempt_at, d.next_attempt_at), claim_token = NULL,
        finished_at = o.finished_at
      FROM outcome o WHERE d.id = o.delivery_id AND d.claim_token = o.claim_token AND d.status = 'pending'
      RETURNING d.id
    ), attempt AS (
      INSERT INTO webhook_attempts (id, delivery_id, webhook_id, attempt, attempted_at, status_code, duration_ms,
        error, next_retry_at)
      VALUES ${values(attempts)}
      RETURNING 1
    ), run (webhook_id, reset, failures, last_attempt_at) AS (VALUES ${values(runs)}),
    counted AS (
      SELECT w.id, CASE WHEN r.reset THEN r.failures ELSE w.consecutive_failures + r.failures END AS failures,
        r.reset, r.last_attempt_at
      FROM webhooks w JOIN run r ON r.webhook_id = w.id
    )
    UPDATE webhooks w SET consecutive_failures = c.failures,
      status = CASE WHEN c.failures >= ${DEGRADED_AFTER_FAILURES} THEN 'degraded' WHEN c.reset THEN 'active' ELSE w.status END,
      last_delivery_at = GREATEST(COALESCE(w.last_delivery_at, c.last_attempt_at), c.last_attempt_at)
    FROM counted c WHERE w.id = c.id`.execute(db);
}

interface Waiting {
  record: AttemptRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes finished attempts as a group: one statement takes every attempt that finished in the same
 * turn of the event loop or while the previous statement was being written (up to 100). Nothing
 * waits to fill a batch; under load batches form by themselves, and the database plans one
 * statement for many attempts (on the embedded database, planning is most of a small write's cost).
 */
export class AttemptRecorder {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly db: Db) {}

  record(record: AttemptRecord): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.waiting.push({ record, resolve, reject }));
    if (!this.writing) {
      this.writing = true;
      // Attempts whose answers arrived in the same turn of the event loop go into the first write.
      setImmediate(() => void this.writeAll());
    }
    return written;
  }

  private async writeAll(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, ATTEMPTS_PER_WRITE_MAX);
      try {
        await recordAttempts(
          this.db,
          batch.map((w) => w.record),
        );
        for (const w of batch) w.resolve();
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.writing = false;
  }
}
