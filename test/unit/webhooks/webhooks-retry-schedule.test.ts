import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, maxRetryJitterMs, retryDelayMs } from '../../../src/webhooks/retry-schedule.js';

const MINUTE = 60_000;

describe('webhook retry schedule', () => {
  it('retries 1, 5, 15, 60 and 1,440 minutes after each failure, then gives up', () => {
    const noJitter = () => 0;
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, noJitter))).toEqual([
      1 * MINUTE,
      5 * MINUTE,
      15 * MINUTE,
      60 * MINUTE,
      1_440 * MINUTE,
      undefined,
    ]);
    expect(MAX_ATTEMPTS).toBe(6);
  });

  it('adds a small jitter that never makes a retry early: at most 5 % of the delay and one minute', () => {
    const almostOne = () => 0.999_999;
    expect(maxRetryJitterMs(1)).toBe(3_000);
    expect(maxRetryJitterMs(2)).toBe(15_000);
    expect(maxRetryJitterMs(3)).toBe(45_000);
    expect(maxRetryJitterMs(4)).toBe(60_000);
    expect(maxRetryJitterMs(5)).toBe(60_000);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const nominal = retryDelayMs(attempt, () => 0)!;
      const latest = retryDelayMs(attempt, almostOne)!;
      expect(latest).toBeGreaterThan(nominal);
      expect(latest).toBeLessThan(nominal + maxRetryJitterMs(attempt));
      for (let i = 0; i < 100; i++) {
        const delay = retryDelayMs(attempt)!;
        expect(delay).toBeGreaterThanOrEqual(nominal);
        expect(delay).toBeLessThan(nominal + maxRetryJitterMs(attempt));
      }
    }
  });
});
