import type { Selectable } from 'kysely';
import { isUuid } from '../../ids.js';
import type { Db } from '../../store/database.js';
import type { BatchItemTable } from '../../store/schema.js';
import type { ScreenedRequest } from '../screened-request.js';
import { countItems } from './batch-queue.js';

export type BatchStatus = 'queued' | 'running' | 'completed' | 'cancelled';

/** The columns of an item's outcome, in the order the API and the CSV download give them. */
export const BATCH_RESULT_COLUMNS = [
  'index',
  'reference',
  'screening_id',
  'risk_score',
  'risk_level',
  'flag_count',
  'status',
  'error',
  'complete',
  'sources_failed',
] as const;

/**
 * The columns of the CSV download taken from the outcome: without the failed sources' structure.
 * Columns are only ever added at the end, for readers that go by position: the request's follow
 * (batch-csv.ts).
 */
export const BATCH_CSV_COLUMNS = [
  'index',
  'reference',
  'screening_id',
  'risk_score',
  'risk_level',
  'flag_count',
  'status',
  'error',
  'complete',
] as const satisfies readonly (typeof BATCH_RESULT_COLUMNS)[number][];

/**
 * One item's outcome as the API shows it: those columns of its row (`status`: pending, running,
 * completed, failed or cancelled), with `error` only on a failed item, and what was asked
 * (`request`, as its screening's answer says it; null on items queued before it was kept).
 */
export type BatchResultView = Omit<
  Pick<Selectable<BatchItemTable>, (typeof BATCH_RESULT_COLUMNS)[number]>,
  'error'
> & { error?: string; request: ScreenedRequest | null };

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
  const rows = await db
    .selectFrom('batch_items')
    .select([...BATCH_RESULT_COLUMNS, 'screened_request'])
    .where('batch_id', '=', batchId)
    .where('index', '>', afterIndex)
    .orderBy('index')
    .limit(limit)
    .execute();
  return rows.map(({ error, screened_request, ...row }) => ({
    ...row,
    request: (screened_request ?? null) as ScreenedRequest | null,
    ...(error ? { error } : {}),
  }));
}
