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
  BATCH_GROUP_ITEMS,
  BATCH_GROUPS_IN_FLIGHT,
  BATCH_POLL_INTERVAL_MS,
  BATCH_SHUTDOWN_GRACE_MS,
} from './batch-policy.js';
import {
  type ClaimedItem,
  claimItems,
  itemsCompletedStatement,
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
 * Screens batch items, in every instance: claims open items (see `claimItems`), screens them in
 * groups of one batch exactly as `POST /v1/screen` would for the key that submitted the batch
 * (cache, quota, stored screening, screening.complete webhook, audit row), and records their
 * outcomes in the statement that counts them. The last group of a batch in flight here checks
 * whether the batch is done and closes it.
 */
export class BatchWorker {
  private readonly loop: ClaimLoop<ClaimedItem[]>;
  /** Groups of each batch in flight here: only the last of them checks whether the batch is done. */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly deps: BatchWorkerDeps) {
    this.loop = new ClaimLoop({
      what: 'batch items',
      logger: deps.logger,
      claim: async (room) => groupsOf(await claimItems(deps.db, deps.clock.now(), room * BATCH_GROUP_ITEMS)),
      run: (group, stop) => this.process(group, stop),
      concurrency: BATCH_GROUPS_IN_FLIGHT,
      refillAt: BATCH_GROUPS_IN_FLIGHT / 2,
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

  private async process(group: ClaimedItem[], stop: AbortSignal): Promise<void> {
    const batchId = group[0]!.batchId;
    this.inFlight.set(batchId, (this.inFlight.get(batchId) ?? 0) + 1);
    let last = false;
    try {
      await this.screen(group, stop);
    } finally {
      const left = this.inFlight.get(batchId)! - 1;
      if (left === 0) this.inFlight.delete(batchId);
      else this.inFlight.set(batchId, left);
      last = left === 0;
    }
    // The group that finishes a batch is the last in flight in its instance, whichever instance
    // that is, and it checks after its own outcomes are stored: the batch is closed, once.
    if (last && (await closeIfFinished(this.deps.db, this.deps.clock, batchId))) this.deps.onBatchClosed();
  }

  private async screen(group: ClaimedItem[], stop: AbortSignal): Promise<void> {
    const { db, clock } = this.deps;
    if (stop.aborted) {
      // Shutting down before it started: hand it back for another instance (or the restart).
      await releaseItems(db, group);
      return;
    }
    const started = performance.now();
    const [first] = group as [ClaimedItem];
    const outcomes = first.accountActive
      ? await this.deps.screening.screenGroup(
          { accountId: first.accountId, keyId: first.keyId, plan: first.plan },
          group.map((item) => item.request),
          (screened) => ({
            batch_items: itemsCompletedStatement(
              screened.map(({ index, result }) => ({ item: group[index]!, result })),
              clock.now(),
            ),
          }),
        )
      : group.map(() => new ServiceError('account-suspended', 'The account is suspended.'));
    const latencyMs = millisecondsSince(started);
    for (const [i, outcome] of outcomes.entries()) {
      const item = group[i]!;
      if (outcome instanceof ServiceError) {
        await markItemFailed(db, item, `${outcome.code}: ${outcome.detail}`, clock.now());
        this.audit(item, this.deps.statusOf(outcome.code), latencyMs);
      } else this.audit(item, 200, latencyMs);
    }
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

/** Claimed items in groups of one batch (one key), at most BATCH_GROUP_ITEMS each, in claim order. */
function groupsOf(items: readonly ClaimedItem[]): ClaimedItem[][] {
  const groups: ClaimedItem[][] = [];
  const filling = new Map<string, ClaimedItem[]>();
  for (const item of items) {
    let group = filling.get(item.batchId);
    if (!group || group.length === BATCH_GROUP_ITEMS) {
      group = [];
      filling.set(item.batchId, group);
      groups.push(group);
    }
    group.push(item);
  }
  return groups;
}
