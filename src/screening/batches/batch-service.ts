import type { AuthenticatedKey } from '../../accounts/key-authenticator.js';
import { PLANS } from '../../accounts/plans.js';
import type { UsageLedger } from '../../accounts/usage-ledger.js';
import { type Clock, isoDay } from '../../clock.js';
import { notFound, ServiceError } from '../../errors.js';
import { isUuid, newId } from '../../ids.js';
import type { Source } from '../../sources/source.js';
import type { Db } from '../../store/database.js';
import { closeIfFinished } from './batch-completion.js';
import { type BatchSubmission, checkBatchItems } from './batch-input.js';
import { BATCH_RESULTS_PAGE_MAX } from './batch-policy.js';
import { cancelBatch, insertBatch } from './batch-queue.js';
import { type BatchResultView, type BatchView, batchResults, findBatch } from './batch-view.js';

export interface BatchServiceDeps {
  db: Db;
  clock: Clock;
  usage: UsageLedger;
  sources: () => readonly Source[];
  /** Work was queued, or a batch.complete event: wake the workers of this instance. */
  queued: () => void;
  eventQueued: () => void;
}

export interface QueuedBatch {
  id: string;
  status: 'queued';
  total: number;
  created_at: string;
}

export interface BatchPage extends BatchView {
  results: BatchResultView[];
  next_cursor: string | null;
}

/** Batch screening: submission (all-or-nothing validation and quota check), progress, results, cancellation. */
export class BatchService {
  constructor(private readonly deps: BatchServiceDeps) {}

  /**
   * What refuses a batch before its body is read (the route asks before the body parser runs): a
   * plan without batches, a month with no screening left.
   */
  async admit(key: AuthenticatedKey): Promise<void> {
    if (!PLANS[key.plan].batchScreening) {
      throw new ServiceError(
        'plan-feature-unavailable',
        'Batch screening is available on the Professional and Enterprise plans.',
      );
    }
    await this.deps.usage.assertAvailable(key);
  }

  async submit(key: AuthenticatedKey, submission: BatchSubmission): Promise<QueuedBatch> {
    await this.admit(key);
    const plan = PLANS[key.plan];
    const items = await checkBatchItems(submission, plan, this.deps.sources(), isoDay(this.deps.clock.now()));
    await this.deps.usage.assertRoomFor(key, items.length, 'nothing was queued');
    const id = newId();
    const createdAt = this.deps.clock.now();
    await insertBatch(this.deps.db, { id, accountId: key.accountId, keyId: key.keyId, createdAt }, items);
    this.deps.queued();
    return { id, status: 'queued', total: items.length, created_at: createdAt.toISOString() };
  }

  /** The batch with one page of results after `cursor` (an item index), at most `limit`. */
  async get(accountId: string, id: string, cursor: string | undefined, limit: number): Promise<BatchPage> {
    const batch = await this.find(accountId, id);
    const after = parseCursor(cursor);
    const pageSize = Math.min(limit, BATCH_RESULTS_PAGE_MAX);
    const rows = await batchResults(this.deps.db, id, after, pageSize + 1);
    const results = rows.slice(0, pageSize);
    const more = rows.length > pageSize;
    return { ...batch, results, next_cursor: more ? String(results.at(-1)!.index) : null };
  }

  /** Every result of the batch, in index order (the CSV download). */
  async allResults(accountId: string, id: string): Promise<BatchResultView[]> {
    await this.find(accountId, id);
    return batchResults(this.deps.db, id, -1, Number.MAX_SAFE_INTEGER);
  }

  /** Cancels the items not yet started; items being screened finish. */
  async cancel(accountId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await cancelBatch(this.deps.db, accountId, id, this.deps.clock.now()))) {
      throw notFound('The batch');
    }
    if (await closeIfFinished(this.deps.db, this.deps.clock, id)) this.deps.eventQueued();
  }

  private async find(accountId: string, id: string): Promise<BatchView> {
    const batch = await findBatch(this.deps.db, accountId, id);
    if (!batch) throw notFound('The batch');
    return batch;
  }
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return -1;
  if (!/^\d{1,9}$/.test(cursor)) {
    throw new ServiceError('validation-failed', 'The cursor is not one this service gave.', [
      { pointer: '/cursor', detail: 'must be a next_cursor value from a previous page' },
    ]);
  }
  return Number(cursor);
}
