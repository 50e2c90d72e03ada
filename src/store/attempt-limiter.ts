import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisCircuit } from './redis-circuit.js';

/**
 * Counts attempts (of sign-in) per subject over a fixed window that starts with the first attempt;
 * once `maxAttempts` are counted, further ones are refused until the window ends. An attempt is
 * counted before the work it guards, in one atomic step, so a burst of parallel attempts cannot
 * all pass a check that each of them read before any was counted.
 */
export interface AttemptLimiter {
  /** Counts an attempt: whole seconds to wait when it is refused, or undefined when it may go on. */
  take(subject: string): Promise<number | undefined>;
  /** Gives back an attempt that `take` let through and that turned out not to count. */
  giveBack(subject: string): Promise<void>;
  /** Forgets the subject's attempts. */
  reset(subject: string): Promise<void>;
}

/**
 * The attempt limiter on Redis, shared by every instance; when Redis is unreachable each instance
 * counts in memory (rate-limiter-flexible's insurance) rather than refusing or admitting all, and
 * goes there at once while the circuit says Redis hangs.
 */
export class RedisAttemptLimiter implements AttemptLimiter {
  private readonly shared: RateLimiterRedis;
  private readonly local: RateLimiterMemory;

  constructor(
    redis: Redis,
    keyPrefix: string,
    name: string,
    maxAttempts: number,
    windowSeconds: number,
    private readonly circuit?: RedisCircuit,
  ) {
    const options = { points: maxAttempts, duration: windowSeconds, keyPrefix: `${keyPrefix}${name}` };
    this.local = new RateLimiterMemory(options);
    this.shared = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: this.local,
    });
  }

  private get limiter(): RateLimiterRedis | RateLimiterMemory {
    return this.circuit?.allows() === false ? this.local : this.shared;
  }

  async take(subject: string): Promise<number | undefined> {
    try {
      await this.limiter.consume(subject);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      return Math.max(1, Math.ceil((rejection as RateLimiterRes).msBeforeNext / 1000));
    }
  }

  async giveBack(subject: string): Promise<void> {
    await this.limiter.reward(subject, 1);
  }

  async reset(subject: string): Promise<void> {
    await this.limiter.delete(subject);
  }
}
