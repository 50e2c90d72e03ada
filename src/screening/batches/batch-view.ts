import { sql } from 'kysely';
import { isUuid } from '../../ids.js';
import type { Db } from '../../store/database.js';
import { countItems } from './batch-queue.js';

export type BatchStatus = 'queued' | 'running' | 'completed' | 'cancelled';

/** One item's outcome as the API shows it. */
export interface BatchResultView {
  index: number;
  reference: string | null;
  screening_id: string | null;
  risk_score: number | null;
  risk_level: string | null;
  flag_count: number | null;
  /** `pending`, `running`, `completed`, `failed` or `cancelled`. */
  status: string;
  error?: string;
}

export interface BatchView {
  id: string;
  status: BatchStatus;
  total: number;
  completed: number;
  failed: number;
  cancelled: number;
  created_at: string;
  completed_at: string | null;
}

/** The account's batch with its counts; undefined when unknown, malformed or another account's. */
export async function findBatch(db: Db, accountId: string, id: string): Promise<BatchView | undefined> {
  if (!isUuid(id)) return undefined;
  const batch = await db
    .selectFrom('batches')
    .select(['id', 'status', 'total', 'created_at', 'completed_at'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!batch) return undefined;
  const counts = await countItems(db, id);
  return {
    id: batch.id,
    status: batch.status as BatchStatus,
    total: Number(batch.total),
    completed: counts.completed,
    failed: counts.failed,
    cancelled: counts.cancelled,
    created_at: new Date(batch.created_at).toISOString(),
    completed_at: batch.completed_at ? new Date(batch.completed_at).toISOString() : null,
  };
}

/** Results in index order after `afterIndex`, at most `limit`. */
export async function batchResults(
  db: Db,
  batchId: string,
  afterIndex: number,
  limit: number,
): Promise<BatchResultView[]> {
  const { rows } = await sql<{
    index: number;
    reference: string | null;
    screening_id: string | null;
    risk_score: number | null;
    risk_level: string | null;
    flag_count: number | null;
    status: string;
    error: string | null;
  }>`
    SELECT index, reference, screening_id, risk_score, risk_level, flag_count, status, error
    FROM batch_items WHERE batch_id = ${batchId} AND index > ${afterIndex}
    ORDER BY index LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({
    index: Number(r.index),
    reference: r.reference,
    screening_id: r.screening_id,
    risk_score: r.risk_score === null ? null : Number(r.risk_score),
    risk_level: r.risk_level,
    flag_count: r.flag_count === null ? null : Number(r.flag_count),
    status: r.status,
    ...(r.error ? { error: r.error } : {}),
  }));
}
