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
