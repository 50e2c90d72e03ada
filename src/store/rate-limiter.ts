import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisCircuit } from './redis-circuit.js';

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
 * refusing or admitting everything. While the circuit says Redis hangs, the request goes to that
 * count at once instead of waiting for a command to time out.
 */
export class RequestRateLimiter {
  private readonly limiters = new Map<number, Limiters>();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly keyPrefix: string,
    private readonly circuit?: RedisCircuit,
  ) {}

  async consume(subject: string, limitPerWindow: number): Promise<RateLimitDecision> {
    const { shared, local } = this.limitersFor(limitPerWindow);
    const limiter = shared && this.circuit?.allows() !== false ? shared : local;
    try {
      return decision(await limiter.consume(subject), true, limitPerWindow);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      return decision(rejection as RateLimiterRes, false, limitPerWindow);
    }
  }

  // One pair per distinct limit, because an account may carry its own override.
  private limitersFor(points: number): Limiters {
    let limiters = this.limiters.get(points);
    if (!limiters) {
      const options = {
        points,
        duration: RATE_LIMIT_WINDOW_SECONDS,
        keyPrefix: `${this.keyPrefix}rl:${points}`,
      };
      const local = new RateLimiterMemory(options);
      // The local count is also the shared one's insurance: a command that fails counts there too.
      const shared = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            rejectIfRedisNotReady: true,
            insuranceLimiter: local,
          })
        : undefined;
      limiters = { shared, local };
      this.limiters.set(points, limiters);
    }
    return limiters;
  }
}

/** The count shared through Redis (when there is one) and this instance's own. */
interface Limiters {
  shared: RateLimiterRedis | undefined;
  local: RateLimiterMemory;
}

function decision(res: RateLimiterRes, allowed: boolean, limit: number): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}
