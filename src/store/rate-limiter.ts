import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';

/** The window of every per-key limit. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/**
 * Per-key request limits over a 60 s window that starts with the key's first request in it
 * (rate-limiter-flexible's fixed window). With Redis the count is shared by every instance;
 * when Redis is unreachable each instance falls back to its own in-memory count rather than
 * refusing or admitting everything.
 */
export class RequestRateLimiter {
  private readonly limiters = new Map<number, RateLimiterMemory | RateLimiterRedis>();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly keyPrefix: string,
  ) {}

  async consume(subject: string, limitPerWindow: number): Promise<RateLimitDecision> {
    const limiter = this.limiterFor(limitPerWindow);
    try {
      return decision(await limiter.consume(subject), true, limitPerWindow);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      return decision(rejection as RateLimiterRes, false, limitPerWindow);
    }
  }

  // One limiter per distinct limit, because an account may carry its own override.
  private limiterFor(points: number): RateLimiterMemory | RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      const options = {
        points,
        duration: RATE_LIMIT_WINDOW_SECONDS,
        keyPrefix: `${this.keyPrefix}rl:${points}`,
      };
      limiter = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory(options),
          })
        : new RateLimiterMemory(options);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

function decision(res: RateLimiterRes, allowed: boolean, limit: number): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * Counts failures (of sign-in attempts) per subject over a fixed window that starts with the first
 * failure; once `maxFailures` are counted the subject is refused until the window ends. Shared by
 * every instance through Redis, with the same in-memory insurance as the request limiter.
 */
export class FailureLimiter {
  private readonly limiter: RateLimiterMemory | RateLimiterRedis;

  constructor(
    redis: Redis | undefined,
    keyPrefix: string,
    name: string,
    private readonly maxFailures: number,
    windowSeconds: number,
  ) {
    const options = { points: maxFailures, duration: windowSeconds, keyPrefix: `${keyPrefix}${name}` };
    this.limiter = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  /** Whole seconds until the subject may try again, or undefined when it may now. */
  async retryAfterSeconds(subject: string): Promise<number | undefined> {
    const res = await this.limiter.get(subject);
    if (!res || res.consumedPoints < this.maxFailures) return undefined;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  }

  async recordFailure(subject: string): Promise<void> {
    try {
      await this.limiter.consume(subject);
    } catch (rejection) {
      // Over the limit already: the subject stays refused; only real errors matter here.
      if (rejection instanceof Error) throw rejection;
    }
  }

  /** Forgets the subject's failures (after a success). */
  async reset(subject: string): Promise<void> {
    await this.limiter.delete(subject);
  }
}
