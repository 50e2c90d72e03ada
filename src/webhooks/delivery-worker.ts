import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { type ClaimedDelivery, cancelClaimed, claimDueDeliveries, releaseClaim } from './delivery-queue.js';
import { retryDelayMs } from './retry-schedule.js';
import type { SecretBox } from './secret-box.js';
import { signatureHeaders } from './signature.js';
import {
  DELIVERY_CONCURRENCY,
  DELIVERY_NUDGE_DELAY_MS,
  DELIVERY_POLL_INTERVAL_MS,
  DELIVERY_REFILL_AT,
  DELIVERY_SHUTDOWN_GRACE_MS,
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
}

/**
 * Sends due deliveries, in every instance: it claims due rows (see `claimDueDeliveries`), makes up
 * to 32 attempts at once, records each outcome and schedules the retry. It looks for due rows
 * every second, within milliseconds of this instance storing a screening, and after each attempt. Time
 * (due, retry times, webhook-timestamp) is the injected clock's; timeouts are real time.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private nudged: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly recorder: AttemptRecorder;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.recorder = new AttemptRecorder(deps.db);
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), DELIVERY_POLL_INTERVAL_MS).unref();
    this.wake();
  }

  /**
   * A screening of this instance may have queued deliveries: look soon. Nudges within a few
   * milliseconds share one look, so a busy instance does not pay a claim query per screening.
   */
  nudge(): void {
    if (this.closed || this.nudged) return;
    this.nudged = setTimeout(() => {
      this.nudged = undefined;
      this.wake();
    }, DELIVERY_NUDGE_DELAY_MS);
  }

  /** Looks for due deliveries now (or right after the claim under way). */
  wake(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimWhileDue().finally(() => {
      this.claiming = undefined;
    });
  }

  /**
   * Resolves once nothing is due and nothing is in flight: every delivery due by the clock's
   * current time has been attempted and recorded. Tests call it after moving the clock.
   */
  async settle(): Promise<void> {
    for (;;) {
      await this.claiming;
      if (this.inFlight.size > 0) {
        await Promise.all([...this.inFlight]);
        continue;
      }
      this.wake();
      await this.claiming;
      if (this.inFlight.size === 0) return;
    }
  }

  /**
   * Stops claiming; attempts in flight get a grace period, then are abandoned: their deliveries are
   * handed back untouched and go out again later (from this or another instance).
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.nudged);
    await this.claiming;
    const grace = new Promise((resolve) => setTimeout(resolve, DELIVERY_SHUTDOWN_GRACE_MS).unref());
    await Promise.race([Promise.all([...this.inFlight]), grace]);
    this.stop.abort();
    await Promise.all([...this.inFlight]);
  }

  private async claimWhileDue(): Promise<void> {
    do {
      this.claimAgain = false;
      const room = DELIVERY_CONCURRENCY - this.inFlight.size;
      if (room <= 0) return; // a finishing attempt wakes the worker again
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDueDeliveries(this.deps.db, this.deps.clock.now(), room);
      } catch (error) {
        this.deps.logger.warn(
          { err: error },
          'claiming webhook deliveries failed; retrying at the next poll',
        );
        return;
      }
      for (const delivery of claimed) this.begin(delivery);
      if (claimed.length === room) this.claimAgain = true;
    } while (this.claimAgain && !this.closed);
  }

  private begin(delivery: ClaimedDelivery): void {
    const running: Promise<void> = this.attempt(delivery)
      .catch((error: unknown) => {
        // The claim's lease runs out and the delivery is attempted again: nothing is lost.
        this.deps.logger.error({ err: error, delivery: delivery.id }, 'recording a webhook attempt failed');
      })
      .finally(() => {
        this.inFlight.delete(running);
        // Claims are batched: a claim costs about as much for 1 row as for 32, so the worker
        // refills once half its slots are free rather than after every attempt.
        if (this.inFlight.size <= DELIVERY_REFILL_AT) this.wake();
      });
    this.inFlight.add(running);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { clock, db } = this.deps;
    if (delivery.webhookDeleted) {
      await cancelClaimed(db, delivery, clock.now());
      return;
    }
    const attemptedAt = clock.now();
    const result = await this.send(delivery, attemptedAt);
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
  }

  private async send(delivery: ClaimedDelivery, attemptedAt: Date): Promise<SendResult> {
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
    return this.deps.sender.send(delivery.url, body, headers, this.stop.signal);
  }
}
