import type { FastifyBaseLogger } from 'fastify';

export interface ClaimLoopOptions {
  /** What the jobs are, for the log ("webhook deliveries"). */
  what: string;
  logger: FastifyBaseLogger;
  /** Jobs at once in this instance. */
  concurrency: number;
  /** Claim more once no more than this many jobs are in flight (a claim costs the same for 1 or 32). */
  refillAt: number;
  pollIntervalMs: number;
  /** Nudges within this long share one look. */
  nudgeDelayMs: number;
  /** At shutdown, jobs in flight get this long before `stop` aborts them. */
  shutdownGraceMs: number;
}

/**
 * The worker loop of a durable job table, in every instance: it claims due rows (up to its free
 * slots), runs them concurrently, and looks again on a timer, when nudged (work was queued on this
 * instance) and whenever enough slots are free. A job whose run throws is logged; its claim's
 * lease makes it due again, so nothing is lost. A worker says how to claim and how to run a job.
 */
export abstract class ClaimLoop<T> {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private nudged: NodeJS.Timeout | undefined;
  private closed = false;
  /** Until `start`, nudges and wakes look for nothing: the owner decides when the work may begin. */
  private started = false;

  constructor(private readonly options: ClaimLoopOptions) {}

  /** Claims up to `room` due jobs for this instance (rows taken with FOR UPDATE SKIP LOCKED). */
  protected abstract claim(room: number): Promise<T[]>;

  /** Does one claimed job; `stop` aborts when the grace period at shutdown is over. */
  protected abstract run(job: T, stop: AbortSignal): Promise<void>;

  start(): void {
    if (this.closed) return;
    this.started = true;
    this.timer = setInterval(() => this.wake(), this.options.pollIntervalMs).unref();
    this.wake();
  }

  /** Work may have been queued: look soon (nudges close together share one look). */
  nudge(): void {
    if (this.closed || this.nudged) return;
    this.nudged = setTimeout(() => {
      this.nudged = undefined;
      this.wake();
    }, this.options.nudgeDelayMs);
  }

  /** Looks for due jobs now (or right after the claim under way). */
  wake(): void {
    if (this.closed || !this.started) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimWhileDue().finally(() => {
      this.claiming = undefined;
    });
  }

  /** Resolves once nothing is due and nothing is in flight (tests, after moving the clock). */
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

  /** Stops claiming; jobs in flight get the grace period, then their `stop` signal aborts. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.nudged);
    await this.claiming;
    const grace = new Promise((resolve) => setTimeout(resolve, this.options.shutdownGraceMs).unref());
    await Promise.race([Promise.all([...this.inFlight]), grace]);
    this.stop.abort();
    await Promise.all([...this.inFlight]);
  }

  private async claimWhileDue(): Promise<void> {
    do {
      this.claimAgain = false;
      const room = this.options.concurrency - this.inFlight.size;
      if (room <= 0) return; // a finishing job wakes the loop again
      let claimed: T[];
      try {
        claimed = await this.claim(room);
      } catch (error) {
        this.options.logger.warn(
          { err: error },
          `claiming ${this.options.what} failed; retrying at the next poll`,
        );
        return;
      }
      for (const job of claimed) this.begin(job);
      if (claimed.length === room) this.claimAgain = true;
    } while (this.claimAgain && !this.closed);
  }

  private begin(job: T): void {
    const running: Promise<void> = this.run(job, this.stop.signal)
      .catch((error: unknown) => {
        this.options.logger.error(
          { err: error },
          `one of the ${this.options.what} failed; its lease will return it`,
        );
      })
      .finally(() => {
        this.inFlight.delete(running);
        if (this.inFlight.size <= this.options.refillAt) this.wake();
      });
    this.inFlight.add(running);
  }
}
