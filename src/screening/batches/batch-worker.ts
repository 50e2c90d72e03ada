import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { inBackground } from '../../background-work.js';
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
import { type ClaimedItem, claimItems, itemsCompletedStatement, markItemsFailed } from './batch-queue.js';

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
export class BatchWorker extends ClaimLoop<ClaimedItem[]> {
  /** Groups of each batch in flight here: only the last of them checks whether the batch is done. */
  private readonly groupsInFlight = new Map<string, number>();

  constructor(private readonly deps: BatchWorkerDeps) {
    super({
      what: 'batch items',
      logger: deps.logger,
      concurrency: BATCH_GROUPS_IN_FLIGHT,
      refillAt: BATCH_GROUPS_IN_FLIGHT / 2,
      pollIntervalMs: BATCH_POLL_INTERVAL_MS,
      nudgeDelayMs: 0,
      shutdownGraceMs: BATCH_SHUTDOWN_GRACE_MS,
    });
  }

  // Claims and groups run as background work: requests are served first (background-work.ts).
  protected claim(room: number): Promise<ClaimedItem[][]> {
    return inBackground(async () =>
      groupsOf(await claimItems(this.deps.db, this.deps.clock.now(), room * BATCH_GROUP_ITEMS)),
    );
  }

  // A group is not abandoned at shutdown: the loop waits for it, as a screening takes seconds at most.
  protected run(group: ClaimedItem[]): Promise<void> {
    return inBackground(() => this.runGroup(group));
  }

  private async runGroup(group: ClaimedItem[]): Promise<void> {
    const batchId = group[0]!.batchId;
    this.groupsInFlight.set(batchId, (this.groupsInFlight.get(batchId) ?? 0) + 1);
    let last = false;
    try {
      await this.screen(group);
    } finally {
      const left = this.groupsInFlight.get(batchId)! - 1;
      if (left === 0) this.groupsInFlight.delete(batchId);
      else this.groupsInFlight.set(batchId, left);
      last = left === 0;
    }
    // The group that finishes a batch is the last in flight in its instance, whichever instance
    // that is, and it checks after its own outcomes are stored: the batch is closed, once.
    if (last && (await closeIfFinished(this.deps.db, this.deps.clock, batchId))) this.deps.onBatchClosed();
  }

  private async screen(group: ClaimedItem[]): Promise<void> {
    const { db, clock } = this.deps;
    const started = performance.now();
    const [first] = group as [ClaimedItem];
    const outcomes = first.accountActive
      ? await this.deps.screening.screenGroup(
          { accountId: first.accountId, keyId: first.keyId, plan: first.plan },
          group.map((item) => ({ request: item.request, requestId: itemRequestId(item) })),
          (screened) => ({
            batch_items: itemsCompletedStatement(
              screened.map(({ index, result }) => ({ item: group[index]!, result })),
              clock.now(),
            ),
          }),
        )
      : group.map(() => new ServiceError('account-suspended', 'The account is suspended.'));
    const failed = outcomes.flatMap((outcome, i) =>
      outcome instanceof ServiceError
        ? [{ item: group[i]!, error: `${outcome.code}: ${outcome.detail}` }]
        : [],
    );
    if (failed.length > 0) await markItemsFailed(db, failed, clock.now());
    const latencyMs = millisecondsSince(started);
    outcomes.forEach((outcome, i) => {
      this.audit(
        group[i]!,
        outcome instanceof ServiceError ? this.deps.statusOf(outcome.code) : 200,
        latencyMs,
      );
    });
  }

  /** The item's audit row, as the request `POST /v1/screen` would have left. */
  private audit(item: ClaimedItem, status: number, latencyMs: number): void {
    this.deps.audit.record({
      id: randomUUID(),
      request_id: itemRequestId(item),
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

/** The id an item's screening is audited under (its audit row's, and its stored screening's). */
function itemRequestId(item: ClaimedItem): string {
  return `${item.batchId}:${item.index}`;
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
