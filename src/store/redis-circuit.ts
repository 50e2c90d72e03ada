import type { Redis } from 'ioredis';

/** How often the circuit pings Redis to learn whether it answers. */
export const REDIS_PROBE_INTERVAL_MS = 250;
/** A ping unanswered this long means Redis has stalled: callers stop waiting for it. */
export const REDIS_STALL_MS = 250;

/**
 * Decides whether a Redis command is worth sending now. A hung Redis (stopped, or cut off without
 * a reset) keeps its connection "ready", so each command would wait for its timeout: every request
 * would pay it. The circuit opens as soon as a ping goes unanswered for `REDIS_STALL_MS` or a
 * command fails, and closes again only when a ping is answered; while it is open, callers go
 * straight to their per-instance fallback (a local rate limit, a cache miss).
 */
export class RedisCircuit {
  /** When the ping in flight was sent; undefined when none is. */
  private pingSentAt: number | undefined;
  /** A ping or a command failed, and no ping has been answered since. */
  private failed = false;
  /** Counts connections: what a ping sent on an earlier one says is not about this one. */
  private connection = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly redis: Redis) {
    // A connection that just became ready has answered its handshake: it is trusted at once.
    redis.on('ready', () => {
      this.connection += 1;
      this.failed = false;
      this.pingSentAt = undefined;
    });
    this.timer = setInterval(() => this.probe(), REDIS_PROBE_INTERVAL_MS);
    this.timer.unref();
    this.probe();
  }

  /** Whether to send commands now; false: use the fallback at once. */
  allows(): boolean {
    if (this.redis.status !== 'ready' || this.failed) return false;
    return this.pingSentAt === undefined || performance.now() - this.pingSentAt < REDIS_STALL_MS;
  }

  /** A command failed or timed out: skip Redis until it answers a ping again. */
  commandFailed(): void {
    this.failed = true;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private probe(): void {
    // One ping at a time: while Redis hangs they would only pile up in the connection's queue.
    if (this.pingSentAt !== undefined || this.redis.status !== 'ready') return;
    const connection = this.connection;
    this.pingSentAt = performance.now();
    const answered = (ok: boolean) => {
      if (connection !== this.connection) return;
      this.failed = !ok;
      this.pingSentAt = undefined;
    };
    this.redis.ping().then(
      () => answered(true),
      () => answered(false),
    );
  }
}
