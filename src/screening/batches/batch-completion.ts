import type { Clock } from '../../clock.js';
import type { Db } from '../../store/database.js';
import { enqueueEventStatements } from '../../webhooks/webhook-outbox.js';
import { closableBatch, closeBatch, countItems } from './batch-queue.js';

/** The body of `batch.complete`: the batch's final counts, with the completed items per risk level. */
export function batchCompletePayload(
  batch: { id: string; status: string; total: number },
  counts: { completed: number; failed: number; riskLevels: Record<string, number> },
  timestamp: string,
): string {
  const levels = { low: 0, medium: 0, high: 0, critical: 0, ...counts.riskLevels };
  return JSON.stringify({
    event: 'batch.complete',
    batch_id: batch.id,
    timestamp,
    data: {
      id: batch.id,
      status: batch.status,
      total: batch.total,
      completed: counts.completed,
      failed: counts.failed,
      risk_levels: levels,
    },
  });
}

/**
 * Closes the batch if none of its items is open any more, and queues its `batch.complete` event in
 * the same statement. Any instance may call it after finishing an item: the last one to finish
 * sees nothing open (each checks after its own item is stored), and the close applies once.
 * Returns whether this call closed the batch.
 */
export async function closeIfFinished(db: Db, clock: Clock, batchId: string): Promise<boolean> {
  const batch = await closableBatch(db, batchId);
  if (!batch) return false;
  const counts = await countItems(db, batchId);
  const now = clock.now();
  const status = batch.status === 'cancelled' ? 'cancelled' : 'completed';
  const payload = batchCompletePayload(
    { id: batchId, status, total: batch.total },
    counts,
    now.toISOString(),
  );
  return closeBatch(db, batchId, now, (gate) =>
    enqueueEventStatements(batch.accountId, 'batch.complete', [{ subjectId: batchId, payload }], now, gate),
  );
}
