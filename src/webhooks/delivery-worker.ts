import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import { ClaimLoop } from '../store/claim-loop.js';
import type { Db } from '../store/database.js';
import { AttemptRecorder } from './attempt-recorder.js';
import {
  type ClaimedDelivery,
  cancelClaimed,
  claimDueDeliveries,
  fanOutEvents,
  releaseClaim,
} from './delivery-queue.js';
import { DeliveryShares } from './delivery-shares.js';
import { retryDelayMs } from './retry-schedule.js';
import type { SecretBox } from './secret-box.js';
import { signatureHeaders } from './signature.js';
import {
  DELIVERY_CONCURRENCY,
  DELIVERY_NUDGE_DELAY_MS,
  DELIVERY_POLL_INTERVAL_MS,
  DELIVERY_REFILL_AT,
  DELIVERY_SHUTDOWN_GRACE_MS,
  FAN_OUT_EVENTS_PER_STATEMENT,
} from './webhook-policy.js';
import type { SendResult, WebhookSender } from './webhook-sender.js';
import { webhookSecretContext } from './webhook-store.js';

export interface DeliveryWorkerDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  secrets: SecretBox;
  sender: WebhookSender;
  /** Jitter of the retry delays; tests may pin it. */
  random?: () => number;
  /** Told of each recorded attempt's outcome (metrics). */
  onAttempt?: (ok: boolean) => void;
}

/**
 * Sends due deliveries, in every instance: it claims due rows (see `claimDueDeliveries`), makes up
 * to 32 attempts at once (at most 16 for one account's webhooks, 8 for one webhook), records each outcome and schedules the retry. It looks for due rows
 * every second, within milliseconds of this instance storing a screening, and after each attempt. Time
 * (due, retry times, webhook-timestamp) is the injected clock's; timeouts are real time.
 */
export class DeliveryWorker extends ClaimLoop<ClaimedDelivery> {
  private readonly recorder: AttemptRecorder;
  private readonly shares = new DeliveryShares();

  constructor(private readonly deps: DeliveryWorkerDeps) {
    super({
      what: 'webhook deliveries',
      logger: deps.logger,
      concurrency: DELIVERY_CONCURRENCY,
      refillAt: DELIVERY_REFILL_AT,
      pollIntervalMs: DELIVERY_POLL_INTERVAL_MS,
      nudgeDelayMs: DELIVERY_NUDGE_DELAY_MS,
      shutdownGraceMs: DELIVERY_SHUTDOWN_GRACE_MS,
    });
    this.recorder = new AttemptRecorder(deps.db);
  }

  /** Stops as every claim loop does, then closes the connections kept open to receivers. */
  override async close(): Promise<void> {
    await super.close();
    this.deps.sender.close();
  }

  /** Makes the deliveries of every queued event first (see webhook-outbox.ts), then claims due ones. */
  protected async claim(room: number): Promise<ClaimedDelivery[]> {
    const { db, clock } = this.deps;
    while ((await fanOutEvents(db, FAN_OUT_EVENTS_PER_STATEMENT)) === FAN_OUT_EVENTS_PER_STATEMENT) {}
    return claimDueDeliveries(db, clock.now(), room, this.shares);
  }

  protected async run(delivery: ClaimedDelivery, stop: AbortSignal): Promise<void> {
    this.shares.begin(delivery);
    try {
      await this.attempt(delivery, stop);
    } finally {
      this.shares.end(delivery);
    }
  }

  private async attempt(delivery: ClaimedDelivery, stop: AbortSignal): Promise<void> {
    const { clock, db } = this.deps;
    if (delivery.webhookDeleted) {
      await cancelClaimed(db, delivery, clock.now());
      return;
    }
    const attemptedAt = clock.now();
    const result = await this.send(delivery, attemptedAt, stop);
    if (result.abandoned) {
      await releaseClaim(db, delivery, clock.now());
      return;
    }
    const finishedAt = clock.now();
    const delay = result.ok ? undefined : retryDelayMs(delivery.attempt, this.deps.random);
    await this.recorder.record({
      delivery,
      attemptedAt,
      finishedAt,
      ok: result.ok,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      nextAttemptAt: delay === undefined ? undefined : new Date(finishedAt.getTime() + delay),
    });
    this.deps.onAttempt?.(result.ok);
  }

  private async send(delivery: ClaimedDelivery, attemptedAt: Date, stop: AbortSignal): Promise<SendResult> {
    let secret: string;
    try {
      if (delivery.secretCiphertext === null) throw new Error('the webhook has no secret');
      secret = this.deps.secrets.open(delivery.secretCiphertext, webhookSecretContext(delivery.webhookId));
    } catch (error) {
      // The cause (often a SECRET_KEY that differs between instances) is for the operator's log.
      this.deps.logger.error({ err: error, webhook: delivery.webhookId }, 'webhook secret unreadable');
      const error_ =
        "not sent: the service could not read this webhook's signing secret (its operator has the details)";
      return { ok: false, statusCode: null, error: error_, durationMs: 0, abandoned: false };
    }
    const body = Buffer.from(delivery.payload, 'utf8');
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const headers = signatureHeaders(secret, delivery.id, timestamp, body);
    return this.deps.sender.send(delivery.url, body, headers, stop);
  }
}
