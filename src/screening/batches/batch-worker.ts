import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { type Clock, millisecondsSince } from '../../clock.js';
import { type ErrorCode, ServiceError } from '../../errors.js';
import { ClaimLoop } from '../../store/claim-loop.js';
import type { Db } from '../../store/database.js';
import type { ScreeningService } from '../screening-service.js';
import { closeIfFinished } from './batch-completion.js';
import {
  BATCH_CLAIM_ITEMS,
  BATCH_CONCURRENCY,
  BATCH_POLL_INTERVAL_MS,
  BATCH_SHUTDOWN_GRACE_MS,
} from './batch-policy.js';
import {
  type ClaimedItem,
  claimItems,
  itemCompletedStatement,
  markItemFailed,
  releaseItems,
} from './batch-queue.js';

export interface BatchWorkerDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  screening: ScreeningService;
  audit: AuditWriter;
  /** A batch closed here may have queued a batch.complete delivery. */
  onBatchClosed: () => void;
  /** The HTTP status a request failing with this code gets (for the item's audit row). */
  statusOf: (code: ErrorCode) => number;
}

/**
 * Screens batch items, in every instance: claims open items (see `claimItems`), screens each one
 * exactly as `POST /v1/screen` would for the key that submitted the batch (cache, quota, stored
 * screening, screening.complete webhook, audit row), and records its outcome in the statement that
 * counts it. After each item it closes the batch if nothing of it is left open.
 */
export class BatchWorker {
  private readonly loop: ClaimLoop<ClaimedItem>;
  /** Items of each batch in flight here: only the last of them checks whether the batch is done. */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly deps: BatchWorkerDeps) {
    this.loop = new ClaimLoop({
      what: 'batch items',
      logger: deps.logger,
      claim: (room) => claimItems(deps.db, deps.clock.now(), Math.min(room, BATCH_CLAIM_ITEMS)),
      run: (item, stop) => this.process(item, stop),
      concurrency: BATCH_CONCURRENCY,
      refillAt: BATCH_CONCURRENCY / 2,
      pollIntervalMs: BATCH_POLL_INTERVAL_MS,
      nudgeDelayMs: 0,
      shutdownGraceMs: BATCH_SHUTDOWN_GRACE_MS,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** A batch was queued on this instance: start on it now. */
  nudge(): void {
    this.loop.nudge();
  }

  /** Looks for open items now (another instance may have queued some). */
  wake(): void {
    this.loop.wake();
  }

  /** Resolves once no item is open or in flight here (tests). */
  settle(): Promise<void> {
    return this.loop.settle();
  }

  close(): Promise<void> {
    return this.loop.close();
  }

  private async process(item: ClaimedItem, stop: AbortSignal): Promise<void> {
    this.inFlight.set(item.batchId, (this.inFlight.get(item.batchId) ?? 0) + 1);
    let last = false;
    try {
      await this.screen(item, stop);
    } finally {
      const left = this.inFlight.get(item.batchId)! - 1;
      if (left === 0) this.inFlight.delete(item.batchId);
      else this.inFlight.set(item.batchId, left);
      last = left === 0;
    }
    // The item that finishes a batch is the last in flight in its instance, whichever instance
    // that is, and it checks after its own outcome is stored: the batch is closed, once.
    if (last && (await closeIfFinished(this.deps.db, this.deps.clock, item.batchId)))
      this.deps.onBatchClosed();
  }

  private async screen(item: ClaimedItem, stop: AbortSignal): Promise<void> {
    const { db, clock } = this.deps;
    if (stop.aborted) {
      // Shutting down before it started: hand it back for another instance (or the restart).
      await releaseItems(db, [item]);
      return;
    }
    const started = performance.now();
    let status = 200;
    try {
      if (!item.accountActive) throw new ServiceError('account-suspended', 'The account is suspended.');
      const subject = { accountId: item.accountId, keyId: item.keyId, plan: item.plan };
      await this.deps.screening.screen(subject, item.request, (result) => ({
        batch_item: itemCompletedStatement(item, result, clock.now()),
      }));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      status = this.deps.statusOf(error.code);
      await markItemFailed(db, item, `${error.code}: ${error.detail}`, clock.now());
    }
    this.audit(item, status, millisecondsSince(started));
  }

  /** The item's audit row, as the request `POST /v1/screen` would have left. */
  private audit(item: ClaimedItem, status: number, latencyMs: number): void {
    this.deps.audit.record({
      id: randomUUID(),
      request_id: `${item.batchId}:${item.index}`,
      occurred_at: this.deps.clock.now(),
      account_id: item.accountId,
      key_id: item.keyId,
      key_prefix: item.keyPrefix,
      key_last4: item.keyLast4,
      method: 'POST',
      route: '/v1/screen/batch/:id/items/:index',
      path: `/v1/screen/batch/${item.batchId}/items/${item.index}`,
      status,
      latency_ms: latencyMs,
      client_ip: null,
      user_agent: null,
    });
  }
}
